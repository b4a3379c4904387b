/* Internals shared by the POSIX port's files. */
#ifndef RTB_POSIX_PORT_H
#define RTB_POSIX_PORT_H

#include <rtb/port.h>
#include <pthread.h>
#include <sched.h>

/* Set by rtb_posix_setup(): what the process was granted. */
struct rtb_posix_state {
    int cpu;              /* all benchmark tasks pinned here; -1: not pinned */
    int cpus_online;
    cpu_set_t allowed;    /* the affinity mask the harness was started with */
    int realtime;         /* SCHED_FIFO granted */
    int mlock;            /* mlockall succeeded */
    char rt_reason[160];  /* why not real-time */
    const char *fault;    /* test hook: "hang:ID", "crash:ID", "slow:ID:NS" or "slowone:ID:NS" */
    uint32_t slow_ns;     /* --fault slow:ID:NS while ID runs: a busy-wait in its calls */
    bool slow_one;        /* slowone: only one call (the SLOW_ONE_CALL-th) waits */
    uint32_t calls;       /* calls of the metric so far (slowone) */
    /* Objects created now are process-shared: the running metric's tasks
     * are processes (RTB_TASK_PROCESS). Threads of one process get private
     * ones (private futexes), as an application's threads would. */
    int pshared;
};
extern struct rtb_posix_state rtb_posix;

/* rtbench priority p runs at SCHED_FIFO 40 + p (41..71): the runner (30)
 * at 70 and the scenario tasks at 50 and 60 sit where cyclictest-style
 * measurement threads sit, well below the kernel's own threads at 99. */
#define RTB_POSIX_FIFO_BASE 40

void rtb_posix_ts_init(void);
/* What the machine offers (CPUs online, the affinity mask), for caps even
 * without rtb_posix_setup() (--list). */
void rtb_posix_probe(void);
/* Lock memory unless no_mlock (or a finite RLIMIT_MEMLOCK without
 * CAP_IPC_LOCK would make later mappings fail), pin the caller to `cpu` (-1: last allowed
 * CPU, -2: do not pin), ask for SCHED_FIFO unless no_rt. Returns 0, or -1
 * with a message if cpu is invalid. */
int rtb_posix_setup(int cpu, int no_rt, int no_mlock, char *err, unsigned errlen);
/* The suspend emulation's signal handlers (always); the task stacks touched
 * before memory is locked (with mlock only). */
void rtb_posix_tasks_init(void);
void rtb_posix_tasks_prefault(void);
/* Record a failure: "<what>: <strerror(err)>" becomes rtb_port_last_error(). */
int rtb_posix_fail(const char *what, int err);
int rtb_posix_unsupported(const char *what);
/* Absolute CLOCK_MONOTONIC/REALTIME deadline `us` from now. */
void rtb_posix_deadline(int clock, int32_t us, struct timespec *ts);
/* ts += us, normalised. */
void rtb_posix_ts_add(struct timespec *ts, uint32_t us);
/* Thread attributes every thread of a scenario gets: pinned to the benchmark
 * CPU (another CPU with RTB_TASK_OTHER_CPU) and, when granted, SCHED_FIFO at
 * rtbench priority prio. 0 or an errno. */
int rtb_posix_thread_attrs(pthread_attr_t *a, int prio, unsigned flags);
/* The CPU a task with `flags` runs on: the benchmark CPU or, for
 * RTB_TASK_OTHER_CPU, the first other CPU allowed (-1: none, or unpinned). */
int rtb_posix_task_cpu(unsigned flags);

/* Object pools live in rtb_port_shared() memory so that tasks that are
 * processes share them; pthread objects in them are PTHREAD_PROCESS_SHARED
 * and semaphores pshared while the metric's tasks are processes
 * (rtb_posix.pshared), private otherwise. A pool is allocated by the first create call,
 * which must come from the runner (the process that owns the region):
 * anywhere else rtb_port_shared() answers NULL and the create fails. */
#define RTB_POSIX_POOL(type, name, n)                                   \
    static type *name(void)                                             \
    {                                                                   \
        static type *pool;                                              \
        if (!pool)                                                      \
            pool = (type *)rtb_port_shared(sizeof(type) * (n));         \
        return pool;                                                    \
    }

/* Linux's RT throttling is on (sched_rt_runtime_us >= 0), or unknown. */
bool rtb_posix_rt_throttled(void);

/* xsig.c: forget the events kept for the signal rows unless `id` is one. */
void rtb_posix_xsig_forget(const char *id);

/* The interrupt source works (a second CPU to raise it from). */
bool rtb_posix_irq_possible(void);

/* PTHREAD_PROCESS_SHARED or _PRIVATE, as rtb_posix.pshared says. */
#define RTB_POSIX_PSHARED (rtb_posix.pshared ? PTHREAD_PROCESS_SHARED : PTHREAD_PROCESS_PRIVATE)
/* --fault slow:ID:NS: busy-wait NS ns inside the port call that the
 * metric ID times (a real slow-down, for the tests of `rtbench compare`). */
void rtb_posix_fault_delay(void);

/* Pthread objects kept in the shared region, process-shared as
 * rtb_posix.pshared says (conditions on CLOCK_MONOTONIC). 0 or an errno. */
int rtb_posix_shared_mutex_init(pthread_mutex_t *m);
int rtb_posix_shared_cond_init(pthread_cond_t *c);
/* The pthread mutex behind rtbench mutex `id` (for condition variables), or NULL. */
pthread_mutex_t *rtb_posix_mutex(int id);

#endif
