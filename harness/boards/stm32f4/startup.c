/*
 * startup.c — the STM32F4's vector table: the 16 system entries and the
 * STM32F405's 82 external interrupts (the F401's and F446's tables begin
 * with the same lines), linked at the start of flash (0x08000000, aliased
 * at 0 at reset). The reset entry is every Cortex-M board's
 * (boards/cortex-m/reset.c). Every entry the board code does not own is
 * rtb_board_unexpected (cortex-m/include/cm_vectors.h), which reports the
 * exception and ends the run; the named ones are weak aliases of it, so a
 * kernel port or the board's own files own one by defining the name (the
 * FreeRTOS port maps its handlers to SVC_Handler, PendSV_Handler and
 * SysTick_Handler in FreeRTOSConfig.h). The interrupt rows put their
 * handlers on lines through a RAM copy of this table (cortex-m/ramvec.c).
 */
#include "cm_vectors.h" /* rtb_board_unexpected, DEFAULT, rtb_vector_t */
#include "stm32f4.h"

CM_SYSTEM_HANDLERS;
DEFAULT(DMA1_Stream6_IRQHandler); /* irqsrc.c: the interrupt source */
DEFAULT(TIM3_IRQHandler);         /* irqsrc.c: the one-shot */
DEFAULT(TIM5_IRQHandler);         /* counter.c: the extension's keep-alive */

/* Every external line defaults to the report; the board's three after it
 * (a later designator replaces an earlier one: C11 6.7.9). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
__attribute__((section(".vectors"), used))
const rtb_vector_t rtb_board_vectors[SYSTEM_VECTORS + STM32F4_IRQ_COUNT] = {
    CM_SYSTEM_VECTORS,
    [SYSTEM_VECTORS ... SYSTEM_VECTORS + STM32F4_IRQ_COUNT - 1] = { rtb_board_unexpected },
    [SYSTEM_VECTORS + STM32F4_IRQ_SOURCE] = { DMA1_Stream6_IRQHandler },
    [SYSTEM_VECTORS + STM32F4_IRQ_TIM3] = { TIM3_IRQHandler },
    [SYSTEM_VECTORS + STM32F4_IRQ_TIM5] = { TIM5_IRQHandler },
};
#pragma GCC diagnostic pop
