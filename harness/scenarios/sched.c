/*
 * Scheduler: context switch via yield between two tasks of equal priority
 * on one CPU (Zephyr thread.yield.*.ctx, DSP/BIOS TSK_yield).
 *
 * Task A stamps and yields; task B, returning from its own yield, stamps.
 * Only B records, so each A -> B switch is one sample and the context has a
 * single writer; the B -> A switch in between is not measured.
 */
#include <rtb/bench.h>

enum { TASK_A = 0, TASK_B = 1 };

struct yield_state {
    struct rtb_ctx *ctx;
    volatile rtb_stamp_t t0;
    volatile bool stop;
    volatile int rc;
};
static struct yield_state *ys; /* in shared memory: the tasks may be processes */

/* A stamps and yields (the stamp stored, then the prepared yield). */
static void yield_a(void *arg)
{
    struct yield_state *y = arg;
    struct rtb_kcall yield;
    int rc = rtb_port_task_yield_kcall(&yield);
    while (rc == RTB_OK && !y->stop) {
        rtb_kcall_after_stamp(&yield, &y->t0);
        rc = rtb_kcall_rc(&yield);
    }
    if (rc != RTB_OK) {
        y->rc = rc;
        y->stop = true;
    }
}

/* B's yield returns when A yields to it: the stamp right after ends the
 * sample. B's first return is after its first yield, A having stamped. */
static void yield_b(void *arg)
{
    struct yield_state *y = arg;
    struct rtb_kcall yield;
    int rc = rtb_port_task_yield_kcall(&yield);
    while (rc == RTB_OK && !y->stop && rtb_want(y->ctx)) {
        rtb_stamp_t t1;
        rtb_kcall_then_stamp(&yield, &t1);
        rc = rtb_kcall_rc(&yield);
        if (rc == RTB_OK)
            rtb_add(y->ctx, y->t0, t1);
    }
    if (rc != RTB_OK)
        y->rc = rc;
    y->stop = true;
}

static void yield_ctx(struct rtb_ctx *ctx)
{
    struct yield_state *y = rtb_shared_state(ctx, (void **)&ys, sizeof *ys);
    if (!y)
        return;
    y->ctx = ctx;
    y->t0 = rtb_port_stamp_start();
    /* A is created first, so it is first in the FIFO of their priority; A
     * is the switch's outgoing task, B the incoming one (.k_to_u, .u_to_k) */
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_A, RTB_PRIO_LOW, rtb_task_flags_as(ctx, RTB_OUTGOING),
                                          yield_a, y), "create task A"))
        return;
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_B, RTB_PRIO_LOW, rtb_task_flags_as(ctx, RTB_INCOMING),
                                          yield_b, y), "create task B")) {
        y->stop = true;
        rtb_port_task_join(TASK_A);
        return;
    }
    rtb_port_task_join(TASK_B);
    rtb_port_task_join(TASK_A);
    rtb_ok(ctx, y->rc, "task_yield");
}

const struct rtb_metric rtb_sched_metrics[] = {
    RTB_THREAD_PROCESS_AND_MIXED("sched.yield.ctx", yield_ctx, 0),
    {0, 0, 0, 0},
};
