/*
 * rtb_port_arch.h — the ThreadX port's inline timestamp (contract:
 * harness/include/rtb/port.h): the board's counter and its unit, exactly as
 * the FreeRTOS port reads them, so both kernels are measured by the same
 * instructions.
 */
#ifndef RTB_PORT_ARCH_H
#define RTB_PORT_ARCH_H

#include <stdint.h>

#include "rtb_board_ts.h"

static inline uint64_t rtb_port_ts(void)
{
    return rtb_board_ts();
}

#define RTB_PORT_UNITS(delta) rtb_board_ts_to_unit(delta)

#ifdef RTB_BOARD_KNOWN_WORK
#define RTB_PORT_KNOWN_WORK() RTB_BOARD_KNOWN_WORK()
#define RTB_PORT_KNOWN_WORK_COST RTB_BOARD_KNOWN_WORK_COST
#endif

#endif
