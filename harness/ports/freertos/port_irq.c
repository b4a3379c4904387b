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
#include "semphr.h"
#include <rtb/irq_isr.h>

/* A requested interrupt expires this many counter ticks after the request:
 * long enough for the requesting task to be back in its own code (a few
 * dozen instructions), short against a sample. */
#define TRIGGER_TICKS 512u

static struct {
    rtb_irq_fn fn;
    void *arg;
    bool hooked;
} irq;

/* The function hook's wrapper (rtb_port_irq_hook: the kernel-latency
 * row, whose handler re-arms the timer itself). */
static void wrapper(void *unused)
{
    (void)unused;
    rtb_freertos_isr_woken = pdFALSE;
    irq.fn(irq.arg);
    portYIELD_FROM_ISR(rtb_freertos_isr_woken);
}

/* ---- the interrupt rows' handlers (rtb/irq_isr.h) -------------------------- */
/* Each is TIMER1's vector while hooked, entered directly by the interrupt:
 * FreeRTOS's convention on this core is a plain function that collects
 * xHigherPriorityTaskWoken from its ...FromISR calls and ends with
 * portYIELD_FROM_ISR, which pends PendSV so that a task the handler
 * readied runs when it returns. Both stay in every handler (the kernel's
 * rule); a handler that gives nothing compiles them away. */
static SemaphoreHandle_t irq_sem;

#define FREERTOS_ISR(name, what)                                                       \
    void name(void)                                                                    \
    {                                                                                  \
        BaseType_t woken = pdFALSE;                                                    \
        RTB_ISR_STAMP_IN(what);                                                        \
        rtb_board_irqsrc_ack();                                                        \
        if ((what) & RTB_IRQ_GIVE)                                                     \
            (void)xSemaphoreGiveFromISR(irq_sem, &woken);                              \
        RTB_ISR_STAMP_OUT(what);                                                       \
        portYIELD_FROM_ISR(woken);                                                     \
    }
RTB_ISR_ALL(FREERTOS_ISR)
RTB_ISR_MARKS();

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

int rtb_port_irq_hook_plan(const struct rtb_irq_plan *plan)
{
    void (*handler)(void) = rtb_isr_for(plan->does);
    if (irq.hooked || !handler)
        return rtb_freertos_fail("irq_hook", handler ? "already hooked" : "no such handler");
    irq_sem = (plan->does & RTB_IRQ_GIVE) ? rtb_freertos_sem(plan->sem) : NULL;
    if ((plan->does & RTB_IRQ_GIVE) && !irq_sem)
        return rtb_freertos_fail("irq_hook", "no such semaphore");
    irq.hooked = true;
    rtb_board_irqsrc_init(NULL, NULL, RTB_FREERTOS_IRQ_PRIORITY);
    rtb_board_irqsrc_vector(handler);
    return RTB_OK;
}

int rtb_port_irq_unhook(void)
{
    rtb_board_irqsrc_vector(NULL);
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

rtb_stamp_t rtb_port_irq_raised_stamp(void)
{
    return rtb_board_irqsrc_expiry_stamp();
}

/* ---- masking and the critical section ------------------------------------- */
/* Macros in FreeRTOS: each timed through a shim holding the macro alone. */
RTB_KAPI_STMT(taskDISABLE_INTERRUPTS, taskDISABLE_INTERRUPTS())
RTB_KAPI_STMT(taskENABLE_INTERRUPTS, taskENABLE_INTERRUPTS())
RTB_KAPI_STMT(taskENTER_CRITICAL, taskENTER_CRITICAL())
RTB_KAPI_STMT(taskEXIT_CRITICAL, taskEXIT_CRITICAL())

#define SHIM_CALL(op, shim)                                          \
    int rtb_port_##op##_kcall(struct rtb_kcall *c)                   \
    {                                                                \
        rtb_kcall_set(c, RTB_KFN(rtb_kapi_##shim), 0, 0, 0, 0, 0);   \
        return RTB_OK;                                               \
    }                                                                \
    RTB_KCALL_PLAIN0(op)
SHIM_CALL(irq_mask, taskDISABLE_INTERRUPTS)
SHIM_CALL(irq_unmask, taskENABLE_INTERRUPTS)
SHIM_CALL(critical_enter, taskENTER_CRITICAL)
SHIM_CALL(critical_exit, taskEXIT_CRITICAL)

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
