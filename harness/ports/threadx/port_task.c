/*
 * ThreadX port: threads. A task is a TX_THREAD of a static slot (ThreadX
 * never allocates a control block: the application owns it) whose stack
 * comes from the byte pool (tx_byte_allocate, as ThreadX's
 * sample_threadx.c allocates its stacks). The thread runs a wrapper that
 * calls the scenario's function and puts the slot's join semaphore; the
 * joiner gets it, terminates the thread (it may not have returned from the
 * wrapper yet), deletes it and releases its stack.
 *
 * Services ThreadX has as such: create without starting (TX_DONT_START),
 * start = tx_thread_resume, suspend/resume (a thread suspended while it
 * waits on an object stays waiting and is suspended when the wait ends:
 * ThreadX's delayed suspension), priority change, relinquish. Delete is
 * tx_thread_terminate then tx_thread_delete (ThreadX deletes only a
 * terminated or completed thread). The preemption lock is ThreadX's
 * preemption-threshold raised to 0 (tx_thread_preemption_change): no other
 * thread preempts the caller, interrupts still run.
 */
#include "rtb_threadx.h"

#define STACK_BYTES 2048u /* as the FreeRTOS port: the deepest scenario path needs under 1 KiB */

static struct slot {
    TX_THREAD thread;
    TX_SEMAPHORE done; /* put by the wrapper when fn returned */
    void *stack;
    rtb_task_fn fn;
    void *arg;
    bool used;
} slots[RTB_MAX_TASKS];

#define SLOT_OK(id) ((id) >= 0 && (id) < RTB_MAX_TASKS && slots[id].used)

void rtb_threadx_tasks_init(void)
{
    for (int i = 0; i < RTB_MAX_TASKS; i++)
        if (tx_semaphore_create(&slots[i].done, "join", 0) != TX_SUCCESS)
            rtb_board_exit(RTB_THREADX_EXIT_INIT);
}

static VOID wrapper(ULONG p)
{
    struct slot *s = (struct slot *)(uintptr_t)p;
    s->fn(s->arg);
    tx_semaphore_put(&s->done);
    /* returns: the thread completes; the joiner terminates and deletes it */
}

static void release(struct slot *s)
{
    rtb_threadx_free(s->stack);
    s->stack = TX_NULL;
    s->used = false;
}

int rtb_port_task_create(int id, int prio, unsigned flags, rtb_task_fn fn, void *arg)
{
    if (id < 0 || id >= RTB_MAX_TASKS || slots[id].used || prio < 1 || prio > RTB_PRIO_MAX)
        return rtb_threadx_fail("task_create", "bad id or priority, or id in use");
    if (flags & (RTB_TASK_PROCESS | RTB_TASK_OTHER_CPU))
        return rtb_threadx_unsupported("task_create: one address space, one CPU");
    struct slot *s = &slots[id];
    s->stack = rtb_threadx_alloc(STACK_BYTES);
    if (!s->stack)
        return rtb_threadx_fail("task_create", "byte pool exhausted");
    s->fn = fn;
    s->arg = arg;
    s->used = true; /* a task more urgent than the caller runs, and may name itself, at once */
    while (tx_semaphore_get(&s->done, TX_NO_WAIT) == TX_SUCCESS)
        ; /* empty, whatever an earlier task left */
    UINT p = rtb_threadx_prio(prio);
    UINT rc = tx_thread_create(&s->thread, "rtb", wrapper, (ULONG)(uintptr_t)s, s->stack, STACK_BYTES,
                               p, p, TX_NO_TIME_SLICE,
                               (flags & RTB_TASK_SUSPENDED) ? TX_DONT_START : TX_AUTO_START);
    if (rc != TX_SUCCESS) {
        release(s);
        return rtb_threadx_status("tx_thread_create", rc);
    }
    return RTB_OK;
}

int rtb_port_task_start(int id)
{
    if (!SLOT_OK(id))
        return rtb_threadx_fail("task_start", "no such task");
    UINT rc = tx_thread_resume(&slots[id].thread);
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_thread_resume", rc);
}

