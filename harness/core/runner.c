/* The runner: calibrate, then for each selected metric run its scenario in a
 * fresh context and emit the record. Measuring (scenarios), maths (stats,
 * hist) and output (record.c) stay apart. */
#include <rtb/runner.h>
#include "calib.h"
#include "ctx.h"
#include "record.h"
#include "stamplog.h"
#include "strutil.h"

/* One context and one histogram, reused: fixed memory. They live in the
 * port's shared region because a scenario's recording task may be a process. */
static struct rtb_hist *hist;
static struct rtb_ctx *ctx;

static const char *missing_cap(uint32_t need, uint32_t have, uint32_t *bit)
{
    static const char *const names[] = {
        "reference clock", "task delete", "task suspend/resume", "preemption lock",
        "semaphores", "mutexes", "message queues", "event flags", "timers",
        "software-triggered interrupt", "reader-writer locks", "condition variables",
        "FIFO/LIFO/stack queues", "pipes", "heap", "tasks in separate address spaces",
        "second CPU", "interrupt masking from the benchmark", "create-without-start of tasks",
        "software-interrupt objects", "target-side log/statistics objects",
        "frame pipes", "first-fit heap with an arrangeable free list",
        "cache disabling", "timer-placed interrupts", "bare interrupt handlers",
        "kernel critical section", "system calls (tasks run in the kernel's own mode)",
        "kernel-mode and user-mode tasks side by side",
    };
    for (unsigned b = 0; b < sizeof names / sizeof names[0]; b++) {
        if ((need & (1u << b)) && !(have & (1u << b))) {
            *bit = 1u << b;
            return names[b];
        }
    }
    return 0;
}

/* For the first service `m` needs and the port lacks: the port's own words
 * (rtb_port_unsupported_why), else "port has no <service>". NULL: none lacking. */
static const char *unsupported_why(const struct rtb_metric *m)
{
    static char why[160];
    uint32_t bit = 0;
    const char *lack = missing_cap(m->caps, rtb_port_caps(), &bit);
    if (!lack)
        return 0;
    const char *own = rtb_port_unsupported_why(bit);
    if (own && *own)
        return own;
    why[0] = '\0';
    rtb_strlcat(why, "port has no ", sizeof why);
    rtb_strlcat(why, lack, sizeof why);
    return why;
}

void rtb_list(void)
{
    struct rtb_registry_walk w = {0};
    const struct rtb_metric *m;
    while ((m = rtb_registry_next(&w)))
        rtb_record_registry(m->id, unsupported_why(m));
    /* A board's console does not close when the listing is done: the end
     * record tells its reader the listing is whole. */
    rtb_record_end(0);
}

/* The canary (rtb_port_canary) timed CANARY_REPS times after one untimed
 * run that warms its caches; its net costs are appended to v[*n]. */
#define CANARY_REPS 4
static void time_canary(uint64_t *v, unsigned *n, uint64_t overhead)
{
    if (rtb_port_canary() != RTB_OK)
        return;
    for (unsigned i = 0; i < CANARY_REPS; i++) {
        rtb_ticks_t t0 = rtb_port_ts();
        rtb_port_canary();
        rtb_ticks_t t1 = rtb_port_ts();
        uint64_t d = RTB_PORT_UNITS(t1 - t0);
        v[(*n)++] = d > overhead ? d - overhead : 0;
    }
}

static uint64_t median_small(uint64_t *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++) /* insertion sort: n <= 2 * CANARY_REPS */
        for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n ? v[n / 2] : 0;
}

/* The allocation the metric's creates use (rtb_port_alloc): false, with
 * the metric unsupported in the port's words, for a row whose objects come
 * from the kernel's heap (RTB_FROM_HEAP) on a kernel with no such call. */
static bool allocation_set(const struct rtb_metric *m)
{
    if (!(m->task_flags & RTB_FROM_HEAP) || rtb_port_alloc(RTB_ALLOC_HEAP) == RTB_OK)
        return true;
    const char *own = rtb_port_last_error();
    rtb_unsupported(ctx, own && *own ? own : "the kernel has no create call that allocates the object");
    return false;
}

