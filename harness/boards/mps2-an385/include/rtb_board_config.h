/*
 * rtb_board_config.h — the MPS2 AN385's (and AN386's) sizes, which the
 * kernels' configurations and the shared Cortex-M code read: every board
 * has this header, with its own numbers for its RAM (4 MiB here).
 * Macros only (a kernel's configuration header includes it).
 */
#ifndef RTB_BOARD_CONFIG_H
#define RTB_BOARD_CONFIG_H

/* The kernel's heap (FreeRTOS heap_4, ThreadX's byte pool): 256 KiB, for the
 * heap rows and dynamic creation. */
#define RTB_BOARD_HEAP_BYTES 262144
/* The stamp log's buffer (core/stamplog.h): a metric's samples at the
 * default --samples 10000 and room to spare, 128 KiB; and the shared arena
 * (port_board.c, rtb_port_shared), as much again. */
#define RTB_BOARD_STAMPLOG_PAIRS 16384u
#define RTB_BOARD_ARENA_SIZE (128u * 1024u)
/* The longest command line the kernel ports' main() accept: --only with
 * every id of the catalogue fits. */
#define RTB_BOARD_CMDLINE_MAX (24u * 1024u)

/* The interrupt capabilities the board's source gives (rtb/port.h): a
 * timer whose expiry is placed, and bare handlers of it. */
#define RTB_BOARD_IRQ_CAPS (RTB_CAP_IRQ_TIMED | RTB_CAP_IRQ_BARE)

#ifndef __ASSEMBLER__
#include <stdint.h>
/* SysTick's clock (rtb_board.h), for configCPU_CLOCK_HZ. */
uint32_t rtb_board_systick_hz(void);
#endif

#endif /* RTB_BOARD_CONFIG_H */
