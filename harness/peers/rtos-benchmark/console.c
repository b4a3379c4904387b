/*
 * console.c — PRINTF for rtos-benchmark (include/fsl_debug_console.h): a
 * small formatter writing to the board's UART0, polled. It takes what
 * rtos-benchmark's format strings use: flags '-' and '0', a width, the
 * length modifiers l and ll, and %d %i %u %x %c %s %%. newlib-nano's own
 * printf cannot print the %llu of bench_stats_report_line.
 */
#include <stdarg.h>
#include <stdint.h>

#include "fsl_debug_console.h"
#include "rtb_board.h"

static int pad(int n, char c)
{
    for (int i = 0; i < n; i++)
        rtb_board_putc(c);
    return n > 0 ? n : 0;
}

/* s (len characters) in a field of width, right-aligned unless left. */
static int field(const char *s, int len, int width, int left, char fill)
{
    int n = left ? 0 : pad(width - len, fill);
    rtb_board_write(s, (size_t)len);
    return n + len + (left ? pad(width - len, ' ') : 0);
}

static int number(uint64_t v, int negative, unsigned base, int width, int left, char fill)
{
    char buf[24];
    int n = 0;
    do {
        unsigned d = (unsigned)(v % base);
        buf[sizeof buf - 1 - n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
        v /= base;
    } while (v);
    if (negative)
        buf[sizeof buf - 1 - n++] = '-';
    return field(buf + sizeof buf - n, n, width, left, left ? ' ' : fill);
}

int rtosbench_printf(const char *fmt, ...)
{
    va_list ap;
    int out = 0;

    va_start(ap, fmt);
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            rtb_board_putc(*p);
            out++;
            continue;
        }
        int left = 0, width = 0, lng = 0;
        char fill = ' ';
        for (p++; *p == '-' || *p == '0'; p++) {
            if (*p == '-')
                left = 1;
            else
                fill = '0';
        }
        for (; *p >= '0' && *p <= '9'; p++)
            width = width * 10 + (*p - '0');
        for (; *p == 'l'; p++)
            lng++;
        switch (*p) {
        case 'd':
        case 'i': {
            int64_t v = lng >= 2 ? va_arg(ap, long long) : lng ? va_arg(ap, long) : va_arg(ap, int);
            out += number(v < 0 ? 0u - (uint64_t)v : (uint64_t)v, v < 0, 10, width, left, fill);
            break;
        }
        case 'u':
        case 'x': {
            uint64_t v = lng >= 2 ? va_arg(ap, unsigned long long)
                         : lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
            out += number(v, 0, *p == 'x' ? 16u : 10u, width, left, fill);
            break;
        }
        case 'c': {
            char c = (char)va_arg(ap, int);
            out += field(&c, 1, width, left, ' ');
            break;
        }
        case 's': {
            const char *s = va_arg(ap, const char *);
            int len = 0;
            if (!s)
                s = "(null)";
            while (s[len])
                len++;
            out += field(s, len, width, left, ' ');
            break;
        }
        case '%':
            rtb_board_putc('%');
            out++;
            break;
        default: /* not one of ours: show it rather than guess its argument */
            rtb_board_putc('%');
            out++;
            if (!*p)
                goto done;
            rtb_board_putc(*p);
            out++;
            break;
        }
    }
done:
    va_end(ap);
    return out;
}
