/*
 * Zephyr port: the console on Zephyr's own driver of the board's UART (the
 * devicetree's zephyr,console), polled, so it works in any context. On an
 * MPS2 board it is the board's console (rtb_board.h), replacing the board's
 * console.c, which programs UART0 itself; on any other board it is where
 * the records go (rtb_port_write), with the one-address-space arena the
 * MPS2 board's port_board.c gives the other builds.
 */
#include <zephyr/device.h>
#include <zephyr/drivers/uart.h>

#if defined(RTB_BOARD_MPS2)
#include "board_internal.h"
#include "rtb_board.h"
#else
#include <rtb/port.h>
#endif

static const struct device *const uart = DEVICE_DT_GET(DT_CHOSEN(zephyr_console));

#if !defined(RTB_BOARD_MPS2)
void rtb_port_write(const char *s, size_t n)
{
    while (n--)
        uart_poll_out(uart, (unsigned char)*s++);
}

static unsigned char arena[128u * 1024u] __attribute__((aligned(16)));
static size_t arena_used;

void *rtb_port_shared(size_t size)
{
    size = (size + 15u) & ~(size_t)15u;
    if (size > sizeof arena - arena_used)
        return 0;
    arena_used += size;
    return &arena[arena_used - size];
}
#else
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
#endif
