/*
 * POSIX port: tasks are pthreads on static, prefaulted stacks, created with
 * an explicit SCHED_FIFO priority (when granted) and pinned to the
 * benchmark CPU from their first instruction, so "the incoming
 * higher-priority task" really preempts, as on a uniprocessor RTOS.
 */
#include "posix_port.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#define STACK_SIZE (256u * 1024u)

static struct {
    pthread_t thread;
    bool used;
    rtb_task_fn fn;
    void *arg;
} tasks[RTB_MAX_TASKS];

static char stacks[RTB_MAX_TASKS][STACK_SIZE] __attribute__((aligned(4096)));

void rtb_posix_tasks_init(void)
{
    memset(stacks, 0, sizeof stacks); /* prefault: no page fault inside a measurement */
}

static void *trampoline(void *p)
{
    int id = (int)(intptr_t)p;
    tasks[id].fn(tasks[id].arg);
    return 0;
}

static bool valid(int id)
{
    return id >= 0 && id < RTB_MAX_TASKS;
}

int rtb_posix_thread_attrs(pthread_attr_t *a, int prio)
{
    int rc = 0;
    if (rtb_posix.cpu >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(rtb_posix.cpu, &one);
        rc = pthread_attr_setaffinity_np(a, sizeof one, &one);
    }
    if (!rc && rtb_posix.realtime) {
        struct sched_param sp = {.sched_priority = RTB_POSIX_FIFO_BASE + prio};
        rc = pthread_attr_setinheritsched(a, PTHREAD_EXPLICIT_SCHED);
        if (!rc)
            rc = pthread_attr_setschedpolicy(a, SCHED_FIFO);
        if (!rc)
            rc = pthread_attr_setschedparam(a, &sp);
    }
    return rc;
}

int rtb_port_task_create(int id, int prio, rtb_task_fn fn, void *arg)
{
    if (!valid(id) || tasks[id].used || prio < 1 || prio > RTB_PRIO_MAX)
        return rtb_posix_fail("task_create", EINVAL);
    pthread_attr_t a;
    pthread_attr_init(&a);
    int rc = pthread_attr_setstack(&a, stacks[id], STACK_SIZE);
    if (!rc)
        rc = rtb_posix_thread_attrs(&a, prio);
    if (rc) {
        pthread_attr_destroy(&a);
        return rtb_posix_fail("task_create: attributes", rc);
    }
    tasks[id].fn = fn;
    tasks[id].arg = arg;
    rc = pthread_create(&tasks[id].thread, &a, trampoline, (void *)(intptr_t)id);
    pthread_attr_destroy(&a);
    if (rc)
        return rtb_posix_fail("pthread_create", rc);
    tasks[id].used = true;
    return RTB_OK;
}

int rtb_port_task_join(int id)
{
    if (!valid(id) || !tasks[id].used)
        return rtb_posix_fail("task_join", EINVAL);
    int rc = pthread_join(tasks[id].thread, 0);
    tasks[id].used = false;
    return rc ? rtb_posix_fail("pthread_join", rc) : RTB_OK;
}

void rtb_port_task_yield(void)
{
    sched_yield();
}

int rtb_port_task_set_prio(int id, int prio)
{
    if (!rtb_posix.realtime)
        return rtb_posix_unsupported("task_set_prio: no real-time scheduling granted");
    if (prio < 1 || prio > RTB_PRIO_MAX || (id != -1 && (!valid(id) || !tasks[id].used)))
        return rtb_posix_fail("task_set_prio", EINVAL);
    pthread_t t = id == -1 ? pthread_self() : tasks[id].thread;
    struct sched_param sp = {.sched_priority = RTB_POSIX_FIFO_BASE + prio};
    int rc = pthread_setschedparam(t, SCHED_FIFO, &sp);
    return rc ? rtb_posix_fail("pthread_setschedparam", rc) : RTB_OK;
}

int rtb_port_task_delay(uint32_t us)
{
    struct timespec ts = {.tv_sec = us / 1000000u, .tv_nsec = (long)(us % 1000000u) * 1000};
    int rc;
    while ((rc = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts)) == EINTR)
        ;
    return rc ? rtb_posix_fail("clock_nanosleep", rc) : RTB_OK;
}

/* Linux has no safe way to end another thread from outside (pthread_cancel
 * runs cleanup at arbitrary points), no thread suspend and no user-space
 * preemption lock: said, not faked. Emulations come with the task scenarios. */
int rtb_port_task_delete(int id)
{
    (void)id;
    return rtb_posix_unsupported("task_delete: no safe thread deletion in POSIX");
}

int rtb_port_task_suspend(int id)
{
    (void)id;
    return rtb_posix_unsupported("task_suspend: POSIX threads cannot be suspended");
}

int rtb_port_task_resume(int id)
{
    (void)id;
    return rtb_posix_unsupported("task_resume: POSIX threads cannot be suspended");
}

int rtb_port_sched_lock(void)
{
    return rtb_posix_unsupported("sched_lock: Linux has no user-space preemption lock");
}

int rtb_port_sched_unlock(void)
{
    return rtb_posix_unsupported("sched_unlock: Linux has no user-space preemption lock");
}
