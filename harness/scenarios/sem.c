/*
 * Semaphores, binary (max 1) and counting: create and delete, give and take
 * without a switch (VxWorks semCreate/semDelete/semGive/semTake "Binary" and
 * "Counting", DSP/BIOS SEM_post/SEM_pend, Zephyr semaphore.*.immediate), a
 * give that readies a lower-priority waiter (VxWorks "Tasks in queue",
 * DSP/BIOS "Post a semaphore, no context switch") and the two switches a
 * semaphore causes (handoff.c). The set-up call that restores the
 * semaphore's state between samples is outside the timed region.
 *
 * The calls that stay in user space (a give or take without a switch: a
 * few ns) are timed in batches where the counter is coarse (rtb_batch):
 * one give of each of RTB_MAX_SEMS binary semaphores, or 64 gives of one
 * counting semaphore, per sample; the record's `ops` says how many.
 */
#include <rtb/bench.h>
#include "handoff.h"

#define SEM 0
#define BINARY 1u
#define COUNTING ((unsigned)-1)
#define SAME_BATCH 64u /* operations of one sample on one counting semaphore */

static bool make(struct rtb_ctx *ctx, unsigned initial, unsigned max)
{
    return rtb_ok(ctx, rtb_port_sem_create(SEM, initial, max), "sem_create");
}

static void create(struct rtb_ctx *ctx, unsigned max)
{
    while (rtb_want(ctx)) {
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = rtb_port_sem_create(SEM, 0, max);
        rtb_ticks_t t1 = rtb_port_ts();
        if (!rtb_ok(ctx, rc, "sem_create") ||
            !rtb_ok(ctx, rtb_port_sem_delete(SEM), "sem_delete"))
            break;
        rtb_add(ctx, t0, t1);
    }
}

static void delete(struct rtb_ctx *ctx, unsigned max)
{
    while (rtb_want(ctx)) {
        if (!make(ctx, 0, max))
            break;
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = rtb_port_sem_delete(SEM);
        rtb_ticks_t t1 = rtb_port_ts();
        if (!rtb_ok(ctx, rc, "sem_delete"))
            break;
        rtb_add(ctx, t0, t1);
    }
}

/* Batch size and object count: `n` distinct binary semaphores (a give of a
 * full binary one is a no-op), or one counting semaphore `n` times. */
static unsigned batch(struct rtb_ctx *ctx, unsigned max, unsigned *objs)
{
    unsigned n = rtb_batch(ctx, max == BINARY ? RTB_MAX_SEMS : SAME_BATCH);
    *objs = max == BINARY ? n : 1;
    return n;
}

static bool make_n(struct rtb_ctx *ctx, unsigned objs, unsigned max)
{
    for (unsigned i = 0; i < objs; i++) {
        if (!rtb_ok(ctx, rtb_port_sem_create((int)i, 0, max), "sem_create")) {
            while (i--)
                rtb_port_sem_delete((int)i);
            return false;
        }
    }
    return true;
}

static void delete_n(unsigned objs)
{
    for (unsigned i = 0; i < objs; i++)
        rtb_port_sem_delete((int)i);
}

/* `n` calls on semaphores 0..objs-1 in turn (objs is n or 1: batch()):
 * the first failing rc, or RTB_OK. The next id is one add, not `i % objs`:
 * these loops run between the timestamps, and a division costs more than
 * some of the calls it would index. */
static int give_all(unsigned n, unsigned objs)
{
    int rc = RTB_OK, step = objs > 1, id = 0;
    for (unsigned i = 0; i < n; i++, id += step) {
        int r = rtb_port_sem_give(id);
        rc = rc == RTB_OK ? r : rc;
    }
    return rc;
}

static int take_all(unsigned n, unsigned objs, int32_t timeout)
{
    int rc = RTB_OK, step = objs > 1, id = 0;
    for (unsigned i = 0; i < n; i++, id += step) {
        int r = rtb_port_sem_take(id, timeout);
        rc = rc == RTB_OK ? r : rc;
    }
    return rc;
}

static void give_no_waiter(struct rtb_ctx *ctx, unsigned max)
{
    unsigned objs, n = batch(ctx, max, &objs);
    if (!make_n(ctx, objs, max))
        return;
    while (rtb_want(ctx)) {
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = give_all(n, objs);
        rtb_ticks_t t1 = rtb_port_ts();
        if (!rtb_ok(ctx, rc, "sem_give") ||
            !rtb_ok(ctx, take_all(n, objs, RTB_NO_WAIT), "sem_take"))
            break;
        rtb_add(ctx, t0, t1);
    }
    delete_n(objs);
}

