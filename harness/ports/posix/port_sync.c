/*
 * POSIX port: semaphores (sem_t), mutexes (pthread_mutex_t) and event flags
 * (a bit mask under a mutex and condition variable: Linux has no event-flag
 * object, and this is how glibc-based RTOS emulations build one).
 */
#include "posix_port.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>

void rtb_posix_ts_add(struct timespec *ts, uint32_t us)
{
    ts->tv_sec += us / 1000000u;
    ts->tv_nsec += (long)(us % 1000000u) * 1000;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

void rtb_posix_deadline(int clock, int32_t us, struct timespec *ts)
{
    clock_gettime(clock, ts);
    rtb_posix_ts_add(ts, (uint32_t)us);
}

/* ---- semaphores --------------------------------------------------------- */
struct sem_slot {
    sem_t sem;
    unsigned max;
    bool used;
};
RTB_POSIX_POOL(struct sem_slot, sem_pool, RTB_MAX_SEMS)
static struct sem_slot *sems; /* = sem_pool(), set by the first create */

#define SEM_OK(id) (sems && (id) >= 0 && (id) < RTB_MAX_SEMS && sems[id].used)

int rtb_port_sem_create(int id, unsigned initial, unsigned max)
{
    if (!(sems = sem_pool()))
        return rtb_posix_fail("sem_create: not the runner, or shared region full", ENOMEM);
    if (id < 0 || id >= RTB_MAX_SEMS || sems[id].used || max == 0 || initial > max)
        return rtb_posix_fail("sem_create", EINVAL);
    if (sem_init(&sems[id].sem, rtb_posix.pshared, initial) != 0)
        return rtb_posix_fail("sem_init", errno);
    sems[id].max = max;
    sems[id].used = true;
    return RTB_OK;
}

int rtb_port_sem_delete(int id)
{
    if (!SEM_OK(id))
        return rtb_posix_fail("sem_delete", EINVAL);
    sems[id].used = false;
    return sem_destroy(&sems[id].sem) ? rtb_posix_fail("sem_destroy", errno) : RTB_OK;
}

/* A binary semaphore is a sem_t whose post is skipped when it is already
 * available. The check is a plain read of the count (sem_getvalue), not
 * atomic with the post: harmless here, where one task gives. */
int rtb_port_sem_give(int id)
{
    rtb_posix_fault_delay();
    if (!SEM_OK(id))
        return rtb_posix_fail("sem_give", EINVAL);
    if (sems[id].max != (unsigned)-1) {
        int v;
        sem_getvalue(&sems[id].sem, &v);
        if (v >= (int)sems[id].max)
            return RTB_OK;
    }
    return sem_post(&sems[id].sem) ? rtb_posix_fail("sem_post", errno) : RTB_OK;
}

/* sem_post is async-signal-safe: the handler of the signal interrupt source
 * (port_irq.c) may call it as it is. */
int rtb_port_sem_give_isr(int id)
{
    return rtb_port_sem_give(id);
}

int rtb_port_sem_take(int id, int32_t timeout_us)
{
    if (!SEM_OK(id))
        return rtb_posix_fail("sem_take", EINVAL);
    int rc;
    if (timeout_us == RTB_NO_WAIT) {
        rc = sem_trywait(&sems[id].sem);
        if (rc && errno == EAGAIN)
            return RTB_EWOULDBLOCK;
    } else if (timeout_us == RTB_WAIT_FOREVER) {
        while ((rc = sem_wait(&sems[id].sem)) != 0 && errno == EINTR)
            ;
    } else {
        struct timespec ts;
        rtb_posix_deadline(CLOCK_MONOTONIC, timeout_us, &ts);
        while ((rc = sem_clockwait(&sems[id].sem, CLOCK_MONOTONIC, &ts)) != 0 && errno == EINTR)
            ;
        if (rc && errno == ETIMEDOUT)
            return RTB_ETIMEOUT;
    }
    return rc ? rtb_posix_fail("sem_wait", errno) : RTB_OK;
}

/* ---- mutexes ------------------------------------------------------------ */
struct mutex_slot {
    pthread_mutex_t m;
    bool used;
};
RTB_POSIX_POOL(struct mutex_slot, mutex_pool, RTB_MAX_MUTEXES)
static struct mutex_slot *mutexes;

#define MUTEX_OK(id) (mutexes && (id) >= 0 && (id) < RTB_MAX_MUTEXES && mutexes[id].used)

pthread_mutex_t *rtb_posix_mutex(int id)
{
    return MUTEX_OK(id) ? &mutexes[id].m : 0;
}

int rtb_port_mutex_create(int id, unsigned flags)
{
    if (!(mutexes = mutex_pool()))
        return rtb_posix_fail("mutex_create: not the runner, or shared region full", ENOMEM);
    if (id < 0 || id >= RTB_MAX_MUTEXES || mutexes[id].used)
        return rtb_posix_fail("mutex_create", EINVAL);
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    int rc = pthread_mutexattr_setpshared(&a, RTB_POSIX_PSHARED);
    if (!rc && (flags & RTB_MUTEX_RECURSIVE))
        rc = pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    if (!rc && (flags & RTB_MUTEX_INHERIT))
        rc = pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
    if (!rc)
        rc = pthread_mutex_init(&mutexes[id].m, &a);
    pthread_mutexattr_destroy(&a);
    if (rc)
        return rtb_posix_fail("pthread_mutex_init", rc);
    mutexes[id].used = true;
    return RTB_OK;
}

int rtb_port_mutex_delete(int id)
{
    if (!MUTEX_OK(id))
        return rtb_posix_fail("mutex_delete", EINVAL);
    mutexes[id].used = false;
    int rc = pthread_mutex_destroy(&mutexes[id].m);
    return rc ? rtb_posix_fail("pthread_mutex_destroy", rc) : RTB_OK;
}

int rtb_port_mutex_lock(int id)
{
    if (!MUTEX_OK(id))
        return rtb_posix_fail("mutex_lock", EINVAL);
    int rc = pthread_mutex_lock(&mutexes[id].m);
    return rc ? rtb_posix_fail("pthread_mutex_lock", rc) : RTB_OK;
}

int rtb_port_mutex_trylock(int id)
{
    if (!MUTEX_OK(id))
        return rtb_posix_fail("mutex_trylock", EINVAL);
    int rc = pthread_mutex_trylock(&mutexes[id].m);
    if (rc == EBUSY)
        return RTB_EWOULDBLOCK;
    return rc ? rtb_posix_fail("pthread_mutex_trylock", rc) : RTB_OK;
}

int rtb_port_mutex_unlock(int id)
{
    if (!MUTEX_OK(id))
        return rtb_posix_fail("mutex_unlock", EINVAL);
    int rc = pthread_mutex_unlock(&mutexes[id].m);
    return rc ? rtb_posix_fail("pthread_mutex_unlock", rc) : RTB_OK;
}

/* ---- event flags -------------------------------------------------------- */
struct event_slot {
    pthread_mutex_t m;
    pthread_cond_t c;
    uint32_t bits;
    bool used;
};
RTB_POSIX_POOL(struct event_slot, event_pool, RTB_MAX_EVENTS)
static struct event_slot *events;

#define EVENT_OK(id) (events && (id) >= 0 && (id) < RTB_MAX_EVENTS && events[id].used)

int rtb_posix_shared_mutex_init(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    int rc = pthread_mutexattr_setpshared(&a, RTB_POSIX_PSHARED);
    if (!rc)
        rc = pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
    return rc;
}

int rtb_posix_shared_cond_init(pthread_cond_t *c)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    int rc = pthread_condattr_setpshared(&a, RTB_POSIX_PSHARED);
    if (!rc)
        rc = pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    if (!rc)
        rc = pthread_cond_init(c, &a);
    pthread_condattr_destroy(&a);
    return rc;
}

