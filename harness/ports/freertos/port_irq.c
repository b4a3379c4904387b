/*
 * FreeRTOS port: the interrupt rows' handlers, the hardware timer source of
 * irq.kernel_latency, masking, the critical section and bare handlers, on
 * the board's interrupts (rtb_board.h).
 *
 * FreeRTOS's convention for an application's handler on this core: a plain
 * function in the vector table, which collects xHigherPriorityTaskWoken from
 * its ...FromISR calls and ends with portYIELD_FROM_ISR (it pends PendSV, so
 * a task the handler readied runs when it returns), at a priority no more
 * urgent than configMAX_SYSCALL_INTERRUPT_PRIORITY. The interrupt rows'
 * handlers are exactly that, each the vector of the board's software-raised
 * line while its row runs. FreeRTOS has no interrupt dispatcher: the
 * .dispatched rows are unsupported. Its deferred-work service is the timer
 * daemon: xTimerPendFunctionCallFromISR runs a function there.
 */
#include "rtb_freertos.h"
#include "semphr.h"
#include "timers.h"
#include <rtb/irq_isr.h>

/* A requested interrupt of the hardware timer expires this many counter
 * ticks after the request: long enough for the requesting task to be back
 * in its own code (a few dozen instructions), short against a sample. */
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
static SemaphoreHandle_t irq_sem;

/* The deferred work (RTB_IRQ_DEFER): the daemon calls it; it stamps first. */
static void rtb_kisr_deferred_work(void *unused1, uint32_t unused2)
{
    (void)unused1, (void)unused2;
    RTB_ISR_STAMP_DEFERRED();
}

#define FREERTOS_KISR(name, what)                                                      \
    static void name(void)                                                             \
    {                                                                                  \
        BaseType_t woken = pdFALSE;                                                    \
        RTB_ISR_STAMP_IN(what);                                                        \
        if ((what) & RTB_IRQ_GIVE)                                                     \
            (void)xSemaphoreGiveFromISR(irq_sem, &woken);                              \
        if ((what) & RTB_IRQ_DEFER)                                                    \
            (void)xTimerPendFunctionCallFromISR(rtb_kisr_deferred_work, NULL, 0, &woken); \
        RTB_ISR_STAMP_OUT(what);                                                       \
        portYIELD_FROM_ISR(woken);                                                     \
    }
RTB_ISR_ALL(FREERTOS_KISR)
#define FREERTOS_KISR_ENTRY(name, what) name,
static void (*const handlers[RTB_ISR_COUNT])(void) = {RTB_ISR_ALL(FREERTOS_KISR_ENTRY)};

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

/* The handler is the vector (rtb_port_irq_hook_plan) and returns with the
 * exception return: FreeRTOS runs nothing of its own around it. */
unsigned rtb_port_irq_kernel_code(unsigned path)
{
    return path == RTB_IRQ_DIRECT ? 0u : RTB_IRQ_KERNEL_ENTRY | RTB_IRQ_KERNEL_EXIT;
}

/* The plan's handler as the vector of the software-raised line. */
int rtb_port_irq_hook_plan(const struct rtb_irq_plan *plan)
{
    int k = rtb_isr_index(plan->does);
    if (plan->path == RTB_IRQ_DISPATCHED)
        return rtb_freertos_unsupported("irq_hook: FreeRTOS has no interrupt dispatcher: a "
                                        "handler is the vector itself (the plain irq.* rows)");
    if (irq.hooked || k < 0)
        return rtb_freertos_fail("irq_hook", k < 0 ? "no such handler" : "already hooked");
    irq_sem = (plan->does & RTB_IRQ_GIVE) ? rtb_freertos_sem(plan->sem) : NULL;
    if ((plan->does & RTB_IRQ_GIVE) && !irq_sem)
        return rtb_freertos_fail("irq_hook", "no such semaphore");
    irq.hooked = true;
    const unsigned line = RTB_BOARD_SOFT_IRQ_FIRST;
    rtb_board_vector_set(line, handlers[k]);
    cm_irq_set_priority(line, RTB_FREERTOS_IRQ_PRIORITY);
    cm_irq_clear_pending(line);
    cm_irq_enable(line);
    rtb_board_soft_irq_select(line);
    return RTB_OK;
}

int rtb_port_irq_unhook(void)
{
    cm_irq_disable(RTB_BOARD_SOFT_IRQ_FIRST);
    rtb_board_vectors_restore();
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
