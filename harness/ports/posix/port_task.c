/*
 * POSIX port: tasks are pthreads on static, prefaulted stacks, created with
 * an explicit SCHED_FIFO priority (when granted) and pinned to the
 * benchmark CPU from their first instruction, so "the incoming
 * higher-priority task" really preempts, as on a uniprocessor RTOS.
 *
 * RTB_TASK_PROCESS tasks are forked processes (VxWorks "RTP-to-RTP"): the
 * parent gives the child its priority right after fork (so a more urgent
 * child preempts the creator inside the create call, as a thread does), the
 * child sets it again first thing, runs fn and _exits; it dies with the
 * harness (PR_SET_PDEATHSIG), so a killed run leaves no process behind.
 * Only the runner creates, joins and deletes process tasks (it is their
 * parent); any task may start, suspend, resume or re-prioritise them.
 *
 * What Linux lacks, built from real primitives (rtb_port_emulation, port_sys.c):
 *  - create without start: the new task waits on a start gate (a
 *    process-shared sem_t) before fn; rtb_port_task_start() posts it.
 *  - thread delete: pthread_cancel + pthread_join. The thread ends at its
 *    next cancellation point: the first instruction of the task entry is one
 *    (a task that has not run yet ends there), and so is every blocking wait
 *    of this port (sem_wait, clock_nanosleep, the suspend park). A task
 *    spinning without blocking cannot be deleted. Processes: SIGKILL +
 *    waitpid (native).
 *  - thread suspend/resume: a signal (SIG_SUSPEND) whose handler parks the
 *    thread in sigsuspend until SIG_RESUME, the classic emulation. The
 *    target parks when it next runs (a blocked target is woken to run the
 *    handler and its wait restarts after resume). A task suspending itself
 *    parks inside the call. Processes: SIGSTOP/SIGCONT (native), except a
 *    process suspending itself, which parks in the same handler (a SIGCONT
 *    arriving before its own SIGSTOP would otherwise be lost).
 *  - preemption lock: the caller is raised to the top rtbench priority
 *    (RTB_PRIO_MAX; sched_getparam + sched_setparam) and restored on the
 *    outermost unlock; it holds off every rtbench task, not the kernel's own
 *    threads. Needs SCHED_FIFO.
 */
#include "posix_port.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define STACK_SIZE (256u * 1024u)
#define SIG_SUSPEND (SIGRTMIN + 4) /* port_irq.c uses SIGRTMIN + 1 */
#define SIG_RESUME (SIGRTMIN + 5)

enum { NOT_SUSPENDED = 0, BY_SIGSTOP = 1, PARKED = 2 };

/* Local to the process that created the task (the runner, or the thread
 * task that created a thread). */
static struct {
    pthread_t thread;
    bool used;
    rtb_task_fn fn;
    void *arg;
} tasks[RTB_MAX_TASKS];

/* What every task, thread or process, must see of every other. */
struct task_ctl {
    sem_t gate;               /* start gate of a task created suspended */
    volatile pid_t pid;       /* > 0: the task is a process */
    volatile pid_t tid;       /* kernel thread id of a thread task, once it ran */
    volatile int suspended;   /* NOT_SUSPENDED, BY_SIGSTOP or PARKED */
    bool gated;
};
RTB_POSIX_POOL(struct task_ctl, ctl_pool, RTB_MAX_TASKS)
static struct task_ctl *ctl; /* = ctl_pool(), set by the first create */

static __thread int self_id = -1;     /* the calling task's id, -1: the runner */
static __thread int lock_depth;       /* rtb_port_sched_lock nesting */
static __thread struct sched_param lock_saved;

static char stacks[RTB_MAX_TASKS][STACK_SIZE] __attribute__((aligned(4096)));

/* SIG_SUSPEND: park until resumed. SIG_RESUME is blocked while the handler
 * runs (sa_mask) and let in only by sigsuspend, so a resume that arrives
 * before the park is not lost: the loop sees the flag cleared. */
static void on_suspend(int sig)
{
    (void)sig;
    int e = errno;
    if (self_id >= 0 && ctl) {
        sigset_t m;
        pthread_sigmask(SIG_BLOCK, 0, &m);
        sigdelset(&m, SIG_RESUME);
        while (__atomic_load_n(&ctl[self_id].suspended, __ATOMIC_ACQUIRE) == PARKED)
            sigsuspend(&m);
    }
    errno = e;
}

static void on_resume(int sig)
{
    (void)sig;
}

/* Every profile: without these handlers a suspend would kill the harness. */
void rtb_posix_tasks_init(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIG_RESUME);
    sa.sa_handler = on_suspend;
    sigaction(SIG_SUSPEND, &sa, 0);
    sa.sa_handler = on_resume;
    sigaction(SIG_RESUME, &sa, 0);
}

