/*
 * console.c — CMSDK UART0 (0x40004000), polled transmit and receive.
 *
 * Polled, not interrupt-driven: output is written between measurements, and
 * a polled putc works in any context (faults included) with no buffer to
 * lose when the program exits right after printing.
 *
 * Pitfall: writing DATA before CTRL.TXEN is set leaves STATE.TXFULL stuck at
 * 1 in QEMU (the byte is never sent), and a polled putc then waits for ever.
 * So transmit is enabled here before any byte is written, and putc enables
 * the console itself if nobody did.
 */
#include "an385.h"
#include "board_internal.h"
#include "rtb_board.h"

#define CONSOLE_BAUD 115200u

void rtb_board_console_init(void)
{
    struct an385_uart *u = AN385_UART0;
    const uint32_t on = AN385_UART_CTRL_TXEN | AN385_UART_CTRL_RXEN;

    if ((u->ctrl & on) == on)
        return;
    /* QEMU ignores the rate but needs BAUDDIV >= 16; silicon needs it right. */
    u->bauddiv = AN385_SYSCLK_HZ / CONSOLE_BAUD;
    u->ctrl = on; /* no UART interrupts: polled */
}

void rtb_board_putc(char c)
{
    struct an385_uart *u = AN385_UART0;

    if (!(u->ctrl & AN385_UART_CTRL_TXEN))
        rtb_board_console_init();
    while (u->state & AN385_UART_STATE_TXFULL)
        ;
    u->data = (uint8_t)c;
}

void rtb_board_console_flush(void)
{
    struct an385_uart *u = AN385_UART0;

    if (u->ctrl & AN385_UART_CTRL_TXEN)
        while (u->state & AN385_UART_STATE_TXFULL)
            ;
}

int rtb_board_getc(void)
{
    struct an385_uart *u = AN385_UART0;

    if (!(u->state & AN385_UART_STATE_RXFULL))
        return -1;
    return (int)(u->data & 0xFFu);
}
