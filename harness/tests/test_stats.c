/* Statistics: Welford agrees with the two-pass textbook formulas, and the
 * overhead subtraction shifts every location statistic and nothing else. */
#include "check.h"
#include "stats.h"
#include <math.h>

static int near(double a, double b, double tol)
{
    return fabs(a - b) <= tol * (fabs(b) > 1 ? fabs(b) : 1);
}

int main(void)
{
    static struct rtb_hist h;
    struct rtb_stats s;
    const uint64_t v[] = {1000000007, 1000000003, 1000000011, 1000000001, 1000000005};
    double sum = 0, ss = 0;
    rtb_stats_reset(&s);
    rtb_hist_init(&h);
    for (unsigned i = 0; i < 5; i++) {
        rtb_stats_add(&s, v[i]);
        rtb_hist_add(&h, v[i]);
        sum += (double)v[i];
    }
    double mean = sum / 5;
    for (unsigned i = 0; i < 5; i++)
        ss += ((double)v[i] - mean) * ((double)v[i] - mean);
    CHECK(s.n == 5 && s.min == 1000000001 && s.max == 1000000011);
    CHECK(near(s.mean, mean, 1e-12));
    /* large offset, small spread: where a one-pass sum of squares fails */
    CHECK(near(rtb_stats_stddev(&s), sqrt(ss / 4), 1e-9));

    struct rtb_summary r;
    rtb_summarize(&s, &h, 1000000000, &r);
    CHECK(r.min == 1 && r.max == 11 && near(r.mean, 5.4 + 0.0, 1e-6));
    CHECK(r.p50 >= r.min && r.p50 <= r.p99 && r.p99 <= r.max);
    CHECK(near(r.stddev, sqrt(ss / 4), 1e-9));

    /* below the overhead: negative, never clamped to zero */
    rtb_stats_reset(&s);
    rtb_hist_reset(&h);
    rtb_stats_add(&s, 20);
    rtb_hist_add(&h, 20);
    rtb_summarize(&s, &h, 26, &r);
    CHECK(r.min == -6 && r.max == -6 && r.p50 == -6 && near(r.mean, -6, 1e-12));
    CHECK(r.stddev == 0.0);
    return CHECK_DONE();
}
