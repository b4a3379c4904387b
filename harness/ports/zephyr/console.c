/*
 * Zephyr port: the board's console (rtb_board.h) on Zephyr's own driver of
 * the board's UART (the devicetree's zephyr,console), polled, so it works
 * in any context. Replaces the board's console.c, which programs UART0
 * itself.
 */
#include <zephyr/device.h>
#include <zephyr/drivers/uart.h>

#include "board_internal.h"
#include "rtb_board.h"

static const struct device *const uart = DEVICE_DT_GET(DT_CHOSEN(zephyr_console));

void rtb_board_console_init(void)
{
}

void rtb_board_putc(char c)
{
    uart_poll_out(uart, (unsigned char)c);
}

void rtb_board_write(const char *s, size_t n)
{
    while (n--)
        rtb_board_putc(*s++);
}

void rtb_board_puts(const char *s)
{
    while (*s)
        rtb_board_putc(*s++);
}

void rtb_board_console_flush(void)
{
}

int rtb_board_getc(void)
{
    unsigned char c;
    return uart_poll_in(uart, &c) == 0 ? c : -1;
}
