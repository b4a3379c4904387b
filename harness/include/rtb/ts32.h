/*
 * rtb/ts32.h — extend a 32-bit up-counting hardware counter to the core's
 * 64-bit timestamps.
 *
 * The extension keeps the last 64-bit value; a read adds the 32-bit
 * distance travelled since (modulo 2^32). That is exact as long as the
 * counter is read at least once per wrap period (TIMER0 at 25 MHz wraps
 * every 171.8 s; a running benchmark reads it thousands of times a
 * second). The caller makes the read-modify-write atomic against
 * interrupts that also read the counter (a PRIMASK-saving section on
 * Cortex-M): a reader interrupted between the load and the store would
 * otherwise store an older value after the handler's newer one, and time
 * would step back.
 */
#ifndef RTB_TS32_H
#define RTB_TS32_H

#include <stdint.h>

struct rtb_ts32 {
    uint64_t last;
};

static inline uint64_t rtb_ts32_extend(struct rtb_ts32 *x, uint32_t now)
{
    uint64_t t = x->last + (uint32_t)(now - (uint32_t)x->last);
    x->last = t;
    return t;
}

#endif
