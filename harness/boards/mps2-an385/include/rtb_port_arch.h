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

/* Window stamps: the raw 32-bit count (rtb_board_ts.h), and the timing
 * primitives of rtb/kcall.h in assembly (kcall.S). */
#define RTB_PORT_STAMP 1
typedef uint32_t rtb_stamp_t;
typedef int32_t rtb_stamp_diff_t;
static inline rtb_stamp_t rtb_port_stamp_start(void) { return rtb_board_stamp_start(); }
static inline rtb_stamp_t rtb_port_stamp_end(void) { return rtb_board_stamp_end(); }

/* The interrupt source's handler acknowledged it (rtb_board_irqsrc_ack
 * cleared TIMER1's interrupt enable; arming sets it). */
#define RTB_PORT_IRQ_HANDLED() ((AN385_TIMER1->ctrl & AN385_TIMER_CTRL_IRQEN) == 0u)

/* For the window audit: `fn` is an interrupt handler whose windows open
 * when its interrupt is taken (kind 2 in .rtb_stamps, rtb_board_ts.h).
 * At file scope. */
#define RTB_PORT_MARK_RAISE(fn)                                                    \
    __asm(".pushsection .rtb_stamps, \"\", %progbits\n\t"                         \
          ".word " #fn ", 2\n\t"                                                   \
          ".popsection")

/* The stamp log's buffer (core/stamplog.h): a metric's samples at the
 * default --samples 10000 and room to spare, 128 KiB of the 4 MiB RAM. */
#define RTB_PORT_STAMPLOG_PAIRS 16384u

#ifdef RTB_BOARD_KNOWN_WORK
#define RTB_PORT_KNOWN_WORK() RTB_BOARD_KNOWN_WORK()
#define RTB_PORT_KNOWN_WORK_COST RTB_BOARD_KNOWN_WORK_COST
#endif

#endif
