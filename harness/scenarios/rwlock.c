/*
 * Reader-writer locks (VxWorks reader-writer semaphores: semRWCreate,
 * semRTake/semWTake, semGive): create and delete; take for reading or
 * writing when free; take with no wait when another task holds the lock
 * (for reading, against a writer; for writing, against a reader); release
 * with nobody waiting; and a release that readies a lower-priority waiter
 * (handoff.c ready_low). The other half of each pair is outside the timed
 * region.
 */
#include <rtb/bench.h>
#include "handoff.h"

#define RW 0
#define READY 0 /* semaphores of the holder task */
#define DONE 1

static bool make(struct rtb_ctx *ctx)
{
    return rtb_ok(ctx, rtb_port_rwlock_create(RW), "rwlock_create");
}

static int rdlock(int obj) { return rtb_port_rwlock_rdlock(obj, RTB_WAIT_FOREVER); }
static int wrlock(int obj) { return rtb_port_rwlock_wrlock(obj, RTB_WAIT_FOREVER); }
static int unlock(int obj) { return rtb_port_rwlock_unlock(obj); }
static int rdlock_call(int obj, struct rtb_kcall *c)
{
    return rtb_port_rwlock_rdlock_kcall(obj, RTB_WAIT_FOREVER, c);
}
static int wrlock_call(int obj, struct rtb_kcall *c)
{
    return rtb_port_rwlock_wrlock_kcall(obj, RTB_WAIT_FOREVER, c);
}
static int unlock_call(int obj, struct rtb_kcall *c) { return rtb_port_rwlock_unlock_kcall(obj, c); }

static void create(struct rtb_ctx *ctx)
{
    struct rtb_kcall c;
    while (rtb_want(ctx)) {
        if (!rtb_ok(ctx, rtb_port_rwlock_create_kcall(RW, &c), "rwlock_create") ||
            !rtb_ok(ctx, rtb_time_kcall(ctx, &c, RTB_OK), "rwlock_create") ||
            !rtb_ok(ctx, rtb_port_rwlock_delete(RW), "rwlock_delete"))
            break;
    }
}

static void delete(struct rtb_ctx *ctx)
{
    struct rtb_kcall c;
    while (rtb_want(ctx)) {
        if (!make(ctx))
            break;
        int rc = rtb_port_rwlock_delete_kcall(RW, &c);
        if (rc != RTB_OK)
            rtb_port_rwlock_delete(RW); /* a kernel that deletes nothing: the slot freed */
        if (!rtb_ok(ctx, rc, "rwlock_delete") || !rtb_ok(ctx, rtb_time_kcall(ctx, &c, RTB_OK), "rwlock_delete"))
            break;
    }
}

/* Take a free lock (timed), release it (untimed); or the other way round. */
static void take_release(struct rtb_ctx *ctx, int (*take)(int, struct rtb_kcall *), bool time_release)
{
    struct rtb_kcall lock, release;
    if (!make(ctx))
        return;
    if (rtb_ok(ctx, take(RW, &lock), "rwlock take") && rtb_ok(ctx, unlock_call(RW, &release), "rwlock_unlock")) {
        while (rtb_want(ctx)) {
            int rc = time_release ? rtb_kcall_run(&lock) : rtb_time_kcall(ctx, &lock, RTB_OK);
            if (!rtb_ok(ctx, rc, "rwlock take"))
                break;
            rc = time_release ? rtb_time_kcall(ctx, &release, RTB_OK) : rtb_kcall_run(&release);
            if (!rtb_ok(ctx, rc, "rwlock_unlock"))
                break;
        }
    }
    rtb_port_rwlock_delete(RW);
}

static void wrlock_available(struct rtb_ctx *ctx) { take_release(ctx, wrlock_call, false); }
static void rdlock_available(struct rtb_ctx *ctx) { take_release(ctx, rdlock_call, false); }
static void unlock_write_no_waiter(struct rtb_ctx *ctx) { take_release(ctx, wrlock_call, true); }
static void unlock_read_no_waiter(struct rtb_ctx *ctx) { take_release(ctx, rdlock_call, true); }

/* ---- no-wait take of a lock another task holds ----------------------------- */
enum { TASK_HOLDER = 0 };

struct holder {
    int (*take)(int);
    volatile int rc;
};
static struct holder *holder_shared;

static void hold_task(void *arg)
{
    struct holder *h = arg;
    h->rc = h->take(RW);
    rtb_port_sem_give(READY);
    if (h->rc == RTB_OK) {
        rtb_port_sem_take(DONE, RTB_WAIT_FOREVER);
        unlock(RW);
    }
}

