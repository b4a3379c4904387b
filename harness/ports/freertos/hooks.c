/*
 * hooks.c — the application hooks FreeRTOSConfig.h turns on. A failure hook
 * says what failed on the console and ends the run with its own exit status
 * (rtb_freertos.h), so the host reports a cause instead of a timeout.
 */
#include "FreeRTOS.h"
#include "task.h"

#include "rtb_board.h"
#include "rtb_freertos.h"

static volatile uint32_t idle_count;

static void fail(const char *what, const char *detail, int status)
{
    portDISABLE_INTERRUPTS();
    rtb_board_puts("\nrtb-freertos: ");
    rtb_board_puts(what);
    if (detail) {
        rtb_board_puts(": ");
        rtb_board_puts(detail);
    }
    rtb_board_putc('\n');
    rtb_board_exit(status);
}

#if defined(RTB_FREERTOS_ASSERT) && RTB_FREERTOS_ASSERT
static void put_uint(unsigned v)
{
    char digits[10];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    while (n)
        rtb_board_putc(digits[--n]);
}

void rtb_freertos_assert_failed(const char *file, int line)
{
    portDISABLE_INTERRUPTS();
    rtb_board_puts("\nrtb-freertos: configASSERT failed: ");
    rtb_board_puts(file);
    rtb_board_putc(':');
    put_uint((unsigned)line);
    rtb_board_putc('\n');
    rtb_board_exit(RTB_FREERTOS_EXIT_ASSERT);
}

void vApplicationStackOverflowHook(TaskHandle_t task, char *name)
{
    (void)task;
    fail("stack overflow in task", name, RTB_FREERTOS_EXIT_STACK_OVERFLOW);
}
#endif

void vApplicationMallocFailedHook(void)
{
    fail("heap exhausted (configTOTAL_HEAP_SIZE)", NULL, RTB_FREERTOS_EXIT_MALLOC_FAILED);
}

/* Each pass of the idle loop. With RTB_FREERTOS_IDLE_WFI the core sleeps
 * until the next interrupt: under QEMU -icount sleep=off virtual time then
 * jumps to the next timer deadline at once; on silicon the wake-up adds to
 * interrupt latency. Off by default: a busy idle keeps virtual time equal to
 * instructions executed. */
void vApplicationIdleHook(void)
{
    idle_count++;
#if defined(RTB_FREERTOS_IDLE_WFI) && RTB_FREERTOS_IDLE_WFI
    __asm volatile("dsb\n\twfi" ::: "memory");
#endif
}

uint32_t rtb_freertos_idle_count(void)
{
    return idle_count;
}
