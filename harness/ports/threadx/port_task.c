/*
 * ThreadX port: threads. A task is a TX_THREAD of a static slot (ThreadX
 * never allocates a control block: the application owns it) whose stack
 * comes from the byte pool (tx_byte_allocate, as ThreadX's
 * sample_threadx.c allocates its stacks), taken when the create is
 * prepared.
 *
 * The thread's entry is the scenario's function itself (ThreadX passes it
 * one word, the function reads it as its pointer): nothing of the port's
 * runs between a new thread's first instruction after the kernel and its
 * function, so a window that ends in the function (task.create.ctx,
 * task.start.ctx) holds only the kernel. ThreadX has no join: the joiner
 * asks for the thread's exit notification (tx_thread_entry_exit_notify,
 * whose callback puts the slot's semaphore when the function has
 * returned) and waits on that semaphore, then deletes the thread and
 * releases its stack. It asks at the join, when the thread has run, so the
 * callback's entry call (before the function) does not happen either.
 * Built with TX_DISABLE_NOTIFY_CALLBACKS there is no notification: the
 * thread then runs a wrapper that calls the function and puts the
 * semaphore (its first instructions precede the function's).
 *
 * Services ThreadX has as such: create without starting (TX_DONT_START),
 * start = tx_thread_resume, suspend/resume (a thread suspended while it
 * waits on an object stays waiting and is suspended when the wait ends:
 * ThreadX's delayed suspension), priority change, relinquish. Delete is
 * tx_thread_terminate then tx_thread_delete (ThreadX deletes only a
 * terminated or completed thread): an emulation, the port's own function.
 * The preemption lock is ThreadX's preemption-threshold raised to 0
 * (tx_thread_preemption_change): no other thread preempts the caller,
 * interrupts still run.
 */
#include "rtb_threadx.h"

#define STACK_BYTES 2048u /* as the FreeRTOS port: the deepest scenario path needs under 1 KiB */

static struct slot {
    TX_THREAD thread; /* first: the exit notification finds its slot by it */
    TX_SEMAPHORE done; /* put when the function has returned */
    void *stack;
    void *arg;        /* arg, fn, self: in this order, the entry's one load */
    rtb_task_fn fn;
    struct slot *self;
    bool used;
} slots[RTB_MAX_TASKS];

#define SLOT_OK(id) ((id) >= 0 && (id) < RTB_MAX_TASKS && slots[id].used)

void rtb_threadx_tasks_init(void)
{
    for (int i = 0; i < RTB_MAX_TASKS; i++)
        if (tx_semaphore_create(&slots[i].done, "join", 0) != TX_SUCCESS)
            rtb_board_exit(RTB_THREADX_EXIT_INIT);
}

#ifndef TX_DISABLE_NOTIFY_CALLBACKS
/* The thread's function returned (ThreadX calls it with preemption off,
 * before the thread's last suspension). */
static VOID exited(TX_THREAD *t, UINT how)
{
    if (how == TX_THREAD_EXIT)
        tx_semaphore_put(&((struct slot *)(void *)t)->done);
}
/* the entry and its argument, as words (the shim casts them back) */
#define ENTRY(s) ((rtb_word)(s)->fn)
#define ENTRY_ARG(s) ((rtb_word)(s)->arg)
#else
/* The function has returned: the joiner may go on; this thread stops here
 * for good (the joiner terminates and deletes it), so the entry below
 * never returns and keeps nothing for its caller. */
void rtb_threadx_task_exit(struct slot *s);
void rtb_threadx_task_exit(struct slot *s)
{
    tx_semaphore_put(&s->done);
    for (;;)
        tx_thread_suspend(tx_thread_identify());
}
/* What runs of the port before the scenario's function: two instructions
 * (one load of arg, fn and the slot, the call), which the create and start
 * windows that end in the new thread hold. */
__attribute__((naked)) static VOID wrapper(ULONG p __attribute__((unused)))
{
    __asm volatile("ldm r0, {r0, r1, r4}\n\t" /* r0 = arg, r1 = fn, r4 = slot (kept across the call) */
                   "blx r1\n\t"
                   "mov r0, r4\n\t"
                   "b rtb_threadx_task_exit\n\t");
}
#define ENTRY(s) ((rtb_word)wrapper)
#define ENTRY_ARG(s) ((rtb_word)&(s)->arg)
#endif

