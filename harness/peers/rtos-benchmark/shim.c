/*
 * shim.c — the kernel-independent `rtbench-shim` lines (shim.h), printed
 * with rtos-benchmark's own PRINTF and timing calls, so they say what its
 * figures are on whichever port the image is built for.
 */
#include <stdint.h>

#include "bench_api.h"
#include "bench_utils.h"
#include "shim.h"

#define EMPTY_WINDOW_TRIES 100

/* No port header defines it: the FreeRTOS build sets it (CMakeLists.txt:
 * that port has the calls); the Zephyr port has no bench_message_queue_*
 * at all, and its queue rows print n/a. */
#ifdef RTOS_HAS_MESSAGE_QUEUE
#define QUEUE_SWITCH "RTOS_HAS_MESSAGE_QUEUE=%d (set by rtbench)"
#else
#define RTOS_HAS_MESSAGE_QUEUE 0
#define QUEUE_SWITCH "RTOS_HAS_MESSAGE_QUEUE=%d (undefined: the port has no queue calls)"
#endif

/* What two back-to-back reads through rtos-benchmark's own timing calls
 * return, as its tests take them (start = get(); end = get(); then
 * cycles_get), converted as its figures are (cycles_to_ns): the floor
 * inside every window it times, which it does not subtract. The least of a
 * few tries (the kernel tick may land in one). */
static uint64_t empty_window(void)
{
    bench_time_t best = (bench_time_t)-1;
    for (int i = 0; i < EMPTY_WINDOW_TRIES; i++) {
        bench_time_t start = bench_timing_counter_get();
        bench_time_t end = bench_timing_counter_get();
        bench_time_t d = bench_timing_cycles_get(&start, &end);
        if (d < best)
            best = d;
    }
    return (uint64_t)bench_timing_cycles_to_ns(best);
}

void rtosbench_shim_common_lines(void)
{
    PRINTF("rtbench-shim iterations: %u\n", (unsigned)ITERATIONS);
    PRINTF("rtbench-shim capabilities: RTOS_HAS_THREAD_SPAWN=%d RTOS_HAS_THREAD_CREATE_START=%d "
           "RTOS_HAS_SUSPEND_RESUME=%d " QUEUE_SWITCH "\n",
           RTOS_HAS_THREAD_SPAWN, RTOS_HAS_THREAD_CREATE_START, RTOS_HAS_SUSPEND_RESUME,
           RTOS_HAS_MESSAGE_QUEUE);
    PRINTF("rtbench-shim empty_window: %llu\n", (unsigned long long)empty_window());
}
