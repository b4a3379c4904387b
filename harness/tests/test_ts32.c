/* rtb/ts32.h: a 32-bit counter extended to 64 bits across wraps. */
#include "check.h"
#include <rtb/ts32.h>

int main(void)
{
    struct rtb_ts32 x = {0};
    CHECK(rtb_ts32_extend(&x, 5) == 5);
    CHECK(rtb_ts32_extend(&x, 0xFFFFFFF0u) == 0xFFFFFFF0u);
    /* the wrap: 0x10 after 0xFFFFFFF0 is 0x20 ticks later */
    CHECK(rtb_ts32_extend(&x, 0x10u) == 0x100000010ull);
    CHECK(rtb_ts32_extend(&x, 0x10u) == 0x100000010ull); /* no movement, no step */
    /* many wraps, read often enough: time only moves forward */
    uint64_t prev = x.last;
    uint32_t raw = 0x10u;
    for (int i = 0; i < 100000; i++) {
        raw += 0x9E3779u; /* under 2^32 between reads */
        uint64_t t = rtb_ts32_extend(&x, raw);
        CHECK(t - prev == 0x9E3779u);
        CHECK((uint32_t)t == raw);
        prev = t;
    }
    return CHECK_DONE();
}