static void release(struct slot *s)
{
    rtb_threadx_free(s->stack);
    s->stack = TX_NULL;
    s->used = false;
}

/* tx_thread_create's ten arguments, as an application passes them: a0 the
 * control block, a1 the entry function, a2 its argument, a3 the stack,
 * a4 the priority (and preemption-threshold: none below it), a5
 * TX_AUTO_START or TX_DONT_START. A shim: ten arguments are more than a
 * prepared call carries, and the call is a macro when ThreadX checks
 * errors. */
RTB_KAPI(tx_thread_create, tx_thread_create((TX_THREAD *)a0, "rtb", (VOID(*)(ULONG))a1, (ULONG)a2, (VOID *)a3,
                                            STACK_BYTES, (UINT)a4, (UINT)a4, TX_NO_TIME_SLICE, (UINT)a5))

static int created(const struct rtb_kcall *c)
{
    UINT rc = (UINT)c->ret;
    if (rc == TX_SUCCESS)
        return RTB_OK;
    release((struct slot *)c->aux[0]);
    return rtb_threadx_status("tx_thread_create", rc);
}

int rtb_port_task_create_kcall(int id, int prio, unsigned flags, rtb_task_fn fn, void *arg,
                               struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_TASKS || slots[id].used || prio < 1 || prio > RTB_PRIO_MAX)
        return rtb_threadx_fail("task_create", "bad id or priority, or id in use");
    if (flags & (RTB_TASK_PROCESS | RTB_TASK_OTHER_CPU))
        return rtb_threadx_unsupported("task_create: one address space, one CPU");
    _Static_assert(sizeof(void *) == sizeof(ULONG), "the entry's ULONG carries the task's pointer");
    struct slot *s = &slots[id];
    s->stack = rtb_threadx_alloc(STACK_BYTES);
    if (!s->stack)
        return rtb_threadx_fail("task_create", "byte pool exhausted");
    s->fn = fn;
    s->arg = arg;
    s->self = s;
    s->used = true; /* a task more urgent than the caller runs, and may name itself, at once */
    while (tx_semaphore_get(&s->done, TX_NO_WAIT) == TX_SUCCESS)
        ; /* empty, whatever an earlier task left */
    rtb_kcall_set(c, rtb_kapi_tx_thread_create, created, (rtb_word)&s->thread, ENTRY(s), ENTRY_ARG(s),
                  (rtb_word)s->stack);
    c->a[4] = rtb_threadx_prio(prio);
    c->a[5] = (flags & RTB_TASK_SUSPENDED) ? TX_DONT_START : TX_AUTO_START;
    c->aux[0] = (rtb_word)s;
    return RTB_OK;
}

/* done() of a call on a thread: TX_SUCCESS, and for a resume the statuses
 * the contract counts as done (resuming a thread that is not suspended). */
static int thread_done(const struct rtb_kcall *c)
{
    UINT rc = (UINT)c->ret;
    if (rc == TX_SUCCESS || (c->aux[0] && (rc == TX_SUSPEND_LIFTED || rc == TX_RESUME_ERROR)))
        return RTB_OK;
    return rtb_threadx_status((const char *)c->aux[1], rc);
}

static int on_thread(int id, UINT (*kfn)(TX_THREAD *), bool resume, const char *what, struct rtb_kcall *c)
{
    if (!SLOT_OK(id))
        return rtb_threadx_fail(what, "no such task");
    rtb_kcall_set(c, RTB_KFN(kfn), thread_done, (rtb_word)&slots[id].thread, 0, 0, 0);
    c->aux[0] = resume;
    c->aux[1] = (rtb_word)what;
    return RTB_OK;
}

int rtb_port_task_start_kcall(int id, struct rtb_kcall *c)
{
    return on_thread(id, tx_thread_resume, false, "tx_thread_resume", c);
}

