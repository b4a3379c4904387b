/*
 * Interrupts: the sheets' key measurements, all from one interrupt source
 * (rtb_port_irq_*: on the AN385 board a hardware timer that expires while
 * the measured task runs; on Linux a signal raised from the other CPU, see
 * ports/posix/port_irq.c), with the instants the glossaries name:
 *
 *   raised      the instant the source raises the interrupt (a timer's expiry)
 *   in          the handler's first instruction (its stamp opens or closes there)
 *   out         the handler's last instruction of its own: after the device's
 *               acknowledgement and the give, before the kernel's exit
 *               convention (FreeRTOS's portYIELD_FROM_ISR), which is in the
 *               windows that start there
 *   resume      the interrupted task's first instruction after the handler
 *   other       the first instruction of the higher-priority task the
 *               handler readied (its pended take returns)
 *
 * Each metric times one interval with a handler of its own
 * (rtb_port_irq_hook_plan, rtb/irq_isr.h) that takes only the stamps that
 * interval needs: "plain" handlers acknowledge the device (the interrupted
 * task resumes), "give" handlers also give a semaphore a higher-priority
 * task is pended on with the kernel's interrupt-context call, so the
 * return reschedules. Only threads: the sheets' interrupt rows have no
 * process variant. The interrupted task spins until the handler has
 * acknowledged the device, so it is running (not idle) when the interrupt
 * arrives; its spin's last pass (a load and a test) is in the rows that end
 * in it.
 *
 * Where the port has them (a kernel on a microcontroller): interrupt
 * masking and the kernel's critical section, the kernel's longest
 * interrupts-off region observed under a workload (irq_kernel.c), and bare
 * handlers for the prolog and epilog. On a user-space port they read
 * "unsupported" with the reason, as do software-interrupt objects.
 */
#include <rtb/bench.h>
#include "irq_kernel.h"

enum { TASK_SPIN = 0, TASK_HIGH = 1 };
enum { SEM = 0 };

/* Each interval, and the handler that times it: only the stamps it needs
 * (rtb_port_irq_hook_plan), so no window holds another interval's stamp. */
enum interval {
    RAISED_TO_IN,       /* interrupt response */
    RAISED_TO_RESUME,   /* task response, no rescheduling */
    OUT_TO_RESUME,      /* return from handler to the interrupted task */
    RAISED_TO_OTHER,    /* task response with rescheduling */
    OUT_TO_OTHER,       /* return from handler to another task */
    IN_TO_OTHER,        /* handler start to the readied task */
};
static const unsigned handler_does[] = {
    [RAISED_TO_IN] = RTB_IRQ_STAMP_IN,
    [RAISED_TO_RESUME] = 0,
    [OUT_TO_RESUME] = RTB_IRQ_STAMP_OUT,
    [RAISED_TO_OTHER] = RTB_IRQ_GIVE,
    [OUT_TO_OTHER] = RTB_IRQ_GIVE | RTB_IRQ_STAMP_OUT,
    [IN_TO_OTHER] = RTB_IRQ_STAMP_IN | RTB_IRQ_IN_OPENS | RTB_IRQ_GIVE,
};

struct rtb_irq_slots rtb_irq_slots;

struct irq_state {
    struct rtb_ctx *ctx;
    enum interval what;
    bool give;                       /* the handler gives SEM */
    volatile int taken;              /* set by the high task after recording */
    volatile bool stop;
    volatile int rc;
};
static struct irq_state *shared;

/* The window's opening instant: the raise, or a stamp the handler took. */
static rtb_stamp_t opened(const struct irq_state *s)
{
    switch (s->what) {
    case OUT_TO_RESUME:
    case OUT_TO_OTHER:
        return rtb_irq_slots.out;
    case IN_TO_OTHER:
        return rtb_irq_slots.in;
    default:
        return rtb_port_irq_raised_stamp();
    }
}

/* The interrupted task: request an interrupt, spin until the handler has
 * acknowledged it (a load and a test: the last pass is in the window of
 * the rows that end here), and, with give, until the high task has taken
 * its sample. An interrupt raised before the spin began is no sample. */
static void spinner(void *arg)
{
    struct irq_state *s = arg;
    while (!s->stop) {
        rtb_rest(s->ctx);
        s->taken = 0;
        int rc = rtb_port_irq_trigger();
        if (rc != RTB_OK) {
            s->rc = rc;
            break;
        }
        rtb_stamp_t spin_from = rtb_port_stamp_start();
        while (!RTB_PORT_IRQ_HANDLED())
            ;
        rtb_stamp_t resume = rtb_port_stamp_end();
        if (s->give) {
            while (!s->taken && !s->stop)
                rtb_port_task_yield(); /* only without real-time priorities */
            continue;
        }
        if (rtb_stamp_delta(spin_from, rtb_port_irq_raised_stamp()) < 0)
            continue; /* raised while the trigger call was still returning */
        rtb_stamp_t t1 = s->what == RAISED_TO_IN ? rtb_irq_slots.in : resume;
        rtb_add(s->ctx, opened(s), t1);
        if (!rtb_want(s->ctx))
            s->stop = true;
    }
    s->stop = true;
    if (s->give)
        rtb_port_sem_give(SEM); /* release the high task */
}

