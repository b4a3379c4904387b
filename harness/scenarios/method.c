/*
 * Method checks: they measure nothing of the kernel, they check the
 * measurement. method.null must come out at about 0 after the overhead is
 * subtracted; method.busywait must come out at its known length, timed by an
 * independent clock, which checks the overhead and the measured frequency.
 */
#include <rtb/bench.h>

#define BUSYWAIT_NS 50000u

static void null_measurement(struct rtb_ctx *ctx)
{
    while (rtb_want(ctx)) {
        rtb_ticks_t t0 = rtb_port_ts();
        rtb_ticks_t t1 = rtb_port_ts();
        rtb_add(ctx, t0, t1);
    }
}

static void reference_busywait(struct rtb_ctx *ctx)
{
    uint64_t start, now;
    while (rtb_want(ctx)) {
        rtb_rest(ctx);
        rtb_ticks_t t0 = rtb_port_ts();
        rtb_port_ref_ns(&start);
        do {
            rtb_port_ref_ns(&now);
        } while (now - start < BUSYWAIT_NS);
        rtb_ticks_t t1 = rtb_port_ts();
        rtb_add(ctx, t0, t1);
    }
}

const struct rtb_metric rtb_method_metrics[] = {
    {"method.null", null_measurement, 0, 0},
    {"method.busywait", reference_busywait, RTB_CAP_REF_CLOCK, 0},
    {0, 0, 0, 0},
};
