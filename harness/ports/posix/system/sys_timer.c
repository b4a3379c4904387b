/*
 * System section: timer wake-up latency, the cyclictest measurement, idle
 * and under load (TI's RT-Linux guide characterises its kernel with
 * cyclictest; the TI CSV has no cyclictest rows, so nothing is claimed).
 *
 * As cyclictest's timerthread (rt-tests src/cyclictest/cyclictest.c): the
 * measuring thread sleeps with clock_nanosleep(CLOCK_MONOTONIC,
 * TIMER_ABSTIME) until the next deadline of a periodic grid, and a sample is
 * the wake-up time minus the deadline. Here the measuring thread is the
 * runner itself: pinned to the benchmark CPU, SCHED_FIFO at rtbench priority
 * 30 (FIFO 70) when granted, memory locked.
 *
 * Period 200 µs (cyclictest -i 200, as TI's and rt-tests' own examples run
 * it): 10 000 samples fit the harness's 2 s budget per metric; at 1000 µs
 * (cyclictest's default) a metric would need 10 s for the same count.
 *
 * Times are counter ticks, not CLOCK_MONOTONIC: just before each sleep the
 * scenario reads the pair (counter c0, CLOCK_MONOTONIC m, counter c1) and
 * takes the deadline D in ticks as t0 = (c0 + c1) / 2 + (D - m) * hz / 1e9.
 * Re-anchoring every sample keeps CLOCK_MONOTONIC's slew (NTP, <= 500 ppm)
 * to the < 200 µs between anchor and deadline (<= 0.1 µs, in practice a
 * few ns), so it cannot accumulate. t1 = rtb_port_ts() right after
 * clock_nanosleep returns.
 *
 * A deadline already missed (the wake-up came later than the next grid
 * point) is skipped, as cyclictest does: the grid stays absolute, the next
 * deadline is the first grid point after "now" (read at the next anchor);
 * the count of skipped deadlines is in the note.
 *
 * Idle states: like cyclictest (unless --laptop), the metric holds
 * /dev/cpu_dma_latency at 0 µs while it runs (the kernel's PM QoS request;
 * released when the file is closed, also when the harness dies), so an idle
 * CPU polls instead of entering a deep C-state or, on a VM, halting the
 * vCPU. On this project's VM that halves the median (cyclictest --laptop:
 * avg 52 µs, default: 26 µs). Without permission the metric runs anyway and
 * the note says the idle states were left on.
 *
 * .load starts, for the duration of the metric, the load `rtbench run
 * --load` uses (src/rtbench/load.py): per other CPU the harness may use, a
 * 64 MiB memory sweep and a pipe ping-pong pair, SCHED_OTHER, pinned to
 * that CPU; forked processes with PR_SET_PDEATHSIG(SIGKILL), SIGKILLed and
 * reaped at the end (also on failure). With no other CPU (or unpinned) the
 * load runs on every CPU allowed, the benchmark CPU included, at
 * SCHED_OTHER (below the runner's SCHED_FIFO when granted): the note says so.
 */
#include "posix_port.h"
#include "system.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_NS 200000LL
#define SWEEP_BYTES (64u << 20)
#define MAX_LOAD 48 /* processes: 3 per other CPU */
#define READY_WAIT_MS 2000

static char note[240];

struct load {
    int n;
    pid_t pid[MAX_LOAD];
    int cpus;
    int shares_cpu; /* the load runs on the benchmark CPU too */
};

static long long mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- the load (children: only async-signal-safe calls after fork) ---- */

static void child_setup(int cpu, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) /* the harness died before prctl */
        _exit(0);
    struct sched_param sp = {.sched_priority = 0};
    sched_setscheduler(0, SCHED_OTHER, &sp); /* fork inherited SCHED_FIFO */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    sched_setaffinity(0, sizeof one, &one);
}

static void ready(int fd)
{
    char c = 'r';
    (void)!write(fd, &c, 1);
    close(fd);
}

