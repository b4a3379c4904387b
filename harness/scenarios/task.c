/*
 * Tasks: the life cycle and the scheduling calls of the VxWorks "Tasks"
 * table, DSP/BIOS TSK and Zephyr's thread.* rows.
 *
 * The runner (RTB_PRIO_RUNNER) is the calling task: it creates, starts,
 * deletes, suspends, resumes and re-prioritises one target task, so every
 * metric runs with threads and with processes (a process task cannot create
 * tasks in the POSIX port, the runner can). A target below the runner
 * (RTB_PRIO_LOW) never runs inside the timed call; a target that must
 * preempt the caller runs at RTB_PRIO_MAX, above the runner.
 *
 * The target's state for the VxWorks situations: "ready" spins (ready, not
 * running, while the runner runs), "pended" waits on an empty semaphore,
 * "delayed" sleeps in rtb_port_task_delay, "suspended" is a spinning task
 * suspended beforehand. After a call that changes the target's state
 * outside the timed region the runner sleeps SETTLE_US, so the target runs
 * and is back in its state (parked, pended, asleep) before the next sample.
 */
#include <rtb/bench.h>

enum { TARGET = 0, TASK_A = 0, TASK_B = 1 };
#define SEM 0
#define SETTLE_US 50u
#define DELAY_US 20000u /* the delayed target's sleep: long against a sample */

struct tstate {
    struct rtb_ctx *ctx;
    int id;
    volatile bool stop;
    volatile rtb_stamp_t t0, t1;
    volatile unsigned seq;
    volatile int rc;
    int mode;
};
static struct tstate *tstate; /* rtb_shared_state(): the tasks may be processes */

static struct tstate *state(struct rtb_ctx *ctx)
{
    struct tstate *s = rtb_shared_state(ctx, (void **)&tstate, sizeof *tstate);
    if (s)
        s->ctx = ctx;
    return s;
}

/* ---- target bodies ------------------------------------------------------- */
static void body_return(void *arg) { (void)arg; }

static void body_stamp(void *arg)
{
    struct tstate *s = arg;
    s->t1 = rtb_port_stamp_end();
}

static void body_spin(void *arg)
{
    struct tstate *s = arg;
    while (!s->stop)
        s->seq++;
}

static void body_pend(void *arg)
{
    struct tstate *s = arg;
    while (!s->stop) {
        int rc = rtb_port_sem_take(SEM, RTB_WAIT_FOREVER);
        if (rc != RTB_OK) {
            s->rc = rc;
            break;
        }
    }
}

static void body_delay(void *arg)
{
    struct tstate *s = arg;
    while (!s->stop) {
        int rc = rtb_port_task_delay(DELAY_US);
        if (rc != RTB_OK) {
            s->rc = rc;
            break;
        }
    }
}

/* ---- create, start, delete -------------------------------------------------- */
/* A call that makes a task more urgent than the caller run (create or
 * start one above the runner): the window ends at the task's first stamp
 * (body_stamp), reached through the port's task entry. Otherwise the
 * call returns to the caller: an ordinary timed call. */
static int time_to_task(struct rtb_ctx *ctx, struct tstate *s, struct rtb_kcall *c, bool ctx_switch)
{
    if (!ctx_switch)
        return rtb_time_kcall(ctx, c, RTB_OK);
    rtb_kcall_after_stamp(c, &s->t0);
    int rc = rtb_kcall_rc(c);
    if (rc == RTB_OK)
        rtb_add(ctx, s->t0, s->t1);
    return rc;
}

static void create_ready(struct rtb_ctx *ctx, int prio)
{
    struct tstate *s = state(ctx);
    unsigned fl = rtb_task_flags(ctx);
    bool ctx_switch = prio > RTB_PRIO_RUNNER;
    struct rtb_kcall c;
    while (s && rtb_want(ctx)) {
        if (!rtb_ok(ctx, rtb_port_task_create_kcall(TARGET, prio, fl, ctx_switch ? body_stamp : body_return,
                                                    s, &c), "task_create") ||
            !rtb_ok(ctx, time_to_task(ctx, s, &c, ctx_switch), "task_create") ||
            !rtb_ok(ctx, rtb_port_task_join(TARGET), "task_join"))
            break;
    }
}

