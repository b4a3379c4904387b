/*
 * irqsrc.c — the board's interrupt source: a spare external line (IRQ 17,
 * DMA1 stream 6, which no rtbench image starts) pended from software
 * through the NVIC's software trigger (STIR), and a one-shot timer (TIM3)
 * for sub-tick delays.
 *
 * Why not a timer as on the AN385: QEMU's STM32 timers deliver an update
 * interrupt at a time that is repeatable but not the one programmed
 * (EMBEDDED.md, "STM32F4"), so a timer's expiry cannot be the instant an
 * interrupt's response is measured from. A pended line is exact on QEMU and
 * on every Cortex-M, but it is taken at once, after the pending store: it
 * cannot land at an arbitrary instruction. So this board offers the
 * interrupt rows that raise from software (kcall.S, every kernel) and not
 * those that need an expiry placed in a workload (RTB_CAP_IRQ_TIMED:
 * irq.kernel_latency) or a bare handler of a timer (RTB_CAP_IRQ_BARE):
 * rtb_board_config.h says so, and every kernel port passes it on.
 */
#include "rtb_board.h"
#include "stm32f4.h"

static struct {
    rtb_board_isr_fn fn;
    void *arg;
    volatile uint32_t count;
    volatile uint32_t raised; /* the counter at the pending store */
} src;

void rtb_board_irqsrc_init(rtb_board_isr_fn fn, void *arg, uint8_t prio)
{
    cm_irq_disable(STM32F4_IRQ_SOURCE);
    src.fn = fn;
    src.arg = arg;
    src.count = 0;
    cm_irq_clear_pending(STM32F4_IRQ_SOURCE);
    cm_irq_set_priority(STM32F4_IRQ_SOURCE, prio);
    cm_irq_enable(STM32F4_IRQ_SOURCE);
}

/* Raised now, whatever `ticks` asks (no placed expiry on this board: the
 * file's comment); the counter is read by the load right before the store
 * that pends the line. */
void rtb_board_irqsrc_arm(uint32_t ticks)
{
    (void)ticks;
    uint32_t now;
    __asm volatile("ldr %0, [%1]\n\t"
                   "str %2, [%3]\n\t"
                   "dsb\n\t"
                   "isb"
                   : "=&r"(now)
                   : "r"(rtb_board_counter_addr), "r"((uint32_t)STM32F4_IRQ_SOURCE),
                     "r"(&CM_NVIC_STIR)
                   : "memory");
    src.raised = now;
}

uint32_t rtb_board_irqsrc_count(void) { return src.count; }

/* The raise in the timestamp convention: the value of a read sampling at
 * the pending store (one instruction after our load), minus the read's
 * fixed tail. */
uint64_t rtb_board_irqsrc_expiry(void)
{
    uint32_t e = src.raised + RTB_BOARD_INSTR_TICKS(1) - RTB_BOARD_INSTR_TICKS(RTB_BOARD_TS_POST);
    uint64_t now = rtb_board_ts();
    return now - (uint32_t)((uint32_t)now - e);
}

void DMA1_Stream6_IRQHandler(void)
{
    if (src.fn)
        src.fn(src.arg);
    src.count++;
}

int rtb_board_irq_bare(bool c_call, int32_t *prolog, int32_t *epilog)
{
    (void)c_call, (void)prolog, (void)epilog;
    return -1; /* RTB_CAP_IRQ_BARE is not offered here (above) */
}

/* ---- one-shot timer: TIM3 ---------------------------------------------------
 * For sub-tick delays (the ports' fine delays: a task blocked on a kernel
 * object, given from fn). TIM3 counts the 16 MHz HSI as DWT CYCCNT counts
 * cycles, so `ticks` are counter ticks; 16 bits, so at most 65535 (4
 * ms on silicon: the fine delays are below one 1 ms kernel tick). Not on
 * QEMU, whose STM32 timers interrupt later the longer the guest has run
 * (counter.c): there RTB_BOARD_ONESHOT_AVAILABLE() is false and the
 * kernel ports delay by whole ticks (only settle delays, outside every
 * window, are that short). */
static struct {
    rtb_board_isr_fn fn;
    void *arg;
} shot;

void rtb_board_oneshot_init(rtb_board_isr_fn fn, void *arg, uint8_t prio)
{
    STM32F4_RCC_APB1ENR |= STM32F4_RCC_APB1_TIM3;
    cm_irq_disable(STM32F4_IRQ_TIM3);
    STM32F4_TIM3->cr1 = 0;
    STM32F4_TIM3->dier = 0;
    STM32F4_TIM3->sr = 0;
    shot.fn = fn;
    shot.arg = arg;
    cm_irq_clear_pending(STM32F4_IRQ_TIM3);
    cm_irq_set_priority(STM32F4_IRQ_TIM3, prio);
    cm_irq_enable(STM32F4_IRQ_TIM3);
}

void rtb_board_oneshot_start(uint32_t ticks)
{
    struct stm32f4_tim *t = STM32F4_TIM3;

    t->cr1 = 0;
    t->dier = 0;
    t->psc = 0; /* silicon only: one count a cycle, as DWT CYCCNT */
    t->arr = ticks > 0xFFFFu ? 0xFFFFu : (ticks ? ticks : 1u);
    t->egr = STM32F4_TIM_EGR_UG; /* loads the prescaler; its own update flag is cleared next */
    t->cnt = 0;
    t->sr = 0;
    t->dier = STM32F4_TIM_DIER_UIE;
    t->cr1 = STM32F4_TIM_CR1_CEN | STM32F4_TIM_CR1_OPM;
}

void rtb_board_oneshot_cancel(void)
{
    uint32_t primask = cm_irq_save();
    STM32F4_TIM3->cr1 = 0;
    STM32F4_TIM3->dier = 0;
    STM32F4_TIM3->sr = 0;
    cm_irq_clear_pending(STM32F4_IRQ_TIM3); /* it may have expired just now */
    cm_irq_restore(primask);
}

/* One shot: the timer is stopped here (QEMU has no one-pulse mode). */
void TIM3_IRQHandler(void)
{
    struct stm32f4_tim *t = STM32F4_TIM3;
    if (!(t->sr & STM32F4_TIM_SR_UIF) || !(t->dier & STM32F4_TIM_DIER_UIE))
        return; /* cancelled */
    t->cr1 = 0;
    t->dier = 0;
    t->sr = 0;
    if (shot.fn)
        shot.fn(shot.arg);
}
