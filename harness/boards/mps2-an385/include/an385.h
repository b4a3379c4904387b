/*
 * an385.h — the registers of the MPS2 AN385 (Cortex-M3) this board code uses,
 * defined here so that no vendor CMSIS header is needed.
 *
 * Sources: ARM AN385 "Cortex-M3 SMM on V2M-MPS2" (memory map, IRQ numbers),
 * the CMSDK TRM DDI0479 (UART, APB timer, dual timer), the ARMv7-M ARM (NVIC,
 * SCB, SysTick, DWT). The IRQ numbers were checked against QEMU 7.2's
 * hw/arm/mps2.c and by experiment (tests/irqmap.c reads NVIC ISPR).
 */
#ifndef AN385_H
#define AN385_H

#include <stddef.h>
#include <stdint.h>

#include "cortex_m.h"

#define AN385_SYSCLK_HZ 25000000u /* CPU (HCLK) and APB (PCLK) clock */

/* ---- CMSDK APB UART (TRM DDI0479 4.2) ----------------------------------- */
struct an385_uart {
    volatile uint32_t data;     /* 0x00 RX/TX byte */
    volatile uint32_t state;    /* 0x04 bit0 TXFULL, bit1 RXFULL, bits2-3 overrun (W1C) */
    volatile uint32_t ctrl;     /* 0x08 bit0 TXEN, bit1 RXEN, interrupt enables above */
    volatile uint32_t intstat;  /* 0x0C read status / write 1 to clear */
    volatile uint32_t bauddiv;  /* 0x10 PCLK / baud, at least 16 */
};
#define AN385_UART_STATE_TXFULL (1u << 0)
#define AN385_UART_STATE_RXFULL (1u << 1)
#define AN385_UART_CTRL_TXEN (1u << 0)
#define AN385_UART_CTRL_RXEN (1u << 1)
#define AN385_UART0 ((struct an385_uart *)0x40004000u)

/* ---- CMSDK APB timer (TRM DDI0479 4.4): 32-bit down-counter at PCLK ------
 * Counts VALUE down to 0, raises the interrupt on the 1 -> 0 step, holds 0 for
 * one tick and then reloads RELOAD: the period is RELOAD + 1 ticks. Writing
 * RELOAD also loads VALUE (QEMU and the TRM agree). */
struct an385_timer {
    volatile uint32_t ctrl;     /* 0x00 bit0 EN, bit3 IRQEN */
    volatile uint32_t value;    /* 0x04 current count */
    volatile uint32_t reload;   /* 0x08 reload value */
    volatile uint32_t intstat;  /* 0x0C bit0 pending, write 1 to clear */
};
#define AN385_TIMER_CTRL_EN (1u << 0)
#define AN385_TIMER_CTRL_IRQEN (1u << 3)
#define AN385_TIMER0 ((struct an385_timer *)0x40000000u)
#define AN385_TIMER1 ((struct an385_timer *)0x40001000u)

/* ---- CMSDK APB dual timer (an SP804; TRM DDI0479 4.5) ------------------ */
struct an385_dualtimer {
    volatile uint32_t load;     /* 0x00 start value; writing restarts the count */
    volatile uint32_t value;    /* 0x04 current count */
    volatile uint32_t ctrl;     /* 0x08 see AN385_DT_CTRL_* */
    volatile uint32_t intclr;   /* 0x0C any write clears the interrupt */
    volatile uint32_t ris;      /* 0x10 raw interrupt status */
    volatile uint32_t mis;      /* 0x14 masked interrupt status */
    volatile uint32_t bgload;   /* 0x18 reload for the next period only */
    uint32_t reserved;          /* 0x1C */
};
#define AN385_DT_CTRL_ONESHOT (1u << 0)
#define AN385_DT_CTRL_32BIT (1u << 1)
#define AN385_DT_CTRL_INTEN (1u << 5)
#define AN385_DT_CTRL_PERIODIC (1u << 6)
#define AN385_DT_CTRL_EN (1u << 7)
#define AN385_DUALTIMER1 ((struct an385_dualtimer *)0x40002000u)
#define AN385_DUALTIMER2 ((struct an385_dualtimer *)0x40002020u)

/* ---- External interrupts (AN385 interrupt map; QEMU hw/arm/mps2.c) ---- */
enum an385_irq {
    AN385_IRQ_UART0_RX = 0,
    AN385_IRQ_UART0_TX = 1,
    AN385_IRQ_UART1_RX = 2,
    AN385_IRQ_UART1_TX = 3,
    AN385_IRQ_UART2_RX = 4,
    AN385_IRQ_UART2_TX = 5,
    AN385_IRQ_GPIO0 = 6,
    AN385_IRQ_GPIO1 = 7,
    AN385_IRQ_TIMER0 = 8,
    AN385_IRQ_TIMER1 = 9,
    AN385_IRQ_DUALTIMER = 10,
    AN385_IRQ_SPI = 11,
    AN385_IRQ_UART_OVF = 12, /* overflow of UART 0, 1 and 2, ORed */
    AN385_IRQ_ETHERNET = 13,
    AN385_IRQ_I2S = 14,
    AN385_IRQ_TOUCHSCREEN = 15,
    AN385_IRQ_GPIO2 = 16,
    AN385_IRQ_GPIO3 = 17,
    AN385_IRQ_UART3_RX = 18,
    AN385_IRQ_UART3_TX = 19,
    AN385_IRQ_UART4_RX = 20,
    AN385_IRQ_UART4_TX = 21,
    AN385_IRQ_SPI2 = 22,
    AN385_IRQ_SPI3_4 = 23,
    AN385_IRQ_GPIO0_0 = 24, /* 24..31: GPIO0 pins 0..7 */
    AN385_IRQ_COUNT = 32
};

/* ---- Cortex-M3 core: cortex_m.h (NVIC, SCB, SysTick, DWT) -------------- */
/* Lines no device of QEMU's AN385 drives (GPIO0's pin interrupts, which
 * nothing enables): the interrupt rows raise them from software (rtb_board.h). */
#define AN385_SOFT_IRQ_FIRST AN385_IRQ_GPIO0_0
#define AN385_SOFT_IRQ_COUNT 8u
/* The same lines under the name every kernel port reads (any board). */
#define RTB_BOARD_SOFT_IRQ_FIRST AN385_SOFT_IRQ_FIRST
#define RTB_BOARD_SOFT_IRQ_COUNT AN385_SOFT_IRQ_COUNT
#define RTB_BOARD_IRQ_COUNT AN385_IRQ_COUNT /* the vector table's external lines */
#define RTB_BOARD_VECTORS_ALIGN 256 /* (16 + 32) words: 192 bytes */

_Static_assert(offsetof(struct an385_uart, bauddiv) == 0x10, "CMSDK UART layout");
_Static_assert(offsetof(struct an385_timer, intstat) == 0x0C, "CMSDK timer layout");
_Static_assert(sizeof(struct an385_dualtimer) == 0x20, "CMSDK dual timer layout");

#endif /* AN385_H */
