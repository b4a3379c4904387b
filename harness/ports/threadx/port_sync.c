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

#define W(x) ((rtb_word)(x))

/* The creates are macros when ThreadX checks errors (they add the control
 * block's size): shims, so the same code builds either way. */
RTB_KAPI(tx_semaphore_create, tx_semaphore_create((TX_SEMAPHORE *)a0, (CHAR *)a1, (ULONG)a2))
RTB_KAPI(tx_mutex_create, tx_mutex_create((TX_MUTEX *)a0, (CHAR *)a1, (UINT)a2))
RTB_KAPI(tx_event_flags_create, tx_event_flags_create((TX_EVENT_FLAGS_GROUP *)a0, (CHAR *)a1))

/* done() of the calls that succeed with TX_SUCCESS and fail otherwise:
 * aux[0] the timeout asked (a "nothing there" status is then "would block"
 * or "timed out"), aux[1] that status, c->a[...] as prepared. */
static int status_done(const struct rtb_kcall *c, UINT empty, const char *what)
{
    UINT rc = (UINT)c->ret;
    if (rc == TX_SUCCESS)
        return RTB_OK;
    if (rc == empty)
        return (int32_t)c->aux[0] == RTB_NO_WAIT ? RTB_EWOULDBLOCK : RTB_ETIMEOUT;
    return rtb_threadx_status(what, rc);
}

/* ---- semaphores ---------------------------------------------------------- */
static struct {
    TX_SEMAPHORE sem;
    ULONG ceiling; /* 0: unbounded */
    bool used;
} sems[RTB_MAX_SEMS];
#define SEM_OK(id) ((id) >= 0 && (id) < RTB_MAX_SEMS && sems[id].used)

static int sem_created(const struct rtb_kcall *c)
{
    UINT rc = (UINT)c->ret;
    if (rc != TX_SUCCESS)
        return rtb_threadx_status("tx_semaphore_create", rc);
    sems[c->aux[0]].used = true;
    return RTB_OK;
}