static void take_available(struct rtb_ctx *ctx, unsigned max)
{
    unsigned objs, n = batch(ctx, max, &objs);
    if (!make_n(ctx, objs, max))
        return;
    while (rtb_want(ctx)) {
        if (!rtb_ok(ctx, give_all(n, objs), "sem_give"))
            break;
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = take_all(n, objs, RTB_WAIT_FOREVER);
        rtb_ticks_t t1 = rtb_port_ts();
        if (!rtb_ok(ctx, rc, "sem_take"))
            break;
        rtb_add(ctx, t0, t1);
    }
    delete_n(objs);
}

static void take_unavailable_nowait(struct rtb_ctx *ctx, unsigned max)
{
    if (!make(ctx, 0, max))
        return;
    unsigned n = rtb_batch(ctx, SAME_BATCH); /* nothing changes: one semaphore will do */
    while (rtb_want(ctx)) {
        int rc = RTB_EWOULDBLOCK;
        rtb_ticks_t t0 = rtb_port_ts();
        for (unsigned i = 0; i < n; i++) {
            int r = rtb_port_sem_take(SEM, RTB_NO_WAIT);
            rc = rc == RTB_EWOULDBLOCK ? r : rc;
        }
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
static const struct rtb_handoff_ops sem_ops = {.pend = pend, .post = post};

static void give_waiter_readied(struct rtb_ctx *ctx, unsigned max)
{
    if (!make(ctx, 0, max))
        return;
    rtb_handoff_ready_low(ctx, &sem_ops, SEM);
    rtb_port_sem_delete(SEM);
}

static void take_block_ctx(struct rtb_ctx *ctx)
{
    if (!make(ctx, 0, BINARY))
        return;
    rtb_handoff_block_ctx(ctx, &sem_ops, SEM);
    rtb_port_sem_delete(SEM);
}

static void give_wake_ctx(struct rtb_ctx *ctx)
{
    if (!make(ctx, 0, BINARY))
        return;
    rtb_handoff_wake_ctx(ctx, &sem_ops, SEM);
    rtb_port_sem_delete(SEM);
}

/* One metric function per (operation, kind). */
#define KINDS(op)                                                      \
    static void op##_binary(struct rtb_ctx *ctx) { op(ctx, BINARY); } \
    static void op##_counting(struct rtb_ctx *ctx) { op(ctx, COUNTING); }
KINDS(create)
KINDS(delete)
KINDS(give_no_waiter)
KINDS(take_available)
KINDS(take_unavailable_nowait)
KINDS(give_waiter_readied)

const struct rtb_metric rtb_sem_metrics[] = {
    {"sem.create", create_binary, RTB_CAP_SEM, 0},
    {"sem.delete", delete_binary, RTB_CAP_SEM, 0},
    {"sem.give.no_waiter", give_no_waiter_binary, RTB_CAP_SEM, 0},
    {"sem.take.available", take_available_binary, RTB_CAP_SEM, 0},
    {"sem.take.unavailable_nowait", take_unavailable_nowait_binary, RTB_CAP_SEM, 0},
    RTB_THREAD_AND_PROCESS("sem.give.waiter_readied", give_waiter_readied_binary, RTB_CAP_SEM),
    RTB_THREAD_AND_PROCESS("sem.take.block_ctx", take_block_ctx, RTB_CAP_SEM),
    RTB_THREAD_AND_PROCESS("sem.give.wake_ctx", give_wake_ctx, RTB_CAP_SEM),
    {"sem.give.wake_ctx.xcpu", give_wake_ctx, RTB_CAP_SEM | RTB_CAP_SMP, RTB_TASK_OTHER_CPU},
    {"csem.create", create_counting, RTB_CAP_SEM, 0},
    {"csem.delete", delete_counting, RTB_CAP_SEM, 0},
    {"csem.give.no_waiter", give_no_waiter_counting, RTB_CAP_SEM, 0},
    {"csem.take.available", take_available_counting, RTB_CAP_SEM, 0},
    {"csem.take.unavailable_nowait", take_unavailable_nowait_counting, RTB_CAP_SEM, 0},
    RTB_THREAD_AND_PROCESS("csem.give.waiter_readied", give_waiter_readied_counting, RTB_CAP_SEM),
    {0, 0, 0, 0},
};
