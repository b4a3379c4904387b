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
    /* Optional, untimed: run by the pending task just before pend's timed
     * region (e.g. lock a condition variable's mutex) and just after it
     * (unlock it again). NULL: nothing. */
    int (*prepare)(int obj);
    int (*finish)(int obj);
    /* Optional, ready_low only: the posting task takes the object before the
     * waiter pends on it (mutex, rwlock: post then releases it). NULL: the
     * object is a signal (semaphore, event) and posting it is always safe. */
    int (*hold)(int obj);
};

void rtb_handoff_block_ctx(struct rtb_ctx *ctx, const struct rtb_handoff_ops *ops, int obj);
void rtb_handoff_wake_ctx(struct rtb_ctx *ctx, const struct rtb_handoff_ops *ops, int obj);

/*
 * ready_low: a post that readies a LOWER-priority waiter and returns
 * without a switch (VxWorks "semGive / Tasks in queue", "Task send wanted",
 * DSP/BIOS "Post a semaphore, no context switch"). HIGH holds the object
 * (ops->hold) and blocks on a semaphore; LOW pends on the object and
 * blocks; a third task below LOW, which runs only once both are blocked,
 * gives HIGH its semaphore; HIGH times ops->post. LOW then runs, passes
 * finish (release), and pends again. Uses semaphore RTB_HANDOFF_SEM.
 */
#define RTB_HANDOFF_SEM (RTB_MAX_SEMS - 1)
void rtb_handoff_ready_low(struct rtb_ctx *ctx, const struct rtb_handoff_ops *ops, int obj);

#endif
