/*
 * RTX5 port: threads, delays and the preemption lock, each CMSIS-RTOS2's
 * own call.
 *
 * A task is an osRtxThread_t and a stack of a static slot (cb_mem,
 * stack_mem), created joinable (osThreadJoinable), its entry the scenario's
 * function itself: RTX5 passes it the argument and, when it returns, ends
 * the thread (osThreadExit is the entry's return address), so nothing of
 * the port's runs before or after the function. The join is osThreadJoin.
 * Delete is osThreadTerminate; the terminated joinable thread is then
 * joined after the window (osThreadJoin returns at once) to free its slot.
 * Suspend, resume, priority change, yield (osThreadYield) and the
 * preemption lock (osKernelLock / osKernelRestoreLock) are RTX5's own.
 * CMSIS-RTOS2 has no create-without-starting (port_sys.c says why).
 */
#include "rtb_rtx5.h"

#define STACK_BYTES 2048u /* as the other ports: the deepest scenario path needs under 1 KiB */
#define W(x) ((rtb_word)(x))

static struct slot {
    osRtxThread_t cb;
    uint64_t stack[STACK_BYTES / sizeof(uint64_t)]; /* 8-byte aligned, as RTX5 needs */
    osThreadAttr_t attr;
    osThreadId_t id;
    bool used;
} slots[RTB_MAX_TASKS];
#define SLOT_OK(id) ((id) >= 0 && (id) < RTB_MAX_TASKS && slots[id].used)

static int created(const struct rtb_kcall *c)
{
    struct slot *s = (struct slot *)c->aux[0];
    s->id = (osThreadId_t)c->ret;
    if (s->id)
        return RTB_OK;
    s->used = false;
    return rtb_rtx5_fail("osThreadNew", "returned NULL");
}

int rtb_port_task_create_kcall(int id, int prio, unsigned flags, rtb_task_fn fn, void *arg,
                               struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_TASKS || slots[id].used || prio < 1 || prio > RTB_PRIO_MAX)
        return rtb_rtx5_fail("task_create", "bad id or priority, or id in use");
    if (flags & (RTB_TASK_PROCESS | RTB_TASK_OTHER_CPU))
        return rtb_rtx5_unsupported("task_create: one address space, one CPU");
    if (flags & RTB_TASK_SUSPENDED)
        return rtb_rtx5_unsupported("task_create: CMSIS-RTOS2 has no create-without-starting");
    struct slot *s = &slots[id];
    s->attr = (osThreadAttr_t){
        .name = "rtb",
        .attr_bits = osThreadJoinable,
        .cb_mem = rtb_rtx5_from_heap ? NULL : &s->cb,
        .cb_size = rtb_rtx5_from_heap ? 0 : sizeof s->cb,
        .stack_mem = rtb_rtx5_from_heap ? NULL : s->stack,
        .stack_size = STACK_BYTES,
        .priority = rtb_rtx5_prio(prio),
    };
    /* A thread's id is its control block: known before the call, so a
     * thread more urgent than the caller can name itself at once. With
     * RTX5's own memory it is known after the call only (done()). */
    s->id = rtb_rtx5_from_heap ? NULL : (osThreadId_t)&s->cb;
    s->used = true; /* a task more urgent than the caller runs, and may name itself, at once */
    rtb_kcall_set(c, RTB_KFN(osThreadNew), created, W(fn), W(arg), W(&s->attr), 0);
    c->aux[0] = W(s);
    return RTB_OK;
}

static int thread_done(const struct rtb_kcall *c)
{
    int32_t rc = (int32_t)c->ret;
    /* resuming a thread that is not suspended is a no-op by the contract */
    if (rc == osOK || (c->aux[0] && rc == osErrorResource))
        return RTB_OK;
    return rtb_rtx5_status((const char *)c->aux[1], rc);
}

/* A thread waiting on an object (a semaphore, a queue ...; not a delay,
 * not a suspension: both are RTX5's plain "blocked"). */
