/*
 * Clocks: one read of each clock the port's kernel offers (DSP/BIOS
 * CLK_gethtime/CLK_getltime: "the execution time of a CLK_... function
 * call"). Clock n is the port's rtb_port_clock_name(n); a port with fewer
 * clocks answers "unsupported" for the rest. The record notes the clock.
 *
 * DSP/BIOS target-side instrumentation (LOG_event, LOG_printf, STS_add,
 * STS_delta, STS_set) needs RTB_CAP_RTA_LOG: log and statistics objects in
 * target memory that a host tool reads. No port provides them.
 */
#include <rtb/bench.h>

static void read_clock(struct rtb_ctx *ctx, int which)
{
    const char *name = rtb_port_clock_name(which);
    if (!name) {
        rtb_unsupported(ctx, "the port has fewer kernel clocks");
        return;
    }
    rtb_note(ctx, name);
    uint64_t v;
    struct rtb_kcall read;
    unsigned n = rtb_batch(ctx, 32); /* a read changes nothing: a batch of reads */
    if (rtb_ok(ctx, rtb_port_clock_read_kcall(which, &v, &read), name))
        while (rtb_want(ctx) && rtb_ok(ctx, rtb_time_kcalls(ctx, &read, 1, n, RTB_OK), name))
            ;
}

static void clock0(struct rtb_ctx *c) { read_clock(c, 0); }
static void clock1(struct rtb_ctx *c) { read_clock(c, 1); }
static void clock2(struct rtb_ctx *c) { read_clock(c, 2); }
static void clock3(struct rtb_ctx *c) { read_clock(c, 3); }
static void clock4(struct rtb_ctx *c) { read_clock(c, 4); }

static void rta_log(struct rtb_ctx *ctx)
{
    rtb_unsupported(ctx, "no target-side log/statistics objects in the porting layer");
}

const struct rtb_metric rtb_clock_metrics[] = {
    {"clock.read.0", clock0, 0, 0},
    {"clock.read.1", clock1, 0, 0},
    {"clock.read.2", clock2, 0, 0},
    {"clock.read.3", clock3, 0, 0},
    {"clock.read.4", clock4, 0, 0},
    {"log.event.append", rta_log, RTB_CAP_RTA_LOG, 0},
    {"log.printf.append", rta_log, RTB_CAP_RTA_LOG, 0},
    {"sts.add.update", rta_log, RTB_CAP_RTA_LOG, 0},
    {"sts.delta.update", rta_log, RTB_CAP_RTA_LOG, 0},
    {"sts.set.update", rta_log, RTB_CAP_RTA_LOG, 0},
    {0, 0, 0, 0},
};
