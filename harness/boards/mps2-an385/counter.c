/*
 * counter.c — starts the timestamp counter read by rtb_board_ts()
 * (include/rtb_board_ts.h) and keeps its 64-bit extension alive.
 *
 * The extension in rtb_board_ts() notices a wrap only if it reads the count
 * at least once per wrap period. A benchmark may not read for minutes
 * (printing, idling), so TIMER0's interrupt reads it for them:
 *  - TIMER0 source: TIMER0 is the counter, free-running with RELOAD
 *    0xFFFFFFFF (period 2^32 ticks, 171.8 s); its interrupt comes with the
 *    1 -> 0 step, one tick before the up-count wraps to 0, and the handler's
 *    read happens more than one tick later (exception entry alone is 12
 *    cycles on silicon), so it sees the wrap.
 *  - DWT source: CYCCNT wraps every 2^32 CPU cycles; TIMER0 interrupts every
 *    2^31 PCLK ticks, twice per CYCCNT period since PCLK = HCLK here.
 * The interrupt is at the lowest priority and costs one read per period.
 */
#include "an385.h"
#include "an385_vectors.h"
#include "board_internal.h"
#include "rtb_board.h"

#define WRAP_IRQ_PRIORITY 0xE0u /* lowest used on a 3-bit NVIC: 7 << 5 */

struct rtb_board_ts_state rtb_board_ts_state;

void rtb_board_ts_init(void)
{
    struct an385_timer *t = AN385_TIMER0;

    cm_irq_disable(AN385_IRQ_TIMER0);
    t->ctrl = 0;
#if defined(RTB_BOARD_COUNTER_DWT)
    CM_DEMCR |= CM_DEMCR_TRCENA;
    CM_DWT_CYCCNT = 0;
    CM_DWT_CTRL |= CM_DWT_CTRL_CYCCNTENA;
    /* QEMU has no DWT: CYCCNT reads 0 for ever (and NOCYCCNT reads 0 too, so
     * that bit proves nothing). Better to stop than to print zeros. */
    uint32_t c0 = CM_DWT_CYCCNT;
    for (volatile int i = 0; i < 10; i++)
        ;
    if (CM_DWT_CYCCNT == c0) {
        rtb_board_puts("rtb-board: DWT CYCCNT does not count (QEMU does not model the DWT); "
                       "build with RTB_BOARD_COUNTER=TIMER0\n");
        rtb_board_exit(RTB_BOARD_EXIT_FAIL);
    }
    t->reload = 0x7FFFFFFFu; /* period 2^31: two reads per CYCCNT wrap */
#else
    t->reload = 0xFFFFFFFFu; /* loads VALUE too: the up-count starts at 0 */
#endif
    rtb_board_ts_state.last = rtb_board_ts_raw();
    rtb_board_ts_state.high = 0;
    t->intstat = 1u;
    cm_irq_clear_pending(AN385_IRQ_TIMER0);
    cm_irq_set_priority(AN385_IRQ_TIMER0, WRAP_IRQ_PRIORITY);
    cm_irq_enable(AN385_IRQ_TIMER0);
    t->ctrl = AN385_TIMER_CTRL_EN | AN385_TIMER_CTRL_IRQEN;
}

void TIMER0_IRQHandler(void)
{
    AN385_TIMER0->intstat = 1u;
    (void)rtb_board_ts(); /* the read itself extends the count */
}