int rtb_port_sem_create_kcall(int id, unsigned initial, unsigned max, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_SEMS || sems[id].used || max < 1 || initial > max)
        return rtb_threadx_fail("sem_create", "bad id or count, or id in use");
    sems[id].ceiling = max == (unsigned)-1 ? 0 : max;
    rtb_kcall_set(c, rtb_kapi_tx_semaphore_create, sem_created, W(&sems[id].sem), W("rtb"), initial, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

static int sem_deleted(const struct rtb_kcall *c)
{
    sems[c->aux[0]].used = false;
    UINT rc = (UINT)c->ret;
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_semaphore_delete", rc);
}

int rtb_port_sem_delete_kcall(int id, struct rtb_kcall *c)
{
    if (!SEM_OK(id))
        return rtb_threadx_fail("sem_delete", "no such semaphore");
    rtb_kcall_set(c, RTB_KFN(tx_semaphore_delete), sem_deleted, W(&sems[id].sem), 0, 0, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

/* A bounded semaphore is put with tx_semaphore_ceiling_put, which refuses
 * to count past the ceiling (TX_CEILING_EXCEEDED: the contract's no-op). */
static int put_done(const struct rtb_kcall *c)
{
    UINT rc = (UINT)c->ret;
    return rc == TX_SUCCESS || rc == TX_CEILING_EXCEEDED ? RTB_OK : rtb_threadx_status("sem_give", rc);
}

int rtb_port_sem_give_kcall(int id, struct rtb_kcall *c)
{
    if (!SEM_OK(id))
        return rtb_threadx_fail("sem_give", "no such semaphore");
    if (sems[id].ceiling)
        rtb_kcall_set(c, RTB_KFN(tx_semaphore_ceiling_put), put_done, W(&sems[id].sem), sems[id].ceiling,
                      0, 0);
    else
        rtb_kcall_set(c, RTB_KFN(tx_semaphore_put), put_done, W(&sems[id].sem), 0, 0, 0);
    return RTB_OK;
}

static int got_done(const struct rtb_kcall *c)
{
    return status_done(c, TX_NO_INSTANCE, "tx_semaphore_get");
}

int rtb_port_sem_take_kcall(int id, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!SEM_OK(id))
        return rtb_threadx_fail("sem_take", "no such semaphore");
    rtb_kcall_set(c, RTB_KFN(tx_semaphore_get), got_done, W(&sems[id].sem), rtb_threadx_ticks(timeout_us),
                  0, 0);
    c->aux[0] = (rtb_word)timeout_us;
    return RTB_OK;
}

RTB_KCALL_PLAIN(sem_create, (int id, unsigned initial, unsigned max), id, initial, max)
RTB_KCALL_PLAIN(sem_delete, (int id), id)
RTB_KCALL_PLAIN(sem_give, (int id), id)
RTB_KCALL_PLAIN(sem_take, (int id, int32_t timeout_us), id, timeout_us)

/* [ISR] ThreadX's put is interrupt-safe: a thread it readies runs when the
 * handler returns (the kernel pends PendSV). */
int rtb_port_sem_give_isr(int id)
{
    return rtb_port_sem_give(id);
}

/* The control block of semaphore `id` (NULL if none), for the interrupt
 * handlers of port_irq.c, and the ceiling it is put with (0: none). */
TX_SEMAPHORE *rtb_threadx_sem(int id, ULONG *ceiling)
{
    if (!SEM_OK(id))
        return TX_NULL;
    *ceiling = sems[id].ceiling;
    return &sems[id].sem;
}

/* ---- mutexes ------------------------------------------------------------- */
static struct {
    TX_MUTEX mutex;
    bool used;
} mutexes[RTB_MAX_MUTEXES];
#define MUTEX_OK(id) ((id) >= 0 && (id) < RTB_MAX_MUTEXES && mutexes[id].used)

static int mutex_created(const struct rtb_kcall *c)
{
    UINT rc = (UINT)c->ret;
    if (rc != TX_SUCCESS)
        return rtb_threadx_status("tx_mutex_create", rc);
    mutexes[c->aux[0]].used = true;
    return RTB_OK;
}

int rtb_port_mutex_create_kcall(int id, unsigned flags, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_MUTEXES || mutexes[id].used)
        return rtb_threadx_fail("mutex_create", "bad id, or id in use");
    rtb_kcall_set(c, rtb_kapi_tx_mutex_create, mutex_created, W(&mutexes[id].mutex), W("rtb"),
                  (flags & RTB_MUTEX_INHERIT) ? TX_INHERIT : TX_NO_INHERIT, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

static int mutex_deleted(const struct rtb_kcall *c)
{
    mutexes[c->aux[0]].used = false;
    UINT rc = (UINT)c->ret;
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_mutex_delete", rc);
}

int rtb_port_mutex_delete_kcall(int id, struct rtb_kcall *c)
{
    if (!MUTEX_OK(id))
        return rtb_threadx_fail("mutex_delete", "no such mutex");
    rtb_kcall_set(c, RTB_KFN(tx_mutex_delete), mutex_deleted, W(&mutexes[id].mutex), 0, 0, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

static int mutex_got(const struct rtb_kcall *c)
{
    return status_done(c, TX_NOT_AVAILABLE, "tx_mutex_get");
}

static int get(int id, ULONG wait, struct rtb_kcall *c)
{
    if (!MUTEX_OK(id))
        return rtb_threadx_fail("mutex_lock", "no such mutex");
    rtb_kcall_set(c, RTB_KFN(tx_mutex_get), mutex_got, W(&mutexes[id].mutex), wait, 0, 0);
    c->aux[0] = (rtb_word)RTB_NO_WAIT; /* a lock that fails "would block" */
    return RTB_OK;
}

int rtb_port_mutex_lock_kcall(int id, struct rtb_kcall *c)
{
    return get(id, TX_WAIT_FOREVER, c);
}

int rtb_port_mutex_trylock_kcall(int id, struct rtb_kcall *c)
{
    return get(id, TX_NO_WAIT, c);
}

static int mutex_put(const struct rtb_kcall *c)
{
    UINT rc = (UINT)c->ret;
    if (rc == TX_SUCCESS)
        return RTB_OK;
    return rc == TX_NOT_OWNED ? rtb_threadx_fail("mutex_unlock", "not the owner")
                              : rtb_threadx_status("tx_mutex_put", rc);
}

int rtb_port_mutex_unlock_kcall(int id, struct rtb_kcall *c)
{
    if (!MUTEX_OK(id))
        return rtb_threadx_fail("mutex_unlock", "no such mutex");
    rtb_kcall_set(c, RTB_KFN(tx_mutex_put), mutex_put, W(&mutexes[id].mutex), 0, 0, 0);
    return RTB_OK;
}

RTB_KCALL_PLAIN(mutex_create, (int id, unsigned flags), id, flags)
RTB_KCALL_PLAIN(mutex_delete, (int id), id)
RTB_KCALL_PLAIN(mutex_lock, (int id), id)
RTB_KCALL_PLAIN(mutex_trylock, (int id), id)
RTB_KCALL_PLAIN(mutex_unlock, (int id), id)

/* ---- event flags ------------------------------------------------------------ */
static struct {
    TX_EVENT_FLAGS_GROUP group;
    bool used;
} events[RTB_MAX_EVENTS];
#define EV_OK(id) ((id) >= 0 && (id) < RTB_MAX_EVENTS && events[id].used)

static int event_created(const struct rtb_kcall *c)
{
    UINT rc = (UINT)c->ret;
    if (rc != TX_SUCCESS)
        return rtb_threadx_status("tx_event_flags_create", rc);
    events[c->aux[0]].used = true;
    return RTB_OK;
}

int rtb_port_event_create_kcall(int id, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_EVENTS || events[id].used)
        return rtb_threadx_fail("event_create", "bad id, or id in use");
    rtb_kcall_set(c, rtb_kapi_tx_event_flags_create, event_created, W(&events[id].group), W("rtb"), 0, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

static int event_deleted(const struct rtb_kcall *c)
{
    events[c->aux[0]].used = false;
    UINT rc = (UINT)c->ret;
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_event_flags_delete", rc);
}

int rtb_port_event_delete_kcall(int id, struct rtb_kcall *c)
{
    if (!EV_OK(id))
        return rtb_threadx_fail("event_delete", "no such event group");
    rtb_kcall_set(c, RTB_KFN(tx_event_flags_delete), event_deleted, W(&events[id].group), 0, 0, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

static int event_set(const struct rtb_kcall *c)
{
    UINT rc = (UINT)c->ret;
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_event_flags_set", rc);
}

int rtb_port_event_set_kcall(int id, uint32_t bits, struct rtb_kcall *c)
{
    if (!EV_OK(id))
        return rtb_threadx_fail("event_set", "no such event group");
    rtb_kcall_set(c, RTB_KFN(tx_event_flags_set), event_set, W(&events[id].group), bits, TX_OR, 0);
    return RTB_OK;
}

/* The flags the call found go to aux[2] (its actual_flags argument);
 * *got (aux[1]) is the asked ones among them (a[1]): ThreadX returns every
 * flag that was set. */
static int event_got(const struct rtb_kcall *c)
{
    uint32_t *got = (uint32_t *)c->aux[1];
    if (got)
        *got = (UINT)c->ret == TX_SUCCESS ? (uint32_t)c->aux[2] & (uint32_t)c->a[1] : 0;
    return status_done(c, TX_NO_EVENTS, "tx_event_flags_get");
}

int rtb_port_event_wait_kcall(int id, uint32_t bits, unsigned mode, int32_t timeout_us,
                              uint32_t *got, struct rtb_kcall *c)
{
    if (!EV_OK(id))
        return rtb_threadx_fail("event_wait", "no such event group");
    UINT option = (mode & RTB_EV_ALL) ? ((mode & RTB_EV_CLEAR) ? TX_AND_CLEAR : TX_AND)
                                      : ((mode & RTB_EV_CLEAR) ? TX_OR_CLEAR : TX_OR);
    _Static_assert(sizeof(ULONG) == sizeof(rtb_word), "actual_flags is written into aux[2]");
    rtb_kcall_set(c, RTB_KFN(tx_event_flags_get), event_got, W(&events[id].group), bits, option, 0);
    c->a[3] = W(&c->aux[2]);
    c->a[4] = rtb_threadx_ticks(timeout_us);
    c->aux[0] = (rtb_word)timeout_us;
    c->aux[1] = W(got);
    return RTB_OK;
}

RTB_KCALL_PLAIN(event_create, (int id), id)
RTB_KCALL_PLAIN(event_delete, (int id), id)
RTB_KCALL_PLAIN(event_set, (int id, uint32_t bits), id, bits)
RTB_KCALL_PLAIN(event_wait, (int id, uint32_t bits, unsigned mode, int32_t timeout_us, uint32_t *got),
                id, bits, mode, timeout_us, got)