static void create_no_ctx(struct rtb_ctx *ctx) { create_ready(ctx, RTB_PRIO_LOW); }
static void create_ctx(struct rtb_ctx *ctx) { create_ready(ctx, RTB_PRIO_MAX); }

static void create_suspended(struct rtb_ctx *ctx)
{
    rtb_port_emulates(ctx, RTB_EMU_TASK_CREATE_UNSTARTED);
    struct tstate *s = state(ctx);
    unsigned fl = rtb_task_flags(ctx) | RTB_TASK_SUSPENDED;
    struct rtb_kcall c;
    while (s && rtb_want(ctx)) {
        if (!rtb_ok(ctx, rtb_port_task_create_kcall(TARGET, RTB_PRIO_LOW, fl, body_return, s, &c),
                    "task_create") ||
            !rtb_ok(ctx, rtb_time_kcall(ctx, &c, RTB_OK), "task_create") ||
            !rtb_ok(ctx, rtb_port_task_start(TARGET), "task_start") ||
            !rtb_ok(ctx, rtb_port_task_join(TARGET), "task_join"))
            break;
    }
}

static void start(struct rtb_ctx *ctx, int prio)
{
    rtb_port_emulates(ctx, RTB_EMU_TASK_START);
    struct tstate *s = state(ctx);
    unsigned fl = rtb_task_flags(ctx) | RTB_TASK_SUSPENDED;
    bool ctx_switch = prio > RTB_PRIO_RUNNER;
    struct rtb_kcall c;
    while (s && rtb_want(ctx)) {
        if (!rtb_ok(ctx, rtb_port_task_create(TARGET, prio, fl, ctx_switch ? body_stamp : body_return, s),
                    "task_create"))
            break;
        int rc = rtb_port_task_start_kcall(TARGET, &c);
        if (rc == RTB_OK)
            rc = time_to_task(ctx, s, &c, ctx_switch);
        if (rc != RTB_OK)
            rtb_port_task_delete(TARGET);
        if (!rtb_ok(ctx, rc, "task_start") || !rtb_ok(ctx, rtb_port_task_join(TARGET), "task_join"))
            break;
    }
}

static void start_no_ctx(struct rtb_ctx *ctx) { start(ctx, RTB_PRIO_LOW); }
static void start_ctx(struct rtb_ctx *ctx) { start(ctx, RTB_PRIO_MAX); }

static void delete_ready(struct rtb_ctx *ctx)
{
    rtb_port_emulates(ctx, RTB_EMU_TASK_DELETE);
    struct tstate *s = state(ctx);
    struct rtb_kcall c;
    if (!s || !rtb_ok(ctx, rtb_port_sem_create(SEM, 0, 1), "sem_create"))
        return;
    while (rtb_want(ctx)) {
        if (!rtb_ok(ctx, rtb_port_task_create(TARGET, RTB_PRIO_LOW, rtb_task_flags(ctx), body_pend, s),
                    "task_create") ||
            !rtb_ok(ctx, rtb_port_task_delete_kcall(TARGET, &c), "task_delete") ||
            !rtb_ok(ctx, rtb_time_kcall(ctx, &c, RTB_OK), "task_delete"))
            break;
    }
    rtb_port_sem_delete(SEM);
}

/* ---- suspend / resume a task in a given state --------------------------- */
enum situation { READY, PENDED, SUSPENDED, DELAYED };

