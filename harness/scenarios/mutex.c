/*
 * Mutexes: plain (default pthread-style: not recursive, no priority
 * inheritance), recursive (VxWorks mutual-exclusion semaphores, DSP/BIOS
 * LCK resource locks and Zephyr k_mutex are recursive) and priority-
 * inheritance. Create/delete; lock a free mutex and unlock it with nobody
 * waiting; lock and unlock one the caller already owns (nested); an unlock
 * that readies a lower-priority waiter; and the two switches a mutex
 * causes (lock of a mutex a lower-priority task owns; unlock that hands it
 * to a higher-priority waiter). The other half of each pair is outside the
 * timed region.
 *
 * Where the counter is coarse (rtb_batch) a sample of the uncontended and
 * nested calls, a few ns each, times a batch: one lock (or unlock) of each
 * of RTB_MAX_MUTEXES free mutexes, or NESTED_BATCH nested locks of one.
 */
#include <rtb/bench.h>
#include "handoff.h"

#define MUTEX 0
#define GO 0 /* semaphore the switch scenarios hand the CPU over with */
#define PLAIN 0u
#define RECURSIVE RTB_MUTEX_RECURSIVE
#define INHERIT RTB_MUTEX_INHERIT
#define NESTED_BATCH 32u

/* A kernel whose every mutex inherits priority says so on the rows that
 * ask for one without inheritance. */
static void say_inheritance(struct rtb_ctx *ctx, unsigned flags)
{
    if (!(flags & INHERIT))
        rtb_port_emulates(ctx, RTB_EMU_MUTEX_NO_INHERIT);
}

static bool make(struct rtb_ctx *ctx, unsigned flags)
{
    say_inheritance(ctx, flags);
    return rtb_ok(ctx, rtb_port_mutex_create(MUTEX, flags), "mutex_create");
}

static void create(struct rtb_ctx *ctx, unsigned flags)
{
    struct rtb_kcall c;
    say_inheritance(ctx, flags);
    while (rtb_want(ctx)) {
        if (!rtb_ok(ctx, rtb_port_mutex_create_kcall(MUTEX, flags, &c), "mutex_create") ||
            !rtb_ok(ctx, rtb_time_kcall(ctx, &c, RTB_OK), "mutex_create") ||
            !rtb_ok(ctx, rtb_port_mutex_delete(MUTEX), "mutex_delete"))
            break;
    }
}

static void delete(struct rtb_ctx *ctx, unsigned flags)
{
    struct rtb_kcall c;
    while (rtb_want(ctx)) {
        if (!make(ctx, flags))
            break;
        int rc = rtb_port_mutex_delete_kcall(MUTEX, &c);
        if (rc != RTB_OK)
            rtb_port_mutex_delete(MUTEX); /* a kernel that deletes nothing: the slot freed */
        if (!rtb_ok(ctx, rc, "mutex_delete") || !rtb_ok(ctx, rtb_time_kcall(ctx, &c, RTB_OK), "mutex_delete"))
            break;
    }
}

/* The batch of one sample (rtb_batch): `n` calls, on mutexes 0..n-1 when
 * each must be free (depth 1), on mutex 0 alone when nested. */
static unsigned batch(struct rtb_ctx *ctx, int depth, unsigned *objs)
{
    unsigned n = rtb_batch(ctx, depth == 1 ? RTB_MAX_MUTEXES : NESTED_BATCH);
    *objs = depth == 1 ? n : 1;
    return n;
}

/* Create mutexes 0..*objs-1 and lock mutex 0 depth - 1 times; on a
 * failure *objs and *held say what finish() must undo. */
static bool prepare(struct rtb_ctx *ctx, unsigned flags, unsigned *objs, int depth, int *held)
{
    say_inheritance(ctx, flags);
    *held = 0;
    for (unsigned i = 0; i < *objs; i++) {
        if (!rtb_ok(ctx, rtb_port_mutex_create((int)i, flags), "mutex_create")) {
            *objs = i;
            return false;
        }
    }
    for (; *held < depth - 1; ++*held)
        if (!rtb_ok(ctx, rtb_port_mutex_lock(MUTEX), "mutex_lock (outer)"))
            return false;
    return true;
}

static void finish(unsigned objs, int held)
{
    while (held-- > 0)
        rtb_port_mutex_unlock(MUTEX);
    for (unsigned i = 0; i < objs; i++)
        rtb_port_mutex_delete((int)i);
}

/* A lock and an unlock of each of mutexes 0..objs-1 prepared, the unlocks
 * in reverse (the batch unlocks the last locked first). */
