/*
 * timing.c — rtos-benchmark's timing layer (its src/freertos/arch_api.h) on
 * the board's timestamp counter, in place of its
 * arch/arm/cortex_m/arch_util.c, which reads DWT CYCCNT: QEMU does not
 * model the DWT, so CYCCNT reads 0 and every figure would print 0.
 *
 * The counter is rtbench's own (boards/<board>/include/rtb_board_ts.h: the
 * AN385's TIMER0 at 25 MHz, extended to 64 bits), and a figure is reported
 * in the board's unit exactly as the harness reports it: under QEMU
 * -icount, guest instructions (rtb_board_ts_to_unit). rtos-benchmark prints
 * every figure through bench_timing_cycles_to_ns(), so that is where the
 * conversion happens: its window deltas, averages, minima and maxima stay in
 * counter ticks, as the port keeps them, and each printed value is converted
 * once. Its output's title still says "nanoseconds" (that line is its own):
 * rtbench's lines before it (board.c) say what the unit really is.
 */
#include RTOSBENCH_ARCH_API_H /* rtos-benchmark's src/freertos/arch_api.h */

#include "rtb_board.h"

/* The board starts the counter before the scheduler (BOARD_InitBootClocks,
 * board.c) and it runs for good: nothing to set up, start or stop. DWT's
 * start/stop cleared and froze CYCCNT; a free-running counter needs neither,
 * since every figure is a difference of two reads. */
void arch_timing_init(void)
{
}

void arch_timing_start(void)
{
}

void arch_timing_stop(void)
{
}

bench_time_t arch_timing_counter_get(void)
{
    return rtb_board_ts();
}

/* All 64 bits (the DWT layer subtracted the low 32). */
bench_time_t arch_timing_cycles_get(volatile bench_time_t *const start,
                                    volatile bench_time_t *const end)
{
    return *end - *start;
}

/* Counter ticks to the board's unit: instructions under -icount (every
 * interval rounds back to its exact count), cycles on silicon. The SysTick
 * deltas of the interrupt test (timer/bench_cortex_m_systick.c) also come
 * through here: SysTick counts the 25 MHz core clock, TIMER0's rate. */
bench_time_t arch_timing_cycles_to_ns(bench_time_t cycles)
{
    return rtb_board_ts_to_unit(cycles);
}
