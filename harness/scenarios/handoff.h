/*
 * The two context switches every blocking primitive causes, measured the
 * same way for each primitive (VxWorks "Task blocked by unavailable X" /
 * "Task unblocked by incoming X"):
 *
 *  block_ctx: a HIGH task pends on an unavailable object and blocks; the
 *             LOW task that was ready runs next.
 *  wake_ctx:  a LOW task posts to an object a HIGH task is pended on; the
 *             HIGH task preempts it at once.
 *
 * Both tasks are created by the runner task (more urgent than both, so
 * neither runs until the runner blocks in join) and pinned to one CPU.
 * Only one of the two tasks touches the sample context.
 */
#ifndef RTB_HANDOFF_H
#define RTB_HANDOFF_H

#include <rtb/bench.h>

struct rtb_handoff_ops {
    int (*pend)(int obj); /* wait forever on obj; returns when posted */
    int (*post)(int obj); /* ready the waiter; RTB_EWOULDBLOCK means "retry" */
};

void rtb_handoff_block_ctx(struct rtb_ctx *ctx, const struct rtb_handoff_ops *ops, int obj);
void rtb_handoff_wake_ctx(struct rtb_ctx *ctx, const struct rtb_handoff_ops *ops, int obj);

#endif
