/*
 * Linux: a signal between CPUs. User space has no interrupt: what the port
 * has in its place is a real-time signal that a "device" thread on the
 * other CPU raises with tgkill() (port_irq.c) while the measured task runs
 * on the benchmark CPU, and that the kernel delivers by an IPI and a signal
 * frame. That is cross-CPU signal latency, not a vendor's interrupt row: a
 * VM exit on both sides dominates it here, so these rows carry no vendor
 * names (the interrupt rows, irq.*, are a board's hardware interrupts and
 * read "unsupported" on Linux). The real interrupt paths on Linux are the
 * timer interrupt to a thread (sys.timer.wakeup.*, cyclictest's
 * measurement) and, where the kernel has it, the timerlat tracer.
 *
 * One event, every interval from it. An event is stamped at each instant:
 *
 *   RAISED  the device thread, just before tgkill (the other CPU)
 *   IN      the handler's first instruction
 *   GIVE    just before the handler's give (give events only)
 *   OTHER   the readied task's first instruction after its take (give events)
 *   OUT     the handler's last instruction
 *   RESUME  the interrupted task's first instruction after the handler
 *
 * Plain events (the handler only stamps) give xsig.response,
 * xsig.task_response.no_resched and xsig.return.interrupted; give events
 * (the handler gives a semaphore a more urgent task pends on; the give
 * switches to it at once, inside the handler, as a signal handler runs in
 * task context) give xsig.task_response.resched, xsig.handler_to_task and
 * xsig.give_to_task. The first row of a kind measured in a block records
 * its events; the other rows of that kind in the same block replay the
 * same events, so a row that contains another is never the smaller one
 * (the irq.* rows were each a separate run). A window that holds stamps
 * of other instants (RAISED -> RESUME holds IN and OUT) has each of those
 * reads' calibrated cost taken out (rtb_add_extra), so it measures what a
 * handler that took only its own two stamps would.
 */
#include "posix_port.h"
#include <rtb/bench.h>

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

enum { SPIN = 0, HIGH = 1 };
enum { SEM = 0 };
enum stamp { RAISED, IN, GIVE, OTHER, OUT, RESUME, N_STAMPS };
enum kind { PLAIN, GIVING, N_KINDS };

struct event {
    rtb_ticks_t t[N_STAMPS];
};

struct xsig_state {
    struct rtb_ctx *ctx;
    enum stamp from, to;
    bool give;
    volatile rtb_ticks_t t[N_STAMPS];
    volatile int spinning, early, fired, taken, rc;
    volatile bool stop;
};
static struct xsig_state *shared;

/* The events of the last kind measured, while the block goes on with the
 * rows of that kind (rtb_port_metric_begin forgets them at any other row). */
#define CACHE_EVENTS 100000u
static struct {
    struct event *ev;
    unsigned count;
    int kind;       /* the kind they are of; -1: none */
    bool overflow;  /* more events than the cache holds: the next rows measure anew */
} cache = {.kind = -1};

void rtb_posix_xsig_forget(const char *id)
{
    if (strncmp(id, "xsig.", 5) != 0)
        cache.kind = -1;
}

static void handler(void *arg)
{
    struct xsig_state *s = arg;
    s->t[IN] = rtb_port_ts();
    s->early = !s->spinning;
    if (s->give) {
        s->t[GIVE] = rtb_port_ts();
        rtb_port_sem_give_isr(SEM);
    }
    s->fired = 1;
    s->t[OUT] = rtb_port_ts();
}

/* The order the instants are stamped in, per kind: the stamps a window
 * holds besides its own two are those between them. */
static const enum stamp order[N_KINDS][N_STAMPS] = {
    [PLAIN] = {RAISED, IN, OUT, RESUME, GIVE, OTHER},
    [GIVING] = {RAISED, IN, GIVE, OTHER, OUT, RESUME},
};
static const unsigned stamps_of[N_KINDS] = {[PLAIN] = 4, [GIVING] = 6};

static unsigned extra(enum kind kind, enum stamp from, enum stamp to)
{
    int a = -1, b = -1;
    for (unsigned i = 0; i < stamps_of[kind]; i++) {
        if (order[kind][i] == from)
            a = (int)i;
        if (order[kind][i] == to)
            b = (int)i;
    }
    return a >= 0 && b > a ? (unsigned)(b - a - 1) : 0;
}

static void keep(const struct xsig_state *s)
{
    if (cache.count >= CACHE_EVENTS) {
        cache.overflow = true;
        return;
    }
    struct event *e = &cache.ev[cache.count++];
    for (int i = 0; i < N_STAMPS; i++)
        e->t[i] = s->t[i];
}

/* The interrupted task: request a signal, spin until the handler ran (and,
 * for a give event, until the readied task stamped), record the event. */
