/*
 * counter.c — which counter the stamps read, found at start-up, and the
 * 64-bit extension kept alive.
 *
 * The DWT cycle counter is the one an engineer wants on silicon (CPU
 * cycles, nothing between the core and the count). QEMU does not model the
 * DWT: CYCCNT reads 0 for ever and ignores writes, without a fault, and
 * DWT_CTRL.NOCYCCNT reads 0 too, so only a count that moves proves it. So:
 * enable it (DEMCR.TRCENA, DWT_CTRL.CYCCNTENA), read it twice around a few
 * instructions (rtb_board_counter_pick); if it moved, it is the counter;
 * if not, the image is on QEMU and TIM2 is, prescaled to one count per
 * guest instruction (rtb_board_ts.h). The same decision gives SysTick's
 * clock: silicon at the reset clock runs it at the 16 MHz HSI; QEMU's
 * netduinoplus2 at a fixed 168 MHz whatever RCC says (EMBEDDED.md), and a
 * DWT that does not count is the one sign of QEMU an image can read.
 *
 * The extension (rtb_board_ts) must see the count at least once per wrap.
 * On silicon 2^32 DWT cycles are 268 s at 16 MHz, and TIM5 interrupts four
 * times as often, at the lowest priority, and its handler reads. On QEMU
 * no timer interrupt can serve: QEMU 7.2's STM32 timer arms its alarm at
 * now + the update's absolute time (hw/timer/stm32f2xx_timer.c,
 * stm32f2xx_timer_set_alarm), so an interrupt comes later the longer the
 * guest has run. There a wrap is 2^32 instructions, 549 s of virtual time,
 * far beyond any metric's budget: the runner's own reads of the 64-bit
 * count between samples and metrics see every wrap.
 */
#include "board_internal.h"
#include "counter_pick.h"
#include "rtb_board.h"
#include "stm32f4.h"

#define WRAP_IRQ_PRIORITY 0xF0u /* the lowest of the chip's 4 priority bits */

volatile uint32_t *rtb_board_counter_addr = &CM_DWT_CYCCNT;
bool rtb_board_counter_dwt;
struct rtb_board_ts_state rtb_board_ts_state;
static const struct rtb_stm32f4_counter *picked; /* counter_pick.c */

static const struct rtb_stm32f4_counter *dwt_or_tim2(void)
{
    CM_DEMCR |= CM_DEMCR_TRCENA;
    CM_DWT_CYCCNT = 0;
    CM_DWT_CTRL |= CM_DWT_CTRL_CYCCNTENA;
    uint32_t first = CM_DWT_CYCCNT;
    for (volatile int i = 0; i < 10; i++)
        ;
    return rtb_stm32f4_counter_pick(first, CM_DWT_CYCCNT);
}

/* TIM2 on QEMU: the timer counts virtual nanoseconds / (PSC + 1), so PSC
 * = 2^shift - 1 makes a count an instruction. The prescaler is buffered
 * until an update event (UG), which also zeroes the count; QEMU applies it
 * at once, and re-bases the count when CNT is written. */
static void tim2_start(void)
{
    STM32F4_RCC_APB1ENR |= STM32F4_RCC_APB1_TIM2;
    struct stm32f4_tim *t = STM32F4_TIM2;
    t->cr1 = 0;
    t->psc = (1u << RTB_BOARD_ICOUNT_SHIFT) - 1u;
    t->arr = 0xFFFFFFFFu;
    t->egr = STM32F4_TIM_EGR_UG;
    t->cnt = 0;
    t->sr = 0;
    t->cr1 = STM32F4_TIM_CR1_CEN;
}

/* TIM5 on silicon, prescaled by 256 from the 16 MHz HSI: an update every
 * 2^22 counts is 67 s, four per DWT wrap (268 s). */
static void keepalive_start(void)
{
    STM32F4_RCC_APB1ENR |= STM32F4_RCC_APB1_TIM5;
    struct stm32f4_tim *t = STM32F4_TIM5;
    cm_irq_disable(STM32F4_IRQ_TIM5);
    t->cr1 = 0;
    t->psc = 0xFFu;
    t->arr = (1u << 22) - 1u;
    t->egr = STM32F4_TIM_EGR_UG;
    t->cnt = 0;
    t->sr = 0;
    t->dier = STM32F4_TIM_DIER_UIE;
    cm_irq_clear_pending(STM32F4_IRQ_TIM5);
    cm_irq_set_priority(STM32F4_IRQ_TIM5, WRAP_IRQ_PRIORITY);
    cm_irq_enable(STM32F4_IRQ_TIM5);
    t->cr1 = STM32F4_TIM_CR1_CEN;
}

void rtb_board_ts_init(void)
{
    picked = dwt_or_tim2();
    rtb_board_counter_dwt = picked->dwt;
    if (!rtb_board_counter_dwt) {
        tim2_start();
        rtb_board_counter_addr = &STM32F4_TIM2->cnt;
    }
    rtb_board_ts_state.last = rtb_board_ts_raw();
    rtb_board_ts_state.high = 0;
    if (rtb_board_counter_dwt)
        keepalive_start();
}

void TIM5_IRQHandler(void)
{
    STM32F4_TIM5->sr = 0;
    (void)rtb_board_ts(); /* the read itself extends the count */
}

/* ---- what the records say (counter_pick.c) ------------------------------- */
const char *rtb_board_ts_source(void) { return picked->source; }
const char *rtb_board_ts_unit(void) { return picked->unit; }
const char *rtb_board_ts_unit_detail(void) { return picked->unit_detail; }
uint32_t rtb_board_ts_hz(void) { return picked->ts_hz; }
uint32_t rtb_board_systick_hz(void) { return picked->systick_hz; }

uint32_t rtb_board_us_ticks(uint32_t us)
{
    return (uint32_t)(((uint64_t)us * picked->ts_hz + 999999u) / 1000000u);
}
