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
    volatile rtb_ticks_t t0;
    volatile bool stop;
};
static struct yield_state *ys; /* in shared memory: the tasks may be processes */

static void yield_a(void *arg)
{
    struct yield_state *y = arg;
    while (!y->stop) {
        y->t0 = rtb_port_ts();
        rtb_port_task_yield();
    }
}

static void yield_b(void *arg)
{
    struct yield_state *y = arg;
    while (rtb_want(y->ctx)) {
        rtb_port_task_yield();
        rtb_ticks_t t1 = rtb_port_ts();
        rtb_add(y->ctx, y->t0, t1);
    }
    y->stop = true;
}

static void yield_ctx(struct rtb_ctx *ctx)
{
    struct yield_state *y = rtb_shared_state(ctx, (void **)&ys, sizeof *ys);
    if (!y)
        return;
    y->ctx = ctx;
    y->t0 = rtb_port_ts();
    unsigned fl = rtb_task_flags(ctx);
    /* A is created first, so it is first in the FIFO of their priority */
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_A, RTB_PRIO_LOW, fl, yield_a, y), "create task A"))
        return;
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_B, RTB_PRIO_LOW, fl, yield_b, y), "create task B")) {
        y->stop = true;
        rtb_port_task_join(TASK_A);
        return;
    }
    rtb_port_task_join(TASK_B);
    rtb_port_task_join(TASK_A);
}

const struct rtb_metric rtb_sched_metrics[] = {
    RTB_THREAD_AND_PROCESS("sched.yield.ctx", yield_ctx, 0),
    {0, 0, 0, 0},
};
