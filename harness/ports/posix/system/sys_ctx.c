/*
 * System section: LMBench lat_ctx, context switch among N processes with a
 * K KB working set each (TI rows lat_ctx-<N>-<K>k).
 *
 * As lat_ctx.c: N pipes form a ring; the runner is process 0 and N-1
 * processes forked from it are 1..N-1. Process i reads the token from pipe
 * i-1, sums its own K KB array (sumit: every int, 2 KB at a time) and writes
 * the token to pipe i; the runner writes pipe 0, reads pipe N-1 and sums its
 * own array. The children inherit the runner's CPU and SCHED_FIFO priority
 * (all on the benchmark CPU, equal priority: a write only makes the reader
 * ready, the switch happens when the writer blocks in its next read), die
 * with the harness (PR_SET_PDEATHSIG) and are SIGKILLed at the end.
 *
 * One sample = one full round of the ring (N switches): rtb_per_sample(N).
 * LMBench subtracts the cost of the pipe write + read and of summing the
 * array without any switch ("ovr", measured in one process cycling through
 * the same pipes). This file measures that too, before forking: the median
 * of OVR_BATCHES rounds of N in-process hops (write, read, sumit), and
 * subtracts it from every sample (t0 is moved later by it), so a sample /
 * N is LMBench's "time per switch" = round / N - ovr. A round shorter than
 * the overhead cannot be a sample: the core counts it as invalid. The
 * overhead per hop is in the note.
 */
#include "posix_port.h"
#include "system.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PROCS 16
#define OVR_WINDOW 101
#define CAP_US 250000u /* a metric measures at most this long */

static volatile int sink;
static char note[200];

struct ring {
    int procs;
    size_t size;          /* bytes summed per hop */
    int p[MAX_PROCS][2];  /* p[i]: process i writes [1], process i+1 reads [0] */
    pid_t pid[MAX_PROCS]; /* pid[0] unused: the runner */
};

/* LMBench's sumit(): bring `size` bytes into the cache by summing every int. */
static int sumit(const int *d, size_t size)
{
    int sum = 0;
    for (size_t done = 0; done < size; done += 2048, d += 512)
        for (int i = 0; i < 512; i++)
            sum += d[i];
    return sum;
}

static int *data_new(size_t size)
{
    if (!size)
        return 0;
    int *d = mmap(0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (d == MAP_FAILED)
        return 0;
    memset(d, 0, size);
    return d;
}

/* Child i: its own array, then pass the token on for ever. */
static void child(struct ring *r, int i)
{
    int *data = data_new(r->size);
    int msg, sum = 0;
    if (r->size && !data)
        _exit(1);
    for (;;) {
        if (read(r->p[i - 1][0], &msg, sizeof msg) != (ssize_t)sizeof msg)
            break;
        sum += sumit(data, r->size);
        if (write(r->p[i][1], &msg, sizeof msg) != (ssize_t)sizeof msg)
            break;
    }
    sink = sum;
    _exit(1);
}

static bool pass(int wfd, int rfd)
{
    int msg = 1;
    return write(wfd, &msg, sizeof msg) == (ssize_t)sizeof msg &&
           read(rfd, &msg, sizeof msg) == (ssize_t)sizeof msg;
}

static int cmp_ticks(const void *a, const void *b)
{
    rtb_ticks_t x = *(const rtb_ticks_t *)a, y = *(const rtb_ticks_t *)b;
    return x < y ? -1 : x > y;
}

/* LMBench's overhead: N hops (write private pipe i, read it back, sumit) in
 * the runner alone, no switch. The last OVR_WINDOW rounds are kept; the
 * estimate is their median, so it follows the machine's state over the
 * metric (one round is measured before every sample). */
struct ovr {
    int q[MAX_PROCS][2]; /* the runner's private pipes, never in the ring */
    rtb_ticks_t win[OVR_WINDOW];
    unsigned n;          /* rounds measured so far */
};

static bool ovr_round(struct ovr *o, int procs, const int *data, size_t size)
{
    int sum = 0;
    rtb_ticks_t t0 = rtb_port_ts();
    for (int i = 0; i < procs; i++) {
        if (!pass(o->q[i][1], o->q[i][0]))
            return false;
        sum += sumit(data, size);
    }
    rtb_ticks_t t1 = rtb_port_ts();
    sink = sum;
    o->win[o->n++ % OVR_WINDOW] = t1 - t0;
    return true;
}

static rtb_ticks_t ovr_median(const struct ovr *o)
{
    static rtb_ticks_t t[OVR_WINDOW];
    unsigned n = o->n < OVR_WINDOW ? o->n : OVR_WINDOW;
    memcpy(t, o->win, n * sizeof t[0]);
    qsort(t, n, sizeof t[0], cmp_ticks);
    return n ? t[n / 2] : 0;
}

static bool ring_start(struct ring *r)
{
    pid_t parent = getpid();
    for (int i = 1; i < r->procs; i++) {
        r->pid[i] = fork();
        if (r->pid[i] < 0)
            return false;
        if (r->pid[i] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent)
                _exit(1);
            child(r, i);
        }
    }
    /* once round the ring: everyone is ready, the token is in the pipeline */
    return pass(r->p[0][1], r->p[r->procs - 1][0]);
}

