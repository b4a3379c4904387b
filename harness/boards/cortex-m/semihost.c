/*
 * semihost.c — the Arm semihosting calls the board needs: end the program
 * with a status, read the host's command line, and write a host file (the
 * stamp log, core/stamplog.h).
 *
 * On M-profile a semihosting call is BKPT 0xAB with the operation in r0 and
 * a pointer to its parameter block in r1; the result comes back in r0. QEMU
 * answers it when started with -semihosting-config enable=on (target=native
 * keeps it off any attached gdb). Without a host the BKPT is a debug event:
 * HardFault on silicon with no debugger attached.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board_internal.h"
#include "rtb_board.h"

#define SYS_OPEN 0x01u
#define SYS_WRITE 0x05u
#define SYS_GET_CMDLINE 0x15u
#define SYS_EXIT 0x18u
#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u
#define ADP_STOPPED_RUNTIME_ERROR_UNKNOWN 0x20023u

/* A board started by rtbench's GDB loader without a semihosting host
 * (hostargs.c) makes no call; these defaults are for builds without it. */
__attribute__((weak)) bool rtb_board_no_host;
__attribute__((weak)) int rtb_board_loader_args(char *buf, size_t size)
{
    (void)buf, (void)size;
    return -1;
}
__attribute__((weak)) bool rtb_board_exit_by_host(void)
{
    return false;
}

static int32_t semihost_call(uint32_t op, void *block)
{
    register uint32_t r0 __asm("r0") = op;
    register void *r1 __asm("r1") = block;
    __asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return (int32_t)r0;
}

void rtb_board_exit(int status)
{
    /* SYS_EXIT_EXTENDED carries any status. Plain SYS_EXIT on AArch32 takes
     * the reason code itself in r1, so it can only say "ok" or "error": it
     * is the fallback for a host without the extension. */
    uint32_t block[2] = { ADP_STOPPED_APPLICATION_EXIT, (uint32_t)status };
    rtb_board_console_flush();
    /* The end line is out: the loader's reader stops there. QEMU's -kernel
     * boot of an image that takes its line from RAM as a board does asks
     * for the semihosting exit all the same (hostargs.c), after the last
     * record, so that QEMU ends with the status. */
    if (rtb_board_no_host && !rtb_board_exit_by_host())
        for (;;)
            __asm volatile("cpsid i");
    semihost_call(SYS_EXIT_EXTENDED, block);
    semihost_call(SYS_EXIT, (void *)(uintptr_t)(status == 0 ? ADP_STOPPED_APPLICATION_EXIT
                                                            : ADP_STOPPED_RUNTIME_ERROR_UNKNOWN));
    /* No host to return to: stop here with interrupts off. */
    for (;;)
        __asm volatile("cpsid i\n\twfi");
}

int rtb_board_cmdline(char *buf, size_t size)
{
    /* In: buffer and its size. Out: the line NUL-terminated, and its length
     * (without the NUL) in block[1]. QEMU fails the call, returning -1, when
     * the line and its NUL do not fit: nothing is truncated silently. */
    uint32_t block[2] = { (uint32_t)(uintptr_t)buf, (uint32_t)size };
    int loaded = rtb_board_loader_args(buf, size); /* written by rtbench's GDB loader */

    if (loaded >= 0)
        return loaded;
    if (size == 0 || rtb_board_no_host || semihost_call(SYS_GET_CMDLINE, block) != 0)
        return -1;
    return (int)block[1];
}

/* Weak: a board may keep the stamp log elsewhere (boards/stm32f4/stamplog_usart.c). */
__attribute__((weak)) int rtb_board_host_open(const char *path)
{
    /* Mode 5 is "wb": created, or emptied. Returns a handle, or -1. */
    size_t len = 0;
    while (path[len])
        len++;
    uint32_t block[3] = { (uint32_t)(uintptr_t)path, 5u, (uint32_t)len };
    return rtb_board_no_host ? -1 : semihost_call(SYS_OPEN, block);
}

__attribute__((weak)) int rtb_board_host_write(int handle, const void *buf, size_t n)
{
    /* The call answers the bytes it did not write: 0 when all were. */
    uint32_t block[3] = { (uint32_t)handle, (uint32_t)(uintptr_t)buf, (uint32_t)n };
    return !rtb_board_no_host && semihost_call(SYS_WRITE, block) == 0 ? 0 : -1;
}
