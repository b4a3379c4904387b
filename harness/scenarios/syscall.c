/*
 * System call overhead (VxWorks user mode, "System call overhead"): the
 * cheapest call into the kernel that returns to the caller,
 * rtb_port_null_syscall(). A port whose tasks run in kernel mode answers
 * RTB_ENOTSUP, and the metric says unsupported.
 */
#include <rtb/bench.h>

static void null_syscall(struct rtb_ctx *ctx)
{
    struct rtb_kcall call;
    if (rtb_ok(ctx, rtb_port_null_syscall_kcall(&call), "null_syscall"))
        while (rtb_want(ctx) && rtb_ok(ctx, rtb_time_kcall(ctx, &call, RTB_OK), "null_syscall"))
            ;
}

const struct rtb_metric rtb_syscall_metrics[] = {
    {"syscall.null.overhead", null_syscall, RTB_CAP_NULL_SYSCALL, 0},
    {0, 0, 0, 0},
};
