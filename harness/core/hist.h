/*
 * Log-linear histogram of raw tick values, fixed memory, no allocation.
 *
 * Values below 2^(SUB_BITS+1) have a bucket each (exact). Above, every power
 * of two [2^e, 2^(e+1)) is split into 2^SUB_BITS equal buckets, so a bucket is
 * at most 1/2^SUB_BITS of the values in it wide: with SUB_BITS = 7 the bucket
 * midpoint is within 0.4 % of any value in the bucket (HdrHistogram's scheme).
 * Values at or above 2^MAX_LOG2 go to an overflow count (the exact max is kept
 * by the statistics, not here).
 */
#ifndef RTB_HIST_H
#define RTB_HIST_H

#include <stdint.h>

#ifndef RTB_HIST_SUB_BITS
#define RTB_HIST_SUB_BITS 7
#endif
#ifndef RTB_HIST_MAX_LOG2
#define RTB_HIST_MAX_LOG2 48 /* 2^48 ticks: over a minute at 4 GHz */
#endif

#define RTB_HIST_SUB (1u << RTB_HIST_SUB_BITS)
#define RTB_HIST_EXACT (2u * RTB_HIST_SUB)
#define RTB_HIST_BUCKETS \
    (RTB_HIST_EXACT + (RTB_HIST_MAX_LOG2 - RTB_HIST_SUB_BITS - 1) * RTB_HIST_SUB)

struct rtb_hist {
    uint32_t count[RTB_HIST_BUCKETS];
    uint64_t total;     /* values recorded, overflow included */
    uint64_t overflow;  /* values >= 2^RTB_HIST_MAX_LOG2 */
    /* Every bucket that may be non-zero lies in [first, last]. A reset
     * clears those, and readers scan those, not all 5376: on an emulated
     * board, where a figure is instructions, clearing and scanning every
     * bucket was two thirds of the instructions a metric ran outside its
     * windows (the window audit traces every one of them). */
    uint32_t first, last;
};

/* Any memory (a port's shared region, the stack): clears every bucket. */
void rtb_hist_init(struct rtb_hist *h);
/* A histogram rtb_hist_init has set up: clears the buckets in use. */
void rtb_hist_reset(struct rtb_hist *h);
void rtb_hist_add(struct rtb_hist *h, uint64_t v);
uint32_t rtb_hist_index(uint64_t v);                 /* bucket of v (v in range) */
void rtb_hist_bounds(uint32_t idx, uint64_t *lo, uint64_t *hi); /* lo <= v < hi */
/* The value at quantile q_per100k/100000 (nearest rank), as the midpoint of
 * its bucket; overflowed ranks return UINT64_MAX (caller clamps to max). */
uint64_t rtb_hist_quantile(const struct rtb_hist *h, uint32_t q_per100k);

#endif