static bool prepare_calls(struct rtb_ctx *ctx, unsigned objs, struct rtb_kcall *lock,
                          struct rtb_kcall *unlock)
{
    for (unsigned i = 0; i < objs; i++)
        if (!rtb_ok(ctx, rtb_port_mutex_lock_kcall((int)i, &lock[i]), "mutex_lock") ||
            !rtb_ok(ctx, rtb_port_mutex_unlock_kcall((int)(objs - 1 - i), &unlock[i]), "mutex_unlock"))
            return false;
    return true;
}

/* The untimed half: `n` calls walking calls[0..objs-1] round. */
static int run_n(struct rtb_kcall *calls, unsigned objs, unsigned n)
{
    int rc = RTB_OK;
    for (unsigned i = 0; i < n && rc == RTB_OK; i++)
        rc = rtb_kcall_run(&calls[i % objs]);
    return rc;
}

/* Lock with `depth` - 1 locks already held by the caller (depth 1: free). */
static void lock_at(struct rtb_ctx *ctx, unsigned flags, int depth)
{
    struct rtb_kcall lock[RTB_MAX_MUTEXES], unlock[RTB_MAX_MUTEXES];
    unsigned objs, n = batch(ctx, depth, &objs);
    int held;
    if (prepare(ctx, flags, &objs, depth, &held) && prepare_calls(ctx, objs, lock, unlock)) {
        while (rtb_want(ctx)) {
            if (!rtb_ok(ctx, rtb_time_kcalls(ctx, lock, objs, n, RTB_OK), "mutex_lock") ||
                !rtb_ok(ctx, run_n(unlock, objs, n), "mutex_unlock"))
                break;
        }
    }
    finish(objs, held);
}

/* Unlock leaving `depth` - 1 locks held (depth 1: the mutex becomes free). */
static void unlock_at(struct rtb_ctx *ctx, unsigned flags, int depth)
{
    struct rtb_kcall lock[RTB_MAX_MUTEXES], unlock[RTB_MAX_MUTEXES];
    unsigned objs, n = batch(ctx, depth, &objs);
    int held;
    if (prepare(ctx, flags, &objs, depth, &held) && prepare_calls(ctx, objs, lock, unlock)) {
        while (rtb_want(ctx)) {
            if (!rtb_ok(ctx, run_n(lock, objs, n), "mutex_lock") ||
                !rtb_ok(ctx, rtb_time_kcalls(ctx, unlock, objs, n, RTB_OK), "mutex_unlock"))
                break;
        }
    }
    finish(objs, held);
}

static void lock_uncontended(struct rtb_ctx *ctx) { lock_at(ctx, PLAIN, 1); }
static void unlock_uncontended(struct rtb_ctx *ctx) { unlock_at(ctx, PLAIN, 1); }
static void r_create(struct rtb_ctx *ctx) { create(ctx, RECURSIVE); }
static void r_delete(struct rtb_ctx *ctx) { delete(ctx, RECURSIVE); }
static void r_lock_uncontended(struct rtb_ctx *ctx) { lock_at(ctx, RECURSIVE, 1); }
static void r_unlock_uncontended(struct rtb_ctx *ctx) { unlock_at(ctx, RECURSIVE, 1); }
static void r_lock_nested(struct rtb_ctx *ctx) { lock_at(ctx, RECURSIVE, 2); }
static void r_unlock_nested(struct rtb_ctx *ctx) { unlock_at(ctx, RECURSIVE, 2); }
static void pi_lock_uncontended(struct rtb_ctx *ctx) { lock_at(ctx, INHERIT, 1); }
static void pi_unlock_uncontended(struct rtb_ctx *ctx) { unlock_at(ctx, INHERIT, 1); }

/* ---- no-wait lock of a mutex another task owns ---------------------------- */
#define READY 0 /* semaphores of the owner task */
#define DONE 1
enum { TASK_OWNER = 0 };

static volatile int *owner_rc; /* rtb_shared_state: the owner may be a process */

static void owner_task(void *arg)
{
    (void)arg;
    *owner_rc = rtb_port_mutex_lock(MUTEX);
    rtb_port_sem_give(READY);
    if (*owner_rc == RTB_OK) {
        rtb_port_sem_take(DONE, RTB_WAIT_FOREVER);
        rtb_port_mutex_unlock(MUTEX);
    }
}

static void r_lock_unavailable_nowait(struct rtb_ctx *ctx)
{
    if (!(owner_rc = rtb_shared_state(ctx, (void **)&owner_rc, sizeof *owner_rc)) ||
        !make(ctx, RECURSIVE))
        return;
    if (!rtb_ok(ctx, rtb_port_sem_create(READY, 0, 1), "sem_create") ||
        !rtb_ok(ctx, rtb_port_sem_create(DONE, 0, 1), "sem_create") ||
        !rtb_ok(ctx, rtb_port_task_create(TASK_OWNER, RTB_PRIO_LOW, rtb_task_flags(ctx),
                                          owner_task, 0), "create owner task"))
        goto out;
    rtb_port_sem_take(READY, RTB_WAIT_FOREVER); /* the owner runs, locks, gives READY */
    struct rtb_kcall trylock;
    if (rtb_ok(ctx, *owner_rc, "owner's lock") &&
        rtb_ok(ctx, rtb_port_mutex_trylock_kcall(MUTEX, &trylock), "mutex_trylock"))
        rtb_time_failing(ctx, &trylock, 1, "no-wait lock of an owned mutex did not fail");
    rtb_port_sem_give(DONE);
    rtb_port_task_join(TASK_OWNER);
out:
    rtb_port_sem_delete(READY);
    rtb_port_sem_delete(DONE);
    rtb_port_mutex_delete(MUTEX);
}