static void ring_stop(struct ring *r)
{
    for (int i = 1; i < r->procs; i++)
        if (r->pid[i] > 0) {
            kill(r->pid[i], SIGKILL);
            waitpid(r->pid[i], 0, 0);
        }
    for (int i = 0; i < r->procs; i++) {
        close(r->p[i][0]);
        close(r->p[i][1]);
    }
}

static void measure(struct rtb_ctx *ctx, struct ring *r, struct ovr *o, const int *data)
{
    int sum = 0;
    rtb_ticks_t ovr = 0;
    rtb_budget_from_now(ctx); /* forking the ring is no part of the budget */
    rtb_per_sample(ctx, (uint32_t)r->procs, 0);
    rtb_ticks_t end = rtb_port_ts() + rtb_us_to_ticks(ctx, CAP_US);
    while (rtb_want(ctx) && (int64_t)(rtb_port_ts() - end) < 0) {
        if (!ovr_round(o, r->procs, data, r->size))
            break;
        ovr = ovr_median(o);
        rtb_ticks_t t0 = rtb_port_ts();
        bool ok = pass(r->p[0][1], r->p[r->procs - 1][0]);
        sum += sumit(data, r->size);
        rtb_ticks_t t1 = rtb_port_ts();
        if (!ok)
            break;
        rtb_add(ctx, t0 + ovr, t1); /* minus LMBench's overhead */
        rtb_rest(ctx);
    }
    if (!rtb_stopped(ctx) && rtb_want(ctx) && (int64_t)(rtb_port_ts() - end) < 0) {
        rtb_posix_fail("lat_ctx: pipe", errno);
        rtb_fail(ctx, "lat_ctx: token pipe");
    }
    sink = sum;
    uint64_t hz = rtb_us_to_ticks(ctx, 1000000u);
    snprintf(note, sizeof note,
             "overhead (pipe write+read and summing %zu KB, no switch): %.0f ns per switch "
             "(median of the last %u rounds), subtracted",
             r->size / 1024u, hz ? (double)ovr / (double)r->procs * 1e9 / (double)hz : 0.0,
             OVR_WINDOW);
    rtb_note(ctx, note);
}

static void lat_ctx(struct rtb_ctx *ctx, int procs, unsigned kb)
{
    static struct ovr o;
    struct ring r = {.procs = procs, .size = (size_t)kb * 1024u};
    int *data = data_new(r.size);
    int made = 0, own = 0;
    o.n = 0;
    if (r.size && !data) {
        rtb_posix_fail("lat_ctx: mmap", errno);
        rtb_fail(ctx, "lat_ctx: mmap");
        return;
    }
    for (; made < procs && pipe(r.p[made]) == 0; made++)
        ;
    for (; own < procs && pipe(o.q[own]) == 0; own++)
        ;
    bool ok = made == procs && own == procs;
    for (int i = 0; ok && i < 10 + OVR_WINDOW; i++) /* warm-up, then a full window */
        ok = ovr_round(&o, procs, data, r.size);
    if (!ok) {
        rtb_posix_fail("lat_ctx: pipe", errno);
        rtb_fail(ctx, "lat_ctx: pipes");
    } else if (!ring_start(&r)) {
        rtb_posix_fail("lat_ctx: fork/pipe", errno);
        rtb_fail(ctx, "lat_ctx: starting the ring");
    } else {
        measure(ctx, &r, &o, data);
    }
    r.procs = made; /* close only what was opened */
    ring_stop(&r);
    for (int i = 0; i < own; i++) {
        close(o.q[i][0]);
        close(o.q[i][1]);
    }
    if (data)
        munmap(data, r.size);
}

#define CTX_SIZES(X, n) X(n, 0) X(n, 16) X(n, 64) X(n, 128) X(n, 256)
#define CTX_FN(n, k) \
    static void ctx_p##n##_k##k(struct rtb_ctx *ctx) { lat_ctx(ctx, n, k); }
CTX_SIZES(CTX_FN, 2)
CTX_SIZES(CTX_FN, 4)
CTX_SIZES(CTX_FN, 8)
CTX_SIZES(CTX_FN, 16)

#define CTX_ENTRY(n, k) \
    {"sys.ctx.p" #n ".k" #k, ctx_p##n##_k##k, RTB_CAP_PROCESS, RTB_TASK_PROCESS},

const struct rtb_metric rtb_sys_ctx_metrics[] = {
    CTX_SIZES(CTX_ENTRY, 2)
    CTX_SIZES(CTX_ENTRY, 4)
    CTX_SIZES(CTX_ENTRY, 8)
    CTX_SIZES(CTX_ENTRY, 16)
    {0, 0, 0, 0},
};