/* The readied task: pended on SEM; the stamp right after its take returns
 * ends the sample. */
static void high(void *arg)
{
    struct irq_state *s = arg;
    struct rtb_kcall take;
    int rc = rtb_port_sem_take_kcall(SEM, RTB_WAIT_FOREVER, &take);
    while (rc == RTB_OK) {
        rtb_stamp_t t1;
        rtb_kcall_then_stamp(&take, &t1);
        if ((rc = rtb_kcall_rc(&take)) != RTB_OK || s->stop)
            break;
        rtb_add(s->ctx, opened(s), t1);
        if (!rtb_want(s->ctx))
            s->stop = true;
        s->taken = 1;
    }
    if (rc != RTB_OK)
        s->rc = rc;
    s->stop = true;
}

static void run(struct rtb_ctx *ctx, enum interval what, int high_prio)
{
    struct irq_state *s = rtb_shared_state(ctx, (void **)&shared, sizeof *shared);
    if (!s)
        return;
    const struct rtb_irq_plan plan = {.does = handler_does[what], .sem = SEM};
    s->ctx = ctx;
    s->what = what;
    s->give = (plan.does & RTB_IRQ_GIVE) != 0;
    if (!rtb_ok(ctx, rtb_port_sem_create(SEM, 0, 1), "sem_create"))
        return;
    if (!rtb_ok(ctx, rtb_port_irq_hook_plan(&plan), "irq_hook")) {
        rtb_port_sem_delete(SEM);
        return;
    }
    if (s->give && !rtb_ok(ctx, rtb_port_task_create(TASK_HIGH, high_prio, 0, high, s),
                           "create high task"))
        goto out;
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_SPIN, RTB_PRIO_LOW, 0, spinner, s),
                "create interrupted task")) {
        s->stop = true;
        rtb_port_sem_give(SEM);
        rtb_port_task_join(TASK_HIGH);
        goto out;
    }
    rtb_port_task_join(TASK_SPIN);
    if (s->give)
        rtb_port_task_join(TASK_HIGH);
    rtb_ok(ctx, s->rc, "interrupt scenario");
out:
    rtb_port_irq_unhook();
    rtb_port_sem_delete(SEM);
}

static void response(struct rtb_ctx *c) { run(c, RAISED_TO_IN, 0); }
static void task_response(struct rtb_ctx *c) { run(c, RAISED_TO_RESUME, 0); }
static void return_interrupted(struct rtb_ctx *c) { run(c, OUT_TO_RESUME, 0); }
static void task_response_resched(struct rtb_ctx *c) { run(c, RAISED_TO_OTHER, RTB_PRIO_HIGH); }
/* On a kernel whose handler's give switches at once (no such port has
 * RTB_CAP_IRQ: a Linux signal handler runs in task context, and the xsig.*
 * rows measure it) the interval would not exist. */
static void return_different(struct rtb_ctx *c)
{
    struct rtb_port_info pi = {0};
    rtb_port_info(&pi);
    if (!pi.irq_switch_at_exit) {
        rtb_unsupported(c, "the handler's give switches at once on this port: no return to another task");
        return;
    }
    rtb_note(c, "handler's last instruction to the readied task");
    run(c, OUT_TO_OTHER, RTB_PRIO_HIGH);
}
static void to_task(struct rtb_ctx *c) { run(c, IN_TO_OTHER, RTB_PRIO_HIGH); }
/* The deferred handler (DSP/BIOS SWI, a Linux threaded handler): a task at
 * the top scenario priority, readied by the handler. */
static void to_deferred(struct rtb_ctx *c) { run(c, IN_TO_OTHER, RTB_PRIO_RUNNER - 1); }

/* ---- masking and the critical section ------------------------------------ */
/* One call timed, its counterpart outside the timed region. */
/* Each call prepared just before it runs: an exit depends on its enter
 * (ThreadX restores the posture the enter returned). */