static bool waits_on_object(const struct slot *s)
{
    uint8_t st = ((const osRtxThread_t *)s->id)->state;
    return (st & osRtxThreadStateMask) == osRtxThreadBlocked && st != osRtxThreadBlocked &&
           st != osRtxThreadWaitingDelay;
}

static int on_thread(int id, rtb_kfn kfn, bool resume, const char *what, struct rtb_kcall *c)
{
    if (!SLOT_OK(id))
        return rtb_rtx5_fail(what, "no such task");
    if (waits_on_object(&slots[id]))
        return rtb_rtx5_unsupported("RTX5 has no suspended-while-waiting state: osThreadSuspend "
                                    "takes a waiting thread off its object's wait list, and "
                                    "osThreadResume ends any blocked thread's wait (osErrorTimeout)");
    rtb_kcall_set(c, kfn, thread_done, W(slots[id].id), 0, 0, 0);
    c->aux[0] = resume;
    c->aux[1] = W(what);
    return RTB_OK;
}

int rtb_port_task_suspend_kcall(int id, struct rtb_kcall *c)
{
    return on_thread(id, RTB_KFN(osThreadSuspend), false, "osThreadSuspend", c);
}

int rtb_port_task_resume_kcall(int id, struct rtb_kcall *c)
{
    return on_thread(id, RTB_KFN(osThreadResume), true, "osThreadResume", c);
}

/* The terminated thread is joinable: join it (at once) to free its slot. */
static int deleted(const struct rtb_kcall *c)
{
    struct slot *s = (struct slot *)c->aux[0];
    int32_t rc = (int32_t)c->ret;
    if (rc != osOK)
        return rtb_rtx5_status("osThreadTerminate", rc);
    rc = osThreadJoin(s->id);
    s->used = false;
    return rc == osOK ? RTB_OK : rtb_rtx5_status("osThreadJoin", rc);
}

int rtb_port_task_delete_kcall(int id, struct rtb_kcall *c)
{
    if (!SLOT_OK(id))
        return rtb_rtx5_fail("task_delete", "no such task");
    rtb_kcall_set(c, RTB_KFN(osThreadTerminate), deleted, W(slots[id].id), 0, 0, 0);
    c->aux[0] = W(&slots[id]);
    return RTB_OK;
}

int rtb_port_task_join(int id)
{
    if (!SLOT_OK(id))
        return rtb_rtx5_fail("task_join", "no such task");
    osStatus_t rc = osThreadJoin(slots[id].id);
    slots[id].used = false;
    return rc == osOK ? RTB_OK : rtb_rtx5_status("osThreadJoin", rc);
}

int rtb_port_task_yield_kcall(struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(osThreadYield), 0, 0, 0, 0, 0);
    return RTB_OK;
}

void rtb_port_task_yield(void)
{
    (void)osThreadYield();
}

static int prio_done(const struct rtb_kcall *c)
{
    int32_t rc = (int32_t)c->ret;
    return rc == osOK ? RTB_OK : rtb_rtx5_status("osThreadSetPriority", rc);
}

int rtb_port_task_set_prio_kcall(int id, int prio, struct rtb_kcall *c)
{
    if (prio < 1 || prio > RTB_PRIO_MAX || (id != -1 && !SLOT_OK(id)))
        return rtb_rtx5_fail("task_set_prio", "bad id or priority");
    osThreadId_t t = id == -1 ? osThreadGetId() : slots[id].id;
    rtb_kcall_set(c, RTB_KFN(osThreadSetPriority), prio_done, W(t), rtb_rtx5_prio(prio), 0, 0);
    return RTB_OK;
}

RTB_KCALL_PLAIN(task_create, (int id, int prio, unsigned flags, rtb_task_fn fn, void *arg), id, prio,
                flags, fn, arg)
RTB_KCALL_PLAIN(task_delete, (int id), id)
RTB_KCALL_PLAIN(task_suspend, (int id), id)
RTB_KCALL_PLAIN(task_resume, (int id), id)
RTB_KCALL_PLAIN(task_set_prio, (int id, int prio), id, prio)

