/*
 * oneshot.c — a one-shot timer for sub-tick delays: timer 1 of the CMSDK
 * dual timer (0x40002000, an SP804; IRQ 10, shared with its timer 2, which
 * this file leaves alone).
 *
 * A kernel with a 1 kHz tick rounds any timed wait up to whole ticks, so a
 * 50 us delay would take up to 2 ms. The port instead blocks the task on a
 * kernel object and gives it from fn, which runs in this interrupt after
 * exactly the requested number of PCLK ticks (one-shot mode, 32-bit,
 * prescale 1: 40 ns resolution, up to 171.8 s).
 */
#include "an385.h"
#include "an385_vectors.h"
#include "rtb_board.h"

static struct {
    rtb_board_isr_fn fn;
    void *arg;
} shot;

void rtb_board_oneshot_init(rtb_board_isr_fn fn, void *arg, uint8_t prio)
{
    cm_irq_disable(AN385_IRQ_DUALTIMER);
    AN385_DUALTIMER1->ctrl = 0;
    AN385_DUALTIMER1->intclr = 1u;
    shot.fn = fn;
    shot.arg = arg;
    cm_irq_clear_pending(AN385_IRQ_DUALTIMER);
    cm_irq_set_priority(AN385_IRQ_DUALTIMER, prio);
    cm_irq_enable(AN385_IRQ_DUALTIMER);
}

void rtb_board_oneshot_start(uint32_t ticks)
{
    struct an385_dualtimer *d = AN385_DUALTIMER1;

    d->ctrl = 0;
    d->intclr = 1u;
    d->load = ticks; /* interrupt when the count reaches 0 */
    d->ctrl = AN385_DT_CTRL_EN | AN385_DT_CTRL_ONESHOT | AN385_DT_CTRL_32BIT |
              AN385_DT_CTRL_INTEN;
}

void rtb_board_oneshot_cancel(void)
{
    uint32_t primask = cm_irq_save();
    AN385_DUALTIMER1->ctrl = 0;
    AN385_DUALTIMER1->intclr = 1u;
    cm_irq_clear_pending(AN385_IRQ_DUALTIMER); /* it may have expired just now */
    cm_irq_restore(primask);
}

void DUALTIMER_IRQHandler(void)
{
    if (!(AN385_DUALTIMER1->mis & 1u))
        return; /* timer 2's, or cancelled */
    AN385_DUALTIMER1->ctrl = 0;
    AN385_DUALTIMER1->intclr = 1u;
    if (shot.fn)
        shot.fn(shot.arg);
}
