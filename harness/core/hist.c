#include "hist.h"

static void clear(struct rtb_hist *h, uint32_t first, uint32_t last)
{
    for (uint32_t i = first; i <= last && i < RTB_HIST_BUCKETS; i++)
        h->count[i] = 0;
    h->total = 0;
    h->overflow = 0;
    h->first = RTB_HIST_BUCKETS; /* none in use: first > last */
    h->last = 0;
}

void rtb_hist_init(struct rtb_hist *h)
{
    clear(h, 0, RTB_HIST_BUCKETS - 1);
}

void rtb_hist_reset(struct rtb_hist *h)
{
    clear(h, h->first, h->last);
}

static uint32_t log2_floor(uint64_t v)
{
    return 63u - (uint32_t)__builtin_clzll(v);
}

uint32_t rtb_hist_index(uint64_t v)
{
    if (v < RTB_HIST_EXACT)
        return (uint32_t)v;
    uint32_t e = log2_floor(v);               /* e >= SUB_BITS + 1 */
    uint32_t shift = e - RTB_HIST_SUB_BITS;
    uint32_t sub = (uint32_t)(v >> shift) - RTB_HIST_SUB; /* 0 .. SUB-1 */
    return RTB_HIST_EXACT + (e - RTB_HIST_SUB_BITS - 1) * RTB_HIST_SUB + sub;
}

void rtb_hist_bounds(uint32_t idx, uint64_t *lo, uint64_t *hi)
{
    if (idx < RTB_HIST_EXACT) {
        *lo = idx;
        *hi = (uint64_t)idx + 1;
        return;
    }
    uint32_t k = idx - RTB_HIST_EXACT;
    uint32_t e = k / RTB_HIST_SUB + RTB_HIST_SUB_BITS + 1;
    uint32_t shift = e - RTB_HIST_SUB_BITS;
    uint64_t sub = (uint64_t)(k % RTB_HIST_SUB) + RTB_HIST_SUB;
    *lo = sub << shift;
    *hi = (sub + 1) << shift;
}

void rtb_hist_add(struct rtb_hist *h, uint64_t v)
{
    h->total++;
    if (v >> RTB_HIST_MAX_LOG2) {
        h->overflow++;
        return;
    }
    uint32_t i = rtb_hist_index(v);
    if (h->count[i] != UINT32_MAX)
        h->count[i]++;
    if (i < h->first)
        h->first = i;
    if (i > h->last)
        h->last = i;
}

uint64_t rtb_hist_quantile(const struct rtb_hist *h, uint32_t q_per100k)
{
    if (h->total == 0)
        return 0;
    /* nearest rank: the smallest value with at least q of the samples at or below it */
    uint64_t rank = (h->total * q_per100k + 99999u) / 100000u;
    if (rank == 0)
        rank = 1;
    uint64_t seen = 0;
    for (uint32_t i = h->first; i <= h->last; i++) {
        seen += h->count[i];
        if (seen >= rank) {
            uint64_t lo, hi;
            rtb_hist_bounds(i, &lo, &hi);
            return lo + (hi - lo - 1) / 2; /* exact buckets: lo itself */
        }
    }
    return UINT64_MAX;
}