static bool target_up(struct rtb_ctx *ctx, struct tstate *s, enum situation sit)
{
    if (!rtb_ok(ctx, rtb_port_sem_create(SEM, 0, 1), "sem_create"))
        return false;
    rtb_task_fn body = sit == PENDED ? body_pend : sit == DELAYED ? body_delay : body_spin;
    if (!rtb_ok(ctx, rtb_port_task_create(TARGET, RTB_PRIO_LOW, rtb_task_flags(ctx), body, s), "task_create")) {
        rtb_port_sem_delete(SEM);
        return false;
    }
    rtb_port_task_delay(SETTLE_US); /* let it reach its state */
    return true;
}

static void target_down(struct rtb_ctx *ctx, struct tstate *s)
{
    s->stop = true;
    rtb_port_task_resume(TARGET);
    rtb_port_sem_give(SEM);
    rtb_ok(ctx, rtb_port_task_join(TARGET), "task_join");
    rtb_ok(ctx, s->rc, "target task");
    rtb_port_sem_delete(SEM);
}

static void suspend_in(struct rtb_ctx *ctx, enum situation sit)
{
    rtb_port_emulates(ctx, RTB_EMU_TASK_SUSPEND);
    struct tstate *s = state(ctx);
    if (!s || !target_up(ctx, s, sit))
        return;
    if (sit == SUSPENDED && rtb_ok(ctx, rtb_port_task_suspend(TARGET), "task_suspend"))
        rtb_port_task_delay(SETTLE_US);
    struct rtb_kcall c;
    if (!rtb_stopped(ctx))
        rtb_ok(ctx, rtb_port_task_suspend_kcall(TARGET, &c), "task_suspend");
    while (!rtb_stopped(ctx) && rtb_want(ctx)) {
        if (!rtb_ok(ctx, rtb_time_kcall(ctx, &c, RTB_OK), "task_suspend"))
            break;
        if (sit != SUSPENDED) {
            if (!rtb_ok(ctx, rtb_port_task_resume(TARGET), "task_resume"))
                break;
            rtb_port_task_delay(SETTLE_US);
        }
    }
    target_down(ctx, s);
}

static void resume_in(struct rtb_ctx *ctx, enum situation sit)
{
    rtb_port_emulates(ctx, RTB_EMU_TASK_SUSPEND);
    struct tstate *s = state(ctx);
    if (!s || !target_up(ctx, s, sit))
        return;
    struct rtb_kcall c;
    if (!rtb_ok(ctx, rtb_port_task_resume_kcall(TARGET, &c), "task_resume")) {
        target_down(ctx, s);
        return;
    }
    while (rtb_want(ctx)) {
        if (sit == SUSPENDED) {
            if (!rtb_ok(ctx, rtb_port_task_suspend(TARGET), "task_suspend"))
                break;
            rtb_port_task_delay(SETTLE_US);
        }
        if (!rtb_ok(ctx, rtb_time_kcall(ctx, &c, RTB_OK), "task_resume"))
            break;
        if (sit == SUSPENDED)
            rtb_port_task_delay(SETTLE_US);
    }
    target_down(ctx, s);
}

static void suspend_ready(struct rtb_ctx *ctx) { suspend_in(ctx, READY); }
static void suspend_pended(struct rtb_ctx *ctx) { suspend_in(ctx, PENDED); }
static void suspend_suspended(struct rtb_ctx *ctx) { suspend_in(ctx, SUSPENDED); }
static void suspend_delayed(struct rtb_ctx *ctx) { suspend_in(ctx, DELAYED); }
static void resume_ready(struct rtb_ctx *ctx) { resume_in(ctx, READY); }
static void resume_pended(struct rtb_ctx *ctx) { resume_in(ctx, PENDED); }
static void resume_suspended(struct rtb_ctx *ctx) { resume_in(ctx, SUSPENDED); }
static void resume_delayed(struct rtb_ctx *ctx) { resume_in(ctx, DELAYED); }

/* ---- Zephyr: a task suspends itself; the runner resumes it -------------- */
/* The target (above the runner) stamps t0 and suspends itself: the runner's
 * next instruction ends a "suspend" sample. The runner stamps and resumes
 * it: the target's first instruction after its suspend call ends a
 * "resume" sample. The runner records both kinds (mode says which). */
