/*
 * console_text.c — text on any Cortex-M board's console, a byte at a time
 * through its polled rtb_board_putc (the board's console.c), so it works in
 * any context, faults included.
 */
#include "rtb_board.h"

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
