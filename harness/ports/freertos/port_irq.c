/*
 * FreeRTOS port: the interrupt source, masking, the critical section and
 * bare handlers, on the board's hardware timer (rtb_board.h).
 *
 * The hooked handler runs inside the board's timer interrupt, at
 * RTB_FREERTOS_IRQ_PRIORITY (the most urgent level that may call the
 * kernel). The port's wrapper clears the "a task was woken" flag the [ISR]
 * calls accumulate (rtb_port_sem_give_isr...), calls the handler, and ends
 * with portYIELD_FROM_ISR: FreeRTOS pends PendSV, so a task the handler
 * readied runs right after the interrupt returns.
 */
#include "rtb_freertos.h"

/* A requested interrupt expires this many counter ticks after the request:
 * long enough for the requesting task to be back in its own code (a few
 * dozen instructions), short against a sample. */
#define TRIGGER_TICKS 512u

static struct {
    rtb_irq_fn fn;
    void *arg;
    bool hooked;
} irq;

static void wrapper(void *unused)
{
    (void)unused;
    rtb_freertos_isr_woken = pdFALSE;
    irq.fn(irq.arg);
    portYIELD_FROM_ISR(rtb_freertos_isr_woken);
}

void rtb_freertos_irq_init(void)
{
    rtb_board_irqsrc_init(NULL, NULL, RTB_FREERTOS_IRQ_PRIORITY);
}

int rtb_port_irq_hook(rtb_irq_fn fn, void *arg)
{
    if (irq.hooked || !fn)
        return rtb_freertos_fail("irq_hook", "already hooked");
    irq.fn = fn;
    irq.arg = arg;
    irq.hooked = true;
    rtb_board_irqsrc_init(wrapper, NULL, RTB_FREERTOS_IRQ_PRIORITY);
    return RTB_OK;
}

int rtb_port_irq_unhook(void)
{
    rtb_board_irqsrc_init(NULL, NULL, RTB_FREERTOS_IRQ_PRIORITY);
    irq.hooked = false;
    return RTB_OK;
}

int rtb_port_irq_trigger(void)
{
    return rtb_port_irq_trigger_after(TRIGGER_TICKS);
}

int rtb_port_irq_trigger_after(uint32_t ticks)
{
    if (!irq.hooked)
        return rtb_freertos_fail("irq_trigger", "not hooked");
    rtb_board_irqsrc_arm(ticks ? ticks : 1u);
    return RTB_OK;
}

rtb_ticks_t rtb_port_irq_raised_at(void)
{
    return rtb_board_irqsrc_expiry();
}

/* ---- masking and the critical section ------------------------------------- */
int rtb_port_irq_mask(void)
{
    taskDISABLE_INTERRUPTS();
    return RTB_OK;
}

int rtb_port_irq_unmask(void)
{
    taskENABLE_INTERRUPTS();
    return RTB_OK;
}

int rtb_port_critical_enter(void)
{
    taskENTER_CRITICAL();
    return RTB_OK;
}

int rtb_port_critical_exit(void)
{
    taskEXIT_CRITICAL();
    return RTB_OK;
}

/* ---- bare handlers: prolog and epilog ---------------------------------------- */
int rtb_port_irq_bare(bool c_call, int32_t *prolog, int32_t *epilog)
{
    if (irq.hooked)
        return rtb_freertos_fail("irq_bare", "the interrupt source is hooked");
    int rc = rtb_board_irq_bare(c_call, prolog, epilog);
    /* the kernel's source again, as rtb_freertos_irq_init left it */
    rtb_board_irqsrc_init(NULL, NULL, RTB_FREERTOS_IRQ_PRIORITY);
    return rc == 0 ? RTB_OK : rtb_freertos_unsupported("irq_bare: not with this board's counter");
}
