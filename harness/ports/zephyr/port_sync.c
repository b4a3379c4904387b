/*
 * Zephyr port: semaphores (k_sem), mutexes (k_mutex), events (k_event) and
 * condition variables (k_condvar), each Zephyr's own object in a static
 * pool, as Zephyr applications define them.
 *
 * Zephyr objects are initialised, never deleted: "create" is the object's
 * k_*_init, "delete" leaves nothing for the kernel to do (the rows say so:
 * unsupported). The objects are kept apart from the port's bookkeeping:
 * they are __noinit, so a userspace build leaves them in kernel memory
 * (a kernel object never lives where a user thread could write it),
 * while everything else of rtbench's is given to user threads
 * (CMakeLists.txt, rtb_partition). Every k_mutex nests and inherits priority, so the
 * recursive and inheritance flags change nothing. Each timed service is a
 * prepared call of the API's system-call wrapper (an rtb_kapi_* shim), the
 * timeout built from ticks as K_FOREVER / K_NO_WAIT / K_TICKS are.
 */
#include <errno.h>

#include "rtb_zephyr.h"

#define W(x) ((rtb_word)(x))

/* Objects a user-mode thread may use, on a userspace build: all of them. */
static void public_object(const void *obj)
{
#if defined(CONFIG_USERSPACE)
    k_object_access_all_grant(obj);
#else
    (void)obj;
#endif
}

/* done() of a call returning 0 or -errno, with the timeout in aux[0]. */
static void errno_call(struct rtb_kcall *c, int32_t timeout_us, const char *what)
{
    c->done = rtb_zephyr_errno_done;
    c->aux[0] = (rtb_word)timeout_us;
    c->aux[2] = (rtb_word)what;
}

/* ---- semaphores ---------------------------------------------------------- */
static struct k_sem sem_obj[RTB_MAX_SEMS] __noinit;
static struct {
    struct k_sem *sem;
    bool used;
} sems[RTB_MAX_SEMS];
#define SEM_OK(id) ((id) >= 0 && (id) < RTB_MAX_SEMS && sems[id].used)

RTB_KAPI(k_sem_init, k_sem_init((struct k_sem *)a0, (unsigned)a1, (unsigned)a2))
RTB_KAPI_STMT(k_sem_give, k_sem_give((struct k_sem *)a0))
RTB_KAPI(k_sem_take, k_sem_take((struct k_sem *)a0, rtb_zephyr_timeout(a1)))

static int sem_made(const struct rtb_kcall *c)
{
    if ((int)c->ret != 0)
        return rtb_zephyr_fail("k_sem_init", "bad count or limit");
    sems[c->aux[0]].used = true;
    public_object(sems[c->aux[0]].sem);
    return RTB_OK;
}

/* A binary semaphore is one of limit 1: a give on a full one is a no-op,
 * as the contract asks. */
int rtb_port_sem_create_kcall(int id, unsigned initial, unsigned max, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_SEMS || sems[id].used || max < 1 || initial > max)
        return rtb_zephyr_fail("sem_create", "bad id or count, or id in use");
    sems[id].sem = &sem_obj[id];
    rtb_kcall_set(c, rtb_kapi_k_sem_init, sem_made, W(sems[id].sem), initial,
                  max == (unsigned)-1 ? K_SEM_MAX_LIMIT : max, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

int rtb_port_sem_delete(int id)
{
    if (!SEM_OK(id))
        return rtb_zephyr_fail("sem_delete", "no such semaphore");
    sems[id].used = false; /* nothing for the kernel to undo */
    return RTB_OK;
}

int rtb_port_sem_delete_kcall(int id, struct rtb_kcall *c)
{
    (void)id, (void)c;
    return rtb_zephyr_unsupported("sem_delete: Zephyr objects are not deleted (k_sem has no delete)");
}

int rtb_port_sem_give_kcall(int id, struct rtb_kcall *c)
{
    if (!SEM_OK(id))
        return rtb_zephyr_fail("sem_give", "no such semaphore");
    rtb_kcall_set(c, RTB_KFN(rtb_kapi_k_sem_give), 0, W(sems[id].sem), 0, 0, 0);
    return RTB_OK;
}

int rtb_port_sem_take_kcall(int id, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!SEM_OK(id))
        return rtb_zephyr_fail("sem_take", "no such semaphore");
    rtb_kcall_set(c, rtb_kapi_k_sem_take, 0, W(sems[id].sem), (rtb_word)rtb_zephyr_ticks(timeout_us), 0, 0);
    errno_call(c, timeout_us, "k_sem_take");
    return RTB_OK;
}