static void pair(struct rtb_ctx *ctx, int (*timed)(struct rtb_kcall *), int (*other)(struct rtb_kcall *),
                 bool other_first, const char *what)
{
    struct rtb_kcall t, o;
    while (rtb_want(ctx)) {
        if (other_first && (!rtb_ok(ctx, other(&o), what) || !rtb_ok(ctx, rtb_kcall_run(&o), what)))
            return;
        if (!rtb_ok(ctx, timed(&t), what) || !rtb_ok(ctx, rtb_time_kcall(ctx, &t, RTB_OK), what))
            return;
        if (!other_first && (!rtb_ok(ctx, other(&o), what) || !rtb_ok(ctx, rtb_kcall_run(&o), what)))
            return;
    }
}

static void mask(struct rtb_ctx *c) { pair(c, rtb_port_irq_mask_kcall, rtb_port_irq_unmask_kcall, false, "irq_mask"); }
static void unmask(struct rtb_ctx *c) { pair(c, rtb_port_irq_unmask_kcall, rtb_port_irq_mask_kcall, true, "irq_unmask"); }
static void crit_enter(struct rtb_ctx *c)
{
    pair(c, rtb_port_critical_enter_kcall, rtb_port_critical_exit_kcall, false, "critical_enter");
}
static void crit_exit(struct rtb_ctx *c)
{
    pair(c, rtb_port_critical_exit_kcall, rtb_port_critical_enter_kcall, true, "critical_exit");
}

/* ---- bare handlers: prolog and epilog -------------------------------------- */
/* The port reports both intervals from single counter loads: nothing to
 * subtract (rtb_port_irq_bare), so they go in net. */
static void bare(struct rtb_ctx *ctx, bool c_call, bool epilog)
{
    int32_t pro, epi;
    rtb_note(ctx, c_call ? "a C handler the kernel never sees" : "an assembly handler the kernel never sees");
    while (rtb_want(ctx)) {
        if (!rtb_ok(ctx, rtb_port_irq_bare(c_call, &pro, &epi), "irq_bare"))
            return;
        int32_t t = epilog ? epi : pro; /* signed: rounding may leave a tick below 0 */
        int64_t u = (int64_t)RTB_PORT_UNITS((rtb_ticks_t)(t < 0 ? -t : t));
        rtb_add_net(ctx, t < 0 ? -u : u);
    }
}

static void prolog_min(struct rtb_ctx *c) { bare(c, false, false); }
static void prolog_c(struct rtb_ctx *c) { bare(c, true, false); }
static void epilog_min(struct rtb_ctx *c) { bare(c, false, true); }
static void epilog_c(struct rtb_ctx *c) { bare(c, true, true); }

/* Never called: the capability they need is one no port has yet. */
static void out_of_reach(struct rtb_ctx *c) { rtb_unsupported(c, "not measurable here"); }

#define IRQ (RTB_CAP_IRQ | RTB_CAP_SEM)
#define KLAT (RTB_CAP_IRQ | RTB_CAP_IRQ_TIMED | RTB_CAP_SEM | RTB_CAP_MSGQ | RTB_CAP_MUTEX)
const struct rtb_metric rtb_irq_metrics[] = {
    {"irq.response", response, IRQ, 0},
    {"irq.task_response.no_resched", task_response, IRQ, 0},
    {"irq.task_response.resched", task_response_resched, IRQ, 0},
    {"irq.return.interrupted", return_interrupted, IRQ, 0},
    {"irq.return.different", return_different, IRQ, 0},
    {"irq.handler_to_task", to_task, IRQ, 0},
    {"irq.handler_to_deferred", to_deferred, IRQ, 0},
    {"irq.kernel_latency", rtb_irq_kernel_latency, KLAT, 0},
    {"irq.enable", unmask, RTB_CAP_IRQ_MASK, 0},
    {"irq.disable", mask, RTB_CAP_IRQ_MASK, 0},
    {"irq.critical.enter", crit_enter, RTB_CAP_CRITICAL, 0},
    {"irq.critical.exit", crit_exit, RTB_CAP_CRITICAL, 0},
    {"irq.prolog.minimum", prolog_min, RTB_CAP_IRQ_BARE, 0},
    {"irq.prolog.c_call", prolog_c, RTB_CAP_IRQ_BARE, 0},
    {"irq.epilog.minimum", epilog_min, RTB_CAP_IRQ_BARE, 0},
    {"irq.epilog.c_call", epilog_c, RTB_CAP_IRQ_BARE, 0},
    {"swi.enable", out_of_reach, RTB_CAP_SWI, 0},
    {"swi.disable", out_of_reach, RTB_CAP_SWI, 0},
    {"swi.post.again", out_of_reach, RTB_CAP_SWI, 0},
    {"swi.post.no_ctx", out_of_reach, RTB_CAP_SWI, 0},
    {"swi.post.ctx", out_of_reach, RTB_CAP_SWI, 0},
    {0, 0, 0, 0},
};
