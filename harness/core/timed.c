/*
 * Samples of prepared kernel calls (rtb/bench.h rtb_time_kcall, rtb_time_kcalls).
 *
 * One call a sample: rtb_kcall_timed(), so the window holds the call and
 * nothing else (on a board: the call instruction and the kernel); the
 * result is read after the second stamp.
 *
 * A batch a sample (rtb_batch: a counter too coarse for one call of a few
 * ns): a loop of n calls between the stamps. The loop's own cost is not
 * the kernel's: before the first sample of a metric the same loop runs
 * with every call replaced by an empty function, and the mean of those
 * samples below their 99th percentile (as the timestamp's overhead is
 * taken, core/calib.c) is subtracted from every sample with the stamps'
 * overhead; the record says how much (batch_overhead).
 */
#include "ctx.h"

#define NULL_SAMPLES 64u
#define BATCH_MAX 64u

static rtb_word null_call(rtb_word a0, rtb_word a1, rtb_word a2, rtb_word a3, rtb_word a4,
                          rtb_word a5, rtb_word a6, rtb_word a7)
{
    RTB_KAPI_UNUSED;
    return 0;
}

int rtb_time_kcall(struct rtb_ctx *ctx, struct rtb_kcall *c, int expect)
{
    rtb_stamp_t t0, t1;
    rtb_kcall_timed(c, &t0, &t1);
    int rc = rtb_kcall_rc(c);
    if (rc == expect)
        rtb_add(ctx, t0, t1);
    return rc;
}

/* n calls, walking calls[0..ncalls-1] round; returns kept in rets[]. Not
 * inlined: the real and the empty batches run the same instructions. */
__attribute__((noinline)) static void batch(const struct rtb_kcall *calls, unsigned ncalls,
                                            unsigned n, rtb_word *rets, rtb_stamp_t *t0,
                                            rtb_stamp_t *t1)
{
    const struct rtb_kcall *p = calls, *end = calls + ncalls;
    *t0 = rtb_port_stamp_start();
    for (unsigned i = 0; i < n; i++) {
        rets[i] = p->fn(p->a[0], p->a[1], p->a[2], p->a[3], p->a[4], p->a[5], p->a[6], p->a[7]);
        if (++p == end)
            p = calls;
    }
    *t1 = rtb_port_stamp_end();
}

static void calibrate_batch(struct rtb_ctx *ctx, unsigned ncalls, unsigned n)
{
    struct rtb_kcall nulls[BATCH_MAX];
    rtb_word rets[BATCH_MAX];
    uint64_t v[NULL_SAMPLES];
    for (unsigned i = 0; i < ncalls; i++)
        rtb_kcall_set(&nulls[i], null_call, 0, 0, 0, 0, 0);
    for (unsigned k = 0; k < NULL_SAMPLES; k++) {
        rtb_stamp_t t0, t1;
        batch(nulls, ncalls, n, rets, &t0, &t1);
        int64_t d = rtb_stamp_delta(t0, t1);
        uint64_t u = RTB_PORT_UNITS((rtb_ticks_t)(d > 0 ? d : 0));
        v[k] = u > ctx->overhead ? u - ctx->overhead : 0;
    }
    for (unsigned i = 1; i < NULL_SAMPLES; i++) /* insertion sort: 64 values */
        for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    unsigned keep = NULL_SAMPLES - NULL_SAMPLES / 100u - 1u; /* below the 99th percentile */
    uint64_t sum = 0;
    for (unsigned i = 0; i < keep; i++)
        sum += v[i];
    ctx->batch_overhead = (sum + keep / 2) / keep;
    ctx->batch_calibrated = n;
}

int rtb_time_kcalls(struct rtb_ctx *ctx, const struct rtb_kcall *calls, unsigned ncalls, unsigned n,
                    int expect)
{
    if (n <= 1)
        return rtb_time_kcall(ctx, (struct rtb_kcall *)calls, expect);
    if (n > BATCH_MAX || !ncalls || ncalls > n)
        return RTB_ERR;
    if (ctx->batch_calibrated != n)
        calibrate_batch(ctx, ncalls, n);
    rtb_word rets[BATCH_MAX];
    rtb_stamp_t t0, t1;
    batch(calls, ncalls, n, rets, &t0, &t1);
    int rc = expect;
    for (unsigned i = 0; i < n && rc == expect; i++) {
        struct rtb_kcall c = calls[i % ncalls]; /* after the window: a division is fine here */
        c.ret = rets[i];
        rc = rtb_kcall_rc(&c);
    }
    if (rc == expect)
        rtb_add(ctx, t0, t1);
    return rc;
}

void rtb_time_failing(struct rtb_ctx *ctx, struct rtb_kcall *c, unsigned n, const char *what)
{
    while (rtb_want(ctx)) {
        int rc = rtb_time_kcalls(ctx, c, 1, n, RTB_EWOULDBLOCK);
        if (rc != RTB_EWOULDBLOCK) {
            rtb_ok(ctx, rc == RTB_OK ? RTB_ERR : rc, what);
            break;
        }
    }
}