static void body_self_suspend(void *arg)
{
    struct tstate *s = arg;
    struct rtb_kcall suspend;
    int rc = rtb_port_task_suspend_kcall(s->id, &suspend);
    while (rc == RTB_OK) {
        rtb_stamp_t t1;
        rtb_kcall_shared_timed(&suspend, &s->t0, &t1);
        s->t1 = t1;
        rc = rtb_kcall_rc(&suspend);
        __atomic_store_n(&s->seq, s->seq + 1, __ATOMIC_RELEASE); /* the only writer */
        if (s->stop)
            break;
    }
    if (rc != RTB_OK) {
        s->rc = rc;
        __atomic_store_n(&s->seq, s->seq + 1, __ATOMIC_RELEASE);
    }
}

static void self_suspend_pair(struct rtb_ctx *ctx, bool record_resume)
{
    rtb_port_emulates(ctx, RTB_EMU_TASK_SELF_SUSPEND);
    struct tstate *s = state(ctx);
    if (!s)
        return;
    s->id = TARGET;
    if (!rtb_ok(ctx, rtb_port_task_create(TARGET, RTB_PRIO_MAX, rtb_task_flags(ctx), body_self_suspend, s),
                "task_create"))
        return;
    struct rtb_kcall resume;
    unsigned seen = 0;
    int rc = rtb_port_task_resume_kcall(TARGET, &resume);
    while (rc == RTB_OK && rtb_want(ctx)) {
        rtb_stamp_t t0, back; /* back: first instruction after the target suspended itself */
        rtb_kcall_timed(&resume, &t0, &back);
        if (!rtb_ok(ctx, rtb_kcall_rc(&resume), "task_resume"))
            break;
        /* Real-time: the target has run and suspended itself again. Without
         * it, the resume may have come before the target's suspend: repeat. */
        while (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) == seen && !s->rc) {
            rtb_port_task_yield();
            rtb_kcall_timed(&resume, &t0, &back);
        }
        seen = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
        if (s->rc)
            break;
        rtb_stamp_t t_susp = s->t0;
        if (record_resume)
            rtb_add(ctx, t0, s->t1);
        else if (rtb_stamp_delta(t_susp, back) >= 0)
            rtb_add(ctx, t_susp, back);
    }
    s->stop = true;
    unsigned last = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
    while (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) == last && !s->rc) {
        rtb_port_task_resume(TARGET);
        rtb_port_task_yield();
    }
    rtb_ok(ctx, rc, "task_resume");
    rtb_ok(ctx, rtb_port_task_join(TARGET), "task_join");
    rtb_ok(ctx, s->rc, "self-suspend");
}

static void suspend_self_ctx(struct rtb_ctx *ctx) { self_suspend_pair(ctx, false); }
static void resume_ctx(struct rtb_ctx *ctx) { self_suspend_pair(ctx, true); }

/* ---- priority set ------------------------------------------------------- */
static void prio_set_in(struct rtb_ctx *ctx, enum situation sit)
{
    struct tstate *s = state(ctx);
    if (!s || !target_up(ctx, s, sit))
        return;
    struct rtb_kcall up, down; /* the priority alternates between two values */
    if (rtb_ok(ctx, rtb_port_task_set_prio_kcall(TARGET, RTB_PRIO_LOW + 1, &up), "task_set_prio") &&
        rtb_ok(ctx, rtb_port_task_set_prio_kcall(TARGET, RTB_PRIO_LOW, &down), "task_set_prio")) {
        for (struct rtb_kcall *c = &up; rtb_want(ctx); c = c == &up ? &down : &up)
            if (!rtb_ok(ctx, rtb_time_kcall(ctx, c, RTB_OK), "task_set_prio"))
                break;
    }
    target_down(ctx, s);
}

