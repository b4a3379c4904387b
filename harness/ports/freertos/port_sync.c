/*
 * FreeRTOS port: semaphores, mutexes and event groups, each the kernel's
 * own object (semphr.h, event_groups.h), created with the ...CreateStatic
 * calls on memory the port owns per id, or, for the *_heap rows
 * (rtb_port_alloc), with the creates that take it from heap_4. Deleting
 * either frees what its create took (nothing, for a static one).
 *
 * Every service is a prepared call (rtb/port.h section C): the id check and
 * the handle lookup happen when it is prepared, the kernel's return is read
 * by its done() after the window, and the window holds the kernel's API
 * alone: its function (xEventGroupSetBits) or, where the API is a macro
 * (xSemaphoreGive is xQueueGenericSend with three constant arguments), an
 * rtb_kapi_* shim that is that macro as an application writes it. The
 * plain calls are derived from the preparations (RTB_KCALL_PLAIN).
 *
 * Mutexes: every FreeRTOS mutex inherits priority (there is no mutex
 * without it; a binary semaphore is FreeRTOS's lock without inheritance),
 * so RTB_MUTEX_INHERIT changes nothing and the plain rows measure the same
 * object; RTB_MUTEX_RECURSIVE selects the recursive mutex and its
 * ...Recursive calls.
 */
#include "rtb_freertos.h"
#include "event_groups.h"
#include "semphr.h"

BaseType_t rtb_freertos_isr_woken;

#define W(x) ((rtb_word)(x))

/* done() of a take, receive or wait: pdTRUE, else "would block" for a
 * no-wait call and "timed out" for a timed one (aux[0]: the timeout). */
int rtb_freertos_taken(const struct rtb_kcall *c)
{
    if ((BaseType_t)c->ret == pdTRUE)
        return RTB_OK;
    return (int32_t)c->aux[0] == RTB_NO_WAIT ? RTB_EWOULDBLOCK : RTB_ETIMEOUT;
}

/* ---- semaphores ---------------------------------------------------------- */
static SemaphoreHandle_t sems[RTB_MAX_SEMS];
static StaticSemaphore_t sem_mem[RTB_MAX_SEMS];
#define SEM_OK(id) ((id) >= 0 && (id) < RTB_MAX_SEMS && sems[id])

RTB_KAPI(xSemaphoreCreateBinary, xSemaphoreCreateBinary())
RTB_KAPI(xSemaphoreCreateCounting, xSemaphoreCreateCounting((UBaseType_t)a0, (UBaseType_t)a1))
RTB_KAPI(xSemaphoreCreateBinaryStatic, xSemaphoreCreateBinaryStatic((StaticSemaphore_t *)a0))
RTB_KAPI(xSemaphoreCreateCountingStatic,
         xSemaphoreCreateCountingStatic((UBaseType_t)a0, (UBaseType_t)a1, (StaticSemaphore_t *)a2))
RTB_KAPI_STMT(vSemaphoreDelete, vSemaphoreDelete((SemaphoreHandle_t)a0))
RTB_KAPI(xSemaphoreGive, xSemaphoreGive((SemaphoreHandle_t)a0))
RTB_KAPI(xSemaphoreTake, xSemaphoreTake((SemaphoreHandle_t)a0, (TickType_t)a1))

/* A new handle into its slot (aux[0]); a binary semaphore created full
 * (aux[1]) is given once: FreeRTOS creates them empty. */
static int sem_created(const struct rtb_kcall *c)
{
    SemaphoreHandle_t h = (SemaphoreHandle_t)c->ret;
    if (!h)
        return rtb_freertos_not_created("sem_create");
    sems[c->aux[0]] = h;
    if (c->aux[1])
        xSemaphoreGive(h);
    return RTB_OK;
}

