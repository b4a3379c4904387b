/*
 * fault.c — the default handler of every exception nobody claimed.
 *
 * A benchmark that hangs in an endless "default handler" loop looks like a
 * timeout on the host; one that says which exception it took, where, and
 * exits with a status that encodes it is diagnosed at once. So: print one
 * line on the console, then SYS_EXIT_EXTENDED with 64 + the exception number
 * (HardFault 67, TIMER1 IRQ 9 -> 64 + 16 + 9 = 89).
 */
#include <stdint.h>

#include "cortex_m.h"
#include "board_internal.h"
#include "rtb_board.h"

static const char *const system_names[16] = {
    "thread", "Reset", "NMI", "HardFault", "MemManage", "BusFault", "UsageFault",
    "reserved", "reserved", "reserved", "reserved", "SVCall", "DebugMonitor",
    "reserved", "PendSV", "SysTick",
};

static void put_hex(uint32_t v)
{
    static const char digits[] = "0123456789abcdef";
    rtb_board_puts("0x");
    for (int shift = 28; shift >= 0; shift -= 4)
        rtb_board_putc(digits[(v >> shift) & 0xFu]);
}

static void put_dec(uint32_t v)
{
    char buf[10];
    int n = 0;
    do {
        buf[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    while (n)
        rtb_board_putc(buf[--n]);
}

/* Called by rtb_board_unexpected() (startup.c) with the stacked frame of
 * the interrupted code (r0-r3, r12, lr, pc, xpsr) and EXC_RETURN. */
void rtb_board_report_exception(const uint32_t *frame, uint32_t exc_return)
{
    uint32_t ipsr;
    __asm volatile("mrs %0, ipsr" : "=r"(ipsr));
    uint32_t n = ipsr & 0x1FFu;

    rtb_board_console_init(); /* the fault may precede rtb_board_init() */
    rtb_board_puts("\nrtb-board: unexpected exception ");
    put_dec(n);
    rtb_board_puts(" (");
    if (n < 16u) {
        rtb_board_puts(system_names[n]);
    } else {
        rtb_board_puts("IRQ ");
        put_dec(n - 16u);
    }
    rtb_board_puts(") pc=");
    put_hex(frame[6]);
    rtb_board_puts(" lr=");
    put_hex(frame[5]);
    rtb_board_puts(" exc_return=");
    put_hex(exc_return);
    if (n >= 3u && n <= 6u) { /* the fault status says why */
        rtb_board_puts(" cfsr=");
        put_hex(CM_SCB_CFSR);
        rtb_board_puts(" hfsr=");
        put_hex(CM_SCB_HFSR);
        rtb_board_puts(" bfar=");
        put_hex(CM_SCB_BFAR);
    }
    rtb_board_putc('\n');
    rtb_board_exit(RTB_BOARD_EXIT_EXCEPTION(n));
}

/* ---- the watchdog's test hook (rtb_board.h) ---------------------------------- */
static const char *fault;

static int same(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

int rtb_board_fault_option(const char *name, const char *value)
{
    if (!same(name, "--fault"))
        return 0;
    fault = value;
    return 2;
}

void rtb_board_fault_point(const char *metric_id)
{
    if (!fault)
        return;
    if (!__builtin_strncmp(fault, "hang:", 5) && same(fault + 5, metric_id)) {
        (void)cm_irq_save();
        for (;;)
            ;
    }
    if (!__builtin_strncmp(fault, "crash:", 6) && same(fault + 6, metric_id))
        (void)*(volatile uint32_t *)0xF0000000u;
}
