/*
 * Zephyr port: the interrupt source, masking, the critical section and
 * bare handlers.
 *
 * On the MPS2 boards the source is the board's CMSDK TIMER1 (IRQ 9), which
 * Zephyr has no driver for in this build: its handlers are connected with
 * Zephyr's own interrupt API (irq_connect_dynamic), so an interrupt enters
 * Zephyr's common entry (_isr_wrapper: the table lookup, the call, the
 * reschedule on exit) before the handler, as every interrupt of a Zephyr
 * application does: that entry is the kernel's, and in the figures. A
 * handler is Zephyr's plain ISR: no convention of its own; a thread its
 * give readies runs when the wrapper returns. Masking is irq_lock /
 * irq_unlock (BASEPRI on this core); the critical section is the same
 * call nested, each exit restoring its own key.
 */
#include "rtb_zephyr.h"

#define RTB_ISR_PARAMS const void *arg
#include <rtb/irq_isr.h>

#if defined(RTB_BOARD_MPS2)
#include "an385.h"
#include "rtb_board.h"

#define TIMER0_IRQ 8
#define TIMER1_IRQ 9
#define IRQ_PRIO 2 /* a kernel-aware level (irq_lock masks it) */
/* A requested interrupt expires this many counter ticks after the request
 * (as on the other kernels). */
#define TRIGGER_TICKS 512u

struct k_sem *rtb_zephyr_sem(int id);

static struct k_sem *irq_sem;
static bool hooked;

/* ---- the interrupt rows' handlers (rtb/irq_isr.h) -------------------------- */
#define ZEPHYR_ISR(name, what)                                                         \
    void name(const void *arg)                                                         \
    {                                                                                  \
        (void)arg;                                                                     \
        RTB_ISR_STAMP_IN(what);                                                        \
        rtb_board_irqsrc_ack();                                                        \
        if ((what) & RTB_IRQ_GIVE)                                                     \
            k_sem_give(irq_sem);                                                       \
        RTB_ISR_STAMP_OUT(what);                                                       \
    }
RTB_ISR_ALL(ZEPHYR_ISR)
RTB_ISR_MARKS();

/* The board's counter wraps every 171 s: its interrupt extends the count. */
static void counter_wrap(const void *arg)
{
    extern void TIMER0_IRQHandler(void);
    (void)arg;
    TIMER0_IRQHandler();
}

/* The function hook (rtb_port_irq_hook: the kernel-latency row): the
 * board's dispatcher, which calls it and acknowledges. */
static void board_dispatch(const void *arg)
{
    extern void TIMER1_IRQHandler(void);
    (void)arg;
    TIMER1_IRQHandler();
}

/* Connect `isr` to TIMER1 at IRQ_PRIO; the board then programs the timer,
 * keeping the priority Zephyr gave the line. */
static void connect(void (*isr)(const void *), rtb_board_isr_fn fn, void *fn_arg)
{
    irq_disable(TIMER1_IRQ);
    irq_connect_dynamic(TIMER1_IRQ, IRQ_PRIO, isr, NULL, 0);
    rtb_board_irqsrc_init(fn, fn_arg, AN385_NVIC_IPR[TIMER1_IRQ]);
}

void rtb_zephyr_irq_init(void)
{
    irq_connect_dynamic(TIMER0_IRQ, IRQ_PRIO, counter_wrap, NULL, 0);
    irq_enable(TIMER0_IRQ);
    connect(board_dispatch, NULL, NULL);
}

int rtb_port_irq_hook(rtb_irq_fn fn, void *arg)
{
    if (hooked || !fn)
        return rtb_zephyr_fail("irq_hook", "already hooked");
    hooked = true;
    connect(board_dispatch, fn, arg);
    return RTB_OK;
}

int rtb_port_irq_hook_plan(const struct rtb_irq_plan *plan)
{
    rtb_isr_fn handler = rtb_isr_for(plan->does);
    if (hooked || !handler)
        return rtb_zephyr_fail("irq_hook", handler ? "already hooked" : "no such handler");
    irq_sem = (plan->does & RTB_IRQ_GIVE) ? rtb_zephyr_sem(plan->sem) : NULL;
    if ((plan->does & RTB_IRQ_GIVE) && !irq_sem)
        return rtb_zephyr_fail("irq_hook", "no such semaphore");
    hooked = true;
    connect(handler, NULL, NULL);
    return RTB_OK;
}

int rtb_port_irq_unhook(void)
{
    connect(board_dispatch, NULL, NULL);
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
        return rtb_zephyr_fail("irq_trigger", "not hooked");
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

/* The same expiry taken by a handler Zephyr never sees: the board installs
 * it in a RAM copy of Zephyr's own vector table for the call. */
int rtb_port_irq_bare(bool c_call, int32_t *prolog, int32_t *epilog)
{
    if (hooked)
        return rtb_zephyr_fail("irq_bare", "the interrupt source is hooked");
    int rc = rtb_board_irq_bare(c_call, prolog, epilog);
    connect(board_dispatch, NULL, NULL);
    return rc == 0 ? RTB_OK : rtb_zephyr_unsupported("irq_bare: not with this board's counter");
}
#else
void rtb_zephyr_irq_init(void)
{
}
#endif

/* ---- masking and the critical section ------------------------------------- */
/* irq_lock returns the key irq_unlock restores; the keys of nested
 * sections are kept by done(), after the window. */
#define CRIT_DEPTH 8
static unsigned int mask_key, crit_key[CRIT_DEPTH];
static unsigned crit_depth;

RTB_KAPI(irq_lock, irq_lock())
RTB_KAPI_STMT(irq_unlock, irq_unlock((unsigned int)a0))

static int masked(const struct rtb_kcall *c)
{
    mask_key = (unsigned int)c->ret;
    return RTB_OK;
}

int rtb_port_irq_mask_kcall(struct rtb_kcall *c)
{
    rtb_kcall_set(c, rtb_kapi_irq_lock, masked, 0, 0, 0, 0);
    return RTB_OK;
}

/* Prepared after the mask it undoes: it restores that mask's key. */
int rtb_port_irq_unmask_kcall(struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(rtb_kapi_irq_unlock), 0, mask_key, 0, 0, 0);
    return RTB_OK;
}

static int entered(const struct rtb_kcall *c)
{
    if (crit_depth >= CRIT_DEPTH) {
        irq_unlock((unsigned int)c->ret);
        return rtb_zephyr_fail("critical_enter", "nested too deep");
    }
    crit_key[crit_depth++] = (unsigned int)c->ret;
    return RTB_OK;
}

int rtb_port_critical_enter_kcall(struct rtb_kcall *c)
{
    rtb_kcall_set(c, rtb_kapi_irq_lock, entered, 0, 0, 0, 0);
    return RTB_OK;
}

static int left(const struct rtb_kcall *c)
{
    (void)c;
    crit_depth--;
    return RTB_OK;
}

int rtb_port_critical_exit_kcall(struct rtb_kcall *c)
{
    if (!crit_depth)
        return rtb_zephyr_fail("critical_exit", "not in a critical section");
    rtb_kcall_set(c, RTB_KFN(rtb_kapi_irq_unlock), left, crit_key[crit_depth - 1], 0, 0, 0);
    return RTB_OK;
}

RTB_KCALL_PLAIN0(irq_mask)
RTB_KCALL_PLAIN0(irq_unmask)
RTB_KCALL_PLAIN0(critical_enter)
RTB_KCALL_PLAIN0(critical_exit)
