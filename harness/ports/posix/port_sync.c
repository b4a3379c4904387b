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
static struct {
    sem_t sem;
    unsigned max;
    bool used;
} sems[RTB_MAX_SEMS];

#define SEM_OK(id) ((id) >= 0 && (id) < RTB_MAX_SEMS && sems[id].used)

int rtb_port_sem_create(int id, unsigned initial, unsigned max)
{
    if (id < 0 || id >= RTB_MAX_SEMS || sems[id].used || max == 0 || initial > max)
        return rtb_posix_fail("sem_create", EINVAL);
    if (sem_init(&sems[id].sem, 0, initial) != 0)
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
static struct {
    pthread_mutex_t m;
    bool used;
} mutexes[RTB_MAX_MUTEXES];

#define MUTEX_OK(id) ((id) >= 0 && (id) < RTB_MAX_MUTEXES && mutexes[id].used)

int rtb_port_mutex_create(int id, unsigned flags)
{
    if (id < 0 || id >= RTB_MAX_MUTEXES || mutexes[id].used)
        return rtb_posix_fail("mutex_create", EINVAL);
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    int rc = 0;
    if (flags & RTB_MUTEX_RECURSIVE)
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

int rtb_port_mutex_unlock(int id)
{
    if (!MUTEX_OK(id))
        return rtb_posix_fail("mutex_unlock", EINVAL);
    int rc = pthread_mutex_unlock(&mutexes[id].m);
    return rc ? rtb_posix_fail("pthread_mutex_unlock", rc) : RTB_OK;
}

/* ---- event flags -------------------------------------------------------- */
static struct {
    pthread_mutex_t m;
    pthread_cond_t c;
    uint32_t bits;
    bool used;
} events[RTB_MAX_EVENTS];

#define EVENT_OK(id) ((id) >= 0 && (id) < RTB_MAX_EVENTS && events[id].used)

int rtb_port_event_create(int id)
{
    if (id < 0 || id >= RTB_MAX_EVENTS || events[id].used)
        return rtb_posix_fail("event_create", EINVAL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&events[id].m, 0);
    pthread_cond_init(&events[id].c, &ca);
    pthread_condattr_destroy(&ca);
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
    pthread_cond_broadcast(&events[id].c);
    pthread_mutex_unlock(&events[id].m);
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
