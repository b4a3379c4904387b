/*
 * stm32f4.h — the registers of the STM32F4 this board code uses, defined
 * here so that no vendor header (CMSIS, the HAL) is needed.
 *
 * Sources: ST RM0090 (STM32F405/415/407/417…) and RM0368 (STM32F401), RM0383
 * (F411), RM0390 (F446): the same addresses and layouts for everything used
 * here (RCC enables, GPIOA, USART1/2, TIM2/3/5, the interrupt numbers below
 * 82). Checked on QEMU 7.2's netduinoplus2 (an STM32F405: ../shared
 * EMBEDDED.md, "STM32F4"); not on silicon.
 */
#ifndef STM32F4_H
#define STM32F4_H

#include <stddef.h>
#include <stdint.h>

#include "cortex_m.h"

/* The reset clock: the 16 MHz internal RC oscillator (HSI), no PLL, AHB and
 * APB prescalers 1, so the core, the APB1 timers and the USARTs all run at
 * 16 MHz, and flash needs no wait state (RM0090 table 10: 0 WS up to
 * 30 MHz). The board never touches RCC's clock tree: QEMU does not model it,
 * and a wait on a ready bit would hang there. */
/* STM32F4_HSI_HZ, and QEMU's fixed 168 MHz SysTick (hw/arm/stm32f405_soc.c:
 * the SoC's sysclk; EMBEDDED.md): counter_pick.h. */
#include "counter_pick.h"

/* ---- RCC: peripheral clock enables (RM0090 7.3) ---------------------------- */
#define STM32F4_RCC_AHB1ENR (*(volatile uint32_t *)0x40023830u)
#define STM32F4_RCC_APB1ENR (*(volatile uint32_t *)0x40023840u)
#define STM32F4_RCC_APB2ENR (*(volatile uint32_t *)0x40023844u)
#define STM32F4_RCC_AHB1_GPIOA (1u << 0)
#define STM32F4_RCC_APB1_TIM2 (1u << 0)
#define STM32F4_RCC_APB1_TIM3 (1u << 1)
#define STM32F4_RCC_APB1_TIM5 (1u << 3)
#define STM32F4_RCC_APB1_USART2 (1u << 17)
#define STM32F4_RCC_APB2_USART1 (1u << 4)

/* ---- GPIOA: the console's pins (RM0090 8.4) -------------------------------- */
struct stm32f4_gpio {
    volatile uint32_t moder;   /* 0x00 2 bits a pin: 10 = alternate function */
    volatile uint32_t otyper;  /* 0x04 */
    volatile uint32_t ospeedr; /* 0x08 */
    volatile uint32_t pupdr;   /* 0x0C */
    volatile uint32_t idr;     /* 0x10 */
    volatile uint32_t odr;     /* 0x14 */
    volatile uint32_t bsrr;    /* 0x18 */
    volatile uint32_t lckr;    /* 0x1C */
    volatile uint32_t afr[2];  /* 0x20 pins 0-7, 0x24 pins 8-15: 4 bits a pin */
};
#define STM32F4_GPIOA ((struct stm32f4_gpio *)0x40020000u)

/* ---- USART (RM0090 30.6) ------------------------------------------------- */
struct stm32f4_usart {
    volatile uint32_t sr;   /* 0x00 bit7 TXE, bit6 TC, bit5 RXNE */
    volatile uint32_t dr;   /* 0x04 */
    volatile uint32_t brr;  /* 0x08 mantissa << 4 | fraction (oversampling by 16) */
    volatile uint32_t cr1;  /* 0x0C bit13 UE, bit3 TE, bit2 RE */
    volatile uint32_t cr2;  /* 0x10 */
    volatile uint32_t cr3;  /* 0x14 */
    volatile uint32_t gtpr; /* 0x18 */
};
#define STM32F4_USART_SR_TXE (1u << 7)
#define STM32F4_USART_SR_TC (1u << 6)
#define STM32F4_USART_SR_RXNE (1u << 5)
#define STM32F4_USART_CR1_UE (1u << 13)
#define STM32F4_USART_CR1_TE (1u << 3)
#define STM32F4_USART_CR1_RE (1u << 2)
#define STM32F4_USART1 ((struct stm32f4_usart *)0x40011000u)
#define STM32F4_USART2 ((struct stm32f4_usart *)0x40004400u)