RTB_KCALL_PLAIN(sem_create, (int id, unsigned initial, unsigned max), id, initial, max)
RTB_KCALL_PLAIN(sem_give, (int id), id)
RTB_KCALL_PLAIN(sem_take, (int id, int32_t timeout_us), id, timeout_us)

/* [ISR] k_sem_give is legal in an interrupt handler. */
int rtb_port_sem_give_isr(int id)
{
    return rtb_port_sem_give(id);
}

/* For the interrupt handlers of port_irq.c, which give it with no glue. */
struct k_sem *rtb_zephyr_sem(int id)
{
    return SEM_OK(id) ? sems[id].sem : NULL;
}

/* ---- mutexes ------------------------------------------------------------- */
static struct k_mutex mutex_obj[RTB_MAX_MUTEXES] __noinit;
static struct {
    struct k_mutex *m;
    bool used;
} mutexes[RTB_MAX_MUTEXES];
#define MUTEX_OK(id) ((id) >= 0 && (id) < RTB_MAX_MUTEXES && mutexes[id].used)

RTB_KAPI(k_mutex_init, k_mutex_init((struct k_mutex *)a0))
RTB_KAPI(k_mutex_lock, k_mutex_lock((struct k_mutex *)a0, rtb_zephyr_timeout(a1)))
RTB_KAPI(k_mutex_unlock, k_mutex_unlock((struct k_mutex *)a0))

static int mutex_made(const struct rtb_kcall *c)
{
    mutexes[c->aux[0]].used = true;
    public_object(mutexes[c->aux[0]].m);
    return RTB_OK;
}