static void spinner(void *arg)
{
    struct xsig_state *s = arg;
    while (!s->stop) {
        rtb_rest(s->ctx);
        s->fired = s->taken = s->spinning = 0;
        int rc = rtb_port_irq_trigger();
        if (rc != RTB_OK) {
            s->rc = rc;
            break;
        }
        s->spinning = 1;
        while (!s->fired)
            ;
        s->t[RESUME] = rtb_port_ts();
        while (s->give && !s->taken && !s->stop)
            rtb_port_task_yield(); /* only without real-time priorities */
        if (s->early)
            continue; /* raised while the trigger call was still returning */
        s->t[RAISED] = rtb_port_irq_raised_at();
        keep(s);
        rtb_add_extra(s->ctx, s->t[s->from], s->t[s->to], extra(s->give ? GIVING : PLAIN, s->from, s->to));
        if (!rtb_want(s->ctx))
            s->stop = true;
    }
    s->stop = true;
    if (s->give)
        rtb_port_sem_give(SEM); /* release the readied task */
}

/* The readied task: pended on SEM; its first act after the take is the stamp. */
static void high(void *arg)
{
    struct xsig_state *s = arg;
    for (;;) {
        int rc = rtb_port_sem_take(SEM, RTB_WAIT_FOREVER);
        rtb_ticks_t t = rtb_port_ts();
        if (rc != RTB_OK) {
            s->rc = rc;
            break;
        }
        if (s->stop)
            break;
        s->t[OTHER] = t;
        s->taken = 1;
    }
    s->stop = true;
}

static void measure(struct rtb_ctx *ctx, struct xsig_state *s)
{
    if (!rtb_ok(ctx, rtb_port_sem_create(SEM, 0, 1), "sem_create"))
        return;
    if (!rtb_ok(ctx, rtb_port_irq_hook(handler, s), "signal source")) {
        rtb_port_sem_delete(SEM);
        return;
    }
    bool started = !s->give ||
                   rtb_ok(ctx, rtb_port_task_create(HIGH, RTB_PRIO_HIGH, 0, high, s), "create readied task");
    if (started && !rtb_ok(ctx, rtb_port_task_create(SPIN, RTB_PRIO_LOW, 0, spinner, s),
                           "create interrupted task")) {
        s->stop = true;
        rtb_port_sem_give(SEM);
        rtb_port_task_join(HIGH);
        started = false;
    } else if (started) {
        rtb_port_task_join(SPIN);
        if (s->give)
            rtb_port_task_join(HIGH);
        rtb_ok(ctx, s->rc, "signal scenario");
    }
    rtb_port_irq_unhook();
    rtb_port_sem_delete(SEM);
}

static void row(struct rtb_ctx *ctx, enum kind kind, enum stamp from, enum stamp to)
{
    if (cache.kind == (int)kind && !cache.overflow) {
        rtb_note(ctx, "the same events as the row of its kind measured just before it");
        unsigned i = 0;
        for (; i < cache.count && rtb_want(ctx); i++)
            rtb_add_extra(ctx, cache.ev[i].t[from], cache.ev[i].t[to], extra(kind, from, to));
        if (i) /* the window the replayed events happened in, not the replay's */
            rtb_observed_over(ctx, cache.ev[i - 1].t[to] - cache.ev[0].t[from]);
        return;
    }
    if (!cache.ev) {
        void *m = mmap(0, CACHE_EVENTS * sizeof(struct event), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            rtb_posix_fail("signal events: mmap", errno);
            rtb_fail(ctx, "signal events");
            return;
        }
        cache.ev = m;
    }
    struct xsig_state *s = rtb_shared_state(ctx, (void **)&shared, sizeof *shared);
    if (!s)
        return;
    s->ctx = ctx;
    s->from = from;
    s->to = to;
    s->give = kind == GIVING;
    cache.kind = -1;
    cache.count = 0;
    cache.overflow = false;
    measure(ctx, s);
    if (!rtb_stopped(ctx))
        cache.kind = (int)kind;
}

static void response(struct rtb_ctx *c) { row(c, PLAIN, RAISED, IN); }
static void task_response(struct rtb_ctx *c) { row(c, PLAIN, RAISED, RESUME); }
static void return_interrupted(struct rtb_ctx *c) { row(c, PLAIN, OUT, RESUME); }
static void task_response_resched(struct rtb_ctx *c) { row(c, GIVING, RAISED, OTHER); }
static void handler_to_task(struct rtb_ctx *c) { row(c, GIVING, IN, OTHER); }
static void give_to_task(struct rtb_ctx *c) { row(c, GIVING, GIVE, OTHER); }

#define XSIG (RTB_CAP_SEM | RTB_CAP_SMP)
const struct rtb_metric rtb_posix_xsig_metrics[] = {
    {"xsig.response", response, XSIG, 0},
    {"xsig.task_response.no_resched", task_response, XSIG, 0},
    {"xsig.return.interrupted", return_interrupted, XSIG, 0},
    {"xsig.task_response.resched", task_response_resched, XSIG, 0},
    {"xsig.handler_to_task", handler_to_task, XSIG, 0},
    {"xsig.give_to_task", give_to_task, XSIG, 0},
    {0, 0, 0, 0},
};
