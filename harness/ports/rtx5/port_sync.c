/*
 * RTX5 port: semaphores, mutexes and event flags, each CMSIS-RTOS2's own
 * object, its control block static (cb_mem).
 *
 * Semaphores: osSemaphoreNew(max, initial); a release past the maximum
 * fails with osErrorResource, the contract's no-op on a full binary
 * semaphore. The same osSemaphoreRelease is legal in an interrupt handler
 * (RTX5 queues it and completes it in PendSV), so rtb_port_sem_give_isr is
 * that call.
 *
 * Mutexes: osMutexNew with osMutexRecursive for the rmutex rows and
 * osMutexPrioInherit for the pimutex rows; without it a mutex has no
 * priority inheritance, as the mutex rows ask.
 *
 * Event flags: osEventFlagsSet / osEventFlagsWait (osFlagsWaitAny or
 * osFlagsWaitAll, with osFlagsNoClear unless the wait clears).
 */
#include "rtb_rtx5.h"

#define W(x) ((rtb_word)(x))

/* ---- semaphores ---------------------------------------------------------- */
static struct {
    osRtxSemaphore_t cb;
    osSemaphoreAttr_t attr;
    osSemaphoreId_t id;
    bool used;
} sems[RTB_MAX_SEMS];
#define SEM_OK(id) ((id) >= 0 && (id) < RTB_MAX_SEMS && sems[id].used)

static int sem_created(const struct rtb_kcall *c)
{
    int id = (int)c->aux[0];
    sems[id].id = (osSemaphoreId_t)c->ret;
    if (!sems[id].id)
        return rtb_rtx5_fail("osSemaphoreNew", "returned NULL");
    sems[id].used = true;
    return RTB_OK;
}

int rtb_port_sem_create_kcall(int id, unsigned initial, unsigned max, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_SEMS || sems[id].used || max < 1 || initial > max)
        return rtb_rtx5_fail("sem_create", "bad id or count, or id in use");
    if (max > osRtxSemaphoreTokenLimit)
        max = osRtxSemaphoreTokenLimit; /* RTX5's largest count: "unbounded" */
    sems[id].attr = (osSemaphoreAttr_t){.name = "rtb",
                                        .cb_mem = rtb_rtx5_from_heap ? NULL : &sems[id].cb,
                                        .cb_size = rtb_rtx5_from_heap ? 0 : sizeof sems[id].cb};
    rtb_kcall_set(c, RTB_KFN(osSemaphoreNew), sem_created, max, initial, W(&sems[id].attr), 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

static int deleted_done(const struct rtb_kcall *c)
{
    *(bool *)c->aux[2] = false;
    return rtb_rtx5_status_done(c, (const char *)c->aux[1]);
}

static void prepare_delete(struct rtb_kcall *c, rtb_kfn fn, void *handle, bool *used, const char *what)
{
    rtb_kcall_set(c, fn, deleted_done, W(handle), 0, 0, 0);
    c->aux[0] = (rtb_word)RTB_WAIT_FOREVER;
    c->aux[1] = W(what);
    c->aux[2] = W(used);
}

int rtb_port_sem_delete_kcall(int id, struct rtb_kcall *c)
{
    if (!SEM_OK(id))
        return rtb_rtx5_fail("sem_delete", "no such semaphore");
    prepare_delete(c, RTB_KFN(osSemaphoreDelete), sems[id].id, &sems[id].used, "osSemaphoreDelete");
    return RTB_OK;
}

/* A release past the maximum (osErrorResource) is the contract's no-op. */
static int released(const struct rtb_kcall *c)
{
    int32_t rc = (int32_t)c->ret;
    return rc == osOK || rc == osErrorResource ? RTB_OK : rtb_rtx5_status("osSemaphoreRelease", rc);
}

int rtb_port_sem_give_kcall(int id, struct rtb_kcall *c)
{
    if (!SEM_OK(id))
        return rtb_rtx5_fail("sem_give", "no such semaphore");
    rtb_kcall_set(c, RTB_KFN(osSemaphoreRelease), released, W(sems[id].id), 0, 0, 0);
    return RTB_OK;
}

static int acquired(const struct rtb_kcall *c)
{
    return rtb_rtx5_status_done(c, "osSemaphoreAcquire");
}

int rtb_port_sem_take_kcall(int id, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!SEM_OK(id))
        return rtb_rtx5_fail("sem_take", "no such semaphore");
    rtb_kcall_set(c, RTB_KFN(osSemaphoreAcquire), acquired, W(sems[id].id), rtb_rtx5_ticks(timeout_us), 0, 0);
    c->aux[0] = (rtb_word)timeout_us;
    return RTB_OK;
}

