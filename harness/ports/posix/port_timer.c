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

static void advance(struct timespec *ts, uint32_t us)
{
    ts->tv_sec += us / 1000000u;
    ts->tv_nsec += (long)(us % 1000000u) * 1000;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

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
            advance(&t->deadline, t->period_us);
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
    if (rtb_posix.cpu >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(rtb_posix.cpu, &one);
        pthread_attr_setaffinity_np(&a, sizeof one, &one);
    }
    if (rtb_posix.realtime) {
        struct sched_param sp = {.sched_priority = RTB_POSIX_FIFO_BASE + RTB_PRIO_MAX};
        pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
        pthread_attr_setschedpolicy(&a, SCHED_FIFO);
        pthread_attr_setschedparam(&a, &sp);
    }
    int rc = pthread_create(&t->thread, &a, service, t);
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
    advance(&t->deadline, first_us);
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
