/*
 * Semaphores, binary (max 1) and counting: create and delete, give and take
 * without a switch (VxWorks semCreate/semDelete/semGive/semTake "Binary" and
 * "Counting", DSP/BIOS SEM_post/SEM_pend, Zephyr semaphore.*.immediate), a
 * give that readies a lower-priority waiter (VxWorks "Tasks in queue",
 * DSP/BIOS "Post a semaphore, no context switch") and the two switches a
 * semaphore causes (handoff.c). The set-up call that restores the
 * semaphore's state between samples is outside the timed region.
 *
 * Every timed call is prepared first (rtb/kcall.h): the window holds the
 * kernel's call and nothing of the harness. The calls that stay in user
 * space (a give or take without a switch: a few ns) are timed in batches
 * where the counter is coarse (rtb_batch): one give of each of
 * RTB_MAX_SEMS binary semaphores, or 64 gives of one counting semaphore,
 * per sample, the batch loop's own cost measured and subtracted; the
 * record's `ops` says how many.
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
    struct rtb_kcall c;
    while (rtb_want(ctx)) {
        if (!rtb_ok(ctx, rtb_port_sem_create_kcall(SEM, 0, max, &c), "sem_create") ||
            !rtb_ok(ctx, rtb_time_kcall(ctx, &c, RTB_OK), "sem_create") ||
            !rtb_ok(ctx, rtb_port_sem_delete(SEM), "sem_delete"))
            break;
    }
}

static void delete(struct rtb_ctx *ctx, unsigned max)
{
    struct rtb_kcall c;
    while (rtb_want(ctx)) {
        if (!make(ctx, 0, max))
            break;
        int rc = rtb_port_sem_delete_kcall(SEM, &c);
        if (rc != RTB_OK)
            rtb_port_sem_delete(SEM); /* a kernel that deletes nothing: the slot freed */
        if (!rtb_ok(ctx, rc, "sem_delete") || !rtb_ok(ctx, rtb_time_kcall(ctx, &c, RTB_OK), "sem_delete"))
            break;
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

/* Semaphores 0..objs-1, and a give and a take of each prepared. */
static bool make_n(struct rtb_ctx *ctx, unsigned objs, unsigned max, struct rtb_kcall *give,
                   struct rtb_kcall *take)
{
    for (unsigned i = 0; i < objs; i++) {
        if (!rtb_ok(ctx, rtb_port_sem_create((int)i, 0, max), "sem_create")) {
            while (i--)
                rtb_port_sem_delete((int)i);
            return false;
        }
        rtb_port_sem_give_kcall((int)i, &give[i]);
        rtb_port_sem_take_kcall((int)i, RTB_NO_WAIT, &take[i]);
    }
    return true;
}

static void delete_n(unsigned objs)
{
    for (unsigned i = 0; i < objs; i++)
        rtb_port_sem_delete((int)i);
}

/* The untimed half: `n` calls on objs semaphores in turn. */
static int run_n(struct rtb_kcall *calls, unsigned objs, unsigned n)
{
    int rc = RTB_OK;
    for (unsigned i = 0; i < n && rc == RTB_OK; i++)
        rc = rtb_kcall_run(&calls[i % objs]);
    return rc;
}

static void give_no_waiter(struct rtb_ctx *ctx, unsigned max)
{
    struct rtb_kcall give[RTB_MAX_SEMS], take[RTB_MAX_SEMS];
    unsigned objs, n = batch(ctx, max, &objs);
    if (!make_n(ctx, objs, max, give, take))
        return;
    while (rtb_want(ctx)) {
        if (!rtb_ok(ctx, rtb_time_kcalls(ctx, give, objs, n, RTB_OK), "sem_give") ||
            !rtb_ok(ctx, run_n(take, objs, n), "sem_take"))
            break;
    }
    delete_n(objs);
}

static void take_available(struct rtb_ctx *ctx, unsigned max)
{
    struct rtb_kcall give[RTB_MAX_SEMS], take[RTB_MAX_SEMS];
    unsigned objs, n = batch(ctx, max, &objs);
    if (!make_n(ctx, objs, max, give, take))
        return;
    for (unsigned i = 0; i < objs; i++) /* the timed take waits forever: it never has to */
        rtb_port_sem_take_kcall((int)i, RTB_WAIT_FOREVER, &take[i]);
    while (rtb_want(ctx)) {
        if (!rtb_ok(ctx, run_n(give, objs, n), "sem_give") ||
            !rtb_ok(ctx, rtb_time_kcalls(ctx, take, objs, n, RTB_OK), "sem_take"))
            break;
    }
    delete_n(objs);
}

static void take_unavailable_nowait(struct rtb_ctx *ctx, unsigned max)
{
    struct rtb_kcall take;
    if (!make(ctx, 0, max))
        return;
    unsigned n = rtb_batch(ctx, SAME_BATCH); /* nothing changes: one semaphore will do */
    if (rtb_ok(ctx, rtb_port_sem_take_kcall(SEM, RTB_NO_WAIT, &take), "sem_take"))
        rtb_time_failing(ctx, &take, n, "sem_take on an empty semaphore did not fail");
    rtb_port_sem_delete(SEM);
}

static int pend(int obj, struct rtb_kcall *c) { return rtb_port_sem_take_kcall(obj, RTB_WAIT_FOREVER, c); }
static int post(int obj, struct rtb_kcall *c) { return rtb_port_sem_give_kcall(obj, c); }
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
    {"sem.create_heap", create_binary, RTB_CAP_SEM, RTB_FROM_HEAP},
    {"sem.delete_heap", delete_binary, RTB_CAP_SEM, RTB_FROM_HEAP},
    {"sem.give.no_waiter", give_no_waiter_binary, RTB_CAP_SEM, 0},
    {"sem.take.available", take_available_binary, RTB_CAP_SEM, 0},
    {"sem.take.unavailable_nowait", take_unavailable_nowait_binary, RTB_CAP_SEM, 0},
    RTB_THREAD_AND_PROCESS("sem.give.waiter_readied", give_waiter_readied_binary, RTB_CAP_SEM),
    RTB_THREAD_PROCESS_AND_MIXED("sem.take.block_ctx", take_block_ctx, RTB_CAP_SEM),
    RTB_THREAD_PROCESS_AND_MIXED("sem.give.wake_ctx", give_wake_ctx, RTB_CAP_SEM),
    {"sem.give.wake_ctx.xcpu", give_wake_ctx, RTB_CAP_SEM | RTB_CAP_SMP, RTB_TASK_OTHER_CPU},
    {"csem.create", create_counting, RTB_CAP_SEM, 0},
    {"csem.delete", delete_counting, RTB_CAP_SEM, 0},
    {"csem.create_heap", create_counting, RTB_CAP_SEM, RTB_FROM_HEAP},
    {"csem.delete_heap", delete_counting, RTB_CAP_SEM, RTB_FROM_HEAP},
    {"csem.give.no_waiter", give_no_waiter_counting, RTB_CAP_SEM, 0},
    {"csem.take.available", take_available_counting, RTB_CAP_SEM, 0},
    {"csem.take.unavailable_nowait", take_unavailable_nowait_counting, RTB_CAP_SEM, 0},
    RTB_THREAD_AND_PROCESS("csem.give.waiter_readied", give_waiter_readied_counting, RTB_CAP_SEM),
    {0, 0, 0, 0},
};