static int end(int id, bool join)
{
    struct slot *s = &slots[id];
    if (join)
        tx_semaphore_get(&s->done, TX_WAIT_FOREVER);
    UINT rc = tx_thread_terminate(&s->thread); /* success on a completed thread too */
    if (rc == TX_SUCCESS)
        rc = tx_thread_delete(&s->thread);
    if (rc != TX_SUCCESS)
        return rtb_threadx_status(join ? "task_join" : "task_delete", rc);
    release(s);
    return RTB_OK;
}

int rtb_port_task_join(int id)
{
    return SLOT_OK(id) ? end(id, true) : rtb_threadx_fail("task_join", "no such task");
}

int rtb_port_task_delete(int id)
{
    return SLOT_OK(id) ? end(id, false) : rtb_threadx_fail("task_delete", "no such task");
}

int rtb_port_task_suspend(int id)
{
    if (!SLOT_OK(id))
        return rtb_threadx_fail("task_suspend", "no such task");
    UINT rc = tx_thread_suspend(&slots[id].thread); /* the caller's own thread suspends the caller */
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_thread_suspend", rc);
}

/* Resuming a thread that is not suspended is a no-op by the contract
 * (ThreadX answers TX_RESUME_ERROR); resuming one whose suspension was
 * delayed while it waited lifts it (TX_SUSPEND_LIFTED). */
int rtb_port_task_resume(int id)
{
    if (!SLOT_OK(id))
        return rtb_threadx_fail("task_resume", "no such task");
    UINT rc = tx_thread_resume(&slots[id].thread);
    return rc == TX_SUCCESS || rc == TX_SUSPEND_LIFTED || rc == TX_RESUME_ERROR
               ? RTB_OK : rtb_threadx_status("tx_thread_resume", rc);
}

void rtb_port_task_yield(void)
{
    tx_thread_relinquish();
}

/* tx_thread_priority_change also sets the preemption-threshold to the new
 * priority (ThreadX's documented behaviour): thresholds stay disabled. */
int rtb_port_task_set_prio(int id, int prio)
{
    if (prio < 1 || prio > RTB_PRIO_MAX || (id != -1 && !SLOT_OK(id)))
        return rtb_threadx_fail("task_set_prio", "bad id or priority");
    UINT old;
    TX_THREAD *t = id == -1 ? tx_thread_identify() : &slots[id].thread;
    UINT rc = tx_thread_priority_change(t, rtb_threadx_prio(prio), &old);
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_thread_priority_change", rc);
}

/* At least `us`: whole kernel ticks with tx_thread_sleep (its first tick is
 * partial, hence one more), or, below a tick, the board's one-shot timer,
 * so a 50 us settle stays 50 us instead of a whole 1 ms tick. */
int rtb_port_task_delay(uint32_t us)
{
    const uint32_t tick_us = 1000000u / RTB_THREADX_TICK_HZ;
    if (us < tick_us && rtb_threadx_delay_ticks(us * (RTB_BOARD_TS_HZ / 1000000u)) == 0)
        return RTB_OK;
    UINT rc = tx_thread_sleep((ULONG)((us + tick_us - 1) / tick_us) + 1);
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_thread_sleep", rc);
}

/* ---- the preemption lock: preemption-threshold 0 -------------------------- */
static UINT saved_threshold;
static TX_THREAD *locker;

int rtb_port_sched_lock(void)
{
    TX_THREAD *self = tx_thread_identify();
    UINT old;
    UINT rc = tx_thread_preemption_change(self, 0, &old);
    if (rc != TX_SUCCESS)
        return rtb_threadx_status("tx_thread_preemption_change", rc);
    saved_threshold = old;
    locker = self;
    return RTB_OK;
}

int rtb_port_sched_unlock(void)
{
    if (!locker)
        return rtb_threadx_fail("sched_unlock", "not locked");
    TX_THREAD *self = locker;
    locker = TX_NULL;
    UINT old;
    UINT rc = tx_thread_preemption_change(self, saved_threshold, &old);
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_thread_preemption_change", rc);
}
