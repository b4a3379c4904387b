/*
 * POSIX port: tasks are pthreads on static, prefaulted stacks, created with
 * an explicit SCHED_FIFO priority (when granted) and pinned to the
 * benchmark CPU from their first instruction, so "the incoming
 * higher-priority task" really preempts, as on a uniprocessor RTOS.
 *
 * RTB_TASK_PROCESS tasks are forked processes (VxWorks "RTP-to-RTP"): the
 * child sets its own priority first thing, runs fn and _exits; it dies with
 * the harness (PR_SET_PDEATHSIG), so a killed run leaves no process behind.
 * Only the runner creates and joins tasks (it is their parent).
 */
#include "posix_port.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define STACK_SIZE (256u * 1024u)

static struct {
    pthread_t thread;
    pid_t pid;       /* > 0: the task is a process */
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

int rtb_posix_task_cpu(unsigned flags)
{
    if (!(flags & RTB_TASK_OTHER_CPU) || rtb_posix.cpu < 0)
        return rtb_posix.cpu;
    for (int c = 0; c < rtb_posix.cpus_online && c < CPU_SETSIZE; c++) {
        if (c != rtb_posix.cpu && CPU_ISSET(c, &rtb_posix.allowed))
            return c;
    }
    return -1;
}

int rtb_posix_thread_attrs(pthread_attr_t *a, int prio, unsigned flags)
{
    int rc = 0;
    int cpu = rtb_posix_task_cpu(flags);
    if (cpu >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
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

/* The child of a process task: placement and priority first, then fn. */
static void process_main(int id, int prio, unsigned flags, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1); /* the harness died before the line above took effect */
    int cpu = rtb_posix_task_cpu(flags);
    if (cpu >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        sched_setaffinity(0, sizeof one, &one);
    }
    if (rtb_posix.realtime) {
        struct sched_param sp = {.sched_priority = RTB_POSIX_FIFO_BASE + prio};
        sched_setscheduler(0, SCHED_FIFO, &sp);
    }
    if (rtb_posix.mlock) /* locks are not inherited across fork */
        mlockall(MCL_CURRENT | MCL_FUTURE);
    tasks[id].fn(tasks[id].arg);
    _exit(0);
}

static int process_create(int id, int prio, unsigned flags)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return rtb_posix_fail("fork", errno);
    if (pid == 0)
        process_main(id, prio, flags, parent);
    tasks[id].pid = pid;
    tasks[id].used = true;
    return RTB_OK;
}

int rtb_port_task_create(int id, int prio, unsigned flags, rtb_task_fn fn, void *arg)
{
    if (!valid(id) || tasks[id].used || prio < 1 || prio > RTB_PRIO_MAX)
        return rtb_posix_fail("task_create", EINVAL);
    if ((flags & RTB_TASK_OTHER_CPU) && rtb_posix_task_cpu(flags) < 0)
        return rtb_posix_unsupported("task_create: no other CPU to place the task on");
    if (flags & RTB_TASK_SUSPENDED)
        return rtb_posix_unsupported("task_create: create-without-start not provided yet");
    tasks[id].fn = fn;
    tasks[id].arg = arg;
    tasks[id].pid = 0;
    if (flags & RTB_TASK_PROCESS)
        return process_create(id, prio, flags);
    pthread_attr_t a;
    pthread_attr_init(&a);
    int rc = pthread_attr_setstack(&a, stacks[id], STACK_SIZE);
    if (!rc)
        rc = rtb_posix_thread_attrs(&a, prio, flags);
    if (rc) {
        pthread_attr_destroy(&a);
        return rtb_posix_fail("task_create: attributes", rc);
    }
    rc = pthread_create(&tasks[id].thread, &a, trampoline, (void *)(intptr_t)id);
    pthread_attr_destroy(&a);
    if (rc)
        return rtb_posix_fail("pthread_create", rc);
    tasks[id].used = true;
    return RTB_OK;
}

static int process_join(int id)
{
    int st;
    pid_t r;
    while ((r = waitpid(tasks[id].pid, &st, 0)) < 0 && errno == EINTR)
        ;
    tasks[id].used = false;
    if (r < 0)
        return rtb_posix_fail("waitpid", errno);
    if (WIFSIGNALED(st))
        return rtb_posix_fail("task process killed by a signal", EINTR);
    if (WEXITSTATUS(st) != 0)
        return rtb_posix_fail("task process exited with an error", ECHILD);
    return RTB_OK;
}

int rtb_port_task_join(int id)
{
    if (!valid(id) || !tasks[id].used)
        return rtb_posix_fail("task_join", EINVAL);
    if (tasks[id].pid > 0)
        return process_join(id);
    int rc = pthread_join(tasks[id].thread, 0);
    tasks[id].used = false;
    return rc ? rtb_posix_fail("pthread_join", rc) : RTB_OK;
}

int rtb_port_task_start(int id)
{
    (void)id;
    return rtb_posix_unsupported("task_start: create-without-start not provided yet");
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
