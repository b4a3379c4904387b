/* Internals shared by the POSIX port's files. */
#ifndef RTB_POSIX_PORT_H
#define RTB_POSIX_PORT_H

#include <rtb/port.h>
#include <pthread.h>

/* Set by rtb_posix_setup(): what the process was granted. */
struct rtb_posix_state {
    int cpu;              /* all benchmark tasks pinned here; -1: not pinned */
    int cpus_online;
    int realtime;         /* SCHED_FIFO granted */
    int mlock;            /* mlockall succeeded */
    char rt_reason[160];  /* why not real-time */
    const char *fault;    /* test hook: "hang:ID" or "crash:ID" */
};
extern struct rtb_posix_state rtb_posix;

/* rtbench priority p runs at SCHED_FIFO 40 + p (41..71): the runner (30)
 * at 70 and the scenario tasks at 50 and 60 sit where cyclictest-style
 * measurement threads sit, well below the kernel's own threads at 99. */
#define RTB_POSIX_FIFO_BASE 40

void rtb_posix_ts_init(void);
/* Lock memory, pin the caller to `cpu` (-1: last allowed CPU), ask for
 * SCHED_FIFO unless no_rt. Returns 0, or -1 with a message if cpu is invalid. */
int rtb_posix_setup(int cpu, int no_rt, char *err, unsigned errlen);
void rtb_posix_tasks_init(void);
/* Record a failure: "<what>: <strerror(err)>" becomes rtb_port_last_error(). */
int rtb_posix_fail(const char *what, int err);
int rtb_posix_unsupported(const char *what);
/* Absolute CLOCK_MONOTONIC/REALTIME deadline `us` from now. */
void rtb_posix_deadline(int clock, int32_t us, struct timespec *ts);
/* ts += us, normalised. */
void rtb_posix_ts_add(struct timespec *ts, uint32_t us);
/* Thread attributes every thread of a scenario gets: pinned to the benchmark
 * CPU and, when granted, SCHED_FIFO at rtbench priority prio. 0 or an errno. */
int rtb_posix_thread_attrs(pthread_attr_t *a, int prio);

#endif