static void prio_set_ready(struct rtb_ctx *ctx) { prio_set_in(ctx, READY); }
static void prio_set_pended(struct rtb_ctx *ctx) { prio_set_in(ctx, PENDED); }

/* DSP/BIOS TSK_setpri with a switch. A (HIGH) lowers its own priority below
 * B (LOW): B runs ("lower the current task's own priority"). B raises A
 * back above itself: A preempts it ("raise a ready task's priority"). Both
 * switches happen every round; mode says which one is recorded, and only
 * the task that ends that switch touches the context. */
enum { LOWER_SELF, RAISE_READY };
#define PRIO_BELOW (RTB_PRIO_LOW - 5)

/* A lowers itself (stamp t0 shared, then the call); B runs; later B raises
 * A, A preempts it and its call returns: A's stamp t1 ends RAISE_READY. */
static void prio_a(void *arg)
{
    struct tstate *s = arg;
    struct rtb_kcall lower;
    int rc = rtb_port_task_set_prio_kcall(-1, PRIO_BELOW, &lower);
    __atomic_store_n(&s->seq, 1, __ATOMIC_RELEASE); /* B may address A from now on */
    while (rc == RTB_OK) {
        rtb_stamp_t t1; /* B raised us: we preempted it */
        rtb_kcall_shared_timed(&lower, &s->t0, &t1);
        if ((rc = rtb_kcall_rc(&lower)) != RTB_OK || s->stop)
            break;
        if (s->mode == RAISE_READY) {
            rtb_add(s->ctx, s->t1, t1);
            if (!rtb_want(s->ctx)) {
                s->stop = true;
                break;
            }
        }
    }
    if (rc != RTB_OK) {
        s->rc = rc;
        s->stop = true;
    }
}

/* B: its raise of A returns when A lowered itself again: its stamp then
 * ends LOWER_SELF; it stamps t1 (shared) and raises A again. */
static void prio_b(void *arg)
{
    struct tstate *s = arg;
    while (!__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) && !s->stop) /* unpinned: B may run first */
        rtb_port_task_yield();
    struct rtb_kcall raise;
    int rc = rtb_port_task_set_prio_kcall(TASK_A, RTB_PRIO_HIGH, &raise);
    bool first = true;
    rtb_stamp_t t1 = 0; /* A lowered itself below us: we run */
    while (rc == RTB_OK && !s->stop) {
        if (!first && s->mode == LOWER_SELF) {
            rtb_add(s->ctx, s->t0, t1);
            if (!rtb_want(s->ctx))
                s->stop = true; /* A sees it once raised */
        }
        first = false;
        rtb_kcall_shared_timed(&raise, &s->t1, &t1);
        rc = rtb_kcall_rc(&raise);
    }
    if (rc != RTB_OK) {
        s->rc = rc;
        s->stop = true;
    }
}

static void prio_switch(struct rtb_ctx *ctx, int mode)
{
    struct tstate *s = state(ctx);
    if (!s)
        return;
    s->mode = mode;
    unsigned fl = rtb_task_flags(ctx);
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_B, RTB_PRIO_LOW, fl, prio_b, s), "create task B"))
        return;
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_A, RTB_PRIO_HIGH, fl, prio_a, s), "create task A")) {
        s->stop = true;
        rtb_port_task_join(TASK_B);
        return;
    }
    rtb_port_task_join(TASK_A);
    rtb_port_task_join(TASK_B);
    rtb_ok(ctx, s->rc, "task_set_prio");
}

static void prio_lower_self_ctx(struct rtb_ctx *ctx) { prio_switch(ctx, LOWER_SELF); }
static void prio_raise_ready_ctx(struct rtb_ctx *ctx) { prio_switch(ctx, RAISE_READY); }

