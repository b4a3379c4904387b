/*
 * FreeRTOS port: semaphores, mutexes and event groups, each the kernel's
 * own object (semphr.h, event_groups.h), created from heap_4 as
 * applications create them.
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

/* ---- semaphores ---------------------------------------------------------- */
static SemaphoreHandle_t sems[RTB_MAX_SEMS];
#define SEM_OK(id) ((id) >= 0 && (id) < RTB_MAX_SEMS && sems[id])

int rtb_port_sem_create(int id, unsigned initial, unsigned max)
{
    if (id < 0 || id >= RTB_MAX_SEMS || sems[id] || max < 1 || initial > max)
        return rtb_freertos_fail("sem_create", "bad id or count, or id in use");
    sems[id] = max == 1 ? xSemaphoreCreateBinary()
                        : xSemaphoreCreateCounting(max == (unsigned)-1 ? 0x7FFFFFFFu : max, initial);
    if (!sems[id])
        return rtb_freertos_fail("sem_create", "heap_4 exhausted");
    if (max == 1 && initial)
        xSemaphoreGive(sems[id]);
    return RTB_OK;
}

int rtb_port_sem_delete(int id)
{
    if (!SEM_OK(id))
        return rtb_freertos_fail("sem_delete", "no such semaphore");
    vSemaphoreDelete(sems[id]);
    sems[id] = NULL;
    return RTB_OK;
}

/* A give on a full semaphore fails in FreeRTOS: the contract makes it a no-op. */
int rtb_port_sem_give(int id)
{
    if (!SEM_OK(id))
        return rtb_freertos_fail("sem_give", "no such semaphore");
    (void)xSemaphoreGive(sems[id]);
    return RTB_OK;
}

int rtb_port_sem_give_isr(int id)
{
    if (!SEM_OK(id))
        return rtb_freertos_fail("sem_give_isr", "no such semaphore");
    (void)xSemaphoreGiveFromISR(sems[id], &rtb_freertos_isr_woken);
    return RTB_OK;
}

int rtb_port_sem_take(int id, int32_t timeout_us)
{
    if (!SEM_OK(id))
        return rtb_freertos_fail("sem_take", "no such semaphore");
    if (xSemaphoreTake(sems[id], rtb_freertos_ticks(timeout_us)) == pdTRUE)
        return RTB_OK;
    return timeout_us == RTB_NO_WAIT ? RTB_EWOULDBLOCK : RTB_ETIMEOUT;
}

/* ---- mutexes ------------------------------------------------------------- */
static struct {
    SemaphoreHandle_t h;
    bool recursive;
} mutexes[RTB_MAX_MUTEXES];
#define MUTEX_OK(id) ((id) >= 0 && (id) < RTB_MAX_MUTEXES && mutexes[id].h)

int rtb_port_mutex_create(int id, unsigned flags)
{
    if (id < 0 || id >= RTB_MAX_MUTEXES || mutexes[id].h)
        return rtb_freertos_fail("mutex_create", "bad id, or id in use");
    mutexes[id].recursive = flags & RTB_MUTEX_RECURSIVE;
    mutexes[id].h = mutexes[id].recursive ? xSemaphoreCreateRecursiveMutex() : xSemaphoreCreateMutex();
    return mutexes[id].h ? RTB_OK : rtb_freertos_fail("mutex_create", "heap_4 exhausted");
}

int rtb_port_mutex_delete(int id)
{
    if (!MUTEX_OK(id))
        return rtb_freertos_fail("mutex_delete", "no such mutex");
    vSemaphoreDelete(mutexes[id].h);
    mutexes[id].h = NULL;
    return RTB_OK;
}

static int take(int id, TickType_t ticks)
{
    if (!MUTEX_OK(id))
        return rtb_freertos_fail("mutex_lock", "no such mutex");
    BaseType_t ok = mutexes[id].recursive ? xSemaphoreTakeRecursive(mutexes[id].h, ticks)
                                          : xSemaphoreTake(mutexes[id].h, ticks);
    return ok == pdTRUE ? RTB_OK : RTB_EWOULDBLOCK;
}

int rtb_port_mutex_lock(int id)
{
    return take(id, portMAX_DELAY);
}

int rtb_port_mutex_trylock(int id)
{
    return take(id, 0);
}

int rtb_port_mutex_unlock(int id)
{
    if (!MUTEX_OK(id))
        return rtb_freertos_fail("mutex_unlock", "no such mutex");
    BaseType_t ok = mutexes[id].recursive ? xSemaphoreGiveRecursive(mutexes[id].h)
                                          : xSemaphoreGive(mutexes[id].h);
    return ok == pdTRUE ? RTB_OK : rtb_freertos_fail("mutex_unlock", "not the owner");
}

/* ---- event groups ---------------------------------------------------------- */
static EventGroupHandle_t events[RTB_MAX_EVENTS];
#define EV_OK(id) ((id) >= 0 && (id) < RTB_MAX_EVENTS && events[id])

int rtb_port_event_create(int id)
{
    if (id < 0 || id >= RTB_MAX_EVENTS || events[id])
        return rtb_freertos_fail("event_create", "bad id, or id in use");
    events[id] = xEventGroupCreate();
    return events[id] ? RTB_OK : rtb_freertos_fail("event_create", "heap_4 exhausted");
}

int rtb_port_event_delete(int id)
{
    if (!EV_OK(id))
        return rtb_freertos_fail("event_delete", "no such event group");
    vEventGroupDelete(events[id]);
    events[id] = NULL;
    return RTB_OK;
}

int rtb_port_event_set(int id, uint32_t bits)
{
    if (!EV_OK(id))
        return rtb_freertos_fail("event_set", "no such event group");
    (void)xEventGroupSetBits(events[id], (EventBits_t)bits);
    return RTB_OK;
}

int rtb_port_event_wait(int id, uint32_t bits, unsigned mode, int32_t timeout_us, uint32_t *got)
{
    if (!EV_OK(id))
        return rtb_freertos_fail("event_wait", "no such event group");
    EventBits_t b = xEventGroupWaitBits(events[id], (EventBits_t)bits,
                                        (mode & RTB_EV_CLEAR) ? pdTRUE : pdFALSE,
                                        (mode & RTB_EV_ALL) ? pdTRUE : pdFALSE,
                                        rtb_freertos_ticks(timeout_us));
    if (got)
        *got = (uint32_t)b & bits; /* FreeRTOS returns every bit that was set */
    bool ok = (mode & RTB_EV_ALL) ? (b & bits) == bits : (b & bits) != 0;
    if (ok)
        return RTB_OK;
    return timeout_us == RTB_NO_WAIT ? RTB_EWOULDBLOCK : RTB_ETIMEOUT;
}
