/*
 * System call overhead (VxWorks user mode, "System call overhead"): the
 * cheapest call into the kernel that returns to the caller,
 * rtb_port_null_syscall(). A port whose tasks run in kernel mode answers
 * RTB_ENOTSUP, and the metric says unsupported.
 */
#include <rtb/bench.h>

static void null_syscall(struct rtb_ctx *ctx)
{
    while (rtb_want(ctx)) {
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = rtb_port_null_syscall();
        rtb_ticks_t t1 = rtb_port_ts();
        if (!rtb_ok(ctx, rc, "null_syscall"))
            break;
        rtb_add(ctx, t0, t1);
    }
}

const struct rtb_metric rtb_syscall_metrics[] = {
    {"syscall.null.overhead", null_syscall, RTB_CAP_NULL_SYSCALL, 0},
    {0, 0, 0, 0},
};
