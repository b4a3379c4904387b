/*
 * counter_pick.c — what the image concludes from its two reads of DWT
 * CYCCNT (counter.c): which counter the stamps read, in what unit, at what
 * rate, and the clock SysTick counts. No register is touched here, so the
 * decision is tested on the host (harness/tests/test_stm32f4_counter.c)
 * for both outcomes, the one QEMU cannot show included.
 */
#include "counter_pick.h"

#define STR2_(x) #x
#define STR_(x) STR2_(x)

/* The DWT counts on silicon; QEMU does not model it (reads 0 for ever), and
 * nothing else an image can read tells QEMU apart. */
static const struct rtb_stm32f4_counter silicon = {
    .dwt = true,
    .ts_hz = STM32F4_HSI_HZ,
    .systick_hz = STM32F4_HSI_HZ,
    .unit = "cycles",
    .source = "DWT CYCCNT (CPU cycles at the 16 MHz HSI), 32 bits extended to 64; chosen at "
              "start-up: it counted",
    .unit_detail = "CPU core cycles (DWT CYCCNT at the 16 MHz HSI core clock, zero flash wait "
                   "states), on silicon: the pipeline and exception entry/return included",
};

static const struct rtb_stm32f4_counter qemu = {
    .dwt = false,
    .ts_hz = 1000000000u >> RTB_BOARD_ICOUNT_SHIFT, /* the 1 GHz virtual clock / 2^shift */
    .systick_hz = STM32F4_QEMU_SYSTICK_HZ,
    .unit = "instructions",
    .source = "TIM2 prescaled by 2^" STR_(RTB_BOARD_ICOUNT_SHIFT) " (one count per guest "
              "instruction under QEMU -icount shift=" STR_(RTB_BOARD_ICOUNT_SHIFT) "), 32 bits "
              "extended to 64; chosen at start-up: DWT CYCCNT did not count (QEMU does not "
              "model the DWT)",
    .unit_detail = "guest instructions executed, exact: QEMU -icount shift=" STR_(
        RTB_BOARD_ICOUNT_SHIFT) " makes every instruction 2^shift ns of virtual time and TIM2, "
                                "prescaled by 2^shift, counts once per instruction. Every "
                                "instruction counts 1 (a divide as a move), and exception entry "
                                "and return (12 cycles each way on a Cortex-M4) count 0. Not CPU "
                                "cycles, not time.",
};

const struct rtb_stm32f4_counter *rtb_stm32f4_counter_pick(uint32_t first, uint32_t second)
{
    return first != second ? &silicon : &qemu;
}
