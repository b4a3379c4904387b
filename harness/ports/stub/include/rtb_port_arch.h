/*
 * Stub port (template for a bare-metal Cortex-M port): the timestamp is the
 * DWT cycle counter, CYCCNT, read from its memory-mapped register. It is 32
 * bits wide; a real port extends it to 64 bits (count wraps in a tick hook)
 * or keeps every measured interval under 2^32 cycles.
 */
#ifndef RTB_PORT_ARCH_H
#define RTB_PORT_ARCH_H

#include <stdint.h>

#define RTB_STUB_DWT_CYCCNT ((volatile uint32_t *)0xE0001004u)

static inline uint64_t rtb_port_ts(void)
{
    return *RTB_STUB_DWT_CYCCNT;
}

#endif