/* ---- General-purpose timers TIM2-TIM5 (RM0090 18.4) ------------------------ */
struct stm32f4_tim {
    volatile uint32_t cr1;   /* 0x00 bit0 CEN, bit3 OPM */
    volatile uint32_t cr2;   /* 0x04 */
    volatile uint32_t smcr;  /* 0x08 */
    volatile uint32_t dier;  /* 0x0C bit0 UIE */
    volatile uint32_t sr;    /* 0x10 bit0 UIF (write 0 to clear) */
    volatile uint32_t egr;   /* 0x14 bit0 UG: reload the prescaler and the count */
    volatile uint32_t ccmr1; /* 0x18 */
    volatile uint32_t ccmr2; /* 0x1C */
    volatile uint32_t ccer;  /* 0x20 */
    volatile uint32_t cnt;   /* 0x24 the count (32 bits on TIM2 and TIM5) */
    volatile uint32_t psc;   /* 0x28 the count advances every PSC + 1 timer clocks */
    volatile uint32_t arr;   /* 0x2C the update at CNT == ARR */
};
#define STM32F4_TIM_CR1_CEN (1u << 0)
#define STM32F4_TIM_CR1_OPM (1u << 3)
#define STM32F4_TIM_DIER_UIE (1u << 0)
#define STM32F4_TIM_SR_UIF (1u << 0)
#define STM32F4_TIM_EGR_UG (1u << 0)
#define STM32F4_TIM2 ((struct stm32f4_tim *)0x40000000u)
#define STM32F4_TIM3 ((struct stm32f4_tim *)0x40000400u)
#define STM32F4_TIM5 ((struct stm32f4_tim *)0x40000C00u)
#define STM32F4_TIM2_CNT_ADDR 0x40000024u

/* ---- External interrupts (RM0090 table 61; the F401/F411/F446 agree) ------ */
enum stm32f4_irq {
    STM32F4_IRQ_DMA1_STREAM0 = 11, /* 11..17: DMA1 streams 0..6 */
    STM32F4_IRQ_TIM2 = 28,
    STM32F4_IRQ_TIM3 = 29,
    STM32F4_IRQ_USART1 = 37,
    STM32F4_IRQ_USART2 = 38,
    STM32F4_IRQ_TIM5 = 50,
    STM32F4_IRQ_COUNT = 82 /* the STM32F405's lines (the F401's 85, F446's 97 start alike) */
};

/* Lines rtbench raises from software: DMA1 streams 0-5, which no rtbench
 * image starts (and QEMU does not model), so nothing else drives them on any
 * STM32F4; stream 6 (IRQ 17) is the board's own interrupt source
 * (irqsrc.c). A pended line needs no acknowledgement. */
#define RTB_BOARD_SOFT_IRQ_FIRST STM32F4_IRQ_DMA1_STREAM0
#define RTB_BOARD_SOFT_IRQ_COUNT 6u
#define STM32F4_IRQ_SOURCE (STM32F4_IRQ_DMA1_STREAM0 + 6)
#define RTB_BOARD_IRQ_COUNT STM32F4_IRQ_COUNT
#define RTB_BOARD_VECTORS_ALIGN 512 /* (16 + 82) words: 392 bytes */

_Static_assert(offsetof(struct stm32f4_usart, gtpr) == 0x18, "USART layout");
_Static_assert(offsetof(struct stm32f4_tim, arr) == 0x2C, "timer layout");
_Static_assert(offsetof(struct stm32f4_gpio, afr) == 0x20, "GPIO layout");

#endif /* STM32F4_H */