static void take_unavailable(struct rtb_ctx *ctx, int (*held)(int), bool write)
{
    struct holder *h = rtb_shared_state(ctx, (void **)&holder_shared, sizeof *holder_shared);
    if (!h || !make(ctx))
        return;
    h->take = held;
    if (!rtb_ok(ctx, rtb_port_sem_create(READY, 0, 1), "sem_create") ||
        !rtb_ok(ctx, rtb_port_sem_create(DONE, 0, 1), "sem_create"))
        goto out;
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_HOLDER, RTB_PRIO_LOW, rtb_task_flags(ctx),
                                          hold_task, h), "create holder task"))
        goto out;
    rtb_port_sem_take(READY, RTB_WAIT_FOREVER);
    struct rtb_kcall take;
    int rc = write ? rtb_port_rwlock_wrlock_kcall(RW, RTB_NO_WAIT, &take)
                   : rtb_port_rwlock_rdlock_kcall(RW, RTB_NO_WAIT, &take);
    if (rtb_ok(ctx, h->rc, "holder's take") && rtb_ok(ctx, rc, "rwlock take"))
        rtb_time_failing(ctx, &take, 1, "no-wait take of a held lock did not fail");
    rtb_port_sem_give(DONE);
    rtb_port_task_join(TASK_HOLDER);
out:
    rtb_port_sem_delete(READY);
    rtb_port_sem_delete(DONE);
    rtb_port_rwlock_delete(RW);
}

static void wrlock_unavailable(struct rtb_ctx *ctx) { take_unavailable(ctx, rdlock, true); }
static void rdlock_unavailable(struct rtb_ctx *ctx) { take_unavailable(ctx, wrlock, false); }

/* ---- release readying a lower-priority waiter ------------------------------- */
static const struct rtb_handoff_ops w_holds_w_waits = {
    .pend = wrlock_call, .post = unlock_call, .finish = unlock, .hold = wrlock};
static const struct rtb_handoff_ops r_holds_w_waits = {
    .pend = wrlock_call, .post = unlock_call, .finish = unlock, .hold = rdlock};
static const struct rtb_handoff_ops w_holds_r_waits = {
    .pend = rdlock_call, .post = unlock_call, .finish = unlock, .hold = wrlock};

static void ready(struct rtb_ctx *ctx, const struct rtb_handoff_ops *ops)
{
    if (!make(ctx))
        return;
    rtb_handoff_ready_low(ctx, ops, RW);
    rtb_port_rwlock_delete(RW);
}

static void unlock_write_writer_readied(struct rtb_ctx *ctx) { ready(ctx, &w_holds_w_waits); }
static void unlock_read_writer_readied(struct rtb_ctx *ctx) { ready(ctx, &r_holds_w_waits); }
static void unlock_write_reader_readied(struct rtb_ctx *ctx) { ready(ctx, &w_holds_r_waits); }

#define CAPS RTB_CAP_RWLOCK
#define CAPS_SEM (RTB_CAP_RWLOCK | RTB_CAP_SEM)
const struct rtb_metric rtb_rwlock_metrics[] = {
    {"rwlock.create", create, CAPS, 0},
    {"rwlock.delete", delete, CAPS, 0},
    {"rwlock.wrlock.available", wrlock_available, CAPS, 0},
    {"rwlock.rdlock.available", rdlock_available, CAPS, 0},
    RTB_THREAD_AND_PROCESS("rwlock.wrlock.unavailable_nowait", wrlock_unavailable, CAPS_SEM),
    RTB_THREAD_AND_PROCESS("rwlock.rdlock.unavailable_nowait", rdlock_unavailable, CAPS_SEM),
    {"rwlock.unlock.write_no_waiter", unlock_write_no_waiter, CAPS, 0},
    {"rwlock.unlock.read_no_waiter", unlock_read_no_waiter, CAPS, 0},
    RTB_THREAD_AND_PROCESS("rwlock.unlock.write_writer_readied", unlock_write_writer_readied, CAPS_SEM),
    RTB_THREAD_AND_PROCESS("rwlock.unlock.read_writer_readied", unlock_read_writer_readied, CAPS_SEM),
    RTB_THREAD_AND_PROCESS("rwlock.unlock.write_reader_readied", unlock_write_reader_readied, CAPS_SEM),
    {0, 0, 0, 0},
};
