/*
 * board.c — rtos-benchmark's board files for the MPS2 AN385, in place of the
 * FRDM-K64F's board.c, clock_config.c and pin_mux.c, and the run's frame:
 *
 *  - BOARD_InitBootPins / BOARD_InitBootClocks / BOARD_InitDebugConsole, the
 *    three calls its FreeRTOS port makes before the scheduler: the AN385
 *    has no pins to route and a fixed 25 MHz clock, so they start the
 *    board's console (UART0) and timestamp counter (TIMER0) and nothing else;
 *  - the lines rtbench prints before and after rtos-benchmark's own output
 *    ("rtbench-shim KEY: VALUE"): what the figures' unit really is (its
 *    title says nanoseconds), the kernel, the counter; the sample count,
 *    the capability switches and what an empty measurement window reads in
 *    this build come from shim.c, shared with the Zephyr build;
 *  - the end of the run: bench_all() runs the tests, then its task would
 *    return into the kernel's task-exit trap and idle for ever. The link
 *    wraps bench_test_init() (-Wl,--wrap, CMakeLists.txt) so the task runs
 *    bench_all() inside shim_task(), which then ends QEMU with the board's
 *    semihosting exit, status 0;
 *  - __assert_func for the assert() calls in rtos-benchmark's sources
 *    (newlib's would need a C library with stdio behind it).
 */
#include <stdint.h>

#include "bench_api.h"
#include "bench_utils.h"
#include "rtb_board.h"
#include "rtb_freertos.h" /* RTB_FREERTOS_EXIT_ASSERT */
#include "shim.h"
#include "task.h"

void BOARD_InitBootPins(void)
{
}

void BOARD_InitBootClocks(void)
{
    rtb_board_init(); /* console and counter; the clock is fixed at 25 MHz */
}

void BOARD_InitDebugConsole(void)
{
}

static void banner(void)
{
    PRINTF("rtbench-shim build: rtos-benchmark's FreeRTOS port on %s, built by rtbench "
           "(harness/peers/rtos-benchmark)\n", RTB_BOARD_NAME);
    PRINTF("rtbench-shim kernel: FreeRTOS %s\n", tskKERNEL_VERSION_NUMBER);
    PRINTF("rtbench-shim counter: %s\n", RTB_BOARD_TS_SOURCE);
    PRINTF("rtbench-shim counter_hz: %lu\n", (unsigned long)RTB_BOARD_TS_HZ);
#if RTB_BOARD_ICOUNT_SHIFT > 0
    PRINTF("rtbench-shim icount_shift: %d\n", RTB_BOARD_ICOUNT_SHIFT);
#endif
    /* Every figure rtos-benchmark prints passes through
     * bench_timing_cycles_to_ns(), which returns this unit here (timing.c). */
    PRINTF("rtbench-shim unit: %s\n", RTB_BOARD_TS_UNIT);
    PRINTF("rtbench-shim asserts: configASSERT %s\n",
           RTB_FREERTOS_ASSERT ? "on" : "off");
    rtosbench_shim_common_lines(); /* iterations, capabilities, empty_window */
}

void __real_bench_test_init(void (*test_init_function)(void *));
static void (*bench_main)(void *);

static void shim_task(void *arg)
{
    uint64_t t0;

    banner();
    t0 = rtb_board_ts();
    bench_main(arg);
    PRINTF("rtbench-shim done: %llu\n",
           (unsigned long long)rtb_board_ts_to_unit(rtb_board_ts() - t0));
    rtb_board_exit(RTB_BOARD_EXIT_OK);
}

/* bench_all.c's main() calls bench_test_init(bench_all); the linker sends
 * that call here. The port's own bench_test_init then sets up the board and
 * starts the kernel with shim_task as its benchmark task. */
void __wrap_bench_test_init(void (*test_init_function)(void *))
{
    bench_main = test_init_function;
    __real_bench_test_init(shim_task);
}

void __assert_func(const char *file, int line, const char *func, const char *expr)
{
    __asm volatile("cpsid i" ::: "memory");
    PRINTF("\nrtbench-shim assert: %s failed in %s (%s:%d)\n", expr, func ? func : "?", file,
           line);
    rtb_board_exit(RTB_FREERTOS_EXIT_ASSERT);
}
