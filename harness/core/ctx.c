/* The sample sink a scenario writes into: warm-up, sample count, time budget,
 * status. One per metric, reset by the runner. */
#include "ctx.h"
#include "stamplog.h"
#include "strutil.h"

void rtb_ctx_reset(struct rtb_ctx *c, const struct rtb_metric *m, uint32_t samples,
                   uint32_t warmup, uint64_t budget_ticks, bool cold, struct rtb_hist *h)
{
    c->cold = cold;
    c->cold_failed = false;
    c->emulated = "";
    c->kernel_calls = 0;
    c->unranked = "";
    c->metric = m;
    c->samples = samples;
    c->warmup = warmup;
    c->discarded = 0;
    c->invalid = 0;
    c->budget_exhausted = false;
    c->status = RTB_STATUS_OK;
    c->reason[0] = '\0';
    c->note = "";
    c->ops_per_sample = 1;
    c->bytes_per_sample = 0;
    c->expected = 0;
    c->batch_overhead = 0;
    c->batch_calibrated = 0;
    c->batch = 1;
    c->hist = h;
    rtb_stats_reset(&c->stats);
    rtb_hist_reset(h);
    c->elapsed = 0;
    c->observed = 0;
    c->canary = 0;
    c->started = rtb_port_ts();
    c->budgeted = budget_ticks != 0;
    c->deadline = c->started + budget_ticks;
    c->warm_until = c->deadline - budget_ticks / 2;
}

/* Whether `why` opens with the call `what` names: "sem_delete: ..." */
static bool names_the_call(const char *why, const char *what)
{
    size_t n = 0;
    while (what[n] && what[n] == why[n])
        n++;
    return n && !what[n] && why[n] == ':';
}

static void set_reason(struct rtb_ctx *c, int status, const char *what, const char *why)
{
    if (c->status != RTB_STATUS_OK)
        return; /* the first failure is the one worth reporting */
    c->status = status;
    c->reason[0] = '\0';
    if (!why)
        why = "";
    if (names_the_call(why, what)) /* the port's words name the call already: say it once */
        what = "";
    rtb_strlcat(c->reason, what, sizeof c->reason); /* a cut one ends in "…" */
    if (*what && *why)
        rtb_strlcat(c->reason, ": ", sizeof c->reason);
    rtb_strlcat(c->reason, why, sizeof c->reason);
}

void rtb_budget_from_now(struct rtb_ctx *c)
{
    rtb_ticks_t budget = c->deadline - c->started;
    c->started = rtb_port_ts();
    c->deadline = c->started + budget;
    c->warm_until = c->deadline - budget / 2;
}

bool rtb_want(struct rtb_ctx *c)
{
    if (c->status != RTB_STATUS_OK || c->stats.n >= c->samples)
        return false;
    /* Intervals that run backwards are never samples: a scenario whose
     * every interval did would otherwise never end where there is no time
     * budget (a count of instructions). With one, the budget ends it and
     * the record counts them (`invalid`). */
    if (!c->budgeted && c->invalid > c->samples) {
        set_reason(c, RTB_STATUS_FAILED, "more intervals ran backwards than samples were asked for",
                   "the end stamp came before the start (a timer that expired early?)");
        return false;
    }
    if (c->budgeted && (int64_t)(rtb_port_ts() - c->deadline) > 0) {
        c->budget_exhausted = true;
        return false;
    }
    /* The cold profile: every sample starts with caches the port evicted,
     * before the sample's own set-up (DSP/BIOS "Best-Worst Case"). */
    if (c->cold && !c->cold_failed && rtb_port_cache_evict() != RTB_OK)
        c->cold_failed = true;
    return true;
}

static void add_units(struct rtb_ctx *c, uint64_t d)
{
    rtb_stats_add(&c->stats, d);
    rtb_hist_add(c->hist, d);
}

void rtb_add(struct rtb_ctx *c, rtb_stamp_t t0, rtb_stamp_t t1)
{
    rtb_add_extra(c, t0, t1, 0);
}

void rtb_add_extra(struct rtb_ctx *c, rtb_stamp_t t0, rtb_stamp_t t1, unsigned extra)
{
    /* A slow scenario must not spend its whole budget warming up: warm-up
     * ends after `warmup` samples or half the budget, whichever comes first. */
    if (c->discarded < c->warmup && (!c->budgeted || (int64_t)(rtb_port_ts() - c->warm_until) < 0)) {
        c->discarded++;
        return;
    }
    int64_t d = rtb_stamp_delta(t0, t1);
    if (d < 0) { /* only possible across unsynchronised counters: never a sample */
        c->invalid++;
        return;
    }
    /* In the reported unit (rtb/port.h RTB_PORT_UNITS: e.g. counter ticks to
     * emulated instructions), converted per interval so rounding never adds
     * up. Stored raw: the record subtracts the stamps' overhead; extra
     * stamps inside the window are taken out here. */
    uint64_t u = RTB_PORT_UNITS((rtb_ticks_t)d);
    uint64_t x = (uint64_t)extra * c->overhead;
    if (u < x) {
        c->invalid++;
        return;
    }
    add_units(c, u - x);
    rtb_stamplog_add(t0, t1); /* the sample's identity, for a trace of the run */
}

