/*
 * rtb_port_arch.h — the inline timestamp of every kernel port on this board
 * (contract: harness/include/rtb/port.h). A kernel port owns no counter: it
 * reads the board's (rtb_board_ts.h), so FreeRTOS and ThreadX are measured
 * by the same instructions and report in the board's unit (instructions
 * under QEMU -icount, cycles on silicon).
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
