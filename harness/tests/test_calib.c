/* Calibration: the arithmetic, and a real calibration on this port giving
 * self-consistent figures (no thresholds on speed: only on consistency). */
#include "check.h"
#include "calib.h"
#include <math.h>

int main(void)
{
    static struct rtb_hist scratch;
    CHECK(fabs(rtb_calib_hz(260000000ull, 100000000ull) - 2.6e9) < 1e-3);
    CHECK(rtb_calib_hz(5, 0) == 0.0);
    CHECK(fabs(rtb_ticks_to_ns(2600.0, 2.6e9) - 1000.0) < 1e-9);
    /* no 64-bit overflow where cycles * 1e9 would exceed 2^64 */
    CHECK(fabs(rtb_ticks_to_ns(1e12, 2.5e9) - 4e11) < 1.0);
    CHECK(rtb_ticks_to_ns(100.0, 0.0) == 0.0);

    struct rtb_calib c;
    rtb_calibrate(&c, &scratch, 0, 0, 0);
    CHECK(c.samples == RTB_CALIB_PAIRS);
    CHECK(c.overhead_min <= c.overhead_median);
    CHECK(c.hz_measured && c.hz > 1e6 && c.hz < 1e11);
    printf("overhead min %llu median %llu ticks, resolution %llu ticks, %.0f Hz\n",
           (unsigned long long)c.overhead_min, (unsigned long long)c.overhead_median,
           (unsigned long long)c.resolution, c.hz);
    return CHECK_DONE();
}
