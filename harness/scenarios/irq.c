/*
 * Interrupts: the sheets' key measurements, with the instants the
 * glossaries name:
 *
 *   raised      the instant the interrupt is raised: the store that raises
 *               it (the NVIC's software trigger, rtb_port_irq_raise_timed)
 *   in          the handler's first instruction (its stamp opens or closes there)
 *   out         the handler's last instruction of its own: after the give,
 *               before the kernel's exit convention (FreeRTOS's
 *               portYIELD_FROM_ISR, Zephyr's direct-interrupt return), which
 *               is in the windows that start there
 *   resume      the interrupted task's first instruction after the handler
 *   other       the first instruction of the higher-priority task the
 *               handler readied (its pended take returns)
 *   deferred    the first instruction of the work the handler submitted to
 *               the kernel's deferred-work service
 *
 * Each metric times one interval with a handler of its own
 * (rtb_port_irq_hook_plan, rtb/irq_isr.h) that takes only the stamps that
 * interval needs, in the kernel's handler convention, connected by the
 * kernel's low-latency path (the handler is the vector) or, for the
 * .dispatched rows, by its general interrupt dispatch where it has one
 * (Zephyr's IRQ_CONNECT). The interrupt is raised from software by the
 * interrupted task itself (rtb_port_irq_raise_timed): the kernel's path from
 * an interrupt to a handler, a task or a return is the same whatever
 * instruction the interrupt lands on, and no device has to be acknowledged,
 * so no window holds rtbench's device work. Where an interrupt's arrival
 * matters (the kernel's interrupts-off regions) the source is a hardware
 * timer: irq_kernel.c. Only threads: the sheets' interrupt rows have no
 * process variant.
 *
 * Where the port has them (a kernel on a microcontroller): interrupt
 * masking and the kernel's critical section, the kernel's longest
 * interrupts-off region observed under a workload (irq_kernel.c), and bare
 * handlers for the prolog and epilog. On a user-space port they read
 * "unsupported" with the reason, as do software-interrupt objects.
 */
#include <rtb/bench.h>
#include "irq_kernel.h"

enum { TASK_RAISER = 0, TASK_HIGH = 1 };
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
    IN_TO_DEFERRED,     /* handler start to its deferred work */
};
static const unsigned handler_does[] = {
    [RAISED_TO_IN] = RTB_IRQ_STAMP_IN,
    [RAISED_TO_RESUME] = 0,
    [OUT_TO_RESUME] = RTB_IRQ_STAMP_OUT,
    [RAISED_TO_OTHER] = RTB_IRQ_GIVE,
    [OUT_TO_OTHER] = RTB_IRQ_GIVE | RTB_IRQ_STAMP_OUT,
    [IN_TO_OTHER] = RTB_IRQ_STAMP_IN | RTB_IRQ_IN_OPENS | RTB_IRQ_GIVE,
    [IN_TO_DEFERRED] = RTB_IRQ_STAMP_IN | RTB_IRQ_IN_OPENS | RTB_IRQ_DEFER,
};

struct rtb_irq_slots rtb_irq_slots;

struct irq_state {
    struct rtb_ctx *ctx;
    enum interval what;
    bool give;                       /* the handler gives SEM: the high task records */
    volatile rtb_stamp_t raised;     /* the raise's stamp (rtb_port_irq_raise_timed) */
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
    case IN_TO_DEFERRED:
        return rtb_irq_slots.in;
    default:
        return s->raised;
    }
}

/* Where a window that the raiser records ends. */
static rtb_stamp_t closed(const struct irq_state *s, rtb_stamp_t resume)
{
    switch (s->what) {
    case RAISED_TO_IN:
        return rtb_irq_slots.in;
    case IN_TO_DEFERRED:
        return rtb_irq_slots.deferred;
    default:
        return resume;
    }
}

/* The interrupted task: raises the interrupt at a stamp and, when it runs
 * again (the handler, and a task or deferred work it readied, have run:
 * all are more urgent), records the sample unless the readied task did. */
static void raiser(void *arg)
{
    struct irq_state *s = arg;
    while (!s->stop) {
        rtb_rest(s->ctx);
        rtb_stamp_t resume;
        rtb_port_irq_raise_timed(&s->raised, &resume);
        if (s->give)
            continue;
        rtb_add(s->ctx, opened(s), closed(s, resume));
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
    }
    if (rc != RTB_OK)
        s->rc = rc;
    s->stop = true;
}

