/*
 * shim_zephyr.c — rtbench's frame around rtos-benchmark's Zephyr port.
 *
 * bench_all.c's main() calls bench_test_init(bench_all); the link wraps it
 * (-Wl,--wrap, CMakeLists.txt), so the call lands here: rtbench's
 * `rtbench-shim KEY: VALUE` lines, then the port's own bench_test_init
 * (which runs bench_all on the main thread), then the end of the run by
 * the board's semihosting exit. Without it main() returns and QEMU idles
 * for ever.
 *
 * The unit. The port times with Zephyr's timing API, here SysTick at
 * 25 MHz through k_cycle_get_32() (QEMU has no DWT), and prints every
 * figure through timing_cycles_to_ns(): cycles × 40, exactly, so its
 * "nanoseconds" are nanoseconds of QEMU's virtual clock. Under -icount
 * shift N one guest instruction is 2^N of them: the `unit: ns` and
 * `icount_shift:` lines tell the importer to divide by 2^N, which is
 * latency_measure's conversion (cycles × 1e9/f / 2^N). Nothing of its
 * timing is replaced: its windows are what its port measures.
 */
#include <zephyr/fatal.h>
#include <zephyr/kernel.h>
#include <zephyr/timing/timing.h>
#include <zephyr/version.h>

#include "bench_api.h"
#include "bench_utils.h"
#include "rtb_board.h"
#include "../shim.h"

static void banner(void)
{
    PRINTF("rtbench-shim build: rtos-benchmark's Zephyr port on %s, built by rtbench "
           "(harness/peers/rtos-benchmark/zephyr)\n", CONFIG_BOARD_TARGET);
    PRINTF("rtbench-shim kernel: Zephyr %s\n", KERNEL_VERSION_STRING);
    PRINTF("rtbench-shim counter: Zephyr's timing API (k_cycle_get_32: SysTick)\n");
    PRINTF("rtbench-shim counter_hz: %u\n", (unsigned)timing_freq_get());
    PRINTF("rtbench-shim icount_shift: %d\n", RTB_ICOUNT_SHIFT);
    PRINTF("rtbench-shim unit: ns\n");
    PRINTF("rtbench-shim asserts: CONFIG_ASSERT %s\n", IS_ENABLED(CONFIG_ASSERT) ? "on" : "off");
    rtosbench_shim_common_lines(); /* iterations, capabilities, empty_window */
}

void __real_bench_test_init(void (*test_init_function)(void *));

/* No `done:` line (the FreeRTOS build's run time): the interrupt test
 * rewrites SysTick's count under Zephyr's feet, and k_cycle_get_32() steps
 * back, so a difference across the run would be garbage. */
void __wrap_bench_test_init(void (*test_init_function)(void *))
{
    bench_timing_init(); /* the port's; idempotent, bench_all's tests call it again */
    banner();
    __real_bench_test_init(test_init_function);
    rtb_board_exit(RTB_BOARD_EXIT_OK);
}

/* A fault in a test ends QEMU at once, with a status that says so, rather
 * than Zephyr's halt, which idles until rtbench's timeout: Zephyr has
 * already printed the fault's registers, this adds the line rtbench quotes. */
void k_sys_fatal_error_handler(unsigned int reason, const struct arch_esf *esf)
{
    ARG_UNUSED(esf);
    PRINTF("rtbench-shim fatal: Zephyr fatal error %u, the run stopped (its E: lines say where)\n",
           reason);
    rtb_board_exit(RTB_BOARD_EXIT_EXCEPTION((int)reason));
}
