/*
 * Zephyr port: the interrupt rows' handlers, the hardware timer source of
 * irq.kernel_latency, masking, the critical section and bare handlers.
 *
 * Zephyr documents two ways to connect a handler. Its low-latency path is a
 * direct interrupt (IRQ_DIRECT_CONNECT, ISR_DIRECT_DECLARE: the handler is
 * the vector, and its return value says whether to reschedule on the way
 * out, ISR_DIRECT_FOOTER); its general one is IRQ_CONNECT (here
 * irq_connect_dynamic: the same table entry at run time), through the
 * common entry _isr_wrapper (the table lookup, the call, the reschedule on
 * exit). The interrupt rows use the direct path, each handler on a
 * software-raised line of its own connected at build time; the .dispatched
 * rows use the general one on one more line. The deferred-work service is
 * the system work queue (k_work_submit). Masking is irq_lock / irq_unlock
 * (BASEPRI on this core); the critical section is the same call nested,
 * each exit restoring its own key.
 */
#include "rtb_zephyr.h"

#include <rtb/irq_isr.h>

#if defined(RTB_BOARD_MPS2)
#include "an385.h"
#include "rtb_board.h"

#define TIMER0_IRQ 8
#define TIMER1_IRQ 9
#define IRQ_PRIO 2 /* a kernel-aware level (irq_lock masks it) */
/* The software-raised lines: one per direct handler, then the dispatched one. */
#define LINE(k) (AN385_SOFT_IRQ_FIRST + (k))
#define DISPATCHED_LINE LINE(RTB_ISR_COUNT)
_Static_assert(RTB_ISR_COUNT + 1 <= AN385_SOFT_IRQ_COUNT, "a line per handler");
/* A requested interrupt of the hardware timer expires this many counter
 * ticks after the request (as on the other kernels). */
#define TRIGGER_TICKS 512u

struct k_sem *rtb_zephyr_sem(int id);

static struct k_sem *irq_sem;
static bool hooked;

/* ---- the interrupt rows' handlers (rtb/irq_isr.h) -------------------------- */
/* The deferred work (RTB_IRQ_DEFER): the system work queue calls it. */
static void rtb_kisr_deferred_work(struct k_work *work)
{
    (void)work;
    RTB_ISR_STAMP_DEFERRED();
}
static K_WORK_DEFINE(deferred, rtb_kisr_deferred_work);

/* Direct: the vector; nonzero from the body reschedules on the way out. */
#define ZEPHYR_KISR(name, what)                                                        \
    ISR_DIRECT_DECLARE(name)                                                           \
    {                                                                                  \
        RTB_ISR_STAMP_IN(what);                                                        \
        if ((what) & RTB_IRQ_GIVE)                                                     \
            k_sem_give(irq_sem);                                                       \
        if ((what) & RTB_IRQ_DEFER)                                                    \
            k_work_submit(&deferred);                                                  \
        RTB_ISR_STAMP_OUT(what);                                                       \
        return ((what) & (RTB_IRQ_GIVE | RTB_IRQ_DEFER)) ? 1 : 0;                      \
    }
RTB_ISR_ALL(ZEPHYR_KISR)

/* Dispatched: a plain handler _isr_wrapper calls. */
#define ZEPHYR_KISR_DISPATCHED(name, what)                                             \
    static void name##_dispatched(const void *arg)                                     \
    {                                                                                  \
        (void)arg;                                                                     \
        RTB_ISR_STAMP_IN(what);                                                        \
        if ((what) & RTB_IRQ_GIVE)                                                     \
            k_sem_give(irq_sem);                                                       \
        if ((what) & RTB_IRQ_DEFER)                                                    \
            k_work_submit(&deferred);                                                  \
        RTB_ISR_STAMP_OUT(what);                                                       \
    }
RTB_ISR_ALL(ZEPHYR_KISR_DISPATCHED)
#define ZEPHYR_KISR_ENTRY(name, what) name##_dispatched,
static void (*const dispatched[RTB_ISR_COUNT])(const void *) = {
    RTB_ISR_ALL(ZEPHYR_KISR_ENTRY)};

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

/* The timer's handler connected at IRQ_PRIO; the board then programs the
 * timer, keeping the priority Zephyr gave the line. */