int rtb_port_event_create(int id)
{
    if (!(events = event_pool()))
        return rtb_posix_fail("event_create: not the runner, or shared region full", ENOMEM);
    if (id < 0 || id >= RTB_MAX_EVENTS || events[id].used)
        return rtb_posix_fail("event_create", EINVAL);
    int rc = rtb_posix_shared_mutex_init(&events[id].m);
    if (!rc && (rc = rtb_posix_shared_cond_init(&events[id].c)) != 0)
        pthread_mutex_destroy(&events[id].m);
    if (rc)
        return rtb_posix_fail("event_create", rc);
    events[id].bits = 0;
    events[id].used = true;
    return RTB_OK;
}

int rtb_port_event_delete(int id)
{
    if (!EVENT_OK(id))
        return rtb_posix_fail("event_delete", EINVAL);
    events[id].used = false;
    pthread_cond_destroy(&events[id].c);
    pthread_mutex_destroy(&events[id].m);
    return RTB_OK;
}

int rtb_port_event_set(int id, uint32_t bits)
{
    if (!EVENT_OK(id))
        return rtb_posix_fail("event_set", EINVAL);
    pthread_mutex_lock(&events[id].m);
    events[id].bits |= bits;
    pthread_mutex_unlock(&events[id].m);
    /* After the unlock: a woken waiter finds the mutex free instead of
     * switching back to the setter to get it (one switch, not three). */
    pthread_cond_broadcast(&events[id].c);
    return RTB_OK;
}

static bool satisfied(uint32_t have, uint32_t want, unsigned mode)
{
    return (mode & RTB_EV_ALL) ? (have & want) == want : (have & want) != 0;
}

int rtb_port_event_wait(int id, uint32_t bits, unsigned mode, int32_t timeout_us, uint32_t *got)
{
    if (!EVENT_OK(id))
        return rtb_posix_fail("event_wait", EINVAL);
    struct timespec ts;
    if (timeout_us > 0)
        rtb_posix_deadline(CLOCK_MONOTONIC, timeout_us, &ts);
    int rc = RTB_OK;
    pthread_mutex_lock(&events[id].m);
    while (!satisfied(events[id].bits, bits, mode)) {
        if (timeout_us == RTB_NO_WAIT) {
            rc = RTB_EWOULDBLOCK;
            break;
        }
        int e = timeout_us == RTB_WAIT_FOREVER
                    ? pthread_cond_wait(&events[id].c, &events[id].m)
                    : pthread_cond_timedwait(&events[id].c, &events[id].m, &ts);
        if (e == ETIMEDOUT) {
            rc = RTB_ETIMEOUT;
            break;
        }
    }
    if (rc == RTB_OK) {
        if (got)
            *got = events[id].bits & bits;
        if (mode & RTB_EV_CLEAR)
            events[id].bits &= ~bits;
    }
    pthread_mutex_unlock(&events[id].m);
    return rc;
}
