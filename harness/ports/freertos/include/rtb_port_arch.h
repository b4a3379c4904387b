/*
 * rtb_port_arch.h — the FreeRTOS port's inline timestamp (contract:
 * harness/include/rtb/port.h). The port owns no counter: it reads the
 * board's (boards/<board>/include/rtb_board_ts.h), so the same port runs
 * on any board that provides one, and reports in the board's unit
 * (instructions under QEMU -icount, cycles on silicon).
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
