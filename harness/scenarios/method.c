/*
 * Method checks: they measure nothing of the kernel, they check the
 * measurement. method.null must come out at 0 after the overhead is
 * subtracted; method.busywait must come out at its known length (the
 * record's "expected"): on a port with a reference clock, 50 us timed by
 * that independent clock (which checks the overhead and the measured
 * frequency); on a port without one, a piece of work whose cost the port
 * knows exactly (RTB_PORT_KNOWN_WORK: K instructions under QEMU -icount).
 */
#include <rtb/bench.h>

#define BUSYWAIT_US 50u

#define CHECK "a check of the method: rtbench's own code, not a kernel's figure"

static void null_measurement(struct rtb_ctx *ctx)
{
    rtb_unranked(ctx, CHECK);
    while (rtb_want(ctx)) {
        rtb_stamp_t t0 = rtb_port_stamp_start();
        rtb_stamp_t t1 = rtb_port_stamp_end();
        rtb_add(ctx, t0, t1);
    }
}

static void ref_clock_busywait(struct rtb_ctx *ctx)
{
    uint64_t start, now;
    rtb_unranked(ctx, CHECK);
    rtb_expected(ctx, RTB_PORT_UNITS(rtb_us_to_ticks(ctx, BUSYWAIT_US)));
    while (rtb_want(ctx)) {
        rtb_rest(ctx);
        rtb_stamp_t t0 = rtb_port_stamp_start();
        rtb_port_ref_ns(&start);
        do {
            rtb_port_ref_ns(&now);
        } while (now - start < BUSYWAIT_US * 1000u);
        rtb_stamp_t t1 = rtb_port_stamp_end();
        rtb_add(ctx, t0, t1);
    }
}

static void reference_busywait(struct rtb_ctx *ctx)
{
    if (rtb_port_caps() & RTB_CAP_REF_CLOCK) {
        ref_clock_busywait(ctx);
        return;
    }
#ifdef RTB_PORT_KNOWN_WORK
    rtb_unranked(ctx, CHECK);
    rtb_expected(ctx, RTB_PORT_KNOWN_WORK_COST);
    rtb_note(ctx, "a loop of known length: its cost is exact, not calibrated");
    while (rtb_want(ctx)) {
        rtb_stamp_t t0 = rtb_port_stamp_start();
        RTB_PORT_KNOWN_WORK();
        rtb_stamp_t t1 = rtb_port_stamp_end();
        rtb_add(ctx, t0, t1);
    }
#else
    rtb_unsupported(ctx, "the port has neither a reference clock nor a piece of work of known cost");
#endif
}

const struct rtb_metric rtb_method_metrics[] = {
    {"method.null", null_measurement, 0, 0},
    {"method.busywait", reference_busywait, 0, 0},
    {0, 0, 0, 0},
};
