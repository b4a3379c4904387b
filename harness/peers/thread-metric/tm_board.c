/*
 * tm_board.c — what Thread-Metric needs from the board, for every kernel:
 * its printf on the console, and a bounded run.
 *
 * Output: Thread-Metric's report threads print with printf ("%lu", "%d").
 * This file defines printf, puts and putchar on the board's UART (the
 * compiler turns a printf of a plain line into puts), so no C library
 * stdio, heap or system calls are linked: a few hundred instructions per
 * report, in the report thread, at the end of each period.
 *
 * Bounded: Thread-Metric runs forever (its report thread sleeps one period,
 * prints, and sleeps again). The image is linked with
 * --wrap=tm_thread_sleep, so the report thread's call lands here first;
 * after RTB_TM_PERIODS reports the next call ends the program
 * (semihosting exit 0) instead of sleeping. The report thread is the only
 * caller of tm_thread_sleep in every Thread-Metric test.
 */
#include <stdarg.h>
#include <stdint.h>

#include "rtb_board.h"

#ifndef RTB_TM_PERIODS
#define RTB_TM_PERIODS 3
#endif

void __real_tm_thread_sleep(int seconds);

void __wrap_tm_thread_sleep(int seconds)
{
    static unsigned calls;
    if (++calls > RTB_TM_PERIODS) {
        rtb_board_puts("rtb-thread-metric: ");
        rtb_board_putc((char)('0' + RTB_TM_PERIODS % 10));
        rtb_board_puts(" periods reported, end\n");
        rtb_board_exit(0);
    }
    __real_tm_thread_sleep(seconds);
}

static void put_unsigned(unsigned long v, unsigned base)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    while (n)
        rtb_board_putc(digits[--n]);
}

/* The conversions Thread-Metric uses (%d %u %lu %ld %x %s %c %%). */
int printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            rtb_board_putc(*p);
            continue;
        }
        int is_long = 0;
        if (*++p == 'l') {
            is_long = 1;
            p++;
        }
        switch (*p) {
        case 'd': {
            long v = is_long ? va_arg(ap, long) : va_arg(ap, int);
            if (v < 0) {
                rtb_board_putc('-');
                v = -v;
            }
            put_unsigned((unsigned long)v, 10);
            break;
        }
        case 'u':
            put_unsigned(is_long ? va_arg(ap, unsigned long) : va_arg(ap, unsigned), 10);
            break;
        case 'x':
            put_unsigned(is_long ? va_arg(ap, unsigned long) : va_arg(ap, unsigned), 16);
            break;
        case 's':
            rtb_board_puts(va_arg(ap, const char *));
            break;
        case 'c':
            rtb_board_putc((char)va_arg(ap, int));
            break;
        case '\0':
            p--;
            break;
        default:
            rtb_board_putc(*p);
        }
    }
    va_end(ap);
    return 0;
}

int puts(const char *s)
{
    rtb_board_puts(s);
    rtb_board_putc('\n');
    return 0;
}

int putchar(int c)
{
    rtb_board_putc((char)c);
    return c;
}
