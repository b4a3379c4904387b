/*
 * rtb_port_arch.h — the inline timestamp of every kernel port on this board
 * (contract: harness/include/rtb/port.h). A kernel port owns no counter: it
 * reads the board's (rtb_board_ts.h), so FreeRTOS and ThreadX are measured
 * by the same instructions and report in the board's unit (instructions
 * under QEMU -icount, cycles on silicon). Shared by every Cortex-M board.
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

/* Window stamps: the raw 32-bit count (rtb_board_ts.h), and the timing
 * primitives of rtb/kcall.h in assembly (kcall.S). */
#define RTB_PORT_STAMP 1
typedef uint32_t rtb_stamp_t;
typedef int32_t rtb_stamp_diff_t;
static inline rtb_stamp_t rtb_port_stamp_start(void) { return rtb_board_stamp_start(); }
static inline rtb_stamp_t rtb_port_stamp_end(void) { return rtb_board_stamp_end(); }

/* A stamp run's entry is the counter as read (kcall.S rtb_port_stamp_run):
 * the board turns it into a stamp (a down-counter's is inverted). */
#define RTB_PORT_STAMP_RUN_VALUE(entry) RTB_BOARD_STAMP_RUN_VALUE(entry)

/* A stamp into a slot (rtb/irq_isr.h): its store is marked rtbench's. */
#define RTB_PORT_STAMP_OPEN_TO(slot) RTB_BOARD_STAMP_OPEN_TO(slot)
#define RTB_PORT_STAMP_CLOSE_TO(slot) RTB_BOARD_STAMP_CLOSE_TO(slot)

/* The stamp log's buffer (core/stamplog.h): as many pairs as the board's
 * RAM allows (rtb_board_ts.h says why its number). */
#define RTB_PORT_STAMPLOG_PAIRS RTB_BOARD_STAMPLOG_PAIRS
/* A board too small for the AMX rows' stamp-run buffers says why. */
#ifdef RTB_BOARD_NO_ROOM_FOR_RUNS
#define RTB_PORT_NO_ROOM_FOR_RUNS RTB_BOARD_NO_ROOM_FOR_RUNS
#endif

#ifdef RTB_BOARD_KNOWN_WORK
#define RTB_PORT_KNOWN_WORK() RTB_BOARD_KNOWN_WORK()
#define RTB_PORT_KNOWN_WORK_COST RTB_BOARD_KNOWN_WORK_COST
#endif

#endif