static void sweeper(int ready_fd)
{
    char *buf = mmap(0, SWEEP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        _exit(1);
    for (unsigned pass = 0;; pass++) {
        /* as load.py's sweep: a 1 MiB memcpy into every MiB of the buffer */
        for (size_t off = 1u << 20; off < SWEEP_BYTES; off += 1u << 20)
            memcpy(buf + off, buf, 1u << 20);
        buf[0] = (char)pass;
        if (pass == 0)
            ready(ready_fd);
    }
}

static void pinger(int rd, int wr, int ready_fd, int first)
{
    char c = 'x';
    if (ready_fd >= 0)
        ready(ready_fd);
    if (first && write(wr, &c, 1) != 1)
        _exit(1);
    for (;;) {
        if (read(rd, &c, 1) != 1 || write(wr, &c, 1) != 1)
            _exit(0);
    }
}

static void load_stop(struct load *l)
{
    for (int i = 0; i < l->n; i++)
        kill(l->pid[i], SIGKILL);
    for (int i = 0; i < l->n; i++)
        while (waitpid(l->pid[i], 0, 0) < 0 && errno == EINTR)
            ;
    l->n = 0;
}

/* Fork one load process running `role` on `cpu`; -1 on failure. */
static int spawn(struct load *l, int cpu, int role, int a[2], int b[2], int ready_fd)
{
    if (l->n >= MAX_LOAD)
        return 0;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return rtb_posix_fail("fork (load)", errno);
    if (pid == 0) {
        child_setup(cpu, parent);
        if (role == 0)
            sweeper(ready_fd);
        else if (role == 1)
            pinger(a[0], b[1], ready_fd, 1);
        else
            pinger(b[0], a[1], -1, 0);
        _exit(0);
    }
    l->pid[l->n++] = pid;
    return 0;
}

static int load_cpu(struct load *l, int cpu, int ready_fd)
{
    int a[2], b[2];
    if (pipe(a) || pipe(b))
        return rtb_posix_fail("pipe (load)", errno);
    int rc = spawn(l, cpu, 0, a, b, ready_fd);
    if (!rc)
        rc = spawn(l, cpu, 1, a, b, ready_fd);
    if (!rc)
        rc = spawn(l, cpu, 2, a, b, ready_fd);
    close(a[0]), close(a[1]), close(b[0]), close(b[1]);
    return rc;
}

/* Wait until every CPU's sweeper has swept once and its pinger runs. */
static int load_ready(int fd, int want)
{
    long long until = mono_ns() + READY_WAIT_MS * 1000000LL;
    char buf[64];
    while (want > 0) {
        if (mono_ns() > until) {
            errno = ETIMEDOUT;
            return rtb_posix_fail("load start", ETIMEDOUT);
        }
        ssize_t n = read(fd, buf, sizeof buf < (size_t)want ? sizeof buf : (size_t)want);
        if (n > 0)
            want -= (int)n;
        else if (n == 0)
            return rtb_posix_fail("load start: a load process died", EPIPE);
        else if (errno != EINTR)
            return rtb_posix_fail("load start", errno);
    }
    return 0;
}

static int load_start(struct load *l)
{
    memset(l, 0, sizeof *l);
    int bench = rtb_posix.cpu;
    int rdy[2];
    if (pipe(rdy))
        return rtb_posix_fail("pipe (load)", errno);
    for (int pass = 0; pass < 2 && l->cpus == 0; pass++) {
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
            if (!CPU_ISSET(cpu, &rtb_posix.allowed) || (pass == 0 && cpu == bench))
                continue;
            if (pass == 1 || bench < 0)
                l->shares_cpu = 1;
            if (load_cpu(l, cpu, rdy[1])) {
                close(rdy[0]), close(rdy[1]);
                load_stop(l);
                return RTB_ERR;
            }
            l->cpus++;
        }
        if (bench < 0)
            break; /* unpinned: every allowed CPU was taken in pass 0 */
    }
    close(rdy[1]);
    int rc = load_ready(rdy[0], 2 * l->cpus);
    close(rdy[0]);
    if (rc)
        load_stop(l);
    return rc ? RTB_ERR : RTB_OK;
}

/* ---- the measurement ---- */

/* Hold the PM QoS CPU latency request at 0 µs (cyclictest's
 * set_latency_target): the fd, or -1 with errno when not permitted. */
static int hold_idle_states_off(void)
{
    int fd = open("/dev/cpu_dma_latency", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int32_t zero = 0;
    if (write(fd, &zero, sizeof zero) != (ssize_t)sizeof zero) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

static void wakeup(struct rtb_ctx *ctx, int with_load)
{
    struct load l = {0};
    if (with_load && load_start(&l) != RTB_OK) {
        rtb_fail(ctx, "timer wake-up under load");
        return;
    }
    int qos = hold_idle_states_off();
    int qos_errno = qos < 0 ? errno : 0;
    double hz = (double)rtb_us_to_ticks(ctx, 1000000);
    rtb_budget_from_now(ctx); /* starting the load is no part of the budget */
    long long next = mono_ns() + PERIOD_NS;
    unsigned long long skipped = 0;
    while (rtb_want(ctx)) {
        /* anchor: a (counter, CLOCK_MONOTONIC) pair just before the sleep */
        rtb_ticks_t c0 = rtb_port_ts();
        long long m = mono_ns();
        rtb_ticks_t c1 = rtb_port_ts();
        while (next <= m) { /* missed: keep the absolute grid (cyclictest) */
            next += PERIOD_NS;
            skipped++;
        }
        rtb_ticks_t t0 = c0 + (c1 - c0) / 2 + (rtb_ticks_t)((double)(next - m) * hz / 1e9 + 0.5);
        struct timespec ts = {.tv_sec = next / 1000000000LL, .tv_nsec = next % 1000000000LL};
        int rc;
        while ((rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, 0)) == EINTR)
            ;
        rtb_ticks_t t1 = rtb_port_ts();
        if (rc) {
            rtb_posix_fail("clock_nanosleep", rc);
            rtb_fail(ctx, "timer wake-up");
            break;
        }
        rtb_add(ctx, t0, t1);
        next += PERIOD_NS;
    }
    if (with_load)
        load_stop(&l);
    if (qos >= 0)
        close(qos); /* the request ends with the file */
    int len = snprintf(note, sizeof note, "period 200 us; %llu missed deadline%s skipped; %s%s",
                       skipped, skipped == 1 ? "" : "s",
                       qos >= 0 ? "cpu_dma_latency held at 0 us (as cyclictest)"
                                : "idle states left on: /dev/cpu_dma_latency: ",
                       qos >= 0 ? "" : strerror(qos_errno));
    if (with_load && len > 0 && (size_t)len < sizeof note)
        snprintf(note + len, sizeof note - (size_t)len,
                 l.shares_cpu ? "; load on %d CPU(s), the measuring CPU included (SCHED_OTHER)"
                              : "; load on %d other CPU(s)", l.cpus);
    rtb_note(ctx, note);
}

static void idle(struct rtb_ctx *ctx) { wakeup(ctx, 0); }
static void loaded(struct rtb_ctx *ctx) { wakeup(ctx, 1); }

const struct rtb_metric rtb_sys_timer_metrics[] = {
    {"sys.timer.wakeup.idle", idle, 0, 0},
    {"sys.timer.wakeup.load", loaded, RTB_CAP_PROCESS, 0},
    {0, 0, 0, 0},
};