/* ---- unlock readying a lower-priority waiter (handoff.c ready_low) ------- */
static int lock(int obj) { return rtb_port_mutex_lock(obj); }
static int unlock(int obj) { return rtb_port_mutex_unlock(obj); }
static int lock_call(int obj, struct rtb_kcall *c) { return rtb_port_mutex_lock_kcall(obj, c); }
static int unlock_call(int obj, struct rtb_kcall *c) { return rtb_port_mutex_unlock_kcall(obj, c); }
static const struct rtb_handoff_ops ready_ops = {
    .pend = lock_call, .post = unlock_call, .finish = unlock, .hold = lock};

static void r_unlock_waiter_readied(struct rtb_ctx *ctx)
{
    if (!make(ctx, RECURSIVE))
        return;
    rtb_handoff_ready_low(ctx, &ready_ops, MUTEX);
    rtb_port_mutex_delete(MUTEX);
}

/* ---- the two switches ------------------------------------------------------
 * LOW owns the mutex and gives GO; HIGH, readied, preempts it and locks.
 *  block_ctx: HIGH stamps and locks; it blocks and LOW, the owner, resumes
 *             and stamps: the switch a contended lock causes.
 *  wake_ctx:  LOW, resumed, stamps and unlocks; HIGH, the waiter, gets the
 *             mutex, preempts LOW and stamps after its lock returns.
 * Then HIGH unlocks and takes GO (blocks), and LOW locks again. */
enum { TASK_HIGH = 0, TASK_LOW = 1 };

struct sw {
    struct rtb_ctx *ctx;
    bool block; /* block_ctx (LOW records) or wake_ctx (HIGH records) */
    volatile rtb_stamp_t t0;
    volatile bool stop;
    volatile int rc;
    const char *volatile what;
};
static struct sw *sw_shared;

static void sw_fail(struct sw *s, int rc, const char *what)
{
    s->rc = rc;
    s->what = what;
    s->stop = true;
}

/* HIGH: readied by GO, it locks the mutex LOW owns. block_ctx: the stamp,
 * then the lock, which blocks. wake_ctx: the lock returns when LOW's
 * unlock hands it the mutex, and the stamp follows. */
static void sw_high(void *arg)
{
    struct sw *s = arg;
    struct rtb_kcall lock;
    int rc = rtb_port_mutex_lock_kcall(MUTEX, &lock);
    if (rc != RTB_OK)
        sw_fail(s, rc, "mutex_lock");
    while (!s->stop) {
        rtb_stamp_t t1;
        if ((rc = rtb_port_sem_take(GO, RTB_WAIT_FOREVER)) != RTB_OK) {
            sw_fail(s, rc, "take GO");
            break;
        }
        if (s->stop)
            break;
        if (s->block)
            rtb_kcall_after_stamp(&lock, &s->t0);
        else
            rtb_kcall_then_stamp(&lock, &t1);
        if ((rc = rtb_kcall_rc(&lock)) != RTB_OK) {
            sw_fail(s, rc, "mutex_lock");
            break;
        }
        bool more = true;
        if (!s->block) {
            rtb_add(s->ctx, s->t0, t1);
            more = rtb_want(s->ctx);
        }
        if ((rc = rtb_port_mutex_unlock(MUTEX)) != RTB_OK) {
            sw_fail(s, rc, "mutex_unlock");
            break;
        }
        if (!more) {
            s->stop = true;
            break;
        }
    }
}

/* LOW: owns the mutex and gives GO; HIGH preempts it inside the give.
 * block_ctx: HIGH blocked on the mutex, the give returns, the stamp
 * follows. wake_ctx: LOW stamps and unlocks; HIGH preempts it. */
