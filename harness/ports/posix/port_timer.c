/*
 * POSIX port: callback timers are kernel timers (timer_create on
 * CLOCK_MONOTONIC), so create/start/cancel/delete are the kernel's own
 * object operations, as VxWorks wdCreate/wdStart/wdCancel/wdDelete are.
 * Expiry sends a real-time signal to one timer service thread (SIGEV_THREAD_ID),
 * the "timer context" of this port (as FreeRTOS's timer service task is): the
 * most urgent rtbench priority, pinned to the benchmark CPU, parked in
 * sigwaitinfo(). It runs the callback of the timer named in the signal.
 * The service thread is created with the first timer and lives as long as
 * the harness. Cancel does not wait for a callback already running, nor
 * recall an expiry already queued; an expiry queued before a delete is
 * dropped (the signal carries the timer's id and creation generation).
 */
#include "posix_port.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TIMER_SIGNAL (SIGRTMIN + 2)

static struct timer {
    timer_t kt;
    rtb_timer_fn fn;
    void *arg;
    volatile unsigned gen; /* bumped by every create of this id */
    volatile bool used;
} timers[RTB_MAX_TIMERS];

static pthread_t service_thread;
static volatile pid_t service_tid;
static bool service_up;

/* sival packs id and generation, so a stale expiry is recognised. */
static int pack(int id, unsigned gen)
{
    return (int)((gen & 0xFFFFFFu) << 8) | id;
}

static void *service(void *unused)
{
    (void)unused;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, TIMER_SIGNAL);
    pthread_sigmask(SIG_BLOCK, &set, 0);
    service_tid = (pid_t)syscall(SYS_gettid);
    for (;;) {
        siginfo_t si;
        if (sigwaitinfo(&set, &si) < 0)
            continue;
        int v = si.si_value.sival_int, id = v & 0xFF;
        if (id >= RTB_MAX_TIMERS)
            continue;
        struct timer *t = &timers[id];
        if (t->used && pack(id, t->gen) == v)
            t->fn(t->arg);
    }
    return 0;
}

static int start_service(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, TIMER_SIGNAL);
    /* blocked while the thread starts, so an early signal waits for sigwaitinfo */
    sigset_t old;
    pthread_sigmask(SIG_BLOCK, &set, &old);
    pthread_attr_t a;
    pthread_attr_init(&a);
    int rc = rtb_posix_thread_attrs(&a, RTB_PRIO_MAX, 0);
    if (!rc)
        rc = pthread_create(&service_thread, &a, service, 0);
    pthread_attr_destroy(&a);
    pthread_sigmask(SIG_SETMASK, &old, 0);
    if (rc)
        return rc;
    while (!service_tid)
        sched_yield(); /* it runs at once with real-time priority; else soon */
    service_up = true;
    return 0;
}

#define TIMER_OK(id) ((id) >= 0 && (id) < RTB_MAX_TIMERS && timers[id].used)

int rtb_port_timer_create(int id, rtb_timer_fn fn, void *arg)
{
    if (id < 0 || id >= RTB_MAX_TIMERS || timers[id].used || !fn)
        return rtb_posix_fail("timer_create", EINVAL);
    if (!service_up) {
        int rc = start_service();
        if (rc)
            return rtb_posix_fail("timer_create: service thread", rc);
    }
    struct timer *t = &timers[id];
    t->fn = fn;
    t->arg = arg;
    t->gen++;
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = TIMER_SIGNAL;
    ev.sigev_value.sival_int = pack(id, t->gen);
    ev._sigev_un._tid = service_tid;
    if (timer_create(CLOCK_MONOTONIC, &ev, &t->kt) != 0)
        return rtb_posix_fail("timer_create", errno);
    t->used = true;
    return RTB_OK;
}

static int arm(struct timer *t, uint32_t first_us, uint32_t period_us)
{
    struct itimerspec its = {
        .it_value = {.tv_sec = first_us / 1000000u, .tv_nsec = (long)(first_us % 1000000u) * 1000},
        .it_interval = {.tv_sec = period_us / 1000000u,
                        .tv_nsec = (long)(period_us % 1000000u) * 1000},
    };
    return timer_settime(t->kt, 0, &its, 0) ? errno : 0;
}

int rtb_port_timer_start(int id, uint32_t first_us, uint32_t period_us)
{
    if (!TIMER_OK(id))
        return rtb_posix_fail("timer_start", EINVAL);
    if (!first_us)
        first_us = 1; /* 0 would disarm */
    int rc = arm(&timers[id], first_us, period_us);
    return rc ? rtb_posix_fail("timer_settime", rc) : RTB_OK;
}

int rtb_port_timer_cancel(int id)
{
    if (!TIMER_OK(id))
        return rtb_posix_fail("timer_cancel", EINVAL);
    int rc = arm(&timers[id], 0, 0);
    return rc ? rtb_posix_fail("timer_settime(0)", rc) : RTB_OK;
}

int rtb_port_timer_delete(int id)
{
    if (!TIMER_OK(id))
        return rtb_posix_fail("timer_delete", EINVAL);
    struct timer *t = &timers[id];
    t->used = false; /* a queued expiry is dropped by the service thread */
    return timer_delete(t->kt) ? rtb_posix_fail("timer_delete", errno) : RTB_OK;
}
