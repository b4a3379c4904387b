/*
 * Exact running statistics over raw tick samples (Welford's update, which
 * stays accurate where a one-pass sum of squares cancels), plus the step from
 * raw statistics to the reported ones: the calibrated timestamp overhead is a
 * constant, so subtracting it from every sample is subtracting it from the
 * min, max, mean and every percentile; the spread is unchanged.
 */
#ifndef RTB_STATS_H
#define RTB_STATS_H

#include <stdint.h>
#include "hist.h"

struct rtb_stats {
    uint64_t n;
    uint64_t min, max;
    double mean, m2;
};

void rtb_stats_reset(struct rtb_stats *s);
void rtb_stats_add(struct rtb_stats *s, uint64_t v);
double rtb_stats_stddev(const struct rtb_stats *s); /* sample stddev; 0 if n < 2 */

/* What a record reports: overhead subtracted, so possibly negative. */
struct rtb_summary {
    uint64_t n;
    int64_t min, max, p50, p90, p99, p999;
    double mean, stddev;
};

void rtb_summarize(const struct rtb_stats *s, const struct rtb_hist *h,
                   uint64_t overhead, struct rtb_summary *out);

#endif
