/*
 * POSIX port: callback timers. Each timer has a service thread, the
 * "timer context" of this port (as FreeRTOS's timer service task is): the
 * most urgent rtbench priority, pinned to the benchmark CPU, waiting on a
 * condition variable with an absolute CLOCK_MONOTONIC deadline, so expiry is
 * a kernel hrtimer waking it. Periodic deadlines advance by the period from
 * the previous deadline, not from the callback, so they do not drift.
 * Cancel does not wait for a callback already running.
 */
#include "posix_port.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>

static struct timer {
    pthread_t thread;
    pthread_mutex_t m;
    pthread_cond_t c;
    rtb_timer_fn fn;
    void *arg;
    struct timespec deadline;
    uint32_t period_us;
    bool armed, quit, used;
} timers[RTB_MAX_TIMERS];

static void *service(void *p)
{
    struct timer *t = p;
    pthread_mutex_lock(&t->m);
    while (!t->quit) {
        if (!t->armed) {
            pthread_cond_wait(&t->c, &t->m);
            continue;
        }
        struct timespec due = t->deadline;
        if (pthread_cond_timedwait(&t->c, &t->m, &due) != ETIMEDOUT || !t->armed ||
            due.tv_sec != t->deadline.tv_sec || due.tv_nsec != t->deadline.tv_nsec)
            continue; /* woken by start/cancel/delete: look again */
        if (t->period_us)
            rtb_posix_ts_add(&t->deadline, t->period_us);
        else
            t->armed = false;
        pthread_mutex_unlock(&t->m);
        t->fn(t->arg);
        pthread_mutex_lock(&t->m);
    }
    pthread_mutex_unlock(&t->m);
    return 0;
}

static int spawn(struct timer *t)
{
    pthread_attr_t a;
    pthread_attr_init(&a);
    int rc = rtb_posix_thread_attrs(&a, RTB_PRIO_MAX, 0);
    if (!rc)
        rc = pthread_create(&t->thread, &a, service, t);
    pthread_attr_destroy(&a);
    return rc;
}

#define TIMER_OK(id) ((id) >= 0 && (id) < RTB_MAX_TIMERS && timers[id].used)

int rtb_port_timer_create(int id, rtb_timer_fn fn, void *arg)
{
    if (id < 0 || id >= RTB_MAX_TIMERS || timers[id].used || !fn)
        return rtb_posix_fail("timer_create", EINVAL);
    struct timer *t = &timers[id];
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&t->c, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&t->m, 0);
    t->fn = fn;
    t->arg = arg;
    t->armed = t->quit = false;
    int rc = spawn(t);
    if (rc) {
        pthread_cond_destroy(&t->c);
        pthread_mutex_destroy(&t->m);
        return rtb_posix_fail("timer_create: pthread_create", rc);
    }
    t->used = true;
    return RTB_OK;
}

int rtb_port_timer_start(int id, uint32_t first_us, uint32_t period_us)
{
    if (!TIMER_OK(id))
        return rtb_posix_fail("timer_start", EINVAL);
    struct timer *t = &timers[id];
    pthread_mutex_lock(&t->m);
    clock_gettime(CLOCK_MONOTONIC, &t->deadline);
    rtb_posix_ts_add(&t->deadline, first_us);
    t->period_us = period_us;
    t->armed = true;
    pthread_cond_signal(&t->c);
    pthread_mutex_unlock(&t->m);
    return RTB_OK;
}

int rtb_port_timer_cancel(int id)
{
    if (!TIMER_OK(id))
        return rtb_posix_fail("timer_cancel", EINVAL);
    struct timer *t = &timers[id];
    pthread_mutex_lock(&t->m);
    t->armed = false;
    pthread_cond_signal(&t->c);
    pthread_mutex_unlock(&t->m);
    return RTB_OK;
}

int rtb_port_timer_delete(int id)
{
    if (!TIMER_OK(id))
        return rtb_posix_fail("timer_delete", EINVAL);
    struct timer *t = &timers[id];
    pthread_mutex_lock(&t->m);
    t->quit = true;
    pthread_cond_signal(&t->c);
    pthread_mutex_unlock(&t->m);
    pthread_join(t->thread, 0);
    pthread_cond_destroy(&t->c);
    pthread_mutex_destroy(&t->m);
    t->used = false;
    return RTB_OK;
}
