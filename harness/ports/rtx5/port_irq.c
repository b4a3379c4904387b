/*
 * RTX5 port: the interrupt rows' handlers, the hardware timer source of
 * irq.kernel_latency and the bare handlers, on the board's interrupts
 * (rtb_board.h).
 *
 * RTX5's interrupt convention on Cortex-M: a handler is a plain function
 * in the vector table, and calls the same CMSIS-RTOS2 functions a thread
 * does where they are legal in an interrupt (osSemaphoreRelease). RTX5
 * sees the exception and takes its interrupt path: the call is put on the
 * ISR queue (OS_ISR_FIFO_QUEUE) and PendSV pended; after the handler,
 * PendSV carries the release out and switches to a thread it readied. So
 * an interrupt row that gives holds the handler, then that PendSV (the
 * fairness notes say so: port_sys.c, "differs:irq.*"). RTX5 has no
 * interrupt dispatcher and no deferred-work service: those rows are
 * unsupported. CMSIS-RTOS2 has no interrupt-masking call (port_sys.c).
 */
#include "rtb_rtx5.h"
#include <rtb/irq_isr.h>

/* A requested interrupt of the hardware timer expires this many counter
 * ticks after the request (as on FreeRTOS and ThreadX). */
#define TRIGGER_TICKS 512u

static bool hooked;

/* ---- the interrupt rows' handlers (rtb/irq_isr.h) -------------------------- */
static osSemaphoreId_t irq_sem;

#define RTX5_KISR(name, what)                                                          \
    static void name(void)                                                             \
    {                                                                                  \
        RTB_ISR_STAMP_IN(what);                                                        \
        if ((what) & RTB_IRQ_GIVE)                                                     \
            (void)osSemaphoreRelease(irq_sem);                                         \
        RTB_ISR_STAMP_OUT(what);                                                       \
    }
RTB_ISR_ALL(RTX5_KISR)
#define RTX5_KISR_ENTRY(name, what) name,
static void (*const handlers[RTB_ISR_COUNT])(void) = {RTB_ISR_ALL(RTX5_KISR_ENTRY)};

void rtb_rtx5_irq_init(void)
{
    rtb_board_irqsrc_init(NULL, NULL, RTB_RTX5_IRQ_PRIORITY);
}

int rtb_port_irq_hook(rtb_irq_fn fn, void *arg)
{
    if (hooked || !fn)
        return rtb_rtx5_fail("irq_hook", "already hooked");
    hooked = true;
    rtb_board_irqsrc_init(fn, arg, RTB_RTX5_IRQ_PRIORITY);
    return RTB_OK;
}

/* The handler is the vector and returns with the exception return; a
 * handler that neither gives nor defers queues nothing, so no PendSV
 * follows it: RTX5 runs nothing of its own around it. */
unsigned rtb_port_irq_kernel_code(unsigned path)
{
    return path == RTB_IRQ_DIRECT ? 0u : RTB_IRQ_KERNEL_ENTRY | RTB_IRQ_KERNEL_EXIT;
}

int rtb_port_irq_hook_plan(const struct rtb_irq_plan *plan)
{
    int k = rtb_isr_index(plan->does);
    if (plan->path == RTB_IRQ_DISPATCHED)
        return rtb_rtx5_unsupported("irq_hook: RTX5 has no interrupt dispatcher: a handler is the "
                                    "vector itself (the plain irq.* rows)");
    if (plan->does & RTB_IRQ_DEFER)
        return rtb_rtx5_unsupported("irq_hook: CMSIS-RTOS2 has no deferred-work service (RTX5 "
                                    "defers an interrupt's kernel calls to PendSV itself: "
                                    "irq.handler_to_task)");
    if (hooked || k < 0)
        return rtb_rtx5_fail("irq_hook", k < 0 ? "no such handler" : "already hooked");
    irq_sem = NULL;
    if (plan->does & RTB_IRQ_GIVE) {
        irq_sem = rtb_rtx5_sem(plan->sem);
        if (!irq_sem)
            return rtb_rtx5_fail("irq_hook", "no such semaphore");
    }
    hooked = true;
    const unsigned line = RTB_BOARD_SOFT_IRQ_FIRST;
    rtb_board_vector_set(line, handlers[k]);
    cm_irq_set_priority(line, RTB_RTX5_IRQ_PRIORITY);
    cm_irq_clear_pending(line);
    cm_irq_enable(line);
    rtb_board_soft_irq_select(line);
    return RTB_OK;
}

int rtb_port_irq_unhook(void)
{
    cm_irq_disable(RTB_BOARD_SOFT_IRQ_FIRST);
    rtb_board_vectors_restore();
    rtb_board_irqsrc_init(NULL, NULL, RTB_RTX5_IRQ_PRIORITY);
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
        return rtb_rtx5_fail("irq_trigger", "not hooked");
    rtb_board_irqsrc_arm(ticks ? ticks : 1u);
    return RTB_OK;
}

rtb_ticks_t rtb_port_irq_raised_at(void)
{
    return rtb_board_irqsrc_expiry();
}

/* ---- bare handlers: prolog and epilog ---------------------------------------- */
int rtb_port_irq_bare(bool c_call, int32_t *prolog, int32_t *epilog)
{
    if (hooked)
        return rtb_rtx5_fail("irq_bare", "the interrupt source is hooked");
    int rc = rtb_board_irq_bare(c_call, prolog, epilog);
    rtb_board_irqsrc_init(NULL, NULL, RTB_RTX5_IRQ_PRIORITY);
    return rc == 0 ? RTB_OK : rtb_rtx5_unsupported("irq_bare: not with this board's counter");
}
