/*
 * counter_pick.h — the counter and clocks an STM32F4 image runs with, as
 * decided at start-up from two reads of DWT CYCCNT (counter_pick.c).
 */
#ifndef RTB_STM32F4_COUNTER_PICK_H
#define RTB_STM32F4_COUNTER_PICK_H

#include <stdbool.h>
#include <stdint.h>

#ifndef RTB_BOARD_ICOUNT_SHIFT
#define RTB_BOARD_ICOUNT_SHIFT 7
#endif
#define STM32F4_HSI_HZ 16000000u          /* the reset clock: core, APB timers, USARTs */
#define STM32F4_QEMU_SYSTICK_HZ 168000000u /* QEMU's netduinoplus2, whatever RCC says */

struct rtb_stm32f4_counter {
    bool dwt;            /* DWT CYCCNT; else TIM2 prescaled to instructions */
    uint32_t ts_hz;      /* counts per second (of virtual time on QEMU) */
    uint32_t systick_hz; /* the clock SysTick counts: the kernel tick's */
    const char *unit, *source, *unit_detail; /* for the records (rtb_port_info) */
};

/* Two reads of CYCCNT with work between: they differ where it counts. */
const struct rtb_stm32f4_counter *rtb_stm32f4_counter_pick(uint32_t first, uint32_t second);

#endif