static void connect_timer(rtb_board_isr_fn fn, void *fn_arg)
{
    irq_disable(TIMER1_IRQ);
    irq_connect_dynamic(TIMER1_IRQ, IRQ_PRIO, board_dispatch, NULL, 0);
    rtb_board_irqsrc_init(fn, fn_arg, CM_NVIC_IPR[TIMER1_IRQ]);
}

void rtb_zephyr_irq_init(void)
{
    irq_connect_dynamic(TIMER0_IRQ, IRQ_PRIO, counter_wrap, NULL, 0);
    irq_enable(TIMER0_IRQ);
    connect_timer(NULL, NULL);
    /* the direct handlers, each on its line, in rtb/irq_isr.h's order */
    IRQ_DIRECT_CONNECT(LINE(0), IRQ_PRIO, rtb_kisr_none, 0);
    IRQ_DIRECT_CONNECT(LINE(1), IRQ_PRIO, rtb_kisr_in, 0);
    IRQ_DIRECT_CONNECT(LINE(2), IRQ_PRIO, rtb_kisr_out, 0);
    IRQ_DIRECT_CONNECT(LINE(3), IRQ_PRIO, rtb_kisr_give, 0);
    IRQ_DIRECT_CONNECT(LINE(4), IRQ_PRIO, rtb_kisr_give_out, 0);
    IRQ_DIRECT_CONNECT(LINE(5), IRQ_PRIO, rtb_kisr_in_give, 0);
    IRQ_DIRECT_CONNECT(LINE(6), IRQ_PRIO, rtb_kisr_in_defer, 0);
}

int rtb_port_irq_hook(rtb_irq_fn fn, void *arg)
{
    if (hooked || !fn)
        return rtb_zephyr_fail("irq_hook", "already hooked");
    hooked = true;
    connect_timer(fn, arg);
    return RTB_OK;
}

/* A direct handler (ISR_DIRECT_DECLARE) is the vector: Zephyr's header
 * and footer run kernel code only for ISR tracing, power management (on
 * entry) and a nonzero return (z_arm_int_exit: the handlers that give or
 * defer). A dispatched one runs inside _isr_wrapper. */
unsigned rtb_port_irq_kernel_code(unsigned path)
{
    if (path == RTB_IRQ_DISPATCHED || IS_ENABLED(CONFIG_TRACING_ISR))
        return RTB_IRQ_KERNEL_ENTRY | RTB_IRQ_KERNEL_EXIT;
    return IS_ENABLED(CONFIG_PM) ? RTB_IRQ_KERNEL_ENTRY : 0u;
}

static unsigned hooked_line;

int rtb_port_irq_hook_plan(const struct rtb_irq_plan *plan)
{
    int k = rtb_isr_index(plan->does);
    if (hooked || k < 0)
        return rtb_zephyr_fail("irq_hook", k < 0 ? "no such handler" : "already hooked");
    irq_sem = (plan->does & RTB_IRQ_GIVE) ? rtb_zephyr_sem(plan->sem) : NULL;
    if ((plan->does & RTB_IRQ_GIVE) && !irq_sem)
        return rtb_zephyr_fail("irq_hook", "no such semaphore");
    hooked = true;
    hooked_line = plan->path == RTB_IRQ_DISPATCHED ? DISPATCHED_LINE : LINE(k);
    if (plan->path == RTB_IRQ_DISPATCHED)
        irq_connect_dynamic(DISPATCHED_LINE, IRQ_PRIO, dispatched[k], NULL, 0);
    cm_irq_clear_pending((enum an385_irq)hooked_line);
    irq_enable(hooked_line);
    rtb_board_soft_irq_select(hooked_line);
    return RTB_OK;
}

int rtb_port_irq_unhook(void)
{
    if (hooked_line)
        irq_disable(hooked_line);
    hooked_line = 0;
    connect_timer(NULL, NULL);
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

/* The same expiry taken by a handler Zephyr never sees: the board installs
 * it in a RAM copy of Zephyr's own vector table for the call. */
int rtb_port_irq_bare(bool c_call, int32_t *prolog, int32_t *epilog)
{
    if (hooked)
        return rtb_zephyr_fail("irq_bare", "the interrupt source is hooked");
    int rc = rtb_board_irq_bare(c_call, prolog, epilog);
    connect_timer(NULL, NULL);
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
