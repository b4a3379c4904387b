#include "record.h"
#include "jsonw.h"
#include "strutil.h"

/* The record's "tasks": what the scenario's tasks are (docs/records.md). */
static const char *tasks_kind(unsigned flags)
{
    if (flags & RTB_TASK_USER_IN)
        return "kernel_to_user";
    if (flags & RTB_TASK_USER_OUT)
        return "user_to_kernel";
    return (flags & RTB_TASK_PROCESS) ? "process" : "thread";
}

static const char *const status_names[] = {"ok", "unsupported", "failed"};

bool rtb_unit_is_time(const char *unit)
{
    return rtb_streq(unit, "ticks") || rtb_streq(unit, "cycles");
}

/* What the window holds where the port says it is not the named service
 * (rtb_port_window_holds); nothing otherwise. */
static void write_window_holds(const char *id)
{
    const char *holds = rtb_port_window_holds(id);
    if (holds && *holds)
        jw_str("window_holds", holds);
}

void rtb_record_registry(const char *id, const char *unsupported_why)
{
    jw_begin("registry");
    jw_str("id", id);
    jw_bool("supported", !unsupported_why);
    jw_str("reason", unsupported_why ? unsupported_why : "");
    write_window_holds(id);
    jw_end();
}

/* How the core clock was obtained, in words for the record (no libc here:
 * the figures are formatted by jsonw). */
static void core_method(char *out, size_t cap, const struct rtb_core_clock *core,
                        const char *ref_clock)
{
    char num[24];
    out[0] = 0;
    if (core->given) {
        rtb_strlcat(out, "given by --core-hz (measured by an earlier block of the run)", cap);
        return;
    }
    rtb_strlcat(out, "dependent-add chain of ", cap);
    num[jw_fmt_u64(num, core->adds)] = 0;
    rtb_strlcat(out, num, cap);
    rtb_strlcat(out, " adds, best of ", cap);
    num[jw_fmt_u64(num, core->trials)] = 0;
    rtb_strlcat(out, num, cap);
    rtb_strlcat(out, ", timed by ", cap);
    rtb_strlcat(out, ref_clock && *ref_clock ? ref_clock : "the reference clock", cap);
}

void rtb_record_session(const struct rtb_config *cfg, const struct rtb_calib *cal,
                        const struct rtb_core_clock *core, const struct rtb_port_info *info)
{
    jw_begin("session");
    jw_u64("schema", RTB_RECORD_SCHEMA);
    jw_str("harness_version", RTB_HARNESS_VERSION);
    jw_str("port", info->port);
    jw_str("compiler", cfg->compiler);
    jw_str("cflags", cfg->cflags);
    jw_str("build_type", cfg->build_type);
    jw_obj("ts");
    jw_str("source", info->ts_source);
    jw_u64("hz_nominal", info->ts_hz_nominal);
    jw_u64("hz_measured", cal->hz_measured ? (uint64_t)(cal->hz + 0.5) : 0);
    jw_u64("resolution", cal->resolution);
    jw_u64("step", cal->step);
    jw_u64("overhead_min", cal->overhead_min);
    jw_u64("overhead_median", cal->overhead_median);
    jw_fix3("overhead_mean", cal->overhead_mean);
    jw_u64("overhead", cal->overhead);
    jw_u64("overhead_samples", cal->samples);
    jw_str("ref_clock", info->ref_clock);
    jw_str("unit", info->unit);
    jw_str("unit_detail", info->unit_detail);
    if (core->hz > 0.0) { /* the core clock, where the port has an add chain */
        char how[160];
        core_method(how, sizeof how, core, info->ref_clock);
        jw_u64("core_hz", (uint64_t)(core->hz + 0.5));
        jw_str("core_hz_method", how);
    }
    jw_close('}');
    jw_obj("rt");
    jw_bool("realtime", info->realtime);
    jw_str("policy", info->policy);
    jw_str("reason", info->rt_reason);
    jw_bool("mlock", info->mlock);
    jw_i64("cpu", info->cpu);
    jw_i64("cpus_online", info->cpus_online);
    jw_close('}');
    jw_obj("target"); /* the port's facts: kernel version, tick, asserts, board... */
    for (const char *const *f = info->facts; f && f[0] && f[1]; f += 2)
        jw_str(f[0], f[1]);
    jw_bool("irq_switch_at_exit", info->irq_switch_at_exit);
    jw_close('}');
    jw_obj("config");
    jw_str("profile", cfg->profile);
    jw_bool("cold", cfg->cold);
    jw_u64("samples", cfg->samples);
    jw_u64("warmup", cfg->warmup);
    /* 0: no budget (a count of instructions: --samples alone decides) */
    jw_u64("budget_ms", rtb_unit_is_time(info->unit) ? cfg->budget_ms : 0);
    jw_close('}');
    jw_end();
}

