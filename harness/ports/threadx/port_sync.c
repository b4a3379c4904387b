/*
 * ThreadX port: semaphores, mutexes and event flags, each ThreadX's own
 * object (control blocks in static pools, as ThreadX applications keep
 * them: ThreadX never allocates one).
 *
 * Semaphores are counting; a bounded one (a binary semaphore) is put with
 * tx_semaphore_ceiling_put, which refuses to count past the ceiling
 * (TX_CEILING_EXCEEDED: the contract's no-op), an unbounded one with
 * tx_semaphore_put. Both are legal in an interrupt handler in ThreadX (no
 * separate ...FromISR call), so rtb_port_sem_give_isr is the same call.
 *
 * Mutexes: ThreadX has both kinds natively, tx_mutex_create(TX_INHERIT)
 * and (TX_NO_INHERIT); every ThreadX mutex nests (its owner may get it
 * again and must put it as often), so RTB_MUTEX_RECURSIVE changes nothing.
 */
#include "rtb_threadx.h"

static int timed_out(int32_t timeout_us)
{
    return timeout_us == RTB_NO_WAIT ? RTB_EWOULDBLOCK : RTB_ETIMEOUT;
}

/* ---- semaphores ---------------------------------------------------------- */
static struct {
    TX_SEMAPHORE sem;
    ULONG ceiling; /* 0: unbounded */
    bool used;
} sems[RTB_MAX_SEMS];
#define SEM_OK(id) ((id) >= 0 && (id) < RTB_MAX_SEMS && sems[id].used)

int rtb_port_sem_create(int id, unsigned initial, unsigned max)
{
    if (id < 0 || id >= RTB_MAX_SEMS || sems[id].used || max < 1 || initial > max)
        return rtb_threadx_fail("sem_create", "bad id or count, or id in use");
    sems[id].ceiling = max == (unsigned)-1 ? 0 : max;
    UINT rc = tx_semaphore_create(&sems[id].sem, "rtb", initial);
    if (rc != TX_SUCCESS)
        return rtb_threadx_status("tx_semaphore_create", rc);
    sems[id].used = true;
    return RTB_OK;
}

int rtb_port_sem_delete(int id)
{
    if (!SEM_OK(id))
        return rtb_threadx_fail("sem_delete", "no such semaphore");
    sems[id].used = false;
    UINT rc = tx_semaphore_delete(&sems[id].sem);
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_semaphore_delete", rc);
}

static int put(int id, const char *what)
{
    if (!SEM_OK(id))
        return rtb_threadx_fail(what, "no such semaphore");
    UINT rc = sems[id].ceiling ? tx_semaphore_ceiling_put(&sems[id].sem, sems[id].ceiling)
                               : tx_semaphore_put(&sems[id].sem);
    return rc == TX_SUCCESS || rc == TX_CEILING_EXCEEDED ? RTB_OK : rtb_threadx_status(what, rc);
}

int rtb_port_sem_give(int id)
{
    return put(id, "sem_give");
}

/* [ISR] ThreadX's put is interrupt-safe: a thread it readies runs when the
 * handler returns (the kernel pends PendSV). */
int rtb_port_sem_give_isr(int id)
{
    return put(id, "sem_give_isr");
}

int rtb_port_sem_take(int id, int32_t timeout_us)
{
    if (!SEM_OK(id))
        return rtb_threadx_fail("sem_take", "no such semaphore");
    UINT rc = tx_semaphore_get(&sems[id].sem, rtb_threadx_ticks(timeout_us));
    if (rc == TX_SUCCESS)
        return RTB_OK;
    return rc == TX_NO_INSTANCE ? timed_out(timeout_us) : rtb_threadx_status("tx_semaphore_get", rc);
}

/* ---- mutexes ------------------------------------------------------------- */
static struct {
    TX_MUTEX mutex;
    bool used;
} mutexes[RTB_MAX_MUTEXES];
#define MUTEX_OK(id) ((id) >= 0 && (id) < RTB_MAX_MUTEXES && mutexes[id].used)