/* Why a row measures the core and not the kernel (the kernel runs no code
 * of its own in its windows: rtb_port_irq_kernel_code), NULL if it does. */
static const char *kernel_adds_nothing(enum interval what, unsigned does, unsigned kernel)
{
    if (does & (RTB_IRQ_GIVE | RTB_IRQ_DEFER))
        return NULL;
    switch (what) {
    case RAISED_TO_IN:
        return (kernel & RTB_IRQ_KERNEL_ENTRY) ? NULL
               : "the kernel adds nothing: its handler is the interrupt's vector, so the window "
                 "holds the core's exception entry and the handler's first instructions";
    case RAISED_TO_RESUME:
        return kernel ? NULL
               : "the kernel adds nothing: its handler is the interrupt's vector and returns "
                 "straight to the task, so the window holds the core's exception entry and return";
    case OUT_TO_RESUME:
        return (kernel & RTB_IRQ_KERNEL_EXIT) ? NULL
               : "the kernel adds nothing: its handler returns straight to the interrupted task, "
                 "so the window holds the core's exception return";
    default:
        return NULL;
    }
}

static void run(struct rtb_ctx *ctx, enum interval what, unsigned path)
{
    struct irq_state *s = rtb_shared_state(ctx, (void **)&shared, sizeof *shared);
    if (!s)
        return;
    const struct rtb_irq_plan plan = {.does = handler_does[what], .sem = SEM, .path = path};
    s->ctx = ctx;
    s->what = what;
    s->give = (plan.does & RTB_IRQ_GIVE) != 0;
    if (!rtb_ok(ctx, rtb_port_sem_create(SEM, 0, 1), "sem_create"))
        return;
    if (!rtb_ok(ctx, rtb_port_irq_hook_plan(&plan), "irq_hook")) {
        rtb_port_sem_delete(SEM);
        return;
    }
    const char *nothing = kernel_adds_nothing(what, plan.does, rtb_port_irq_kernel_code(path));
    if (nothing)
        rtb_unranked(ctx, nothing);
    if (s->give && !rtb_ok(ctx, rtb_port_task_create(TASK_HIGH, RTB_PRIO_HIGH, 0, high, s),
                           "create high task"))
        goto out;
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_RAISER, RTB_PRIO_LOW, 0, raiser, s),
                "create interrupted task")) {
        s->stop = true;
        rtb_port_sem_give(SEM);
        rtb_port_task_join(TASK_HIGH);
        goto out;
    }
    rtb_port_task_join(TASK_RAISER);
    if (s->give)
        rtb_port_task_join(TASK_HIGH);
    rtb_ok(ctx, s->rc, "interrupt scenario");
out:
    rtb_port_irq_unhook();
    rtb_port_sem_delete(SEM);
}

/* One metric function per interval and path. */
#define PATHS(name, interval)                                                                \
    static void name(struct rtb_ctx *c) { run(c, interval, RTB_IRQ_DIRECT); }               \
    static void name##_dispatched(struct rtb_ctx *c) { run(c, interval, RTB_IRQ_DISPATCHED); }
PATHS(response, RAISED_TO_IN)
PATHS(task_response, RAISED_TO_RESUME)
PATHS(return_interrupted, OUT_TO_RESUME)
PATHS(task_response_resched, RAISED_TO_OTHER)
PATHS(return_different, OUT_TO_OTHER)
PATHS(to_task, IN_TO_OTHER)
PATHS(to_deferred, IN_TO_DEFERRED)

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
    rtb_unranked(ctx, "the kernel adds nothing: a handler the kernel never sees (the core's and "
                      "the compiler's cost, the same whatever kernel runs)");
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
/* A row and its twin through the kernel's general interrupt dispatch. */
#define BOTH(id, fn) {id, fn, IRQ, 0}, {id ".dispatched", fn##_dispatched, IRQ, 0}
const struct rtb_metric rtb_irq_metrics[] = {
    BOTH("irq.response", response),
    BOTH("irq.task_response.no_resched", task_response),
    BOTH("irq.task_response.resched", task_response_resched),
    BOTH("irq.return.interrupted", return_interrupted),
    BOTH("irq.return.different", return_different),
    BOTH("irq.handler_to_task", to_task),
    BOTH("irq.handler_to_deferred", to_deferred),
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