/* With mlock only: no page fault inside a measurement. */
void rtb_posix_tasks_prefault(void)
{
    memset(stacks, 0, sizeof stacks);
}

/* The start gate; a pending cancel (delete before start) ends the task here. */
static void task_prologue(int id)
{
    self_id = id;
    if (ctl[id].gated) {
        while (sem_wait(&ctl[id].gate) != 0 && errno == EINTR)
            ;
    }
}

static void *trampoline(void *p)
{
    int id = (int)(intptr_t)p;
    ctl[id].tid = gettid();
    pthread_testcancel(); /* deleted before it ever ran: end at the first instruction */
    task_prologue(id);
    tasks[id].fn(tasks[id].arg);
    return 0;
}

static bool valid(int id)
{
    return id >= 0 && id < RTB_MAX_TASKS;
}

/* A task id that names a live task, seen from any task. */
static bool live(int id)
{
    return valid(id) && ctl && (tasks[id].used || ctl[id].pid > 0);
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
    ctl[id].pid = getpid();
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
    lock_depth = 0;
    task_prologue(id);
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
    ctl[id].pid = pid;
    tasks[id].used = true;
    if (rtb_posix.realtime) { /* a more urgent child preempts us here */
        struct sched_param sp = {.sched_priority = RTB_POSIX_FIFO_BASE + prio};
        sched_setscheduler(pid, SCHED_FIFO, &sp);
    }
    return RTB_OK;
}

int rtb_port_task_create(int id, int prio, unsigned flags, rtb_task_fn fn, void *arg)
{
    if (!(ctl = ctl_pool()))
        return rtb_posix_fail("task_create: shared region full", ENOMEM);
    if (!valid(id) || tasks[id].used || prio < 1 || prio > RTB_PRIO_MAX)
        return rtb_posix_fail("task_create", EINVAL);
    if ((flags & RTB_TASK_OTHER_CPU) && rtb_posix.cpu >= 0 && rtb_posix_task_cpu(flags) < 0)
        return rtb_posix_unsupported("task_create: no other CPU allowed to place the task on");
    if (self_id >= 0 && ctl[self_id].pid > 0) /* its task table is a private copy */
        return rtb_posix_unsupported("task_create: a task that is a process cannot create tasks in this port");
    tasks[id].fn = fn;
    tasks[id].arg = arg;
    ctl[id].pid = 0;
    ctl[id].tid = 0;
    ctl[id].suspended = NOT_SUSPENDED;
    ctl[id].gated = (flags & RTB_TASK_SUSPENDED) != 0;
    if (ctl[id].gated && sem_init(&ctl[id].gate, rtb_posix.pshared || (flags & RTB_TASK_PROCESS), 0) != 0)
        return rtb_posix_fail("task_create: sem_init", errno);
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
    tasks[id].used = true; /* before the thread can run: it may preempt us */
    rc = pthread_create(&tasks[id].thread, &a, trampoline, (void *)(intptr_t)id);
    pthread_attr_destroy(&a);
    if (rc) {
        tasks[id].used = false;
        return rtb_posix_fail("pthread_create", rc);
    }
    return RTB_OK;
}

static void task_free(int id)
{
    if (ctl[id].gated)
        sem_destroy(&ctl[id].gate);
    ctl[id].gated = false;
    ctl[id].pid = 0;
    ctl[id].suspended = NOT_SUSPENDED;
    tasks[id].used = false;
}

static int process_reap(int id, bool killed)
{
    int st;
    pid_t r;
    while ((r = waitpid(ctl[id].pid, &st, 0)) < 0 && errno == EINTR)
        ;
    task_free(id);
    if (r < 0)
        return rtb_posix_fail("waitpid", errno);
    if (killed)
        return RTB_OK;
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
    if (ctl[id].pid > 0)
        return process_reap(id, false);
    int rc = pthread_join(tasks[id].thread, 0);
    task_free(id);
    return rc ? rtb_posix_fail("pthread_join", rc) : RTB_OK;
}

int rtb_port_task_start(int id)
{
    if (!live(id) || !ctl[id].gated)
        return rtb_posix_fail("task_start: not a task created suspended", EINVAL);
    return sem_post(&ctl[id].gate) ? rtb_posix_fail("task_start: sem_post", errno) : RTB_OK;
}

int rtb_port_task_delete(int id)
{
    if (!valid(id) || !tasks[id].used)
        return rtb_posix_fail("task_delete: not a task this task created", EINVAL);
    if (ctl[id].pid > 0) {
        if (kill(ctl[id].pid, SIGKILL) != 0)
            return rtb_posix_fail("task_delete: kill", errno);
        return process_reap(id, true);
    }
    int rc = pthread_cancel(tasks[id].thread);
    if (rc)
        return rtb_posix_fail("task_delete: pthread_cancel", rc);
    if (ctl[id].suspended == PARKED) { /* let it out of the park to its cancellation point */
        __atomic_store_n(&ctl[id].suspended, NOT_SUSPENDED, __ATOMIC_RELEASE);
        pthread_kill(tasks[id].thread, SIG_RESUME);
    }
    rc = pthread_join(tasks[id].thread, 0);
    task_free(id);
    return rc ? rtb_posix_fail("task_delete: pthread_join", rc) : RTB_OK;
}

