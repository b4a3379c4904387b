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

static struct {
    struct rtb_ctx *ctx;
    volatile rtb_ticks_t t0;
    volatile bool stop;
} yield_state;

static void yield_a(void *arg)
{
    (void)arg;
    while (!yield_state.stop) {
        yield_state.t0 = rtb_port_ts();
        rtb_port_task_yield();
    }
}

static void yield_b(void *arg)
{
    (void)arg;
    while (rtb_want(yield_state.ctx)) {
        rtb_port_task_yield();
        rtb_ticks_t t1 = rtb_port_ts();
        rtb_add(yield_state.ctx, yield_state.t0, t1);
    }
    yield_state.stop = true;
}

static void yield_ctx(struct rtb_ctx *ctx)
{
    yield_state.ctx = ctx;
    yield_state.t0 = rtb_port_ts();
    yield_state.stop = false;
    /* A is created first, so it is first in the FIFO of their priority */
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_A, RTB_PRIO_LOW, yield_a, 0), "create task A"))
        return;
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_B, RTB_PRIO_LOW, yield_b, 0), "create task B")) {
        yield_state.stop = true;
        rtb_port_task_join(TASK_A);
        return;
    }
    rtb_port_task_join(TASK_B);
    rtb_port_task_join(TASK_A);
}

const struct rtb_metric rtb_sched_metrics[] = {
    {"sched.yield.ctx.thread", yield_ctx, 0},
    {0, 0, 0},
};