int rtb_port_sem_create_kcall(int id, unsigned initial, unsigned max, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_SEMS || sems[id] || max < 1 || initial > max)
        return rtb_freertos_fail("sem_create", "bad id or count, or id in use");
    bool heap = rtb_freertos_from_heap;
    if (max == 1)
        rtb_kcall_set(c, heap ? rtb_kapi_xSemaphoreCreateBinary : rtb_kapi_xSemaphoreCreateBinaryStatic,
                      sem_created, heap ? 0 : W(&sem_mem[id]), 0, 0, 0);
    else
        rtb_kcall_set(c, heap ? rtb_kapi_xSemaphoreCreateCounting : rtb_kapi_xSemaphoreCreateCountingStatic,
                      sem_created, max == (unsigned)-1 ? 0x7FFFFFFFu : max, initial,
                      heap ? 0 : W(&sem_mem[id]), 0);
    c->aux[0] = (rtb_word)id;
    c->aux[1] = max == 1 && initial;
    return RTB_OK;
}

static int sem_deleted(const struct rtb_kcall *c)
{
    sems[c->aux[0]] = NULL;
    return RTB_OK;
}

int rtb_port_sem_delete_kcall(int id, struct rtb_kcall *c)
{
    if (!SEM_OK(id))
        return rtb_freertos_fail("sem_delete", "no such semaphore");
    rtb_kcall_set(c, RTB_KFN(rtb_kapi_vSemaphoreDelete), sem_deleted, W(sems[id]), 0, 0, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

/* A give on a full semaphore fails in FreeRTOS: the contract makes it a
 * no-op, so done() is NULL (RTB_OK). */
int rtb_port_sem_give_kcall(int id, struct rtb_kcall *c)
{
    if (!SEM_OK(id))
        return rtb_freertos_fail("sem_give", "no such semaphore");
    rtb_kcall_set(c, rtb_kapi_xSemaphoreGive, 0, W(sems[id]), 0, 0, 0);
    return RTB_OK;
}

int rtb_port_sem_take_kcall(int id, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!SEM_OK(id))
        return rtb_freertos_fail("sem_take", "no such semaphore");
    rtb_kcall_set(c, rtb_kapi_xSemaphoreTake, rtb_freertos_taken, W(sems[id]),
                  rtb_freertos_ticks(timeout_us), 0, 0);
    c->aux[0] = (rtb_word)timeout_us;
    return RTB_OK;
}

RTB_KCALL_PLAIN(sem_create, (int id, unsigned initial, unsigned max), id, initial, max)
RTB_KCALL_PLAIN(sem_delete, (int id), id)
RTB_KCALL_PLAIN(sem_give, (int id), id)
RTB_KCALL_PLAIN(sem_take, (int id, int32_t timeout_us), id, timeout_us)

/* [ISR] from an interrupt handler: FreeRTOS's ...FromISR call. */
int rtb_port_sem_give_isr(int id)
{
    if (!SEM_OK(id))
        return rtb_freertos_fail("sem_give_isr", "no such semaphore");
    (void)xSemaphoreGiveFromISR(sems[id], &rtb_freertos_isr_woken);
    return RTB_OK;
}

/* The handle of semaphore `id` (NULL if none), for the interrupt handlers
 * of port_irq.c, which give it without the port's glue. */
SemaphoreHandle_t rtb_freertos_sem(int id)
{
    return id >= 0 && id < RTB_MAX_SEMS ? sems[id] : NULL;
}

/* ---- mutexes ------------------------------------------------------------- */
static struct {
    SemaphoreHandle_t h;
    bool recursive;
    StaticSemaphore_t mem;
} mutexes[RTB_MAX_MUTEXES];
#define MUTEX_OK(id) ((id) >= 0 && (id) < RTB_MAX_MUTEXES && mutexes[id].h)

RTB_KAPI(xSemaphoreCreateMutex, xSemaphoreCreateMutex())
RTB_KAPI(xSemaphoreCreateRecursiveMutex, xSemaphoreCreateRecursiveMutex())
RTB_KAPI(xSemaphoreCreateMutexStatic, xSemaphoreCreateMutexStatic((StaticSemaphore_t *)a0))
RTB_KAPI(xSemaphoreCreateRecursiveMutexStatic, xSemaphoreCreateRecursiveMutexStatic((StaticSemaphore_t *)a0))
RTB_KAPI(xSemaphoreTakeRecursive, xSemaphoreTakeRecursive((SemaphoreHandle_t)a0, (TickType_t)a1))
RTB_KAPI(xSemaphoreGiveRecursive, xSemaphoreGiveRecursive((SemaphoreHandle_t)a0))

static int mutex_created(const struct rtb_kcall *c)
{
    SemaphoreHandle_t h = (SemaphoreHandle_t)c->ret;
    if (!h)
        return rtb_freertos_not_created("mutex_create");
    mutexes[c->aux[0]].h = h;
    return RTB_OK;
}

int rtb_port_mutex_create_kcall(int id, unsigned flags, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_MUTEXES || mutexes[id].h)
        return rtb_freertos_fail("mutex_create", "bad id, or id in use");
    bool recursive = flags & RTB_MUTEX_RECURSIVE;
    mutexes[id].recursive = recursive;
    if (rtb_freertos_from_heap)
        rtb_kcall_set(c, recursive ? rtb_kapi_xSemaphoreCreateRecursiveMutex : rtb_kapi_xSemaphoreCreateMutex,
                      mutex_created, 0, 0, 0, 0);
    else
        rtb_kcall_set(c, recursive ? rtb_kapi_xSemaphoreCreateRecursiveMutexStatic
                                   : rtb_kapi_xSemaphoreCreateMutexStatic,
                      mutex_created, W(&mutexes[id].mem), 0, 0, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

static int mutex_deleted(const struct rtb_kcall *c)
{
    mutexes[c->aux[0]].h = NULL;
    return RTB_OK;
}

int rtb_port_mutex_delete_kcall(int id, struct rtb_kcall *c)
{
    if (!MUTEX_OK(id))
        return rtb_freertos_fail("mutex_delete", "no such mutex");
    rtb_kcall_set(c, RTB_KFN(rtb_kapi_vSemaphoreDelete), mutex_deleted, W(mutexes[id].h), 0, 0, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

static int take(int id, TickType_t ticks, struct rtb_kcall *c)
{
    if (!MUTEX_OK(id))
        return rtb_freertos_fail("mutex_lock", "no such mutex");
    rtb_kcall_set(c, mutexes[id].recursive ? rtb_kapi_xSemaphoreTakeRecursive : rtb_kapi_xSemaphoreTake,
                  rtb_freertos_taken, W(mutexes[id].h), ticks, 0, 0);
    c->aux[0] = (rtb_word)RTB_NO_WAIT; /* a lock that fails "would block" */
    return RTB_OK;
}

int rtb_port_mutex_lock_kcall(int id, struct rtb_kcall *c)
{
    return take(id, portMAX_DELAY, c);
}

int rtb_port_mutex_trylock_kcall(int id, struct rtb_kcall *c)
{
    return take(id, 0, c);
}

static int unlocked(const struct rtb_kcall *c)
{
    return (BaseType_t)c->ret == pdTRUE ? RTB_OK : rtb_freertos_fail("mutex_unlock", "not the owner");
}

int rtb_port_mutex_unlock_kcall(int id, struct rtb_kcall *c)
{
    if (!MUTEX_OK(id))
        return rtb_freertos_fail("mutex_unlock", "no such mutex");
    rtb_kcall_set(c, mutexes[id].recursive ? rtb_kapi_xSemaphoreGiveRecursive : rtb_kapi_xSemaphoreGive,
                  unlocked, W(mutexes[id].h), 0, 0, 0);
    return RTB_OK;
}

RTB_KCALL_PLAIN(mutex_create, (int id, unsigned flags), id, flags)
RTB_KCALL_PLAIN(mutex_delete, (int id), id)
RTB_KCALL_PLAIN(mutex_lock, (int id), id)
RTB_KCALL_PLAIN(mutex_trylock, (int id), id)
RTB_KCALL_PLAIN(mutex_unlock, (int id), id)

/* ---- event groups ---------------------------------------------------------- */
static EventGroupHandle_t events[RTB_MAX_EVENTS];
static StaticEventGroup_t event_mem[RTB_MAX_EVENTS];
#define EV_OK(id) ((id) >= 0 && (id) < RTB_MAX_EVENTS && events[id])

static int event_created(const struct rtb_kcall *c)
{
    EventGroupHandle_t h = (EventGroupHandle_t)c->ret;
    if (!h)
        return rtb_freertos_not_created("event_create");
    events[c->aux[0]] = h;
    return RTB_OK;
}

int rtb_port_event_create_kcall(int id, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_EVENTS || events[id])
        return rtb_freertos_fail("event_create", "bad id, or id in use");
    if (rtb_freertos_from_heap)
        rtb_kcall_set(c, RTB_KFN(xEventGroupCreate), event_created, 0, 0, 0, 0);
    else
        rtb_kcall_set(c, RTB_KFN(xEventGroupCreateStatic), event_created, W(&event_mem[id]), 0, 0, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

static int event_deleted(const struct rtb_kcall *c)
{
    events[c->aux[0]] = NULL;
    return RTB_OK;
}

int rtb_port_event_delete_kcall(int id, struct rtb_kcall *c)
{
    if (!EV_OK(id))
        return rtb_freertos_fail("event_delete", "no such event group");
    rtb_kcall_set(c, RTB_KFN(vEventGroupDelete), event_deleted, W(events[id]), 0, 0, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

int rtb_port_event_set_kcall(int id, uint32_t bits, struct rtb_kcall *c)
{
    if (!EV_OK(id))
        return rtb_freertos_fail("event_set", "no such event group");
    rtb_kcall_set(c, RTB_KFN(xEventGroupSetBits), 0, W(events[id]), bits, 0, 0);
    return RTB_OK;
}

/* xEventGroupWaitBits returns every bit that was set: *got (aux[1]) is the
 * asked ones among them (a[1]); satisfied per the mode (a[3]: wait for all). */
static int waited(const struct rtb_kcall *c)
{
    EventBits_t b = (EventBits_t)c->ret, bits = (EventBits_t)c->a[1];
    uint32_t *got = (uint32_t *)c->aux[1];
    if (got)
        *got = (uint32_t)(b & bits);
    bool ok = c->a[3] == pdTRUE ? (b & bits) == bits : (b & bits) != 0;
    if (ok)
        return RTB_OK;
    return (int32_t)c->aux[0] == RTB_NO_WAIT ? RTB_EWOULDBLOCK : RTB_ETIMEOUT;
}

int rtb_port_event_wait_kcall(int id, uint32_t bits, unsigned mode, int32_t timeout_us,
                              uint32_t *got, struct rtb_kcall *c)
{
    if (!EV_OK(id))
        return rtb_freertos_fail("event_wait", "no such event group");
    rtb_kcall_set(c, RTB_KFN(xEventGroupWaitBits), waited, W(events[id]), bits,
                  (mode & RTB_EV_CLEAR) ? pdTRUE : pdFALSE, (mode & RTB_EV_ALL) ? pdTRUE : pdFALSE);
    c->a[4] = rtb_freertos_ticks(timeout_us);
    c->aux[0] = (rtb_word)timeout_us;
    c->aux[1] = W(got);
    return RTB_OK;
}

RTB_KCALL_PLAIN(event_create, (int id), id)
RTB_KCALL_PLAIN(event_delete, (int id), id)
RTB_KCALL_PLAIN(event_set, (int id, uint32_t bits), id, bits)
RTB_KCALL_PLAIN(event_wait, (int id, uint32_t bits, unsigned mode, int32_t timeout_us, uint32_t *got),
                id, bits, mode, timeout_us, got)