static int signal_task(int id, int sig)
{
    int rc;
    if (ctl[id].pid > 0)
        rc = kill(ctl[id].pid, sig) ? errno : 0;
    else
        rc = pthread_kill(id == self_id ? pthread_self() : tasks[id].thread, sig);
    return rc ? rtb_posix_fail("task signal", rc) : RTB_OK;
}

int rtb_port_task_suspend(int id)
{
    if (id == -1)
        id = self_id;
    if (!live(id))
        return rtb_posix_fail("task_suspend", EINVAL);
    if (ctl[id].pid > 0 && id != self_id) { /* another process: native */
        ctl[id].suspended = BY_SIGSTOP;
        return signal_task(id, SIGSTOP);
    }
    if (ctl[id].suspended == PARKED)
        return RTB_OK; /* already suspended */
    __atomic_store_n(&ctl[id].suspended, PARKED, __ATOMIC_RELEASE);
    return signal_task(id, SIG_SUSPEND); /* self: parks before this returns */
}

int rtb_port_task_resume(int id)
{
    if (!live(id))
        return rtb_posix_fail("task_resume", EINVAL);
    int how = __atomic_exchange_n(&ctl[id].suspended, NOT_SUSPENDED, __ATOMIC_ACQ_REL);
    if (how == PARKED)
        return signal_task(id, SIG_RESUME);
    if (ctl[id].pid > 0)
        return signal_task(id, SIGCONT); /* native: the kernel decides it was not stopped */
    return RTB_OK; /* a thread that is not suspended: nothing to undo */
}

void rtb_port_task_yield(void)
{
    rtb_posix_fault_delay();
    sched_yield();
}

int rtb_port_task_set_prio(int id, int prio)
{
    if (!rtb_posix.realtime)
        return rtb_posix_unsupported("task_set_prio: no real-time scheduling granted");
    if (prio < 1 || prio > RTB_PRIO_MAX || (id != -1 && !live(id)))
        return rtb_posix_fail("task_set_prio", EINVAL);
    /* The kernel call on the thread/process id: pthread_setschedparam would
     * hold the target's glibc lock across the call, and a task that lowers
     * itself is switched out holding it, so whoever touches it next pays two
     * extra switches (an inversion glibc adds, not the kernel). */
    struct sched_param sp = {.sched_priority = RTB_POSIX_FIFO_BASE + prio};
    pid_t who = id == -1 || id == self_id ? 0 : ctl[id].pid > 0 ? ctl[id].pid : ctl[id].tid;
    if (who == 0 && id != -1 && id != self_id) { /* a thread that has not run yet */
        int rc = pthread_setschedparam(tasks[id].thread, SCHED_FIFO, &sp);
        return rc ? rtb_posix_fail("pthread_setschedparam", rc) : RTB_OK;
    }
    return sched_setscheduler(who, SCHED_FIFO, &sp) ? rtb_posix_fail("sched_setscheduler", errno) : RTB_OK;
}

int rtb_port_task_delay(uint32_t us)
{
    struct timespec ts = {.tv_sec = us / 1000000u, .tv_nsec = (long)(us % 1000000u) * 1000};
    int rc;
    while ((rc = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts)) == EINTR)
        ;
    return rc ? rtb_posix_fail("clock_nanosleep", rc) : RTB_OK;
}

/* Emulated preemption lock: the caller runs at the top rtbench priority
 * until the outermost unlock (see the top of this file). */
int rtb_port_sched_lock(void)
{
    if (!rtb_posix.realtime)
        return rtb_posix_unsupported("sched_lock: emulated by priority, needs SCHED_FIFO (not granted)");
    if (lock_depth++ > 0)
        return RTB_OK;
    struct sched_param top = {.sched_priority = RTB_POSIX_FIFO_BASE + RTB_PRIO_MAX};
    if (sched_getparam(0, &lock_saved) != 0 || sched_setparam(0, &top) != 0) {
        lock_depth--;
        return rtb_posix_fail("sched_lock", errno);
    }
    return RTB_OK;
}

int rtb_port_sched_unlock(void)
{
    if (!rtb_posix.realtime)
        return rtb_posix_unsupported("sched_unlock: emulated by priority, needs SCHED_FIFO (not granted)");
    if (lock_depth == 0)
        return rtb_posix_fail("sched_unlock: not locked", EINVAL);
    if (--lock_depth > 0)
        return RTB_OK;
    return sched_setparam(0, &lock_saved) ? rtb_posix_fail("sched_unlock", errno) : RTB_OK;
}