RTB_KCALL_PLAIN(sem_create, (int id, unsigned initial, unsigned max), id, initial, max)
RTB_KCALL_PLAIN(sem_delete, (int id), id)
RTB_KCALL_PLAIN(sem_give, (int id), id)
RTB_KCALL_PLAIN(sem_take, (int id, int32_t timeout_us), id, timeout_us)

/* [ISR] the same call: RTX5 sees the exception and takes its interrupt path. */
int rtb_port_sem_give_isr(int id)
{
    return rtb_port_sem_give(id);
}

osSemaphoreId_t rtb_rtx5_sem(int id)
{
    return SEM_OK(id) ? sems[id].id : NULL;
}

/* ---- mutexes ------------------------------------------------------------- */
static struct {
    osRtxMutex_t cb;
    osMutexAttr_t attr;
    osMutexId_t id;
    bool used;
} mutexes[RTB_MAX_MUTEXES];
#define MUTEX_OK(id) ((id) >= 0 && (id) < RTB_MAX_MUTEXES && mutexes[id].used)

static int mutex_created(const struct rtb_kcall *c)
{
    int id = (int)c->aux[0];
    mutexes[id].id = (osMutexId_t)c->ret;
    if (!mutexes[id].id)
        return rtb_rtx5_fail("osMutexNew", "returned NULL");
    mutexes[id].used = true;
    return RTB_OK;
}

