/*
 * rtb_port_arch.h — the Zephyr port's timestamp (contract:
 * harness/include/rtb/port.h).
 *
 * On QEMU's MPS2 boards (RTB_BOARD_MPS2) the port reads the board's own
 * counter, CMSDK TIMER0, with the same stamps as the FreeRTOS and ThreadX
 * ports (boards/cortex-m/include/rtb_port_arch.h): the three kernels are
 * measured by the same instructions, and a figure is guest instructions
 * under QEMU -icount. Zephyr's own clock there is SysTick, which the
 * kernel reprograms; TIMER0 is not Zephyr's (no counter driver is built).
 *
 * On any other board (rtbench run --kernel zephyr --board NAME) the stamp
 * is Zephyr's timing counter (timing_counter_get: the DWT cycle counter on
 * a Cortex-M that has one, else the system timer), in CPU cycles or timer
 * cycles as that board's timing driver says.
 */
#ifndef RTB_ZEPHYR_PORT_ARCH_H
#define RTB_ZEPHYR_PORT_ARCH_H

#if defined(RTB_BOARD_MPS2)
#include "../../../boards/cortex-m/include/rtb_port_arch.h"
#else
#include <stdint.h>
#include <zephyr/timing/timing.h>

/* 64 bits from timing_counter_get() (32-bit counters are extended by
 * Zephyr's timing layer where it needs to). */
static inline uint64_t rtb_port_ts(void)
{
    return (uint64_t)timing_counter_get();
}
#endif

#endif /* RTB_ZEPHYR_PORT_ARCH_H */
