/*
 * rtb_board_config.h — the STM32F4's sizes, which the kernels'
 * configurations and the shared Cortex-M code read (every board has this
 * header). The image is linked for the smallest part it is meant for, the
 * STM32F401RE's 96 KiB of SRAM (a larger F4 runs it unchanged), so every
 * buffer is sized here against that budget; stm32f4.ld checks the sum.
 * Macros only (a kernel's configuration header includes it).
 */
#ifndef RTB_BOARD_CONFIG_H
#define RTB_BOARD_CONFIG_H

/* The kernel's heap (FreeRTOS heap_4, ThreadX's byte pool): the stacks
 * (2 KiB each) of tasks created from it, queues' storage and the heap
 * rows' blocks. */
#define RTB_BOARD_HEAP_BYTES 10240
/* The stamp log's buffer (core/stamplog.h): 1024 pairs, 8 KiB, a quick
 * run's 1000 samples a metric. A metric with more logs its first 1024 and
 * says how many it had: the window audit (a few samples a metric) is
 * whole, and the cycle model, which prices every sample or none, leaves
 * such a row's estimate out with that reason. */
#define RTB_BOARD_STAMPLOG_PAIRS 1024u
/* The shared arena (rtb_port_shared): the runner's histogram (13 KiB with
 * RTB_HIST_MAX_LOG2=32, board.cmake), its context, and every scenario's
 * shared state (kept for the run; not the AMX rows' stamp runs: below). */
#define RTB_BOARD_ARENA_SIZE (16u * 1024u)
/* The AMX rows that follow a task through stamp runs (scenarios/amx.c)
 * need 24 KiB of buffers on top of this: not here. */
#define RTB_BOARD_NO_ROOM_FOR_RUNS                                                        \
    "its stamp-run buffers (8 and 16 KiB, scenarios/amx.c) do not fit beside the kernel " \
    "in the 96 KiB of RAM the STM32F4 image is linked for (the STM32F401's)"
/* The longest command line: --only with every id of the catalogue (about
 * 10 KB) fits. */
#define RTB_BOARD_CMDLINE_MAX (11u * 1024u)

/* The interrupt capabilities the board's source gives (rtb/port.h): none
 * beyond the software-raised rows (irqsrc.c says why), and the words every
 * kernel port gives for the rows that need them. */
#define RTB_BOARD_IRQ_CAPS 0u
#define RTB_BOARD_NO_IRQ_TIMER_WHY                                                         \
    "the STM32F4 board's interrupt source is a line pended from software (exact, and on "   \
    "every Cortex-M), taken at once: no expiry can be placed in a workload, and QEMU's "    \
    "STM32 timers interrupt late (boards/stm32f4/README.md)"

#ifndef __ASSEMBLER__
#include <stdint.h>
/* SysTick's clock (rtb_board.h), for configCPU_CLOCK_HZ. */
uint32_t rtb_board_systick_hz(void);
#endif

#endif /* RTB_BOARD_CONFIG_H */