static void run_one(const struct rtb_metric *m, const struct rtb_config *cfg,
                    const struct rtb_calib *cal, const struct rtb_port_info *info)
{
    const char *why = unsupported_why(m);
    /* A count of instructions is the same on every run and takes no more
     * samples for more time: no budget cuts it, --samples decides (0: none). */
    uint64_t budget = rtb_unit_is_time(info->unit) ? (uint64_t)((double)cfg->budget_ms * cal->hz / 1000.0)
                                                   : 0;
    uint64_t canary[2 * CANARY_REPS];
    unsigned canaries = 0;

    rtb_record_begin(m->id);
    rtb_port_metric_begin(m->id);
    if (!why)
        time_canary(canary, &canaries, cal->overhead);
    rtb_ctx_reset(ctx, m, cfg->samples, cfg->warmup, budget, cfg->cold, hist);
    rtb_stamplog_begin();
    ctx->hz = cal->hz;
    ctx->overhead = cal->overhead;
    ctx->step = cal->step;
    ctx->unit_is_time = rtb_unit_is_time(info->unit);
    if (why) {
        rtb_unsupported(ctx, why);
    } else if (allocation_set(m)) {
        m->fn(ctx);
        if (ctx->status == RTB_STATUS_OK && ctx->stats.n == 0)
            rtb_fail(ctx, "no samples taken");
    }
    rtb_port_alloc(RTB_ALLOC_STATIC);
    ctx->elapsed = ctx->observed ? ctx->observed : rtb_port_ts() - ctx->started;
    if (!why)
        time_canary(canary, &canaries, cal->overhead);
    ctx->canary = median_small(canary, canaries);
    if (rtb_stamplog_end(m->id, ctx->status == RTB_STATUS_OK ? ctx->stats.n : 0) != RTB_OK)
        rtb_diag("--stamp-log: a metric's stamps were not written: ", rtb_port_last_error(), "");
    rtb_record_metric(ctx, cal, info, cfg->profile);
}

int rtb_run(const struct rtb_config *cfg)
{
    static struct rtb_calib cal;
    static struct rtb_core_clock core;
    struct rtb_port_info info = {0};
    struct rtb_port_policy policy = {0};
    const struct rtb_metric *m;

    rtb_port_info(&info);
    rtb_port_policy(&policy);
    hist = rtb_port_shared(sizeof *hist);
    ctx = rtb_port_shared(sizeof *ctx);
    if (!hist || !ctx) {
        const char *why = rtb_port_last_error();
        rtb_diag("cannot run: ",
                 why && *why ? why : "the port's shared memory cannot hold the sample context",
                 " (nothing measured)");
        return RTB_EXIT_FAILED;
    }
    rtb_hist_init(hist);
    rtb_ctx_policy(&policy);
    rtb_calibrate(&cal, hist, cfg->calib_pairs, info.ts_hz_nominal, info.resolution, cfg->hz);
    if (cfg->step) /* an earlier block's: a block's noisy read must not change the batch */
        cal.step = cfg->step;
    rtb_core_clock(&core, cfg->core_hz); /* after rtb_port_setup: on the benchmark CPU */
    rtb_record_session(cfg, &cal, &core, &info);
    unsigned done = 0;
    struct rtb_registry_walk w = {0};
    while ((m = rtb_registry_next(&w))) {
        bool selected = cfg->only == 0;
        for (unsigned k = 0; k < cfg->n_only && !selected; k++)
            selected = rtb_streq(cfg->only[k], m->id);
        if (selected) {
            run_one(m, cfg, &cal, &info);
            done++;
            if (policy.between_metrics_us)
                rtb_port_task_delay(policy.between_metrics_us);
            rtb_rest_between(ctx); /* the port's rest, when one is due */
        }
    }
    rtb_record_end(done);
    return RTB_EXIT_OK;
}
