/*
 * System section: LMBench lat_ops, the latency of simple CPU operations
 * (TI rows lat_ops-int-add ... lat_ops-double-mul).
 *
 * Each metric runs LMBench's own dependent chain (lat_ops.c), one step
 * after the other through the register r (or f), with LMBench's operands:
 *   bit     r ^= i; r <<= 1        (2 operations per step, as LMBench counts)
 *   add     r = (r + i) ^ r        int;  int64: r += (r + i) (2 operations)
 *   mul     r = (r * i) ^ r
 *   div     r = (r / i) ^ r
 *   mod     r = (r % i) ^ r
 *   float / double add  f += f;  mul  f *= f
 * where i is the outer loop's counter. One sample = STEPS / 100 outer
 * iterations of 100 unrolled steps: rtb_per_sample(ctx, operations, 0).
 * LMBench then subtracts the time of one integer bit operation from the
 * int add/mul/div/mod and int64 mul/div/mod figures (the xor of the
 * step); rtbench does not: those figures include the xor (one cycle on
 * most cores), as the definitions say. A metric measures at most CAP_US.
 */
#include "posix_port.h"
#include "system.h"

#include <stdint.h>

#define STEPS 1000u
#define CAP_US 100000u

static volatile int64_t sink_i;
static volatile double sink_f;
static volatile int seed = 1000; /* LMBench's state.N: not a compile-time constant */

#define TEN(a) a a a a a a a a a a
#define HUNDRED(a) TEN(TEN(a))

/* A chain over a variable of `type`, starting at `init`, step `stmt`. */
#define CHAIN_FN(name, type, init, stmt, sinkv)                   \
    static void run_##name(void)                                  \
    {                                                             \
        type r = (type)(init);                                    \
        for (type i = 1; i < (type)(STEPS / 100 + 1); ++i) {      \
            HUNDRED(stmt)                                         \
        }                                                         \
        sinkv = r;                                                \
    }

CHAIN_FN(int_bit, int, seed, r ^= i; r <<= 1;, sink_i)
CHAIN_FN(int_add, int, seed, r = (r + i) ^ r;, sink_i)
CHAIN_FN(int_mul, int, seed, r = (r * i) ^ r;, sink_i)
CHAIN_FN(int_div, int, seed, r = (r / i) ^ r;, sink_i)
CHAIN_FN(int_mod, int, seed, r = (r % i) ^ r;, sink_i)
CHAIN_FN(int64_bit, uint64_t, seed, r ^= i; r <<= 1;, sink_i)
CHAIN_FN(int64_add, uint64_t, seed, r += (r + i);, sink_i)
CHAIN_FN(int64_mul, uint64_t, seed, r = (r * i) ^ r;, sink_i)
CHAIN_FN(int64_div, uint64_t, seed, r = (r / i) ^ r;, sink_i)
CHAIN_FN(int64_mod, uint64_t, seed, r = (r % i) ^ r;, sink_i)

/* Floating point: the loop counter is an int, the chain a float/double. */
#define FCHAIN_FN(name, type, stmt)                               \
    static void run_##name(void)                                  \
    {                                                             \
        type r = (type)seed;                                      \
        for (int i = 0; i < (int)(STEPS / 100); ++i) {            \
            HUNDRED(stmt)                                         \
        }                                                         \
        sink_f = (double)r;                                       \
    }

FCHAIN_FN(float_add, float, r += r;)
FCHAIN_FN(float_mul, float, r *= r;)
FCHAIN_FN(double_add, double, r += r;)
FCHAIN_FN(double_mul, double, r *= r;)

static void lat_ops(struct rtb_ctx *ctx, void (*run)(void), uint32_t per_step)
{
    rtb_per_sample(ctx, STEPS * per_step, 0);
    rtb_ticks_t end = rtb_port_ts() + rtb_us_to_ticks(ctx, CAP_US);
    while (rtb_want(ctx) && (int64_t)(rtb_port_ts() - end) < 0) {
        rtb_ticks_t t0 = rtb_port_ts();
        run();
        rtb_ticks_t t1 = rtb_port_ts();
        rtb_add(ctx, t0, t1);
        rtb_rest(ctx);
    }
}

#define OPS(X)                                                                  \
    X(int, bit, int_bit, 2) X(int, add, int_add, 1) X(int, mul, int_mul, 1)     \
    X(int, div, int_div, 1) X(int, mod, int_mod, 1) X(int64, bit, int64_bit, 2) \
    X(int64, add, int64_add, 2) X(int64, mul, int64_mul, 1)                     \
    X(int64, div, int64_div, 1) X(int64, mod, int64_mod, 1)                     \
    X(float, add, float_add, 1) X(float, mul, float_mul, 1)                     \
    X(double, add, double_add, 1) X(double, mul, double_mul, 1)

#define OPS_FN(type, op, name, n) \
    static void ops_##name(struct rtb_ctx *ctx) { lat_ops(ctx, run_##name, n); }
OPS(OPS_FN)

#define OPS_ENTRY(type, op, name, n) {"sys.ops." #type "." #op, ops_##name, 0, 0},

const struct rtb_metric rtb_sys_ops_metrics[] = {
    OPS(OPS_ENTRY)
    {0, 0, 0, 0},
};
