#include "stats.h"

void rtb_stats_reset(struct rtb_stats *s)
{
    s->n = 0;
    s->min = UINT64_MAX;
    s->max = 0;
    s->mean = 0.0;
    s->m2 = 0.0;
}

void rtb_stats_add(struct rtb_stats *s, uint64_t v)
{
    s->n++;
    if (v < s->min)
        s->min = v;
    if (v > s->max)
        s->max = v;
    double x = (double)v;
    double d = x - s->mean;
    s->mean += d / (double)s->n;
    s->m2 += d * (x - s->mean);
}

/* Newton's iteration: the core has no libm. Converges quadratically from a
 * power-of-two start; 60 rounds is far more than a double needs. */
static double sqrt_nonneg(double x)
{
    if (x <= 0.0)
        return 0.0;
    double r = x >= 1.0 ? x : 1.0;
    for (int i = 0; i < 60; i++) {
        double next = 0.5 * (r + x / r);
        if (next >= r)
            break;
        r = next;
    }
    return r;
}

double rtb_stats_stddev(const struct rtb_stats *s)
{
    if (s->n < 2)
        return 0.0;
    return sqrt_nonneg(s->m2 / (double)(s->n - 1));
}

static int64_t clamp_sub(uint64_t v, const struct rtb_stats *s, uint64_t overhead)
{
    if (v < s->min)
        v = s->min;
    if (v > s->max)
        v = s->max;
    return (int64_t)v - (int64_t)overhead;
}

void rtb_summarize(const struct rtb_stats *s, const struct rtb_hist *h,
                   uint64_t overhead, struct rtb_summary *out)
{
    out->n = s->n;
    out->min = (int64_t)s->min - (int64_t)overhead;
    out->max = (int64_t)s->max - (int64_t)overhead;
    out->mean = s->mean - (double)overhead;
    out->stddev = rtb_stats_stddev(s);
    out->p50 = clamp_sub(rtb_hist_quantile(h, 50000), s, overhead);
    out->p90 = clamp_sub(rtb_hist_quantile(h, 90000), s, overhead);
    out->p99 = clamp_sub(rtb_hist_quantile(h, 99000), s, overhead);
    out->p999 = clamp_sub(rtb_hist_quantile(h, 99900), s, overhead);
}