static void sw_low(void *arg)
{
    struct sw *s = arg;
    struct rtb_kcall give, unlock;
    int rc = rtb_port_sem_give_kcall(GO, &give);
    if (rc == RTB_OK)
        rc = rtb_port_mutex_unlock_kcall(MUTEX, &unlock);
    if (rc != RTB_OK)
        sw_fail(s, rc, "prepare give GO / unlock");
    while (!s->stop) {
        rtb_stamp_t t1 = 0;
        if ((rc = rtb_port_mutex_lock(MUTEX)) != RTB_OK) {
            sw_fail(s, rc, "mutex_lock (owner)");
            break;
        }
        if (s->block)
            rtb_kcall_then_stamp(&give, &t1);
        else
            rtb_kcall_run(&give);
        if ((rc = rtb_kcall_rc(&give)) != RTB_OK) {
            rtb_port_mutex_unlock(MUTEX);
            sw_fail(s, rc, "give GO");
            break;
        }
        /* HIGH ran and is now blocked on the mutex */
        if (s->block) {
            rtb_add(s->ctx, s->t0, t1);
            if (!rtb_want(s->ctx))
                s->stop = true; /* HIGH sees it at its next GO */
            rtb_kcall_run(&unlock);
        } else {
            rtb_kcall_after_stamp(&unlock, &s->t0);
        }
        if ((rc = rtb_kcall_rc(&unlock)) != RTB_OK) {
            sw_fail(s, rc, "mutex_unlock (owner)");
            break;
        }
    }
    rtb_port_sem_give(GO); /* HIGH may be waiting for it */
}

static void switch_pair(struct rtb_ctx *ctx, unsigned flags, bool block)
{
    struct sw *s = rtb_shared_state(ctx, (void **)&sw_shared, sizeof *sw_shared);
    if (!s || !make(ctx, flags))
        return;
    if (!rtb_ok(ctx, rtb_port_sem_create(GO, 0, 1), "sem_create")) {
        rtb_port_mutex_delete(MUTEX);
        return;
    }
    s->ctx = ctx;
    s->block = block;
    s->t0 = rtb_port_stamp_start();
    s->rc = RTB_OK;
    unsigned fl = rtb_task_flags(ctx);
    if (rtb_ok(ctx, rtb_port_task_create(TASK_HIGH, RTB_PRIO_HIGH, fl, sw_high, s), "create high task")) {
        if (rtb_ok(ctx, rtb_port_task_create(TASK_LOW, RTB_PRIO_LOW, fl, sw_low, s), "create low task")) {
            rtb_port_task_join(TASK_LOW);
        } else {
            s->stop = true;
            rtb_port_sem_give(GO);
        }
        rtb_port_task_join(TASK_HIGH);
        rtb_ok(ctx, s->rc, s->what ? s->what : "switch");
    }
    rtb_port_sem_delete(GO);
    rtb_port_mutex_delete(MUTEX);
}

static void r_lock_block_ctx(struct rtb_ctx *ctx) { switch_pair(ctx, RECURSIVE, true); }
static void r_unlock_wake_ctx(struct rtb_ctx *ctx) { switch_pair(ctx, RECURSIVE, false); }

const struct rtb_metric rtb_mutex_metrics[] = {
    {"mutex.lock.uncontended", lock_uncontended, RTB_CAP_MUTEX, 0},
    {"mutex.unlock.uncontended", unlock_uncontended, RTB_CAP_MUTEX, 0},
    {"rmutex.create", r_create, RTB_CAP_MUTEX, 0},
    {"rmutex.delete", r_delete, RTB_CAP_MUTEX, 0},
    {"rmutex.create_heap", r_create, RTB_CAP_MUTEX, RTB_FROM_HEAP},
    {"rmutex.delete_heap", r_delete, RTB_CAP_MUTEX, RTB_FROM_HEAP},
    {"rmutex.lock.uncontended", r_lock_uncontended, RTB_CAP_MUTEX, 0},
    {"rmutex.unlock.uncontended", r_unlock_uncontended, RTB_CAP_MUTEX, 0},
    {"rmutex.lock.nested", r_lock_nested, RTB_CAP_MUTEX, 0},
    {"rmutex.unlock.nested", r_unlock_nested, RTB_CAP_MUTEX, 0},
    RTB_THREAD_AND_PROCESS("rmutex.lock.unavailable_nowait", r_lock_unavailable_nowait, RTB_CAP_MUTEX | RTB_CAP_SEM),
    RTB_THREAD_AND_PROCESS("rmutex.unlock.waiter_readied", r_unlock_waiter_readied, RTB_CAP_MUTEX | RTB_CAP_SEM),
    RTB_THREAD_AND_PROCESS("rmutex.lock.block_ctx", r_lock_block_ctx, RTB_CAP_MUTEX | RTB_CAP_SEM),
    RTB_THREAD_AND_PROCESS("rmutex.unlock.wake_ctx", r_unlock_wake_ctx, RTB_CAP_MUTEX | RTB_CAP_SEM),
    {"pimutex.lock.uncontended", pi_lock_uncontended, RTB_CAP_MUTEX, 0},
    {"pimutex.unlock.uncontended", pi_unlock_uncontended, RTB_CAP_MUTEX, 0},
    {0, 0, 0, 0},
};