int rtb_port_mutex_create(int id, unsigned flags)
{
    if (id < 0 || id >= RTB_MAX_MUTEXES || mutexes[id].used)
        return rtb_threadx_fail("mutex_create", "bad id, or id in use");
    UINT rc = tx_mutex_create(&mutexes[id].mutex, "rtb",
                              (flags & RTB_MUTEX_INHERIT) ? TX_INHERIT : TX_NO_INHERIT);
    if (rc != TX_SUCCESS)
        return rtb_threadx_status("tx_mutex_create", rc);
    mutexes[id].used = true;
    return RTB_OK;
}

int rtb_port_mutex_delete(int id)
{
    if (!MUTEX_OK(id))
        return rtb_threadx_fail("mutex_delete", "no such mutex");
    mutexes[id].used = false;
    UINT rc = tx_mutex_delete(&mutexes[id].mutex);
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_mutex_delete", rc);
}

static int get(int id, ULONG wait)
{
    if (!MUTEX_OK(id))
        return rtb_threadx_fail("mutex_lock", "no such mutex");
    UINT rc = tx_mutex_get(&mutexes[id].mutex, wait);
    if (rc == TX_SUCCESS)
        return RTB_OK;
    return rc == TX_NOT_AVAILABLE ? RTB_EWOULDBLOCK : rtb_threadx_status("tx_mutex_get", rc);
}

int rtb_port_mutex_lock(int id)
{
    return get(id, TX_WAIT_FOREVER);
}

int rtb_port_mutex_trylock(int id)
{
    return get(id, TX_NO_WAIT);
}

int rtb_port_mutex_unlock(int id)
{
    if (!MUTEX_OK(id))
        return rtb_threadx_fail("mutex_unlock", "no such mutex");
    UINT rc = tx_mutex_put(&mutexes[id].mutex);
    if (rc == TX_SUCCESS)
        return RTB_OK;
    return rc == TX_NOT_OWNED ? rtb_threadx_fail("mutex_unlock", "not the owner")
                              : rtb_threadx_status("tx_mutex_put", rc);
}

/* ---- event flags ------------------------------------------------------------ */
static struct {
    TX_EVENT_FLAGS_GROUP group;
    bool used;
} events[RTB_MAX_EVENTS];
#define EV_OK(id) ((id) >= 0 && (id) < RTB_MAX_EVENTS && events[id].used)

int rtb_port_event_create(int id)
{
    if (id < 0 || id >= RTB_MAX_EVENTS || events[id].used)
        return rtb_threadx_fail("event_create", "bad id, or id in use");
    UINT rc = tx_event_flags_create(&events[id].group, "rtb");
    if (rc != TX_SUCCESS)
        return rtb_threadx_status("tx_event_flags_create", rc);
    events[id].used = true;
    return RTB_OK;
}

int rtb_port_event_delete(int id)
{
    if (!EV_OK(id))
        return rtb_threadx_fail("event_delete", "no such event group");
    events[id].used = false;
    UINT rc = tx_event_flags_delete(&events[id].group);
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_event_flags_delete", rc);
}

int rtb_port_event_set(int id, uint32_t bits)
{
    if (!EV_OK(id))
        return rtb_threadx_fail("event_set", "no such event group");
    UINT rc = tx_event_flags_set(&events[id].group, (ULONG)bits, TX_OR);
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_event_flags_set", rc);
}

int rtb_port_event_wait(int id, uint32_t bits, unsigned mode, int32_t timeout_us, uint32_t *got)
{
    if (!EV_OK(id))
        return rtb_threadx_fail("event_wait", "no such event group");
    UINT option = (mode & RTB_EV_ALL) ? ((mode & RTB_EV_CLEAR) ? TX_AND_CLEAR : TX_AND)
                                      : ((mode & RTB_EV_CLEAR) ? TX_OR_CLEAR : TX_OR);
    ULONG actual = 0;
    UINT rc = tx_event_flags_get(&events[id].group, (ULONG)bits, option, &actual,
                                 rtb_threadx_ticks(timeout_us));
    if (got)
        *got = rc == TX_SUCCESS ? (uint32_t)actual & bits : 0; /* ThreadX returns every set flag */
    if (rc == TX_SUCCESS)
        return RTB_OK;
    return rc == TX_NO_EVENTS ? timed_out(timeout_us) : rtb_threadx_status("tx_event_flags_get", rc);
}
