/*
 * Timestamp calibration, done once at start: what one timestamp read costs
 * (so it can be subtracted from every sample: the DSP/BIOS method, "the
 * overhead of the timer has been factored out"; the mean of many
 * back-to-back pairs, not their median: a counter that advances in steps
 * of ~26 ticks reads a 60-tick cost as 52 or 78, and a median flips
 * between the two from session to session while the mean of pairs at
 * random phases converges on the cost itself), the counter's resolution
 * (its smallest non-zero step: a virtual machine's TSC may advance in steps
 * of tens of ticks), and its frequency measured against the port's reference
 * clock (not trusted from a nominal value).
 */
#ifndef RTB_CALIB_H
#define RTB_CALIB_H

#include <stdbool.h>
#include <stdint.h>
#include "hist.h"

#define RTB_CALIB_PAIRS 20000u /* the default; --calib-pairs */
#define RTB_CALIB_WINDOW_NS 100000000ull /* frequency measured over 100 ms */

/* Overhead and resolution are in the reported unit (RTB_PORT_UNITS of
 * counter ticks); hz is counter ticks per second (budgets, conversions). */
struct rtb_calib {
    uint64_t overhead_min;    /* smallest back-to-back interval */
    uint64_t overhead_median; /* their median (reported; no longer subtracted) */
    double overhead_mean;     /* their mean, the pairs above the 99th percentile left out
                                 (an interrupt between two reads is not their cost) */
    uint64_t overhead;        /* what is subtracted from every sample: the mean, rounded */
    uint64_t resolution;      /* smallest non-zero step seen */
    uint64_t step;            /* one step of the clock as a sample sees it: the resolution,
                                 or the spread of one read (median - min), whichever is
                                 larger; what rtb_batch decides on (--step: a run's first
                                 block's, so every block of a metric batches alike) */
    uint32_t samples;         /* back-to-back pairs behind the figures above */
    double hz;                /* ticks per second used for every conversion */
    bool hz_measured;         /* hz came from the reference clock, not the nominal */
};

/* resolution: the port's own figure (rtb_port_info), 0 to keep the measured one.
 * hz_given: a frequency measured before (a later block of the same run,
 * `--hz`), used instead of measuring for 100 ms again; 0 to measure. */
void rtb_calibrate(struct rtb_calib *c, struct rtb_hist *scratch, uint32_t pairs,
                   uint64_t hz_nominal, uint64_t resolution, uint64_t hz_given);

/* The core clock, from a chain of dependent adds (rtb_port_add_chain) timed
 * by the reference clock: each trial long enough (RTB_CORE_WINDOW_NS) that
 * the reference clock's read costs nothing, the fastest of RTB_CORE_TRIALS
 * taken (anything else on the core, a hypervisor's other guest, an
 * interrupt, only slows a trial down). */
#define RTB_CORE_TRIALS 5u
#define RTB_CORE_WINDOW_NS 5000000ull /* 5 ms a trial */
#define RTB_CORE_PROBE_LOOPS 256u     /* a probe: sizes the trials, not in the result */
#define RTB_CORE_PROBES 3u

struct rtb_core_clock {
    double hz;          /* core cycles per second; 0: not measured */
    uint64_t adds;      /* adds in each trial */
    unsigned trials;    /* trials the fastest was taken from */
    bool given;         /* hz came from --core-hz (an earlier block of the run) */
};

/* hz_given: --core-hz, measured by an earlier block of the same run (0: measure).
 * Leaves hz 0 where the port has no add chain or no reference clock. */
void rtb_core_clock(struct rtb_core_clock *c, uint64_t hz_given);

/* The loops for a trial of about window_ns, from a probe of `loops` loops
 * that lasted `ns` (at least 1, at most UINT32_MAX; the probe's own loops
 * again if ns is 0). */
uint32_t rtb_core_loops_for(uint32_t loops, uint64_t ns, uint64_t window_ns);
/* The core clock from the trials' durations (ns each, n of them) of `adds`
 * adds: the shortest trial's, 0 if none lasted any time. */
double rtb_core_best_hz(uint64_t adds, const uint64_t *ns, unsigned n);

/* Arithmetic, separate so it can be tested: ticks per second from an
 * interval of dticks ticks lasting dns nanoseconds (0 if dns is 0), and
 * ns from ticks at hz (both in double: exact enough, and no 64-bit product
 * can overflow as cycles * NSEC_PER_SEC would). */
double rtb_calib_hz(uint64_t dticks, uint64_t dns);
double rtb_ticks_to_ns(double ticks, double hz);

#endif
