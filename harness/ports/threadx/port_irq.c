/*
 * ThreadX port: the interrupt source, masking, the critical section and
 * bare handlers, on the board's hardware timer (rtb_board.h).
 *
 * ThreadX's interrupt convention on this core (ports/cortex_m3/gnu,
 * readme_threadx.txt section 6): a handler is a plain function in the
 * vector table; no _tx_thread_context_save/restore is called (on Cortex-M
 * they only exist for legacy code and return at once). A kernel call made
 * in the handler that readies a more urgent thread sets PendSV pending, and
 * the switch happens when the handler returns. So the hooked handler runs
 * directly inside the board's TIMER1 interrupt, with no wrapper, and the
 * [ISR] calls are ThreadX's ordinary ones that are legal in an interrupt
 * (tx_semaphore_put / tx_semaphore_ceiling_put: port_sync.c).
 */
#include "rtb_threadx.h"

/* A requested interrupt expires this many counter ticks after the request
 * (as on FreeRTOS): long enough for the requesting task to be back in its
 * own code, short against a sample. */
#define TRIGGER_TICKS 512u

static bool hooked;

void rtb_threadx_irq_init(void)
{
    rtb_board_irqsrc_init(NULL, NULL, RTB_THREADX_IRQ_PRIORITY);
}

int rtb_port_irq_hook(rtb_irq_fn fn, void *arg)
{
    if (hooked || !fn)
        return rtb_threadx_fail("irq_hook", "already hooked");
    hooked = true;
    rtb_board_irqsrc_init(fn, arg, RTB_THREADX_IRQ_PRIORITY);
    return RTB_OK;
}

int rtb_port_irq_unhook(void)
{
    rtb_board_irqsrc_init(NULL, NULL, RTB_THREADX_IRQ_PRIORITY);
    hooked = false;
    return RTB_OK;
}

int rtb_port_irq_trigger(void)
{
    return rtb_port_irq_trigger_after(TRIGGER_TICKS);
}

int rtb_port_irq_trigger_after(uint32_t ticks)
{
    if (!hooked)
        return rtb_threadx_fail("irq_trigger", "not hooked");
    rtb_board_irqsrc_arm(ticks ? ticks : 1u);
    return RTB_OK;
}

rtb_ticks_t rtb_port_irq_raised_at(void)
{
    return rtb_board_irqsrc_expiry();
}

/* ---- masking and the critical section ---------------------------------------
 * Both are tx_interrupt_control, ThreadX's one interrupt lock (PRIMASK on
 * this port). Masking: TX_INT_DISABLE / TX_INT_ENABLE. The critical section
 * is ThreadX's nesting idiom: disable, keeping the posture it returns, and
 * restore that posture on exit (what the kernel's own TX_DISABLE /
 * TX_RESTORE do), so an inner section leaves interrupts masked. */
static UINT mask_posture;
#define CRIT_DEPTH 8
static UINT crit_posture[CRIT_DEPTH];
static unsigned crit_depth;

int rtb_port_irq_mask(void)
{
    mask_posture = tx_interrupt_control(TX_INT_DISABLE);
    return RTB_OK;
}

int rtb_port_irq_unmask(void)
{
    (void)mask_posture;
    tx_interrupt_control(TX_INT_ENABLE);
    return RTB_OK;
}

int rtb_port_critical_enter(void)
{
    UINT posture = tx_interrupt_control(TX_INT_DISABLE);
    if (crit_depth >= CRIT_DEPTH) {
        tx_interrupt_control(posture);
        return rtb_threadx_fail("critical_enter", "nested too deep");
    }
    crit_posture[crit_depth++] = posture;
    return RTB_OK;
}

int rtb_port_critical_exit(void)
{
    if (!crit_depth)
        return rtb_threadx_fail("critical_exit", "not in a critical section");
    tx_interrupt_control(crit_posture[--crit_depth]);
    return RTB_OK;
}

/* ---- bare handlers: prolog and epilog ---------------------------------------- */
int rtb_port_irq_bare(bool c_call, int32_t *prolog, int32_t *epilog)
{
    if (hooked)
        return rtb_threadx_fail("irq_bare", "the interrupt source is hooked");
    int rc = rtb_board_irq_bare(c_call, prolog, epilog);
    rtb_board_irqsrc_init(NULL, NULL, RTB_THREADX_IRQ_PRIORITY);
    return rc == 0 ? RTB_OK : rtb_threadx_unsupported("irq_bare: not with this board's counter");
}
