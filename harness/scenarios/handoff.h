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
 * Only one of the two tasks touches the sample context. The window opens
 * in one task (rtb_kcall_after_stamp: stamp, then the prepared call) and
 * closes in the other (rtb_kcall_then_stamp: the prepared call returns,
 * then the stamp), so it holds the two kernel calls and the switch, and
 * of the harness only the store of the first stamp and the call.
 */
#ifndef RTB_HANDOFF_H
#define RTB_HANDOFF_H

#include <rtb/bench.h>

struct rtb_handoff_ops {
    /* Prepare the timed calls (rtb/kcall.h), once per task before its loop:
     * pend waits forever on obj and returns when posted; post readies the
     * waiter (an RTB_EWOULDBLOCK result means "retry"). */
    int (*pend)(int obj, struct rtb_kcall *c);
    int (*post)(int obj, struct rtb_kcall *c);
    /* Optional, untimed: run by the pending task just before pend's timed
     * region (e.g. lock a condition variable's mutex) and just after it
     * (unlock it again). NULL: nothing. */
    int (*prepare)(int obj);
    int (*finish)(int obj);
    /* Optional, ready_low only: the posting task takes the object before the
     * waiter pends on it (mutex, rwlock: post then releases it). NULL: the
     * object is a signal (semaphore, event) and posting it is always safe. */
    int (*hold)(int obj);
    /* Optional, ready_low only: make room after a post that would block
     * (a full queue, only without real-time priorities), untimed. */
    int (*unblock)(int obj);
    /* Optional, for a condition variable's predicate: arm runs (untimed)
     * just before each timed post; posted, after a pend returned, says
     * whether that post happened (and consumes it): false is a spurious or
     * timed-out wake-up, and the pend is made again, still in the window. */
    void (*arm)(int obj);
    bool (*posted)(int obj);
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
