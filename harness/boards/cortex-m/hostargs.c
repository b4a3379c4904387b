/*
 * hostargs.c — the harness's command line when rtbench loads the image
 * through a GDB server (targets/gdbboard.py, docs/boards.md), and whether a
 * semihosting host is there.
 *
 * A board on a probe has no `-kernel` command line, and semihosting (how
 * QEMU passes it) needs a debugger that serves it; without one its BKPT is
 * a HardFault. So rtbench writes the line into RAM through the GDB server
 * (`restore FILE binary ADDR`, which every server supports) before it
 * starts the image: into rtb_board_args, in .noinit so start-up does not
 * zero it. The block is "rtbench-args nohost WORDS...\0" (or "host", when
 * the loader knows semihosting is served). rtb_board_cmdline (semihost.c)
 * takes it from here before asking a host; with "nohost" every semihosting
 * call is skipped from then on: the stamp log is not written and the end
 * of the run leaves the core spinning with interrupts masked, its last
 * line on the console (rtbench stops reading at the end record).
 *
 * QEMU's -kernel boot of the STM32F4 gives the image its line the same way
 * (a `-device loader` of the same block, targets/qemu.py), so that both
 * start-ups run the same instructions and measure the same figures; only
 * its end differs: the buffer's last bytes then hold EXIT_TAG, and the
 * image, after its last record, ends QEMU through semihosting.
 */
#include <stdbool.h>
#include <stddef.h>

#include "rtb_board.h"

#define MAGIC "rtbench-args "
#define EXIT_TAG "rtbench-semihost" /* targets/boardargs.py: EXIT_TAG */

char rtb_board_args[RTB_BOARD_CMDLINE_MAX] __attribute__((section(".noinit")));
bool rtb_board_no_host;

static bool starts(const char *s, const char *prefix, size_t *n)
{
    size_t i = 0;
    for (; prefix[i]; i++)
        if (s[i] != prefix[i])
            return false;
    *n = i;
    return true;
}

int rtb_board_loader_args(char *buf, size_t size)
{
    size_t skip, mode;
    const char *p = rtb_board_args;
    if (!starts(p, MAGIC, &skip))
        return -1;
    p += skip;
    if (starts(p, "nohost ", &mode))
        rtb_board_no_host = true;
    else if (!starts(p, "host ", &mode))
        return -1;
    p += mode;
    size_t n = 0;
    while (n < sizeof rtb_board_args - (size_t)(p - rtb_board_args) && p[n])
        n++;
    if (p + n == rtb_board_args + sizeof rtb_board_args || n + 1 > size)
        return -1; /* no NUL within the buffer, or too long: refused, never cut */
    for (size_t i = 0; i <= n; i++) /* forward: buf may be rtb_board_args itself */
        buf[i] = p[i];
    if (buf != rtb_board_args)
        rtb_board_args[0] = '\0'; /* used once: a reset without the loader asks the host */
    return (int)n;
}

bool rtb_board_exit_by_host(void)
{
    const char *tag = EXIT_TAG;
    const char *at = rtb_board_args + sizeof rtb_board_args - (sizeof EXIT_TAG - 1);
    for (size_t i = 0; tag[i]; i++)
        if (at[i] != tag[i])
            return false;
    return true;
}