void rtb_add_net(struct rtb_ctx *c, int64_t net)
{
    if (c->discarded < c->warmup) { /* a sample computed from others: no budget check */
        c->discarded++;
        return;
    }
    /* Stored raw, like every sample: the record subtracts the overhead. */
    int64_t raw = net + (int64_t)c->overhead;
    if (raw < 0) {
        c->invalid++;
        return;
    }
    add_units(c, (uint64_t)raw);
}


void rtb_fail(struct rtb_ctx *c, const char *what)
{
    set_reason(c, RTB_STATUS_FAILED, what, rtb_port_last_error());
}

void rtb_unsupported(struct rtb_ctx *c, const char *why)
{
    set_reason(c, RTB_STATUS_UNSUPPORTED, why, 0);
}

void rtb_observed_over(struct rtb_ctx *c, uint64_t ticks)
{
    c->observed = ticks;
}

void rtb_note(struct rtb_ctx *c, const char *note)
{
    c->note = note;
}

void rtb_per_sample(struct rtb_ctx *c, uint32_t ops, uint64_t bytes)
{
    c->ops_per_sample = ops ? ops : 1;
    c->bytes_per_sample = bytes;
}

uint32_t rtb_batch(struct rtb_ctx *c, uint32_t most)
{
    double step_ns = c->hz > 0.0 ? (double)c->step * 1e9 / c->hz : 0.0;
    uint32_t n = (c->unit_is_time && step_ns > RTB_BATCH_STEP_NS && most > 1) ? most : 1;
    rtb_per_sample(c, n, 0);
    c->batch = n;
    return n;
}

void rtb_expected(struct rtb_ctx *c, uint64_t value)
{
    c->expected = value;
}

void rtb_emulated(struct rtb_ctx *c, const char *how)
{
    c->emulated = how ? how : "";
}

/* A row may name two emulations (the event object, then its clearing
 * wait): the words of the last one that has any, the most kernel calls. */
void rtb_port_emulates(struct rtb_ctx *c, enum rtb_emulation what)
{
    const char *how = rtb_port_emulation(what, rtb_task_flags(c));
    unsigned calls = rtb_port_emulation_calls(what, rtb_task_flags(c));
    if (how && *how)
        rtb_emulated(c, how);
    if (calls > c->kernel_calls)
        c->kernel_calls = calls;
}

void rtb_unranked(struct rtb_ctx *c, const char *why)
{
    c->unranked = why ? why : "";
}

/* The port's rest policy (rtb_port_policy), set once by the runner. The
 * rest clock is the harness's, not a metric's: real-time throttling counts
 * a CPU's time across metrics, and a run is many short blocks of them. (A
 * task that is a process keeps its own copy of it: it rests by its own
 * clock, which can only add a rest.) */
static uint32_t rest_every_us, rest_us;
static rtb_ticks_t rested;

void rtb_ctx_policy(const struct rtb_port_policy *p)
{
    rest_every_us = p->rest_every_us;
    rest_us = p->rest_us;
    rested = rtb_port_ts();
}

void rtb_rest(struct rtb_ctx *c)
{
    if (!rest_us || rtb_port_ts() - rested < rtb_us_to_ticks(c, rest_every_us))
        return;
    rtb_port_task_delay(rest_us);
    rested = rtb_port_ts();
}

void rtb_rest_between(struct rtb_ctx *c)
{
    rtb_rest(c);
}

rtb_ticks_t rtb_us_to_ticks(const struct rtb_ctx *c, uint32_t us)
{
    return (rtb_ticks_t)((double)us * c->hz / 1e6 + 0.5);
}

unsigned rtb_task_flags(const struct rtb_ctx *c)
{
    return c->metric->task_flags & ~(RTB_TASK_USER_IN | RTB_TASK_USER_OUT | RTB_FROM_HEAP);
}

unsigned rtb_task_flags_as(const struct rtb_ctx *c, enum rtb_role role)
{
    unsigned mode = c->metric->task_flags;
    bool user = (role == RTB_INCOMING && (mode & RTB_TASK_USER_IN)) ||
                (role == RTB_OUTGOING && (mode & RTB_TASK_USER_OUT));
    return rtb_task_flags(c) | (user ? RTB_TASK_PROCESS : 0);
}

void *rtb_shared_state(struct rtb_ctx *c, void **slot, size_t size)
{
    if (!*slot)
        *slot = rtb_port_shared(size);
    if (!*slot) {
        set_reason(c, RTB_STATUS_FAILED, "scenario state", "shared memory region used up");
        return 0;
    }
    unsigned char *b = *slot;
    for (size_t i = 0; i < size; i++)
        b[i] = 0;
    return *slot;
}

bool rtb_ok(struct rtb_ctx *c, int rc, const char *what)
{
    if (rc == RTB_OK)
        return true;
    if (rc == RTB_ENOTSUP) {
        /* the port's own words when it gave them ("queue_put: k_fifo_put is not
         * a system call ..."); a port clears them as each metric begins */
        const char *why = rtb_port_last_error();
        set_reason(c, RTB_STATUS_UNSUPPORTED, what, why && *why ? why : "not provided by this port");
    }
    else
        rtb_fail(c, what);
    return false;
}

bool rtb_stopped(const struct rtb_ctx *c)
{
    return c->status != RTB_STATUS_OK;
}