/* the caller's own thread suspends the caller */
int rtb_port_task_suspend_kcall(int id, struct rtb_kcall *c)
{
    return on_thread(id, tx_thread_suspend, false, "tx_thread_suspend", c);
}

/* Resuming a thread that is not suspended is a no-op by the contract
 * (TX_RESUME_ERROR), as is lifting a sleep (TX_SUSPEND_LIFTED). */
int rtb_port_task_resume_kcall(int id, struct rtb_kcall *c)
{
    return on_thread(id, tx_thread_resume, true, "tx_thread_resume", c);
}

/* Deleting a thread that has not returned is ThreadX's two calls, as an
 * application makes them: terminate it, then delete it. Two kernel calls:
 * the port's emulation (RTB_EMU_TASK_DELETE), not a shim. */
static rtb_word terminate_then_delete(rtb_word a0, rtb_word a1, rtb_word a2, rtb_word a3, rtb_word a4,
                                      rtb_word a5, rtb_word a6, rtb_word a7)
{
    RTB_KAPI_UNUSED;
    UINT rc = tx_thread_terminate((TX_THREAD *)a0);
    return rc == TX_SUCCESS ? tx_thread_delete((TX_THREAD *)a0) : rc;
}

static int deleted(const struct rtb_kcall *c)
{
    UINT rc = (UINT)c->ret;
    if (rc != TX_SUCCESS)
        return rtb_threadx_status("task_delete", rc);
    release((struct slot *)c->aux[0]);
    return RTB_OK;
}

int rtb_port_task_delete_kcall(int id, struct rtb_kcall *c)
{
    if (!SLOT_OK(id))
        return rtb_threadx_fail("task_delete", "no such task");
    rtb_kcall_set(c, terminate_then_delete, deleted, (rtb_word)&slots[id].thread, 0, 0, 0);
    c->aux[0] = (rtb_word)&slots[id];
    return RTB_OK;
}

/* Wait until the task's function returned, then delete its thread and
 * give its stack back. */
int rtb_port_task_join(int id)
{
    if (!SLOT_OK(id))
        return rtb_threadx_fail("task_join", "no such task");
    struct slot *s = &slots[id];
    UINT rc;
#ifndef TX_DISABLE_NOTIFY_CALLBACKS
    rc = tx_thread_entry_exit_notify(&s->thread, exited);
    if (rc != TX_SUCCESS)
        return rtb_threadx_status("tx_thread_entry_exit_notify", rc);
    /* Completed already (before the notification was asked for)? ThreadX
     * marks it so with preemption off until its last suspension, so a
     * thread seen completed is off the ready list. */
    if (s->thread.tx_thread_state != TX_COMPLETED)
        tx_semaphore_get(&s->done, TX_WAIT_FOREVER);
#else
    tx_semaphore_get(&s->done, TX_WAIT_FOREVER);
    rc = tx_thread_terminate(&s->thread); /* it may not have left the wrapper yet */
    if (rc != TX_SUCCESS)
        return rtb_threadx_status("tx_thread_terminate", rc);
#endif
    rc = tx_thread_delete(&s->thread);
    if (rc != TX_SUCCESS)
        return rtb_threadx_status("tx_thread_delete", rc);
    release(s);
    return RTB_OK;
}

int rtb_port_task_yield_kcall(struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(tx_thread_relinquish), 0, 0, 0, 0, 0);
    return RTB_OK;
}

void rtb_port_task_yield(void)
{
    tx_thread_relinquish();
}

/* tx_thread_priority_change also sets the preemption-threshold to the new
 * priority; its old priority goes to aux[2]. */
static int prio_done(const struct rtb_kcall *c)
{
    UINT rc = (UINT)c->ret;
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_thread_priority_change", rc);
}

int rtb_port_task_set_prio_kcall(int id, int prio, struct rtb_kcall *c)
{
    if (prio < 1 || prio > RTB_PRIO_MAX || (id != -1 && !SLOT_OK(id)))
        return rtb_threadx_fail("task_set_prio", "bad id or priority");
    TX_THREAD *t = id == -1 ? tx_thread_identify() : &slots[id].thread;
    rtb_kcall_set(c, RTB_KFN(tx_thread_priority_change), prio_done, (rtb_word)t, rtb_threadx_prio(prio), 0,
                  0);
    c->a[2] = (rtb_word)&c->aux[2];
    return RTB_OK;
}

