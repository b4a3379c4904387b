/*
 * stamplog_usart.c — the stamp log's "host file" (core/stamplog.h,
 * rtb_board_host_open/write) on this board: the bytes go to the USART the
 * console leaves free (USART1 beside a USART2 console), written to its data
 * register without waiting.
 *
 * Why not semihosting: a board on a probe has no semihosting host, and an
 * image that wrote its log through semihosting under QEMU and not on the
 * board would run other instructions between metrics, so the kernel tick
 * would fall in other samples and the two start-ups would not measure the
 * same figures. Here both run the same stores: QEMU's -kernel boot saves
 * that USART to the log file (`-serial file:stamps.log`, targets/qemu.py),
 * where the audit and the cycle model read it; on silicon the USART is
 * left unclocked (its RCC enable is never set), so the stores are ignored
 * and cost a few cycles between metrics, never inside a window.
 * QEMU's USART sends what DR receives whether or not it is enabled.
 */
#include <stddef.h>

#include "rtb_board.h"
#include "stm32f4.h"

#if defined(RTB_STM32F4_CONSOLE_USART1)
#define LOG_USART STM32F4_USART2
#else
#define LOG_USART STM32F4_USART1
#endif

int rtb_board_host_open(const char *path)
{
    (void)path; /* the file is QEMU's: its -serial names it */
    return 0;
}

int rtb_board_host_write(int handle, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    (void)handle;
    for (size_t i = 0; i < n; i++)
        LOG_USART->dr = p[i];
    return 0;
}
