/* Calibration: the arithmetic, and a real calibration on this port giving
 * self-consistent figures (no thresholds on speed: only on consistency). */
#include "check.h"
#include "calib.h"
#include <math.h>

int main(void)
{
    static struct rtb_hist scratch;
    rtb_hist_init(&scratch);
    CHECK(fabs(rtb_calib_hz(260000000ull, 100000000ull) - 2.6e9) < 1e-3);
    CHECK(rtb_calib_hz(5, 0) == 0.0);
    CHECK(fabs(rtb_ticks_to_ns(2600.0, 2.6e9) - 1000.0) < 1e-9);
    /* no 64-bit overflow where cycles * 1e9 would exceed 2^64 */
    CHECK(fabs(rtb_ticks_to_ns(1e12, 2.5e9) - 4e11) < 1.0);
    CHECK(rtb_ticks_to_ns(100.0, 0.0) == 0.0);

    /* the core clock's arithmetic: trial sizing and the fastest trial */
    CHECK(rtb_core_loops_for(256, 100000, 5000000) == 12800); /* 50x the probe */
    CHECK(rtb_core_loops_for(256, 0, 5000000) == 256);       /* a probe too short to time */
    CHECK(rtb_core_loops_for(0, 0, 5000000) == 1);
    CHECK(rtb_core_loops_for(256, 1000000000ull, 5000000) == 1); /* never 0 loops */
    CHECK(rtb_core_loops_for(4000000000u, 1, 5000000) == UINT32_MAX); /* clamped */
    {
        const uint64_t ns[] = {6000000, 5000000, 0, 5500000}; /* 0: a failed trial */
        CHECK(fabs(rtb_core_best_hz(17500000ull, ns, 4) - 3.5e9) < 1e-3);
        const uint64_t none[] = {0, 0};
        CHECK(rtb_core_best_hz(17500000ull, none, 2) == 0.0);
        CHECK(rtb_core_best_hz(17500000ull, ns, 0) == 0.0);
    }
    /* --core-hz: taken as given, nothing measured */
    struct rtb_core_clock core;
    rtb_core_clock(&core, 3490000000ull);
    CHECK(core.given && core.hz == 3.49e9 && core.adds == 0);
    /* measured: 0 where the port has no chain; else a frequency of some sanity */
    rtb_core_clock(&core, 0);
    CHECK(!core.given);
    CHECK(core.hz == 0.0 || (core.hz > 1e6 && core.hz < 1e11 && core.trials == RTB_CORE_TRIALS));
    printf("core clock %.0f Hz (%llu adds, best of %u)\n", core.hz,
           (unsigned long long)core.adds, core.trials);

    struct rtb_calib c;
    rtb_calibrate(&c, &scratch, 0, 0, 0, 0);
    CHECK(c.samples == RTB_CALIB_PAIRS);
    CHECK(c.overhead_min <= c.overhead_median);
    CHECK(c.hz_measured && c.hz > 1e6 && c.hz < 1e11);
    printf("overhead min %llu median %llu ticks, resolution %llu ticks, %.0f Hz\n",
           (unsigned long long)c.overhead_min, (unsigned long long)c.overhead_median,
           (unsigned long long)c.resolution, c.hz);
    return CHECK_DONE();
}