int rtb_port_mutex_create_kcall(int id, unsigned flags, struct rtb_kcall *c)
{
    (void)flags; /* every k_mutex nests and inherits */
    if (id < 0 || id >= RTB_MAX_MUTEXES || mutexes[id].used)
        return rtb_zephyr_fail("mutex_create", "bad id, or id in use");
    mutexes[id].m = &mutex_obj[id];
    rtb_kcall_set(c, rtb_kapi_k_mutex_init, mutex_made, W(mutexes[id].m), 0, 0, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

int rtb_port_mutex_delete(int id)
{
    if (!MUTEX_OK(id))
        return rtb_zephyr_fail("mutex_delete", "no such mutex");
    mutexes[id].used = false;
    return RTB_OK;
}

int rtb_port_mutex_delete_kcall(int id, struct rtb_kcall *c)
{
    (void)id, (void)c;
    return rtb_zephyr_unsupported("mutex_delete: Zephyr objects are not deleted (k_mutex has no delete)");
}

static int lock(int id, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!MUTEX_OK(id))
        return rtb_zephyr_fail("mutex_lock", "no such mutex");
    rtb_kcall_set(c, rtb_kapi_k_mutex_lock, 0, W(mutexes[id].m), (rtb_word)rtb_zephyr_ticks(timeout_us), 0,
                  0);
    errno_call(c, RTB_NO_WAIT, "k_mutex_lock"); /* a lock that fails "would block" */
    return RTB_OK;
}

int rtb_port_mutex_lock_kcall(int id, struct rtb_kcall *c)
{
    return lock(id, RTB_WAIT_FOREVER, c);
}

int rtb_port_mutex_trylock_kcall(int id, struct rtb_kcall *c)
{
    return lock(id, RTB_NO_WAIT, c);
}

int rtb_port_mutex_unlock_kcall(int id, struct rtb_kcall *c)
{
    if (!MUTEX_OK(id))
        return rtb_zephyr_fail("mutex_unlock", "no such mutex");
    rtb_kcall_set(c, rtb_kapi_k_mutex_unlock, 0, W(mutexes[id].m), 0, 0, 0);
    errno_call(c, RTB_NO_WAIT, "k_mutex_unlock (not the owner)");
    return RTB_OK;
}

RTB_KCALL_PLAIN(mutex_create, (int id, unsigned flags), id, flags)
RTB_KCALL_PLAIN(mutex_lock, (int id), id)
RTB_KCALL_PLAIN(mutex_trylock, (int id), id)
RTB_KCALL_PLAIN(mutex_unlock, (int id), id)

/* The mutex of condition variable waits (rtb_port_cond_wait). */
static struct k_mutex *mutex_of(int id)
{
    return MUTEX_OK(id) ? mutexes[id].m : NULL;
}

/* ---- events --------------------------------------------------------------- */
static struct k_event event_obj[RTB_MAX_EVENTS] __noinit;
static struct {
    struct k_event *ev;
    bool used;
} events[RTB_MAX_EVENTS];
#define EV_OK(id) ((id) >= 0 && (id) < RTB_MAX_EVENTS && events[id].used)

RTB_KAPI_STMT(k_event_init, k_event_init((struct k_event *)a0))
RTB_KAPI(k_event_post, k_event_post((struct k_event *)a0, (uint32_t)a1))
RTB_KAPI(k_event_wait, k_event_wait((struct k_event *)a0, (uint32_t)a1, false, rtb_zephyr_timeout(a2)))
RTB_KAPI(k_event_wait_all, k_event_wait_all((struct k_event *)a0, (uint32_t)a1, false, rtb_zephyr_timeout(a2)))
/* A wait that consumes what it received (RTB_EV_CLEAR): Zephyr 4.0 has no
 * such call (its wait leaves the events set; its `reset` clears them
 * before waiting, not after), so an application clears what it got: two
 * calls, the port's emulation (RTB_EMU_EVENTS), not a shim. Each returns
 * what k_event_clear returns: the events it cleared. */
static rtb_word wait_then_clear(rtb_word a0, rtb_word a1, rtb_word a2, rtb_word a3, rtb_word a4, rtb_word a5,
                                rtb_word a6, rtb_word a7)
{
    RTB_KAPI_UNUSED;
    uint32_t got = k_event_wait((struct k_event *)a0, (uint32_t)a1, false, rtb_zephyr_timeout(a2));
    return k_event_clear((struct k_event *)a0, got);
}

static rtb_word wait_all_then_clear(rtb_word a0, rtb_word a1, rtb_word a2, rtb_word a3, rtb_word a4,
                                    rtb_word a5, rtb_word a6, rtb_word a7)
{
    RTB_KAPI_UNUSED;
    uint32_t got = k_event_wait_all((struct k_event *)a0, (uint32_t)a1, false, rtb_zephyr_timeout(a2));
    return k_event_clear((struct k_event *)a0, got);
}

static int event_made(const struct rtb_kcall *c)
{
    events[c->aux[0]].used = true;
    public_object(events[c->aux[0]].ev);
    return RTB_OK;
}

int rtb_port_event_create_kcall(int id, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_EVENTS || events[id].used)
        return rtb_zephyr_fail("event_create", "bad id, or id in use");
    events[id].ev = &event_obj[id];
    rtb_kcall_set(c, RTB_KFN(rtb_kapi_k_event_init), event_made, W(events[id].ev), 0, 0, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

int rtb_port_event_delete(int id)
{
    if (!EV_OK(id))
        return rtb_zephyr_fail("event_delete", "no such event object");
    events[id].used = false;
    return RTB_OK;
}

int rtb_port_event_delete_kcall(int id, struct rtb_kcall *c)
{
    (void)id, (void)c;
    return rtb_zephyr_unsupported("event_delete: Zephyr objects are not deleted (k_event has no delete)");
}

int rtb_port_event_set_kcall(int id, uint32_t bits, struct rtb_kcall *c)
{
    if (!EV_OK(id))
        return rtb_zephyr_fail("event_set", "no such event object");
    rtb_kcall_set(c, rtb_kapi_k_event_post, 0, W(events[id].ev), bits, 0, 0);
    return RTB_OK;
}

/* The wait returns the events that satisfied it (0: none, timed out);
 * with a clear, k_event_clear returns the events it cleared. *got (aux[1])
 * is the asked ones among them (a[1]). */
static int waited(const struct rtb_kcall *c)
{
    uint32_t got = (uint32_t)c->ret & (uint32_t)c->a[1];
    if (c->aux[1])
        *(uint32_t *)c->aux[1] = got;
    bool all = c->fn == rtb_kapi_k_event_wait_all || c->fn == wait_all_then_clear;
    if (all ? got == (uint32_t)c->a[1] : got != 0)
        return RTB_OK;
    return (int32_t)c->aux[0] == RTB_NO_WAIT ? RTB_EWOULDBLOCK : RTB_ETIMEOUT;
}

int rtb_port_event_wait_kcall(int id, uint32_t bits, unsigned mode, int32_t timeout_us, uint32_t *got,
                              struct rtb_kcall *c)
{
    if (!EV_OK(id))
        return rtb_zephyr_fail("event_wait", "no such event object");
    rtb_kfn fn = (mode & RTB_EV_ALL) ? ((mode & RTB_EV_CLEAR) ? wait_all_then_clear : rtb_kapi_k_event_wait_all)
                                     : ((mode & RTB_EV_CLEAR) ? wait_then_clear : rtb_kapi_k_event_wait);
    rtb_kcall_set(c, fn, waited, W(events[id].ev), bits, (rtb_word)rtb_zephyr_ticks(timeout_us), 0);
    c->aux[0] = (rtb_word)timeout_us;
    c->aux[1] = W(got);
    return RTB_OK;
}

RTB_KCALL_PLAIN(event_create, (int id), id)
RTB_KCALL_PLAIN(event_set, (int id, uint32_t bits), id, bits)
RTB_KCALL_PLAIN(event_wait, (int id, uint32_t bits, unsigned mode, int32_t timeout_us, uint32_t *got), id,
                bits, mode, timeout_us, got)

/* ---- condition variables ------------------------------------------------------ */
static struct k_condvar cond_obj[RTB_MAX_CONDS] __noinit;
static struct {
    struct k_condvar *cv;
    bool used;
} conds[RTB_MAX_CONDS];
#define COND_OK(id) ((id) >= 0 && (id) < RTB_MAX_CONDS && conds[id].used)

RTB_KAPI(k_condvar_init, k_condvar_init((struct k_condvar *)a0))
RTB_KAPI(k_condvar_wait, k_condvar_wait((struct k_condvar *)a0, (struct k_mutex *)a1, rtb_zephyr_timeout(a2)))
RTB_KAPI(k_condvar_signal, k_condvar_signal((struct k_condvar *)a0))
RTB_KAPI(k_condvar_broadcast, k_condvar_broadcast((struct k_condvar *)a0))

static int cond_made(const struct rtb_kcall *c)
{
    conds[c->aux[1]].used = true;
    public_object(conds[c->aux[1]].cv);
    return RTB_OK;
}

int rtb_port_cond_create_kcall(int id, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_CONDS || conds[id].used)
        return rtb_zephyr_fail("cond_create", "bad id, or id in use");
    conds[id].cv = &cond_obj[id];
    rtb_kcall_set(c, rtb_kapi_k_condvar_init, cond_made, W(conds[id].cv), 0, 0, 0);
    c->aux[1] = (rtb_word)id;
    return RTB_OK;
}

int rtb_port_cond_delete(int id)
{
    if (!COND_OK(id))
        return rtb_zephyr_fail("cond_delete", "no such condition variable");
    conds[id].used = false;
    return RTB_OK;
}

int rtb_port_cond_wait_kcall(int id, int mutex_id, int32_t timeout_us, struct rtb_kcall *c)
{
    struct k_mutex *m = mutex_of(mutex_id);
    if (!COND_OK(id) || !m)
        return rtb_zephyr_fail("cond_wait", "no such condition variable or mutex");
    rtb_kcall_set(c, rtb_kapi_k_condvar_wait, 0, W(conds[id].cv), W(m), (rtb_word)rtb_zephyr_ticks(timeout_us),
                  0);
    errno_call(c, timeout_us, "k_condvar_wait");
    return RTB_OK;
}

static int cond_call(int id, rtb_kfn fn, const char *what, struct rtb_kcall *c)
{
    if (!COND_OK(id))
        return rtb_zephyr_fail(what, "no such condition variable");
    rtb_kcall_set(c, fn, 0, W(conds[id].cv), 0, 0, 0);
    errno_call(c, RTB_NO_WAIT, what);
    return RTB_OK;
}

int rtb_port_cond_signal_kcall(int id, struct rtb_kcall *c)
{
    return cond_call(id, rtb_kapi_k_condvar_signal, "k_condvar_signal", c);
}

int rtb_port_cond_broadcast_kcall(int id, struct rtb_kcall *c)
{
    return cond_call(id, rtb_kapi_k_condvar_broadcast, "k_condvar_broadcast", c);
}

RTB_KCALL_PLAIN(cond_create, (int id), id)
RTB_KCALL_PLAIN(cond_wait, (int id, int mutex_id, int32_t timeout_us), id, mutex_id, timeout_us)
RTB_KCALL_PLAIN(cond_signal, (int id), id)
RTB_KCALL_PLAIN(cond_broadcast, (int id), id)