int rtb_port_mutex_create_kcall(int id, unsigned flags, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_MUTEXES || mutexes[id].used)
        return rtb_rtx5_fail("mutex_create", "bad id, or id in use");
    mutexes[id].attr = (osMutexAttr_t){
        .name = "rtb",
        .attr_bits = ((flags & RTB_MUTEX_RECURSIVE) ? osMutexRecursive : 0u) |
                     ((flags & RTB_MUTEX_INHERIT) ? osMutexPrioInherit : 0u),
        .cb_mem = rtb_rtx5_from_heap ? NULL : &mutexes[id].cb,
        .cb_size = rtb_rtx5_from_heap ? 0 : sizeof mutexes[id].cb};
    rtb_kcall_set(c, RTB_KFN(osMutexNew), mutex_created, W(&mutexes[id].attr), 0, 0, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

int rtb_port_mutex_delete_kcall(int id, struct rtb_kcall *c)
{
    if (!MUTEX_OK(id))
        return rtb_rtx5_fail("mutex_delete", "no such mutex");
    prepare_delete(c, RTB_KFN(osMutexDelete), mutexes[id].id, &mutexes[id].used, "osMutexDelete");
    return RTB_OK;
}

static int mutex_got(const struct rtb_kcall *c)
{
    return rtb_rtx5_status_done(c, "osMutexAcquire");
}

static int acquire(int id, uint32_t wait, struct rtb_kcall *c)
{
    if (!MUTEX_OK(id))
        return rtb_rtx5_fail("mutex_lock", "no such mutex");
    rtb_kcall_set(c, RTB_KFN(osMutexAcquire), mutex_got, W(mutexes[id].id), wait, 0, 0);
    c->aux[0] = (rtb_word)(wait == 0 ? RTB_NO_WAIT : RTB_WAIT_FOREVER);
    return RTB_OK;
}

int rtb_port_mutex_lock_kcall(int id, struct rtb_kcall *c)
{
    return acquire(id, osWaitForever, c);
}

int rtb_port_mutex_trylock_kcall(int id, struct rtb_kcall *c)
{
    return acquire(id, 0, c);
}

static int mutex_released(const struct rtb_kcall *c)
{
    int32_t rc = (int32_t)c->ret;
    if (rc == osOK)
        return RTB_OK;
    return rc == osErrorResource ? rtb_rtx5_fail("mutex_unlock", "not the owner")
                                 : rtb_rtx5_status("osMutexRelease", rc);
}

int rtb_port_mutex_unlock_kcall(int id, struct rtb_kcall *c)
{
    if (!MUTEX_OK(id))
        return rtb_rtx5_fail("mutex_unlock", "no such mutex");
    rtb_kcall_set(c, RTB_KFN(osMutexRelease), mutex_released, W(mutexes[id].id), 0, 0, 0);
    return RTB_OK;
}

RTB_KCALL_PLAIN(mutex_create, (int id, unsigned flags), id, flags)
RTB_KCALL_PLAIN(mutex_delete, (int id), id)
RTB_KCALL_PLAIN(mutex_lock, (int id), id)
RTB_KCALL_PLAIN(mutex_trylock, (int id), id)
RTB_KCALL_PLAIN(mutex_unlock, (int id), id)

/* ---- event flags ------------------------------------------------------------ */
static struct {
    osRtxEventFlags_t cb;
    osEventFlagsAttr_t attr;
    osEventFlagsId_t id;
    bool used;
} events[RTB_MAX_EVENTS];
#define EV_OK(id) ((id) >= 0 && (id) < RTB_MAX_EVENTS && events[id].used)

static int event_created(const struct rtb_kcall *c)
{
    int id = (int)c->aux[0];
    events[id].id = (osEventFlagsId_t)c->ret;
    if (!events[id].id)
        return rtb_rtx5_fail("osEventFlagsNew", "returned NULL");
    events[id].used = true;
    return RTB_OK;
}

int rtb_port_event_create_kcall(int id, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_EVENTS || events[id].used)
        return rtb_rtx5_fail("event_create", "bad id, or id in use");
    events[id].attr = (osEventFlagsAttr_t){.name = "rtb",
                                           .cb_mem = rtb_rtx5_from_heap ? NULL : &events[id].cb,
                                           .cb_size = rtb_rtx5_from_heap ? 0 : sizeof events[id].cb};
    rtb_kcall_set(c, RTB_KFN(osEventFlagsNew), event_created, W(&events[id].attr), 0, 0, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

int rtb_port_event_delete_kcall(int id, struct rtb_kcall *c)
{
    if (!EV_OK(id))
        return rtb_rtx5_fail("event_delete", "no such event group");
    prepare_delete(c, RTB_KFN(osEventFlagsDelete), events[id].id, &events[id].used, "osEventFlagsDelete");
    return RTB_OK;
}

/* osEventFlagsSet returns the flags after setting, or an error code
 * (bit 31 set: osFlagsError). */
static int flags_set(const struct rtb_kcall *c)
{
    uint32_t rc = (uint32_t)c->ret;
    return (rc & osFlagsError) == 0 ? RTB_OK : rtb_rtx5_status("osEventFlagsSet", (int32_t)rc);
}

int rtb_port_event_set_kcall(int id, uint32_t bits, struct rtb_kcall *c)
{
    if (!EV_OK(id))
        return rtb_rtx5_fail("event_set", "no such event group");
    rtb_kcall_set(c, RTB_KFN(osEventFlagsSet), flags_set, W(events[id].id), bits, 0, 0);
    return RTB_OK;
}

/* osEventFlagsWait returns the flags set before any clearing, or an error
 * code (osFlagsErrorTimeout, osFlagsErrorResource: nothing there). */
static int flags_got(const struct rtb_kcall *c)
{
    uint32_t rc = (uint32_t)c->ret;
    uint32_t *got = (uint32_t *)c->aux[1];
    if (got)
        *got = (rc & osFlagsError) == 0 ? rc & (uint32_t)c->a[1] : 0;
    if ((rc & osFlagsError) == 0)
        return RTB_OK;
    if (rc == osFlagsErrorTimeout || rc == osFlagsErrorResource)
        return (int32_t)c->aux[0] == RTB_NO_WAIT ? RTB_EWOULDBLOCK : RTB_ETIMEOUT;
    return rtb_rtx5_status("osEventFlagsWait", (int32_t)rc);
}

int rtb_port_event_wait_kcall(int id, uint32_t bits, unsigned mode, int32_t timeout_us,
                              uint32_t *got, struct rtb_kcall *c)
{
    if (!EV_OK(id))
        return rtb_rtx5_fail("event_wait", "no such event group");
    uint32_t options = ((mode & RTB_EV_ALL) ? osFlagsWaitAll : osFlagsWaitAny) |
                       ((mode & RTB_EV_CLEAR) ? 0u : osFlagsNoClear);
    rtb_kcall_set(c, RTB_KFN(osEventFlagsWait), flags_got, W(events[id].id), bits, options,
                  rtb_rtx5_ticks(timeout_us));
    c->aux[0] = (rtb_word)timeout_us;
    c->aux[1] = W(got);
    return RTB_OK;
}

RTB_KCALL_PLAIN(event_create, (int id), id)
RTB_KCALL_PLAIN(event_delete, (int id), id)
RTB_KCALL_PLAIN(event_set, (int id, uint32_t bits), id, bits)
RTB_KCALL_PLAIN(event_wait, (int id, uint32_t bits, unsigned mode, int32_t timeout_us, uint32_t *got),
                id, bits, mode, timeout_us, got)
