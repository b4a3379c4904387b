/*
 * System call overhead (VxWorks user mode, "System call overhead"): the
 * cheapest call into the kernel that returns to the caller,
 * rtb_port_null_syscall(), timed in a task that runs in user mode. Where
 * every task does (Linux), that is the runner; where kernel-mode and
 * user-mode tasks live side by side (RTB_CAP_USER_KERNEL: Zephyr's
 * userspace build, whose runner is a kernel thread), a user-mode task made
 * for it. A port whose tasks run in kernel mode answers RTB_ENOTSUP, and the
 * metric says unsupported.
 */
#include <rtb/bench.h>

static void null_syscalls(void *arg)
{
    struct rtb_ctx *ctx = arg; /* in rtb_port_shared() memory (rtb/bench.h) */
    struct rtb_kcall call;
    if (rtb_ok(ctx, rtb_port_null_syscall_kcall(&call), "null_syscall"))
        while (rtb_want(ctx) && rtb_ok(ctx, rtb_time_kcall(ctx, &call, RTB_OK), "null_syscall"))
            ;
}

static void null_syscall(struct rtb_ctx *ctx)
{
    if (!(rtb_port_caps() & RTB_CAP_USER_KERNEL)) {
        null_syscalls(ctx);
        return;
    }
    if (rtb_ok(ctx, rtb_port_task_create(0, RTB_PRIO_HIGH, rtb_task_flags(ctx) | RTB_TASK_PROCESS,
                                         null_syscalls, ctx), "create the user-mode task"))
        rtb_port_task_join(0);
}

const struct rtb_metric rtb_syscall_metrics[] = {
    {"syscall.null.overhead", null_syscall, RTB_CAP_NULL_SYSCALL, 0},
    {0, 0, 0, 0},
};