RTB_KCALL_PLAIN(task_create, (int id, int prio, unsigned flags, rtb_task_fn fn, void *arg), id, prio,
                flags, fn, arg)
RTB_KCALL_PLAIN(task_start, (int id), id)
RTB_KCALL_PLAIN(task_delete, (int id), id)
RTB_KCALL_PLAIN(task_suspend, (int id), id)
RTB_KCALL_PLAIN(task_resume, (int id), id)
RTB_KCALL_PLAIN(task_set_prio, (int id, int prio), id, prio)

/* At least `us`: whole kernel ticks with tx_thread_sleep (its first tick is
 * partial, hence one more), or, below a tick, the board's one-shot timer,
 * where it keeps time (not on QEMU's STM32F4: rtb_board_ts.h), so a 50 us
 * settle stays 50 us instead of a whole 1 ms tick. */
int rtb_port_task_delay(uint32_t us)
{
    const uint32_t tick_us = 1000000u / RTB_THREADX_TICK_HZ;
    if (us < tick_us && RTB_BOARD_ONESHOT_AVAILABLE() &&
        rtb_threadx_delay_ticks(RTB_BOARD_US_TICKS(us)) == 0)
        return RTB_OK;
    UINT rc = tx_thread_sleep((ULONG)((us + tick_us - 1) / tick_us) + 1);
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_thread_sleep", rc);
}

static int slept(const struct rtb_kcall *c)
{
    UINT rc = (UINT)c->ret;
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_thread_sleep", rc);
}

/* A delay of a tick or more times tx_thread_sleep itself; a shorter one is
 * the port's fine delay (the plain call). */
int rtb_port_task_delay_kcall(uint32_t us, struct rtb_kcall *c)
{
    const uint32_t tick_us = 1000000u / RTB_THREADX_TICK_HZ;
    if (us < tick_us) {
        rtb_kcall_set(c, RTB_KFN(rtb_port_task_delay), rtb_kcall_done_rc, us, 0, 0, 0);
        return RTB_OK;
    }
    rtb_kcall_set(c, RTB_KFN(tx_thread_sleep), slept, (us + tick_us - 1) / tick_us + 1, 0, 0, 0);
    return RTB_OK;
}

/* ---- the preemption lock: preemption-threshold 0 -------------------------- */
/* tx_thread_preemption_change(self, 0, &old): the old threshold goes to
 * aux[2], and done() keeps it for the unlock, which restores it. */
static UINT saved_threshold;
static TX_THREAD *locker;

static int locked(const struct rtb_kcall *c)
{
    UINT rc = (UINT)c->ret;
    if (rc != TX_SUCCESS)
        return rtb_threadx_status("tx_thread_preemption_change", rc);
    saved_threshold = (UINT)c->aux[2];
    locker = (TX_THREAD *)c->a[0];
    return RTB_OK;
}

int rtb_port_sched_lock_kcall(struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(tx_thread_preemption_change), locked, (rtb_word)tx_thread_identify(), 0, 0, 0);
    c->a[2] = (rtb_word)&c->aux[2];
    return RTB_OK;
}

static int unlocked(const struct rtb_kcall *c)
{
    UINT rc = (UINT)c->ret;
    locker = TX_NULL;
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_thread_preemption_change", rc);
}

/* Prepared after the lock it undoes (it restores that lock's threshold):
 * the scenarios prepare it once, after a first lock, or again per lock. */
int rtb_port_sched_unlock_kcall(struct rtb_kcall *c)
{
    TX_THREAD *self = locker ? locker : tx_thread_identify();
    rtb_kcall_set(c, RTB_KFN(tx_thread_preemption_change), unlocked, (rtb_word)self,
                  locker ? saved_threshold : 0, 0, 0);
    c->a[2] = (rtb_word)&c->aux[2];
    return RTB_OK;
}

RTB_KCALL_PLAIN0(sched_lock)
RTB_KCALL_PLAIN0(sched_unlock)