void rtb_record_begin(const char *id)
{
    jw_begin("begin");
    jw_str("id", id);
    jw_end();
}

static void write_hist(const struct rtb_hist *h, uint64_t overhead)
{
    jw_obj("hist");
    jw_str("scheme", "loglinear");
    jw_u64("sub_bucket_bits", RTB_HIST_SUB_BITS);
    jw_i64("offset", -(int64_t)overhead);
    jw_u64("overflow", h->overflow);
    jw_arr("buckets");
    for (uint32_t i = h->first; i <= h->last; i++) {
        if (h->count[i]) {
            uint64_t lo, hi;
            rtb_hist_bounds(i, &lo, &hi);
            jw_elem_u64x3(lo, hi, h->count[i]);
        }
    }
    jw_close(']');
    jw_close('}');
}

static void write_stats(const struct rtb_ctx *c, uint64_t overhead)
{
    struct rtb_summary s;
    rtb_summarize(&c->stats, c->hist, overhead, &s);
    jw_i64("min", s.min);
    jw_i64("max", s.max);
    jw_fix3("mean", s.mean);
    jw_fix3("stddev", s.stddev);
    jw_i64("p50", s.p50);
    jw_i64("p90", s.p90);
    jw_i64("p99", s.p99);
    jw_i64("p999", s.p999);
    write_hist(c->hist, overhead);
}

/* Why the row stays out of every ranking: the scenario's words, or an
 * emulation the port built from several kernel calls. */
static void write_unranked(const struct rtb_ctx *c)
{
    if (*c->unranked) {
        jw_str("unranked", c->unranked);
    } else if (c->kernel_calls >= 2) {
        char why[96], num[24];
        why[0] = '\0';
        rtb_strlcat(why, "built by rtbench's port from ", sizeof why);
        num[jw_fmt_u64(num, c->kernel_calls)] = 0;
        rtb_strlcat(why, num, sizeof why);
        rtb_strlcat(why, " kernel calls", sizeof why);
        jw_str("unranked", why);
    }
}

void rtb_record_metric(const struct rtb_ctx *c, const struct rtb_calib *cal,
                       const struct rtb_port_info *info, const char *profile)
{
    bool ok = c->status == RTB_STATUS_OK;
    jw_begin("metric");
    jw_str("id", c->metric->id);
    jw_str("status", status_names[c->status]);
    jw_str("reason", c->reason);
    jw_str("unit", info->unit);
    if (rtb_unit_is_time(info->unit)) /* instructions have no frequency */
        jw_u64("tick_hz", (uint64_t)(cal->hz + 0.5));
    jw_u64("n", ok ? c->stats.n : 0);
    jw_u64("discarded", c->discarded);
    jw_u64("invalid", c->invalid);
    jw_bool("budget_exhausted", c->budget_exhausted);
    /* what was subtracted from every sample, in the record's unit: the
     * stamps' calibrated cost, and a batch's own loop (batch_overhead) */
    jw_u64("overhead", cal->overhead + c->batch_overhead);
    jw_u64("ops", c->ops_per_sample);
    jw_u64("bytes", c->bytes_per_sample);
    if (c->expected)
        jw_u64("expected", c->expected);
    if (c->batch > 1) /* a batch for the counter's resolution: its tails are per batch */
        jw_u64("batch", c->batch);
    if (c->batch_overhead)
        jw_u64("batch_overhead", c->batch_overhead);
    if (ok) /* a batch's own loop goes with the stamps' cost (core/timed.c) */
        write_stats(c, cal->overhead + c->batch_overhead);
    jw_u64("elapsed_ticks", c->elapsed);
    if (c->canary)
        jw_u64("canary", c->canary);
    jw_bool("realtime", info->realtime);
    jw_str("rt_reason", info->rt_reason);
    jw_str("placement", info->cpu >= 0 ? "pinned" : "unpinned");
    jw_i64("cpu", info->cpu);
    jw_str("tasks", tasks_kind(c->metric->task_flags));
    jw_bool("cross_cpu", (c->metric->task_flags & RTB_TASK_OTHER_CPU) != 0);
    jw_str("profile", profile);
    jw_bool("cold", c->cold && !c->cold_failed);
    jw_str("emulated", c->emulated);
    if (c->kernel_calls)
        jw_u64("kernel_calls", c->kernel_calls);
    write_unranked(c);
    write_window_holds(c->metric->id);
    jw_str("allocation", (c->metric->task_flags & RTB_FROM_HEAP) ? "heap" : "static");
    jw_str("note", c->cold_failed ? "cold profile: the port could not evict caches" : c->note);
    jw_end();
}

void rtb_record_end(unsigned metrics)
{
    jw_begin("end");
    jw_u64("metrics", metrics);
    jw_end();
}
