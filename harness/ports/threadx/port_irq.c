/*
 * ThreadX port: the interrupt rows' handlers, the hardware timer source of
 * irq.kernel_latency, masking, the critical section and bare handlers, on
 * the board's interrupts (rtb_board.h).
 *
 * ThreadX's interrupt convention on this core (ports/cortex_m3/gnu,
 * readme_threadx.txt section 6): a handler is a plain function in the
 * vector table; no _tx_thread_context_save/restore is called (on Cortex-M
 * they only exist for legacy code and return at once). A kernel call made
 * in the handler that readies a more urgent thread sets PendSV pending, and
 * the switch happens when the handler returns. The interrupt rows' handlers
 * are exactly that, each the vector of the board's software-raised line
 * while its row runs, calling ThreadX's ordinary calls that are legal in an
 * interrupt (tx_semaphore_ceiling_put, as the task-context give does: the
 * scenarios' semaphore is binary). ThreadX has no interrupt dispatcher and
 * no deferred-work service: those rows are unsupported.
 */
#include "rtb_threadx.h"
#include <rtb/irq_isr.h>

/* A requested interrupt of the hardware timer expires this many counter
 * ticks after the request (as on FreeRTOS): long enough for the requesting
 * task to be back in its own code, short against a sample. */
#define TRIGGER_TICKS 512u

static bool hooked;

/* ---- the interrupt rows' handlers (rtb/irq_isr.h) -------------------------- */
static TX_SEMAPHORE *irq_sem;
static ULONG irq_ceiling;

#define THREADX_KISR(name, what)                                                       \
    static void name(void)                                                             \
    {                                                                                  \
        RTB_ISR_STAMP_IN(what);                                                        \
        if ((what) & RTB_IRQ_GIVE)                                                     \
            (void)tx_semaphore_ceiling_put(irq_sem, irq_ceiling);                      \
        RTB_ISR_STAMP_OUT(what);                                                       \
    }
RTB_ISR_ALL(THREADX_KISR)
#define THREADX_KISR_ENTRY(name, what) name,
static void (*const handlers[RTB_ISR_COUNT])(void) = {RTB_ISR_ALL(THREADX_KISR_ENTRY)};

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

/* The handler is the vector (rtb_port_irq_hook_plan) and returns with the
 * exception return: ThreadX runs nothing of its own around it. */
unsigned rtb_port_irq_kernel_code(unsigned path)
{
    return path == RTB_IRQ_DIRECT ? 0u : RTB_IRQ_KERNEL_ENTRY | RTB_IRQ_KERNEL_EXIT;
}

/* The plan's handler as the vector of the software-raised line. */
int rtb_port_irq_hook_plan(const struct rtb_irq_plan *plan)
{
    int k = rtb_isr_index(plan->does);
    if (plan->path == RTB_IRQ_DISPATCHED)
        return rtb_threadx_unsupported("irq_hook: ThreadX has no interrupt dispatcher: a "
                                       "handler is the vector itself (the plain irq.* rows)");
    if (plan->does & RTB_IRQ_DEFER)
        return rtb_threadx_unsupported("irq_hook: ThreadX has no deferred-work service: a "
                                       "handler readies a thread itself (irq.handler_to_task)");
    if (hooked || k < 0)
        return rtb_threadx_fail("irq_hook", k < 0 ? "no such handler" : "already hooked");
    irq_sem = TX_NULL;
    if (plan->does & RTB_IRQ_GIVE) {
        irq_sem = rtb_threadx_sem(plan->sem, &irq_ceiling);
        if (!irq_sem || !irq_ceiling)
            return rtb_threadx_fail("irq_hook", "no such semaphore, or not a bounded one");
    }
    hooked = true;
    const unsigned line = RTB_BOARD_SOFT_IRQ_FIRST;
    rtb_board_vector_set(line, handlers[k]);
    cm_irq_set_priority(line, RTB_THREADX_IRQ_PRIORITY);
    cm_irq_clear_pending(line);
    cm_irq_enable(line);
    rtb_board_soft_irq_select(line);
    return RTB_OK;
}

int rtb_port_irq_unhook(void)
{
    cm_irq_disable(RTB_BOARD_SOFT_IRQ_FIRST);
    rtb_board_vectors_restore();
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
/* Each a call of tx_interrupt_control; the postures are kept by done(),
 * after the window. */
#define CRIT_DEPTH 8
static UINT crit_posture[CRIT_DEPTH];
static unsigned crit_depth;

int rtb_port_irq_mask_kcall(struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(tx_interrupt_control), 0, TX_INT_DISABLE, 0, 0, 0);
    return RTB_OK;
}

int rtb_port_irq_unmask_kcall(struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(tx_interrupt_control), 0, TX_INT_ENABLE, 0, 0, 0);
    return RTB_OK;
}

static int entered(const struct rtb_kcall *c)
{
    if (crit_depth >= CRIT_DEPTH) {
        tx_interrupt_control((UINT)c->ret);
        return rtb_threadx_fail("critical_enter", "nested too deep");
    }
    crit_posture[crit_depth++] = (UINT)c->ret;
    return RTB_OK;
}

int rtb_port_critical_enter_kcall(struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(tx_interrupt_control), entered, TX_INT_DISABLE, 0, 0, 0);
    return RTB_OK;
}

static int left(const struct rtb_kcall *c)
{
    (void)c;
    crit_depth--;
    return RTB_OK;
}

/* Prepared after the enter it closes: it restores that enter's posture. */
int rtb_port_critical_exit_kcall(struct rtb_kcall *c)
{
    if (!crit_depth)
        return rtb_threadx_fail("critical_exit", "not in a critical section");
    rtb_kcall_set(c, RTB_KFN(tx_interrupt_control), left, crit_posture[crit_depth - 1], 0, 0, 0);
    return RTB_OK;
}

RTB_KCALL_PLAIN0(irq_mask)
RTB_KCALL_PLAIN0(irq_unmask)
RTB_KCALL_PLAIN0(critical_enter)
RTB_KCALL_PLAIN0(critical_exit)

/* ---- bare handlers: prolog and epilog ---------------------------------------- */
int rtb_port_irq_bare(bool c_call, int32_t *prolog, int32_t *epilog)
{
    if (hooked)
        return rtb_threadx_fail("irq_bare", "the interrupt source is hooked");
    int rc = rtb_board_irq_bare(c_call, prolog, epilog);
    rtb_board_irqsrc_init(NULL, NULL, RTB_THREADX_IRQ_PRIORITY);
    return rc == 0 ? RTB_OK : rtb_threadx_unsupported("irq_bare: not with this board's counter");
}
