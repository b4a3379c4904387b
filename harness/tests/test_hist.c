/* Histogram: bucket arithmetic is consistent, the bound on relative error
 * holds everywhere in range, and quantiles match exact order statistics to
 * within that bound. */
#include "check.h"
#include "hist.h"
#include <stdlib.h>

static struct rtb_hist h;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t rng_state = 88172645463325252ull;
static uint64_t xorshift(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void test_buckets(void)
{
    /* every value lands in a bucket whose bounds contain it, and the bucket
     * is at most 1/128 of its lower bound wide: midpoint error <= 0.4 % */
    for (int i = 0; i < 200000; i++) {
        uint64_t v = xorshift() >> (16 + xorshift() % 48);
        if (v >> RTB_HIST_MAX_LOG2)
            continue;
        uint32_t idx = rtb_hist_index(v);
        uint64_t lo, hi;
        CHECK(idx < RTB_HIST_BUCKETS);
        rtb_hist_bounds(idx, &lo, &hi);
        CHECK(lo <= v && v < hi);
        CHECK(hi - lo == 1 || (double)(hi - lo) / (double)lo <= 1.0 / 128.0);
        uint64_t mid = lo + (hi - lo - 1) / 2;
        double err = v ? ((double)mid - (double)v) / (double)v : 0.0;
        CHECK(err < 0.004 && err > -0.004);
    }
    /* buckets tile the range: each one starts where the previous ended */
    for (uint32_t i = 1; i < RTB_HIST_BUCKETS; i++) {
        uint64_t lo0, hi0, lo1, hi1;
        rtb_hist_bounds(i - 1, &lo0, &hi0);
        rtb_hist_bounds(i, &lo1, &hi1);
        CHECK(hi0 == lo1);
    }
}

static void test_quantiles(void)
{
    enum { N = 100000 };
    static uint64_t v[N];
    rtb_hist_reset(&h);
    for (int i = 0; i < N; i++) {
        /* a skewed, latency-like distribution: a body plus a long tail */
        v[i] = 1000 + xorshift() % 500 + (xorshift() % 100 == 0 ? xorshift() % 1000000 : 0);
        rtb_hist_add(&h, v[i]);
    }
    qsort(v, N, sizeof v[0], cmp_u64);
    const uint32_t q[] = {50000, 90000, 99000, 99900, 100000};
    for (unsigned k = 0; k < sizeof q / sizeof q[0]; k++) {
        uint64_t rank = ((uint64_t)N * q[k] + 99999) / 100000;
        double exact = (double)v[rank - 1];
        double est = (double)rtb_hist_quantile(&h, q[k]);
        CHECK((est - exact) / exact < 0.01 && (exact - est) / exact < 0.01);
    }
    CHECK(h.total == N && h.overflow == 0);
}

static void test_edges(void)
{
    rtb_hist_reset(&h);
    CHECK(rtb_hist_quantile(&h, 50000) == 0); /* empty */
    rtb_hist_add(&h, 7);
    CHECK(rtb_hist_quantile(&h, 50000) == 7); /* small values are exact */
    CHECK(rtb_hist_quantile(&h, 100000) == 7);
    rtb_hist_add(&h, (uint64_t)1 << RTB_HIST_MAX_LOG2);
    CHECK(h.overflow == 1 && h.total == 2);
    CHECK(rtb_hist_quantile(&h, 100000) == UINT64_MAX); /* an overflowed rank */
}

/* A reset clears only the buckets in use: after values far apart, every
 * bucket is zero again, and the histogram reused gives what a new one
 * gives. */
static void test_reset_clears_what_was_used(void)
{
    static struct rtb_hist fresh;
    rtb_hist_init(&fresh);
    rtb_hist_reset(&h);
    rtb_hist_add(&h, 3);
    rtb_hist_add(&h, 123456789);
    rtb_hist_add(&h, (uint64_t)1 << RTB_HIST_MAX_LOG2);
    CHECK(h.first == 3 && h.last == rtb_hist_index(123456789));
    rtb_hist_reset(&h);
    for (uint32_t i = 0; i < RTB_HIST_BUCKETS; i++)
        CHECK(h.count[i] == 0);
    CHECK(h.total == 0 && h.overflow == 0 && h.first > h.last);
    CHECK(rtb_hist_quantile(&h, 50000) == 0);
    for (uint64_t v = 500; v < 900; v += 3) {
        rtb_hist_add(&h, v);
        rtb_hist_add(&fresh, v);
    }
    for (uint32_t q = 0; q <= 100000; q += 2500)
        CHECK(rtb_hist_quantile(&h, q) == rtb_hist_quantile(&fresh, q));
}

int main(void)
{
    rtb_hist_init(&h);
    test_buckets();
    test_quantiles();
    test_edges();
    test_reset_clears_what_was_used();
    return CHECK_DONE();
}
