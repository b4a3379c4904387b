/* POSIX port: identity, capabilities, errors, clocks, output, set-up. */
#include "posix_port.h"
#include "strutil.h"
#include <rtb/bench.h> /* RTB_PRIO_RUNNER: the runner is the main thread */
#include <rtb/runner.h> /* rtb_registry_find */

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h> /* the invariant-TSC bit */
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

struct rtb_posix_state rtb_posix = {.cpu = -1};
int rtb_posix_use_tsc;

/* ---- the shared region -------------------------------------------------- */
/* One anonymous MAP_SHARED mapping, made before any task exists: every task,
 * thread or forked process, sees it at the same address. Anonymous, so there
 * is nothing in /dev/shm to leave behind. */
#define SHARED_SIZE (4u << 20)
#define ERROR_LEN 192
static unsigned char *region;
static size_t region_used;
static pid_t region_owner;
/* The last error lives in the region once it exists: a task that is a
 * process fails, and the runner reports its words. */
static char local_error[ERROR_LEN];
static char *last_error = local_error;

void *rtb_port_shared(size_t size)
{
    if (!region) {
        bool refuse = rtb_posix.fault && !strcmp(rtb_posix.fault, "no-shared-region");
        void *m = refuse ? MAP_FAILED /* test hook: as a full locked-memory limit would */
                         : mmap(0, SHARED_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (refuse)
            errno = EAGAIN;
        if (m == MAP_FAILED) {
            rtb_posix_fail("shared region: mmap of 4 MiB", errno);
            return 0;
        }
        region = m;
        region_owner = getpid();
        last_error = (char *)region;
        region_used = ERROR_LEN;
    }
    size = (size + 15u) & ~(size_t)15u;
    if (getpid() != region_owner || size > SHARED_SIZE - region_used)
        return 0; /* another process's bump pointer would hand out the same bytes */
    void *p = region + region_used;
    region_used += size;
    return p;
}

int rtb_posix_fail(const char *what, int err)
{
    if (snprintf(last_error, ERROR_LEN, "%s: %s", what, strerror(err)) >= ERROR_LEN)
        rtb_mark_cut(last_error, ERROR_LEN); /* never cut silently */
    return RTB_ERR;
}

int rtb_posix_unsupported(const char *what)
{
    if (snprintf(last_error, ERROR_LEN, "%s", what) >= ERROR_LEN)
        rtb_mark_cut(last_error, ERROR_LEN);
    return RTB_ENOTSUP;
}

const char *rtb_port_last_error(void)
{
    return last_error;
}

uint32_t rtb_port_caps(void)
{
    uint32_t caps = RTB_CAP_REF_CLOCK | RTB_CAP_SEM | RTB_CAP_MUTEX | RTB_CAP_MSGQ |
                    RTB_CAP_EVENTS | RTB_CAP_TIMER | RTB_CAP_HEAP | RTB_CAP_PROCESS |
                    RTB_CAP_RWLOCK | RTB_CAP_COND;
    /* port_task.c: start gate, cancel/SIGKILL, signal park/SIGSTOP, priority lock
     * (the lock answers ENOTSUP at run time without SCHED_FIFO) */
    caps |= RTB_CAP_TASK_START | RTB_CAP_TASK_DELETE | RTB_CAP_TASK_SUSPEND | RTB_CAP_SCHED_LOCK;
    caps |= RTB_CAP_NULL_SYSCALL; /* getppid */
    caps |= RTB_CAP_QUEUE | RTB_CAP_PIPE; /* port_queue.c, port_pipe.c */
    if (rtb_posix.cpus_online > 1)
        caps |= RTB_CAP_SMP;
    /* No RTB_CAP_IRQ: user space has no interrupt. The signal between CPUs
     * that port_irq.c raises is measured as what it is (xsig.c), never as
     * a vendor's interrupt row. */
    return caps;
}

const char *rtb_port_unsupported_why(uint32_t cap)
{
    if (cap == RTB_CAP_IRQ)
        return "Linux user space has no interrupt: the signal between CPUs it has instead is "
               "measured as xsig.* (cross-CPU signal latency), the timer interrupt to a thread "
               "as sys.timer.wakeup.* (cyclictest)";
    if (cap == RTB_CAP_USER_KERNEL)
        return "every Linux task rtbench can create runs in user mode: no kernel-mode task to "
               "switch with (the .thread and .process rows are Linux's user-to-user switches)";
    return 0;
}

/* ---- clocks, kernel entry, caches ---------------------------------------- */
static const struct {
    const char *name;
    clockid_t id;
} clocks[] = {
    {"clock_gettime(CLOCK_MONOTONIC)", CLOCK_MONOTONIC},
    {"clock_gettime(CLOCK_REALTIME)", CLOCK_REALTIME},
    {"clock_gettime(CLOCK_MONOTONIC_RAW)", CLOCK_MONOTONIC_RAW},
    {"clock_gettime(CLOCK_MONOTONIC_COARSE)", CLOCK_MONOTONIC_COARSE},
    {"clock_gettime(CLOCK_THREAD_CPUTIME_ID)", CLOCK_THREAD_CPUTIME_ID},
};

const char *rtb_port_clock_name(int which)
{
    return which >= 0 && which < (int)(sizeof clocks / sizeof clocks[0]) ? clocks[which].name : 0;
}

int rtb_port_clock_read(int which, uint64_t *value)
{
    struct timespec ts;
    if (!rtb_port_clock_name(which))
        return rtb_posix_fail("clock_read", EINVAL);
    if (clock_gettime(clocks[which].id, &ts) != 0)
        return rtb_posix_fail("clock_gettime", errno);
    *value = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return RTB_OK;
}

/* getppid through syscall(2): glibc caches nothing for it, so every call
 * enters the kernel (LMBench's "null" syscall is getppid too). */
int rtb_port_null_syscall(void)
{
    return syscall(SYS_getppid) > 0 ? RTB_OK : rtb_posix_fail("getppid", errno);
}

/* Cache eviction from user space (wbinvd is privileged), DSP/BIOS's
 * "Best-Worst Case" (which invalidates L1 before every call): write, then
 * read, a buffer twice the size of the CPU's own L2, which evicts L1d and
 * L2, then run 64 KiB of straight-line code (twice a 32 KiB L1i), which
 * evicts L1i. The shared last-level cache is not evicted (sweeping it costs
 * ~10 ms per sample), nor are the TLBs beyond what the sweep touches (its
 * 4 KiB pages). */
static unsigned char *evict_buf;
static size_t evict_size;

static void __attribute__((noinline)) evict_code(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile(".rept 16384\n\t.byte 0x0f, 0x1f, 0x40, 0x00\n\t.endr" ::: "memory"); /* 4-byte nops */
#else
    __asm__ volatile(".rept 16384\n\tnop\n\t.endr" ::: "memory");
#endif
}

int rtb_port_cache_evict(void)
{
    if (!evict_buf) {
        long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
        evict_size = (size_t)(l2 > 0 ? l2 : 1L << 20) * 2;
        void *m = mmap(0, evict_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return rtb_posix_fail("cache_evict: mmap", errno);
        evict_buf = m;
    }
    volatile unsigned char *b = evict_buf;
    unsigned sum = 0;
    for (size_t i = 0; i < evict_size; i += 64)
        b[i] = (unsigned char)i;
    for (size_t i = 0; i < evict_size; i += 64)
        sum += b[i];
    evict_code();
    return sum == 0xFFFFFFFFu ? RTB_ERR : RTB_OK; /* keeps the reads */
}

/* The canary (rtb/port.h): the two probes that showed this VM's host slowing
 * the core between episodes (issue 13): a pointer chase through a buffer
 * larger than L1d and well inside L2 (4.5 ns a load when the core is the
 * guest's alone, 4.6-14 ns while something else shares its caches), and a
 * null system call (185 ns against 250-310 ns). One lap of a random cycle
 * of 64-byte lines (so no prefetcher helps), every line once, then getppid.
 * Each call is the whole lap, so the core's untimed first call brings the
 * whole buffer back into the caches after whatever the metric did to them
 * and every timed call does the same work on warm lines (a half lap, as it
 * once was, left every other timed call on lines the metric had evicted:
 * the canary then measured the metric, not the host). */
#define CANARY_LINES 2048u /* 128 KiB */
#define CANARY_LOADS CANARY_LINES
static void **canary_ring;
static void **canary_at;

static int canary_build(void)
{
    void *m = mmap(0, CANARY_LINES * 64u, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return rtb_posix_fail("canary: mmap", errno);
    static uint32_t order[CANARY_LINES];
    uint32_t x = 2463534242u; /* xorshift: the same cycle in every run */
    for (uint32_t i = 0; i < CANARY_LINES; i++)
        order[i] = i;
    for (uint32_t i = CANARY_LINES - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        uint32_t j = x % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    char *base = m;
    for (uint32_t i = 0; i < CANARY_LINES; i++)
        *(void **)(base + order[i] * 64u) = base + order[(i + 1) % CANARY_LINES] * 64u;
    canary_ring = canary_at = (void **)(base + order[0] * 64u);
    return RTB_OK;
}

int rtb_port_canary(void)
{
    if (!canary_ring && canary_build() != RTB_OK)
        return RTB_ERR;
    void **p = canary_at;
    for (uint32_t i = 0; i < CANARY_LOADS; i++)
        p = (void **)*p;
    canary_at = p; /* kept, so the chase is not optimised away */
    syscall(SYS_getppid);
    return RTB_OK;
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

/* The add chain for the core clock (rtb/port.h): RTB_ADD_CHAIN_UNROLL
 * register adds per loop, each on the last one's result, so they retire one
 * per core cycle on every x86-64 and AArch64 core; the loop counter's
 * decrement and branch run beside them, off the chain. */
int rtb_port_add_chain(uint32_t loops)
{
    uint64_t x = 0, n = loops, one = 1;
    if (!loops)
        return RTB_OK;
#if defined(__x86_64__)
    /* Register adds, not add-immediates: recent x86 cores (Golden Cove,
     * Sapphire Rapids) fold a chain of small add-immediates at rename, several
     * a cycle (seen here: a 10.7 GHz "core" on a 2.3 GHz Xeon); an add of a
     * register waits for the last result, one a cycle. */
    __asm__ volatile("1:\n\t.rept 1000\n\taddq %2, %0\n\t.endr\n\t"
                     "decq %1\n\tjnz 1b"
                     : "+r"(x), "+r"(n) : "r"(one));
#elif defined(__aarch64__)
    __asm__ volatile("1:\n\t.rept 1000\n\tadd %0, %0, %2\n\t.endr\n\t"
                     "subs %1, %1, #1\n\tb.ne 1b"
                     : "+r"(x), "+r"(n) : "r"(one) : "cc");
#else
    (void)x, (void)n;
    return RTB_ENOTSUP; /* no chain written for this architecture */
#endif
    _Static_assert(RTB_ADD_CHAIN_UNROLL == 1000u, "the .rept counts above");
    return RTB_OK;
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
    out->unit = "ticks";
    out->unit_detail = rtb_posix_use_tsc
        ? "ticks of the invariant TSC (a constant-rate clock, not the core's cycles), converted to "
          "time at the frequency measured against CLOCK_MONOTONIC_RAW"
        : "nanoseconds of CLOCK_MONOTONIC_RAW";
    out->irq_switch_at_exit = false; /* a signal handler's give switches at once */
    out->facts = 0;
}

/* Linux RT throttling (sched_rt_runtime_us): a CPU's real-time tasks stop
 * for the rest of a second once they used 95 % of it, so while it is on, a
 * scenario that keeps the benchmark CPU busy rests 10 ms in every 100 ms
 * (and the runner between metrics when a rest is due). When throttling is
 * off (sched_rt_runtime_us = -1: `rtbench run` as root lifts it for the
 * run) nothing stops a stall, and the rests shrink to 1 ms in every 500 ms,
 * which lets the CPU's own kernel threads run; tasks that are not
 * real-time never rest. */
bool rtb_posix_rt_throttled(void)
{
    FILE *f = fopen("/proc/sys/kernel/sched_rt_runtime_us", "r");
    long runtime = 0;
    if (!f)
        return true; /* unknown: rest, as if it were on */
    if (fscanf(f, "%ld", &runtime) != 1)
        runtime = 0;
    fclose(f);
    return runtime >= 0;
}

void rtb_port_policy(struct rtb_port_policy *out)
{
    bool throttled = rtb_posix_rt_throttled();
    out->rest_every_us = !rtb_posix.realtime ? 0 : throttled ? 100000 : 500000;
    out->rest_us = !rtb_posix.realtime ? 0 : throttled ? 10000 : 1000;
    out->between_metrics_us = 0;
}

/* What Linux lacks and port_task.c, port_sync.c and port_queue.c build. */
const char *rtb_port_emulation(enum rtb_emulation what, unsigned flags)
{
    bool process = flags & RTB_TASK_PROCESS;
    switch (what) {
    case RTB_EMU_TASK_CREATE_UNSTARTED:
        return "created waiting on a start gate (a process-shared sem_t) before its entry function";
    case RTB_EMU_TASK_START:
        return "start = post of the start gate (a process-shared sem_t) the created task waits on";
    case RTB_EMU_TASK_DELETE:
        return process ? "" : "pthread_cancel + pthread_join; the target ends at the cancellation point "
                              "that is the first instruction of its entry";
    case RTB_EMU_TASK_SUSPEND:
        return process ? "" : "thread suspend = a signal whose handler parks the thread in sigsuspend "
                              "until the resume signal";
    case RTB_EMU_TASK_SELF_SUSPEND:
        return process ? "a process suspending itself parks in a signal handler (sigsuspend) until the "
                         "resume signal; SIGSTOP would lose a SIGCONT sent before it"
                       : "thread suspend = a signal whose handler parks the thread in sigsuspend "
                         "until the resume signal";
    case RTB_EMU_SCHED_LOCK:
        return "the caller is raised to the top rtbench priority (SCHED_FIFO) until the outermost "
               "unlock restores its own";
    case RTB_EMU_EVENTS:
        return "event flags: a bit mask under a process-shared pthread mutex and condition variable";
    case RTB_EMU_QUEUE:
        return "no kernel FIFO/LIFO/stack object on this port: a list (stack: array) under a "
               "process-shared mutex, a pshared semaphore counting the items (get blocks on it), "
               "alloc nodes from a node heap under its own lock";
    default:
        return "";
    }
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

/* slowone: the call that waits: past a block's warm-up (10 samples, 8 calls
 * each where batched: 80 calls), and within a block of 100 samples of one
 * call each (the 200th was past the end of an unbatched --quick block, 167
 * samples: no call waited, where the counter was fine enough not to batch) */
#define SLOW_ONE_CALL 100u

void rtb_posix_fault_delay(void)
{
    if (__builtin_expect(rtb_posix.slow_ns == 0, 1))
        return;
    if (rtb_posix.slow_one && ++rtb_posix.calls != SLOW_ONE_CALL)
        return;
    uint64_t until = rtb_posix_clock_ns() + rtb_posix.slow_ns;
    while (rtb_posix_clock_ns() < until)
        ;
}

/* Test hooks: hang or crash when the named metric starts (the watchdog's
 * tests); slow:ID:NS makes the calls metric ID times busy-wait NS ns
 * (compare's tests: a real slow-down, in the timed path); slowone:ID:NS
 * makes one of them wait (the batched rows' tails: one slow call must show
 * at its full size). */
void rtb_port_metric_begin(const char *id)
{
    last_error[0] = '\0'; /* an unsupported call's words belong to this metric */
    rtb_posix_xsig_forget(id);
    const struct rtb_metric *m = rtb_registry_find(id);
    rtb_posix.pshared = m && (m->task_flags & RTB_TASK_PROCESS);
    rtb_posix.slow_ns = 0;
    rtb_posix.slow_one = false;
    rtb_posix.calls = 0;
    const char *f = rtb_posix.fault;
    if (!f)
        return;
    size_t n = strlen(id);
    if (!strncmp(f, "slow:", 5) && !strncmp(f + 5, id, n) && f[5 + n] == ':')
        rtb_posix.slow_ns = (uint32_t)strtoul(f + 6 + n, 0, 10);
    if (!strncmp(f, "slowone:", 8) && !strncmp(f + 8, id, n) && f[8 + n] == ':') {
        rtb_posix.slow_ns = (uint32_t)strtoul(f + 9 + n, 0, 10);
        rtb_posix.slow_one = true;
    }
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
    rtb_posix.allowed = set;
    if (want >= 0) /* sched_setaffinity says if it may not: the caller may have
                      narrowed our inherited mask to keep itself off that CPU */
        return want < CPU_SETSIZE ? want : -1;
    for (int c = CPU_SETSIZE - 1; c >= 0; c--)
        if (CPU_ISSET(c, &set))
            return c; /* the last one: CPU 0 usually takes more housekeeping */
    snprintf(err, errlen, "no CPU in the affinity mask");
    return -1;
}

/* mlockall(MCL_FUTURE) makes every later mapping count against
 * RLIMIT_MEMLOCK: under a normal user's limit (8 MiB) the 4 MiB shared region
 * or a bandwidth buffer would then fail with EAGAIN. So memory is locked only
 * where nothing limits it: the limit is infinite, or the process holds
 * CAP_IPC_LOCK (root, usually). Elsewhere the run goes on unlocked and says
 * so ("mlock": false). */
static int may_lock_all(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur == RLIM_INFINITY)
        return 1;
    struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capget, &hdr, data) != 0)
        return 0;
    return (data[CAP_IPC_LOCK / 32].effective >> (CAP_IPC_LOCK % 32)) & 1;
}

void rtb_posix_probe(void)
{
    rtb_posix.cpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (sched_getaffinity(0, sizeof rtb_posix.allowed, &rtb_posix.allowed) != 0)
        CPU_ZERO(&rtb_posix.allowed);
}

int rtb_posix_setup(int cpu, int no_rt, int no_mlock, char *err, unsigned errlen)
{
    rtb_posix_probe();
    if (cpu == -2) { /* unpinned: the kernel places every task (the default profile) */
        rtb_posix.cpu = -1;
        if (sched_getaffinity(0, sizeof rtb_posix.allowed, &rtb_posix.allowed) != 0) {
            snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
            return -1;
        }
    } else {
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
    }
    rtb_posix_tasks_init(); /* signal handlers of the suspend emulation: every profile */
    if (!no_mlock && may_lock_all()) {
        rtb_posix_tasks_prefault(); /* touch the task stacks before locking */
        rtb_posix.mlock = mlockall(MCL_CURRENT | MCL_FUTURE) == 0;
    }
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
