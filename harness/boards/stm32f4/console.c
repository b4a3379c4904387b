/*
 * console.c — the console: USART2 by default (PA2/PA3, the ST-LINK virtual
 * COM port of every Nucleo-64 board), USART1 (PA9/PA10) when built with
 * -DRTB_STM32F4_CONSOLE=USART1 (board.cmake), polled, 115200 8N1.
 *
 * Polled, as on the AN385: output is written between measurements, and a
 * polled putc works in any context (faults included) with nothing buffered
 * to lose when the program ends. The clock enables and pin functions are
 * written for silicon; QEMU ignores them (it models no RCC and no GPIO
 * alternate functions) and prints what DR receives. Nothing waits on RCC.
 */
#include "board_internal.h"
#include "rtb_board.h"
#include "stm32f4.h"

#define CONSOLE_BAUD 115200u

#if defined(RTB_STM32F4_CONSOLE_USART1)
#define CONSOLE STM32F4_USART1
#define TX_PIN 9u /* PA9, PA10: AF7 */
#else
#define CONSOLE STM32F4_USART2
#define TX_PIN 2u /* PA2, PA3: AF7 */
#endif

static void pins_af7(unsigned tx)
{
    struct stm32f4_gpio *g = STM32F4_GPIOA;
    for (unsigned pin = tx; pin <= tx + 1u; pin++) {
        g->moder = (g->moder & ~(3u << (2u * pin))) | (2u << (2u * pin));
        volatile uint32_t *afr = &g->afr[pin >> 3];
        *afr = (*afr & ~(0xFu << (4u * (pin & 7u)))) | (7u << (4u * (pin & 7u)));
    }
}

void rtb_board_console_init(void)
{
    struct stm32f4_usart *u = CONSOLE;
    const uint32_t on = STM32F4_USART_CR1_UE | STM32F4_USART_CR1_TE | STM32F4_USART_CR1_RE;

    /* Set up in full even when a previous start left it on (a GDB loader
     * starts the image without a reset): every start runs the same
     * instructions, so the kernel tick falls where it falls after a reset. */
    STM32F4_RCC_AHB1ENR |= STM32F4_RCC_AHB1_GPIOA;
#if defined(RTB_STM32F4_CONSOLE_USART1)
    STM32F4_RCC_APB2ENR |= STM32F4_RCC_APB2_USART1;
#else
    STM32F4_RCC_APB1ENR |= STM32F4_RCC_APB1_USART2;
#endif
    pins_af7(TX_PIN);
    /* 16 MHz / 115200 = 138.9: BRR 139 (mantissa 8, fraction 11), 0.08 % off. */
    u->brr = (STM32F4_HSI_HZ + CONSOLE_BAUD / 2u) / CONSOLE_BAUD;
    u->cr1 = on; /* no USART interrupts: polled */
}

void rtb_board_putc(char c)
{
    struct stm32f4_usart *u = CONSOLE;

    if (!(u->cr1 & STM32F4_USART_CR1_TE))
        rtb_board_console_init();
    while (!(u->sr & STM32F4_USART_SR_TXE))
        ;
    u->dr = (uint8_t)c;
}

/* Until the last byte has left the shift register (TC): on silicon a byte
 * still in it is lost when the run ends or the probe halts the core. */
void rtb_board_console_flush(void)
{
    struct stm32f4_usart *u = CONSOLE;

    if (u->cr1 & STM32F4_USART_CR1_TE)
        while (!(u->sr & STM32F4_USART_SR_TC))
            ;
}

int rtb_board_getc(void)
{
    struct stm32f4_usart *u = CONSOLE;

    if (!(u->sr & STM32F4_USART_SR_RXNE))
        return -1;
    return (int)(u->dr & 0xFFu);
}
