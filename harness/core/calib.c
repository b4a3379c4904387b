#include "calib.h"
#include "stats.h"
#include <rtb/port.h>

double rtb_calib_hz(uint64_t dticks, uint64_t dns)
{
    return dns ? (double)dticks * 1e9 / (double)dns : 0.0;
}

double rtb_ticks_to_ns(double ticks, double hz)
{
    return hz > 0.0 ? ticks * 1e9 / hz : 0.0;
}

/* The mean of the pairs up to their 99th percentile, from the histogram
 * (exact: back-to-back reads fall in its one-tick buckets). A pair an
 * interrupt fell between is not the read's cost: a single 100 us one would
 * move the plain mean of 20 000 pairs by 13 ticks. */
static double trimmed_mean(const struct rtb_hist *h, double plain)
{
    uint64_t cut = rtb_hist_quantile(h, 99000);
    double sum = 0.0;
    uint64_t n = 0;
    for (uint32_t v = 0; v < RTB_HIST_EXACT && v <= cut; v++) {
        sum += (double)v * (double)h->count[v];
        n += h->count[v];
    }
    return n ? sum / (double)n : plain;
}

static void measure_overhead(struct rtb_calib *c, struct rtb_hist *h, uint32_t pairs)
{
    struct rtb_stats st;
    uint64_t res = UINT64_MAX;
    rtb_stats_reset(&st);
    rtb_hist_reset(h);
    for (uint32_t i = 0; i < pairs; i++) {
        rtb_stamp_t t0 = rtb_port_stamp_start();
        rtb_stamp_t t1 = rtb_port_stamp_end();
        int64_t raw = rtb_stamp_delta(t0, t1);
        uint64_t d = RTB_PORT_UNITS((rtb_ticks_t)(raw > 0 ? raw : 0)); /* the unit samples are in */
        rtb_stats_add(&st, d);
        rtb_hist_add(h, d);
        if (d && d < res)
            res = d;
    }
    /* The counter's step: back-to-back reads may never differ by less than
     * the read's own cost, so also take the smallest gap between two
     * distinct intervals seen (exact below RTB_HIST_EXACT ticks). */
    uint64_t prev = UINT64_MAX;
    for (uint32_t v = 0; v < RTB_HIST_EXACT; v++) {
        if (!h->count[v])
            continue;
        if (prev != UINT64_MAX && v - prev < res)
            res = v - prev;
        prev = v;
    }
    c->samples = pairs;
    c->overhead_min = st.min;
    c->overhead_median = rtb_hist_quantile(h, 50000);
    if (c->overhead_median > st.max)
        c->overhead_median = st.max;
    c->overhead_mean = trimmed_mean(h, st.mean);
    c->overhead = (uint64_t)(c->overhead_mean + 0.5);
    c->resolution = res == UINT64_MAX ? 0 : res;
}

/* A reference read bracketed by two counter reads: the reference instant is
 * taken to be the midpoint, which halves the error from the read's latency. */
static bool bracket(uint64_t *ref, double *ticks)
{
    rtb_ticks_t a = rtb_port_ts();
    bool ok = rtb_port_ref_ns(ref);
    rtb_ticks_t b = rtb_port_ts();
    *ticks = (double)a + (double)(b - a) / 2.0;
    return ok;
}

static bool measure_hz(double *hz)
{
    uint64_t r0, r1;
    double t0, t1;
    if (!bracket(&r0, &t0))
        return false;
    do {
        bracket(&r1, &t1);
    } while (r1 - r0 < RTB_CALIB_WINDOW_NS);
    *hz = rtb_calib_hz((uint64_t)(t1 - t0 + 0.5), r1 - r0);
    return *hz > 0.0;
}

void rtb_calibrate(struct rtb_calib *c, struct rtb_hist *scratch, uint32_t pairs,
                   uint64_t hz_nominal, uint64_t resolution, uint64_t hz_given)
{
    measure_overhead(c, scratch, pairs ? pairs : RTB_CALIB_PAIRS);
    if (resolution) /* known by construction (every reported step is one instruction) */
        c->resolution = resolution;
    c->step = c->overhead_median - c->overhead_min > c->resolution
                  ? c->overhead_median - c->overhead_min : c->resolution;
    if (hz_given) { /* measured by an earlier block of the same run */
        c->hz = (double)hz_given;
        c->hz_measured = true;
        return;
    }
    c->hz_measured = measure_hz(&c->hz);
    if (!c->hz_measured)
        c->hz = (double)hz_nominal;
}

uint32_t rtb_core_loops_for(uint32_t loops, uint64_t ns, uint64_t window_ns)
{
    if (!ns)
        return loops ? loops : 1u;
    double want = (double)loops * (double)window_ns / (double)ns;
    if (want < 1.0)
        return 1u;
    return want > (double)UINT32_MAX ? UINT32_MAX : (uint32_t)want;
}

double rtb_core_best_hz(uint64_t adds, const uint64_t *ns, unsigned n)
{
    uint64_t best = 0;
    for (unsigned i = 0; i < n; i++)
        if (ns[i] && (!best || ns[i] < best))
            best = ns[i];
    return rtb_calib_hz(adds, best);
}

/* One trial: the chain's duration by the reference clock, 0 if it failed. */
static uint64_t time_chain(uint32_t loops)
{
    uint64_t t0, t1;
    if (!rtb_port_ref_ns(&t0) || rtb_port_add_chain(loops) != RTB_OK || !rtb_port_ref_ns(&t1))
        return 0;
    return t1 > t0 ? t1 - t0 : 0;
}

void rtb_core_clock(struct rtb_core_clock *c, uint64_t hz_given)
{
    uint64_t ns[RTB_CORE_TRIALS];
    c->hz = 0.0, c->adds = 0, c->trials = 0, c->given = false;
    if (hz_given) {
        c->hz = (double)hz_given;
        c->given = true;
        return;
    }
    /* Probes size the trials, so a slow core does not spend seconds here: the
     * fastest of a few, since one that was preempted (or ran while the core
     * was still clocking up) would make every trial too short to time well. */
    uint64_t probe = 0;
    for (unsigned i = 0; i < RTB_CORE_PROBES; i++) {
        uint64_t t = time_chain(RTB_CORE_PROBE_LOOPS);
        if (!t)
            return; /* no chain on this port, or no clock to time it by */
        if (!probe || t < probe)
            probe = t;
    }
    uint32_t loops = rtb_core_loops_for(RTB_CORE_PROBE_LOOPS, probe, RTB_CORE_WINDOW_NS);
    for (unsigned i = 0; i < RTB_CORE_TRIALS; i++)
        ns[i] = time_chain(loops);
    c->adds = (uint64_t)loops * RTB_ADD_CHAIN_UNROLL;
    c->trials = RTB_CORE_TRIALS;
    c->hz = rtb_core_best_hz(c->adds, ns, RTB_CORE_TRIALS);
}
