/*
 * rtb_board_port.h — the part of a kernel port that is the board's, not the
 * kernel's: the output (the UART), the shared region (one address space: a
 * static arena) and the fields of rtb_port_info that describe the counter
 * and the CPU. Every kernel port on this board links port_board.c and fills
 * only its kernel's fields after rtb_board_port_info().
 */
#ifndef RTB_BOARD_PORT_H
#define RTB_BOARD_PORT_H

#include <rtb/port.h>

/* The counter, its unit and the CPU: ts_source, ref_clock, ts_hz_nominal,
 * unit, unit_detail, resolution, mlock, cpu, cpus_online, realtime and an
 * empty rt_reason (the kernel's fixed-priority scheduler is real-time). */
void rtb_board_port_info(struct rtb_port_info *o);

#endif
