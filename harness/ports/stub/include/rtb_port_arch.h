/*
 * Stub port (template for a bare-metal Cortex-M port): the timestamp is the
 * DWT cycle counter, CYCCNT, read from its memory-mapped register. It is 32
 * bits wide; a real port extends it to 64 bits with rtb/ts32.h (the
 * FreeRTOS port's AN385 board does, for its TIMER0).
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
