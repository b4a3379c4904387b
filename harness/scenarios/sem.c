/*
 * Binary semaphores: give and take without a switch (VxWorks semGive/semTake
 * "Binary", DSP/BIOS SEM_post/SEM_pend, Zephyr semaphore.*.immediate) and the
 * two switches a semaphore causes (handoff.c). The set-up call that restores
 * the semaphore's state between samples is outside the timed region.
 */
#include <rtb/bench.h>
#include "handoff.h"

#define SEM 0

static bool make_binary(struct rtb_ctx *ctx, unsigned initial)
{
    return rtb_ok(ctx, rtb_port_sem_create(SEM, initial, 1), "sem_create");
}

static void give_no_waiter(struct rtb_ctx *ctx)
{
    if (!make_binary(ctx, 0))
        return;
    while (rtb_want(ctx)) {
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = rtb_port_sem_give(SEM);
        rtb_ticks_t t1 = rtb_port_ts();
        if (!rtb_ok(ctx, rc, "sem_give") ||
            !rtb_ok(ctx, rtb_port_sem_take(SEM, RTB_NO_WAIT), "sem_take"))
            break;
        rtb_add(ctx, t0, t1);
    }
    rtb_port_sem_delete(SEM);
}

static void take_available(struct rtb_ctx *ctx)
{
    if (!make_binary(ctx, 0))
        return;
    while (rtb_want(ctx)) {
        if (!rtb_ok(ctx, rtb_port_sem_give(SEM), "sem_give"))
            break;
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = rtb_port_sem_take(SEM, RTB_WAIT_FOREVER);
        rtb_ticks_t t1 = rtb_port_ts();
        if (!rtb_ok(ctx, rc, "sem_take"))
            break;
        rtb_add(ctx, t0, t1);
    }
    rtb_port_sem_delete(SEM);
}

static void take_unavailable_nowait(struct rtb_ctx *ctx)
{
    if (!make_binary(ctx, 0))
        return;
    while (rtb_want(ctx)) {
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = rtb_port_sem_take(SEM, RTB_NO_WAIT);
        rtb_ticks_t t1 = rtb_port_ts();
        if (rc != RTB_EWOULDBLOCK) {
            rtb_ok(ctx, rc == RTB_OK ? RTB_ERR : rc, "sem_take on an empty semaphore did not fail");
            break;
        }
        rtb_add(ctx, t0, t1);
    }
    rtb_port_sem_delete(SEM);
}

static int pend(int obj) { return rtb_port_sem_take(obj, RTB_WAIT_FOREVER); }
static int post(int obj) { return rtb_port_sem_give(obj); }
static const struct rtb_handoff_ops sem_ops = {pend, post};

static void take_block_ctx(struct rtb_ctx *ctx)
{
    if (!make_binary(ctx, 0))
        return;
    rtb_handoff_block_ctx(ctx, &sem_ops, SEM);
    rtb_port_sem_delete(SEM);
}

static void give_wake_ctx(struct rtb_ctx *ctx)
{
    if (!make_binary(ctx, 0))
        return;
    rtb_handoff_wake_ctx(ctx, &sem_ops, SEM);
    rtb_port_sem_delete(SEM);
}

const struct rtb_metric rtb_sem_metrics[] = {
    {"sem.give.no_waiter", give_no_waiter, RTB_CAP_SEM, 0},
    {"sem.take.available", take_available, RTB_CAP_SEM, 0},
    {"sem.take.unavailable_nowait", take_unavailable_nowait, RTB_CAP_SEM, 0},
    RTB_THREAD_AND_PROCESS("sem.take.block_ctx", take_block_ctx, RTB_CAP_SEM),
    RTB_THREAD_AND_PROCESS("sem.give.wake_ctx", give_wake_ctx, RTB_CAP_SEM),
    {0, 0, 0, 0},
};