/* ---- preemption lock ------------------------------------------------------ */
static void sched_lock_time(struct rtb_ctx *ctx, bool lock)
{
    rtb_port_emulates(ctx, RTB_EMU_SCHED_LOCK);
    struct rtb_kcall on, off;
    while (rtb_want(ctx)) {
        /* each prepared just before it runs: an unlock restores what its lock saved */
        int rc = rtb_port_sched_lock_kcall(&on);
        if (rc == RTB_OK)
            rc = lock ? rtb_time_kcall(ctx, &on, RTB_OK) : rtb_kcall_run(&on);
        if (rc == RTB_OK)
            rc = rtb_port_sched_unlock_kcall(&off);
        if (rc == RTB_OK)
            rc = lock ? rtb_kcall_run(&off) : rtb_time_kcall(ctx, &off, RTB_OK);
        if (!rtb_ok(ctx, rc, lock ? "sched_lock/unlock" : "sched_unlock"))
            return;
    }
}

static void sched_lock_outermost(struct rtb_ctx *ctx) { sched_lock_time(ctx, true); }
static void sched_unlock_outermost(struct rtb_ctx *ctx) { sched_lock_time(ctx, false); }

#define SUS RTB_CAP_TASK_SUSPEND
const struct rtb_metric rtb_task_metrics[] = {
    RTB_THREAD_AND_PROCESS("task.create.no_ctx", create_no_ctx, 0),
    RTB_THREAD_AND_PROCESS("task.create.ctx", create_ctx, 0),
    {"task.create_heap.no_ctx.thread", create_no_ctx, 0, RTB_FROM_HEAP},
    {"task.create_heap.ctx.thread", create_ctx, 0, RTB_FROM_HEAP},
    RTB_THREAD_AND_PROCESS("task.create.unstarted", create_suspended, RTB_CAP_TASK_START),
    RTB_THREAD_AND_PROCESS("task.start.no_ctx", start_no_ctx, RTB_CAP_TASK_START),
    RTB_THREAD_AND_PROCESS("task.start.ctx", start_ctx, RTB_CAP_TASK_START),
    RTB_THREAD_AND_PROCESS("task.delete.ready", delete_ready, RTB_CAP_TASK_DELETE | RTB_CAP_SEM),
    RTB_THREAD_AND_PROCESS("task.suspend.ready", suspend_ready, SUS),
    RTB_THREAD_AND_PROCESS("task.suspend.pended", suspend_pended, SUS | RTB_CAP_SEM),
    RTB_THREAD_AND_PROCESS("task.suspend.suspended", suspend_suspended, SUS),
    RTB_THREAD_AND_PROCESS("task.suspend.delayed", suspend_delayed, SUS),
    RTB_THREAD_AND_PROCESS("task.resume.ready", resume_ready, SUS),
    RTB_THREAD_AND_PROCESS("task.resume.pended", resume_pended, SUS | RTB_CAP_SEM),
    RTB_THREAD_AND_PROCESS("task.resume.suspended", resume_suspended, SUS),
    RTB_THREAD_AND_PROCESS("task.resume.delayed", resume_delayed, SUS),
    RTB_THREAD_AND_PROCESS("task.suspend.self_ctx", suspend_self_ctx, SUS),
    RTB_THREAD_AND_PROCESS("task.resume.ctx", resume_ctx, SUS),
    RTB_THREAD_AND_PROCESS("task.prio_set.ready", prio_set_ready, 0),
    RTB_THREAD_AND_PROCESS("task.prio_set.pended", prio_set_pended, RTB_CAP_SEM),
    RTB_THREAD_AND_PROCESS("task.prio_set.lower_self_ctx", prio_lower_self_ctx, 0),
    RTB_THREAD_AND_PROCESS("task.prio_set.raise_ready_ctx", prio_raise_ready_ctx, 0),
    {"sched.lock.outermost", sched_lock_outermost, RTB_CAP_SCHED_LOCK, 0},
    {"sched.unlock.outermost", sched_unlock_outermost, RTB_CAP_SCHED_LOCK, 0},
    {0, 0, 0, 0},
};
