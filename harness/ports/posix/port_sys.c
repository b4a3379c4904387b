/* POSIX port: identity, capabilities, errors, clocks, output, set-up. */
#include "posix_port.h"
#include <rtb/bench.h> /* RTB_PRIO_RUNNER: the runner is the main thread */

#include <cpuid.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct rtb_posix_state rtb_posix = {.cpu = -1};
int rtb_posix_use_tsc;
static char last_error[192];

int rtb_posix_fail(const char *what, int err)
{
    snprintf(last_error, sizeof last_error, "%s: %s", what, strerror(err));
    return RTB_ERR;
}

int rtb_posix_unsupported(const char *what)
{
    snprintf(last_error, sizeof last_error, "%s", what);
    return RTB_ENOTSUP;
}

const char *rtb_port_last_error(void)
{
    return last_error;
}

uint32_t rtb_port_caps(void)
{
    return RTB_CAP_REF_CLOCK | RTB_CAP_SEM | RTB_CAP_MUTEX | RTB_CAP_MSGQ | RTB_CAP_EVENTS |
           RTB_CAP_TIMER;
}

/* Invariant TSC: CPUID 0x80000007, EDX bit 8 (same rate in every P/C-state). */
void rtb_posix_ts_init(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (__get_cpuid(0x80000007u, &a, &b, &c, &d))
        rtb_posix_use_tsc = (d >> 8) & 1;
#endif
}

bool rtb_port_ref_ns(uint64_t *ns)
{
    *ns = rtb_posix_clock_ns();
    return true;
}

void rtb_port_info(struct rtb_port_info *out)
{
    out->port = "posix";
    out->ts_source = rtb_posix_use_tsc ? "rdtsc+lfence (invariant TSC)" : "CLOCK_MONOTONIC_RAW";
    out->ref_clock = "CLOCK_MONOTONIC_RAW";
    out->ts_hz_nominal = rtb_posix_use_tsc ? 0 : 1000000000u; /* the kernel does not export tsc_khz */
    out->realtime = rtb_posix.realtime;
    out->policy = rtb_posix.realtime ? "SCHED_FIFO" : "SCHED_OTHER";
    out->rt_reason = rtb_posix.rt_reason;
    out->mlock = rtb_posix.mlock;
    out->cpu = rtb_posix.cpu;
    out->cpus_online = rtb_posix.cpus_online;
}

void rtb_port_write(const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(STDOUT_FILENO, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* reader gone: nothing useful left to do with the record */
        s += w;
        n -= (size_t)w;
    }
}

/* Test hook for the watchdog: hang or crash when the named metric starts. */
void rtb_port_metric_begin(const char *id)
{
    const char *f = rtb_posix.fault;
    if (!f)
        return;
    if (!strncmp(f, "hang:", 5) && !strcmp(f + 5, id))
        for (;;)
            pause();
    if (!strncmp(f, "crash:", 6) && !strcmp(f + 6, id))
        raise(SIGSEGV);
}

static int pick_cpu(int want, char *err, unsigned errlen)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
        return -1;
    }
    if (want >= 0) /* sched_setaffinity says if it may not: the caller may have
                      narrowed our inherited mask to keep itself off that CPU */
        return want < CPU_SETSIZE ? want : -1;
    for (int c = CPU_SETSIZE - 1; c >= 0; c--)
        if (CPU_ISSET(c, &set))
            return c; /* the last one: CPU 0 usually takes more housekeeping */
    snprintf(err, errlen, "no CPU in the affinity mask");
    return -1;
}

int rtb_posix_setup(int cpu, int no_rt, char *err, unsigned errlen)
{
    rtb_posix.cpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
    rtb_posix.cpu = pick_cpu(cpu, err, errlen);
    if (rtb_posix.cpu < 0)
        return -1;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(rtb_posix.cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) {
        snprintf(err, errlen, "sched_setaffinity(%d): %s", rtb_posix.cpu, strerror(errno));
        return -1;
    }
    rtb_posix_tasks_init(); /* touch the task stacks before locking */
    rtb_posix.mlock = mlockall(MCL_CURRENT | MCL_FUTURE) == 0;
    if (no_rt) {
        snprintf(rtb_posix.rt_reason, sizeof rtb_posix.rt_reason, "--no-rt given");
        return 0;
    }
    struct sched_param sp = {.sched_priority = RTB_POSIX_FIFO_BASE + RTB_PRIO_RUNNER};
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
        snprintf(rtb_posix.rt_reason, sizeof rtb_posix.rt_reason,
                 "sched_setscheduler(SCHED_FIFO): %s", strerror(errno));
        return 0;
    }
    rtb_posix.realtime = 1;
    return 0;
}
