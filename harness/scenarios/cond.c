/*
 * Condition variables (Zephyr k_condvar, POSIX pthread_cond): signal and
 * broadcast with no task waiting, and the two switches a condition variable
 * causes (handoff.c): a wait that blocks, and a signal that wakes a
 * higher-priority waiter. The waiter follows the canonical pattern: it
 * holds the mutex (locked before the timed region), waits until a flag is
 * set, clears it and unlocks (after the timed region); the signaller sets
 * the flag and signals without holding the mutex (as Zephyr's benchmark
 * does), so the woken waiter finds the mutex free.
 *
 * The waits are timed (10 ms) only as a guard against a lost wake-up when
 * the tasks run without real-time priorities (the signal could then come
 * between the flag check and the wait); pinned under SCHED_FIFO the waiter
 * is always blocked before the lower-priority signaller runs, and the
 * timeout never expires.
 */
#include <rtb/bench.h>
#include "handoff.h"

#define COND 0
#define MUTEX 0
#define GUARD_US 10000

struct flag {
    volatile int set;
};
static struct flag *flag; /* rtb_shared_state: the tasks may be processes */

static bool make(struct rtb_ctx *ctx)
{
    if (!(flag = rtb_shared_state(ctx, (void **)&flag, sizeof *flag)))
        return false;
    if (!rtb_ok(ctx, rtb_port_mutex_create(MUTEX, 0), "mutex_create"))
        return false;
    if (!rtb_ok(ctx, rtb_port_cond_create(COND), "cond_create")) {
        rtb_port_mutex_delete(MUTEX);
        return false;
    }
    return true;
}

static void unmake(void)
{
    rtb_port_cond_delete(COND);
    rtb_port_mutex_delete(MUTEX);
}

static void no_waiter(struct rtb_ctx *ctx, int (*prep)(int, struct rtb_kcall *))
{
    struct rtb_kcall c;
    if (!make(ctx))
        return;
    if (rtb_ok(ctx, prep(COND, &c), "cond signal"))
        while (rtb_want(ctx) && rtb_ok(ctx, rtb_time_kcall(ctx, &c, RTB_OK), "cond signal"))
            ;
    unmake();
}

static void signal_no_waiter(struct rtb_ctx *ctx) { no_waiter(ctx, rtb_port_cond_signal_kcall); }
static void broadcast_no_waiter(struct rtb_ctx *ctx) { no_waiter(ctx, rtb_port_cond_broadcast_kcall); }

static int lock(int obj)
{
    (void)obj;
    return rtb_port_mutex_lock(MUTEX);
}

static int unlock(int obj)
{
    (void)obj;
    return rtb_port_mutex_unlock(MUTEX);
}

static int pend(int obj, struct rtb_kcall *c) { return rtb_port_cond_wait_kcall(obj, MUTEX, GUARD_US, c); }
static int post(int obj, struct rtb_kcall *c) { return rtb_port_cond_signal_kcall(obj, c); }
static void arm(int obj) { (void)obj, flag->set = 1; }

static bool posted(int obj)
{
    (void)obj;
    if (!flag->set)
        return false;
    flag->set = 0;
    return true;
}

static const struct rtb_handoff_ops cond_ops = {
    .pend = pend, .post = post, .prepare = lock, .finish = unlock, .arm = arm, .posted = posted};

static void wait_block_ctx(struct rtb_ctx *ctx)
{
    if (!make(ctx))
        return;
    rtb_handoff_block_ctx(ctx, &cond_ops, COND);
    unmake();
}

static void signal_wake_ctx(struct rtb_ctx *ctx)
{
    if (!make(ctx))
        return;
    rtb_handoff_wake_ctx(ctx, &cond_ops, COND);
    unmake();
}

#define CAPS (RTB_CAP_COND | RTB_CAP_MUTEX)
const struct rtb_metric rtb_cond_metrics[] = {
    {"cond.signal.no_waiter", signal_no_waiter, CAPS, 0},
    {"cond.broadcast.no_waiter", broadcast_no_waiter, CAPS, 0},
    RTB_THREAD_PROCESS_AND_MIXED("cond.wait.block_ctx", wait_block_ctx, CAPS),
    RTB_THREAD_PROCESS_AND_MIXED("cond.signal.wake_ctx", signal_wake_ctx, CAPS),
    {0, 0, 0, 0},
};