/* At least `us`: whole kernel ticks with osDelay (its first tick is
 * partial, hence one more), or, below a tick, the board's one-shot timer,
 * so a 50 us settle stays 50 us instead of a whole 1 ms tick. */
int rtb_port_task_delay(uint32_t us)
{
    if (us < RTB_RTX5_TICK_US && RTB_BOARD_ONESHOT_AVAILABLE() &&
        rtb_rtx5_delay_ticks(RTB_BOARD_US_TICKS(us)) == 0)
        return RTB_OK;
    osStatus_t rc = osDelay((us + RTB_RTX5_TICK_US - 1) / RTB_RTX5_TICK_US + 1);
    return rc == osOK ? RTB_OK : rtb_rtx5_status("osDelay", rc);
}

static int slept(const struct rtb_kcall *c)
{
    int32_t rc = (int32_t)c->ret;
    return rc == osOK ? RTB_OK : rtb_rtx5_status("osDelay", rc);
}

int rtb_port_task_delay_kcall(uint32_t us, struct rtb_kcall *c)
{
    if (us < RTB_RTX5_TICK_US) {
        rtb_kcall_set(c, RTB_KFN(rtb_port_task_delay), rtb_kcall_done_rc, us, 0, 0, 0);
        return RTB_OK;
    }
    rtb_kcall_set(c, RTB_KFN(osDelay), slept, (us + RTB_RTX5_TICK_US - 1) / RTB_RTX5_TICK_US + 1, 0, 0, 0);
    return RTB_OK;
}

/* ---- the preemption lock: osKernelLock / osKernelUnlock ------------------ */
/* Both return the previous lock state (0 or 1) or a negative osStatus_t. */
static int lock_done(const struct rtb_kcall *c)
{
    int32_t rc = (int32_t)c->ret;
    return rc >= 0 ? RTB_OK : rtb_rtx5_status((const char *)c->aux[1], rc);
}

int rtb_port_sched_lock_kcall(struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(osKernelLock), lock_done, 0, 0, 0, 0);
    c->aux[1] = W("osKernelLock");
    return RTB_OK;
}

int rtb_port_sched_unlock_kcall(struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(osKernelUnlock), lock_done, 0, 0, 0, 0);
    c->aux[1] = W("osKernelUnlock");
    return RTB_OK;
}

RTB_KCALL_PLAIN0(sched_lock)
RTB_KCALL_PLAIN0(sched_unlock)

/* ---- delays below the tick: a semaphore the board's one-shot releases -------- */
static osRtxSemaphore_t expired_cb;
static osSemaphoreId_t expired_sem;
static volatile bool waiting;

/* In the one-shot's interrupt: RTX5 queues the release and does it in
 * PendSV, after the handler. */
static void delay_expired(void *arg)
{
    (void)arg;
    if (waiting)
        (void)osSemaphoreRelease(expired_sem);
}

void rtb_rtx5_fine_delay_init(void)
{
    const osSemaphoreAttr_t attr = {.name = "fine delay", .cb_mem = &expired_cb, .cb_size = sizeof expired_cb};
    expired_sem = osSemaphoreNew(1, 0, &attr);
    if (!expired_sem)
        rtb_board_exit(RTB_RTX5_EXIT_INIT);
    rtb_board_oneshot_init(delay_expired, NULL, RTB_RTX5_IRQ_PRIORITY);
}

/* One thread at a time: the flag is claimed under the scheduler lock,
 * read by the interrupt. */
int rtb_rtx5_delay_ticks(uint32_t ticks)
{
    int32_t lock = osKernelLock(); /* the scheduler's lock: interrupts stay live */
    if (waiting) {
        (void)osKernelRestoreLock(lock);
        return -1;
    }
    waiting = true;
    (void)osKernelRestoreLock(lock);
    while (osSemaphoreAcquire(expired_sem, 0) == osOK)
        ; /* a release left over from a cancelled delay would end this one at once */
    rtb_board_oneshot_start(ticks ? ticks : 1u);
    (void)osSemaphoreAcquire(expired_sem, osWaitForever);
    waiting = false;
    return 0;
}
