#ifndef RTB_CTX_H
#define RTB_CTX_H

#include <rtb/bench.h>
#include "hist.h"
#include "stats.h"

enum { RTB_STATUS_OK, RTB_STATUS_UNSUPPORTED, RTB_STATUS_FAILED };

struct rtb_ctx {
    const struct rtb_metric *metric;
    uint32_t samples, warmup;
    uint64_t discarded;     /* warm-up samples dropped */
    uint64_t invalid;       /* intervals whose stop preceded their start */
    rtb_ticks_t deadline;   /* end of the time budget */
    rtb_ticks_t warm_until; /* warm-up ends here at the latest: half the budget */
    bool budgeted;          /* a time budget applies (not on a count of instructions) */
    bool budget_exhausted;
    int status;
    char reason[512];  /* what + the port's words; a cut one ends in "…" */
    const char *note;
    const char *emulated;   /* how the measured service is emulated, "" if native */
    unsigned kernel_calls;  /* the emulation's kernel calls in a window (rtb_port_emulation_calls) */
    const char *unranked;   /* why the row stays out of every ranking, "" if it does not */
    uint32_t ops_per_sample;   /* rtb_per_sample: operations timed by one sample */
    uint64_t bytes_per_sample; /* and the bytes they move (0: not a transfer) */
    uint64_t expected;         /* rtb_expected: what a method check should measure, 0: none */
    uint32_t batch;            /* rtb_batch's answer: calls a sample times for resolution (1: one) */
    uint64_t batch_overhead;   /* a batch's own loop, reported unit, subtracted (timed.c) */
    uint32_t batch_calibrated; /* the batch size batch_overhead was measured for, 0: none */
    double hz;              /* calibrated counter frequency */
    uint64_t overhead;      /* calibrated timestamp overhead, reported unit (rtb_add_net) */
    uint64_t step;          /* the clock's effective step, reported unit (rtb_batch) */
    bool unit_is_time;      /* the reported unit is a time (ticks, cycles) */
    rtb_ticks_t started;    /* the metric's start (its budget's origin) */
    uint64_t elapsed;       /* its whole run, set-up included, in counter ticks */
    uint64_t observed;      /* rtb_observed_over: the samples' own window (0: elapsed's) */
    uint64_t canary;        /* the canary's median net cost around it (0: no canary) */
    bool cold;              /* evict caches before every sample (the cold profile) */
    bool cold_failed;       /* the port could not evict: said once in the note */
    struct rtb_stats stats;
    struct rtb_hist *hist;
};

/* The port's rest policy, for rtb_rest(); the runner sets it before any metric. */
void rtb_ctx_policy(const struct rtb_port_policy *p);
/* rtb_rest() between metrics: the rest clock runs across metrics, so a
 * sequence of short metrics rests as one long one would. */
void rtb_rest_between(struct rtb_ctx *c);
void rtb_ctx_reset(struct rtb_ctx *c, const struct rtb_metric *m, uint32_t samples,
                   uint32_t warmup, uint64_t budget_ticks, bool cold, struct rtb_hist *h);

#endif
