/*
 * Interrupts: the sheets' key measurements, all from one interrupt source
 * (rtb_port_irq_*: on the AN385 board a hardware timer that expires while
 * the measured task runs; on Linux a signal raised from the other CPU, see
 * ports/posix/port_irq.c), with the instants the glossaries name:
 *
 *   raised      the port's stamp when it raises the interrupt
 *   in          the handler's first instruction
 *   out         the handler's last instruction
 *   give        the handler's give call (just before it)
 *   resume      the interrupted task's first instruction after the handler
 *   other       the first instruction of the higher-priority task the
 *               handler readied (its pended take returns)
 *
 * Two scenarios produce every interval: "plain" (the handler only stamps;
 * the interrupted task resumes) and "give" (the handler gives a semaphore a
 * higher-priority task is pended on, so the return reschedules). Each
 * metric records one interval of its scenario. Only threads: the sheets'
 * interrupt rows have no process variant. The interrupted task spins on a
 * flag, so it is running (not idle) when the interrupt arrives. The handler
 * gives with the interrupt-context call (rtb_port_sem_give_isr).
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

enum interval {
    RAISED_TO_IN,       /* interrupt response */
    RAISED_TO_RESUME,   /* task response, no rescheduling */
    OUT_TO_RESUME,      /* return from handler to the interrupted task */
    RAISED_TO_OTHER,    /* task response with rescheduling */
    OUT_TO_OTHER,       /* return from handler to another task (an RTOS) */
    GIVE_TO_OTHER,      /* the same where the give itself switches (Linux) */
    IN_TO_OTHER,        /* handler start to the readied task */
};

struct irq_state {
    struct rtb_ctx *ctx;
    enum interval what;
    bool give;                       /* the handler gives SEM */
    volatile rtb_ticks_t in, out, give_at;
    volatile int spinning;           /* the interrupted task is in its spin loop */
    volatile int early;              /* the interrupt arrived before that: no sample */
    volatile int fired;              /* set by the handler */
    volatile int taken;              /* set by the high task after recording */
    volatile bool stop;
    volatile int rc;
};
static struct irq_state *shared;

static void handler(void *arg)
{
    struct irq_state *s = arg;
    s->in = rtb_port_ts();
    s->early = !s->spinning;
    if (s->give) {
        s->give_at = rtb_port_ts();
        rtb_port_sem_give_isr(SEM);
    }
    s->fired = 1;
    s->out = rtb_port_ts();
}

static rtb_ticks_t pick(const struct irq_state *s, rtb_ticks_t raised, rtb_ticks_t *t1)
{
    switch (s->what) {
    case RAISED_TO_IN:
        *t1 = s->in;
        return raised;
    case OUT_TO_RESUME:
    case OUT_TO_OTHER:
        return s->out;
    case GIVE_TO_OTHER:
        return s->give_at;
    case IN_TO_OTHER:
        return s->in;
    default:
        return raised;
    }
}

/* The interrupted task: request an interrupt, spin until the handler has
 * run (and, with give, until the high task has taken its sample). */
static void spinner(void *arg)
{
    struct irq_state *s = arg;
    while (!s->stop) {
        rtb_rest(s->ctx);
        s->fired = 0;
        s->taken = 0;
        s->spinning = 0;
        int rc = rtb_port_irq_trigger();
        if (rc != RTB_OK) {
            s->rc = rc;
            break;
        }
        s->spinning = 1;
        while (!s->fired)
            ;
        rtb_ticks_t resume = rtb_port_ts();
        if (s->give) {
            while (!s->taken && !s->stop)
                rtb_port_task_yield(); /* only without real-time priorities */
            continue;
        }
        if (s->early)
            continue; /* raised while the trigger call was still returning */
        rtb_ticks_t t1 = resume;
        rtb_ticks_t t0 = pick(s, rtb_port_irq_raised_at(), &t1);
        rtb_add(s->ctx, t0, t1);
        if (!rtb_want(s->ctx))
            s->stop = true;
    }
    s->stop = true;
    if (s->give)
        rtb_port_sem_give(SEM); /* release the high task */
}

/* The readied task: pended on SEM; its first act after the take is the stamp. */
static void high(void *arg)
{
    struct irq_state *s = arg;
    for (;;) {
        int rc = rtb_port_sem_take(SEM, RTB_WAIT_FOREVER);
        rtb_ticks_t t1 = rtb_port_ts();
        if (rc != RTB_OK) {
            s->rc = rc;
            break;
        }
        if (s->stop)
            break;
        if (!s->early) {
            rtb_ticks_t t0 = pick(s, rtb_port_irq_raised_at(), &t1);
            rtb_add(s->ctx, t0, t1);
            if (!rtb_want(s->ctx))
                s->stop = true;
        }
        s->taken = 1;
    }
    s->stop = true;
}

static void run(struct rtb_ctx *ctx, enum interval what, bool give, int high_prio)
{
    struct irq_state *s = rtb_shared_state(ctx, (void **)&shared, sizeof *shared);
    if (!s)
        return;
    s->ctx = ctx;
    s->what = what;
    s->give = give;
    if (!rtb_ok(ctx, rtb_port_sem_create(SEM, 0, 1), "sem_create"))
        return;
    if (!rtb_ok(ctx, rtb_port_irq_hook(handler, s), "irq_hook")) {
        rtb_port_sem_delete(SEM);
        return;
    }
    if (give && !rtb_ok(ctx, rtb_port_task_create(TASK_HIGH, high_prio, 0, high, s),
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
    if (give)
        rtb_port_task_join(TASK_HIGH);
    rtb_ok(ctx, s->rc, "interrupt scenario");
out:
    rtb_port_irq_unhook();
    rtb_port_sem_delete(SEM);
}

static void response(struct rtb_ctx *c) { run(c, RAISED_TO_IN, false, 0); }
static void task_response(struct rtb_ctx *c) { run(c, RAISED_TO_RESUME, false, 0); }
static void return_interrupted(struct rtb_ctx *c) { run(c, OUT_TO_RESUME, false, 0); }
static void task_response_resched(struct rtb_ctx *c) { run(c, RAISED_TO_OTHER, true, RTB_PRIO_HIGH); }
/* On an RTOS the switch to the readied task waits for the handler's return:
 * handler's last instruction -> readied task. A Linux signal handler runs
 * in task context, so the kernel switches at the give's own return from the
 * kernel, before the handler's last instruction: the interval that exists
 * there is give -> readied task, and that is measured (the note says which). */
static void return_different(struct rtb_ctx *c)
{
    struct rtb_port_info pi = {0};
    rtb_port_info(&pi);
    if (pi.irq_switch_at_exit) {
        rtb_note(c, "handler's last instruction to the readied task");
        run(c, OUT_TO_OTHER, true, RTB_PRIO_HIGH);
    } else {
        rtb_note(c, "the handler's give switches at once on this port: give call to the readied task");
        run(c, GIVE_TO_OTHER, true, RTB_PRIO_HIGH);
    }
}
static void to_task(struct rtb_ctx *c) { run(c, IN_TO_OTHER, true, RTB_PRIO_HIGH); }
/* The deferred handler (DSP/BIOS SWI, a Linux threaded handler): a task at
 * the top scenario priority, readied by the handler. */
static void to_deferred(struct rtb_ctx *c) { run(c, IN_TO_OTHER, true, RTB_PRIO_RUNNER - 1); }

/* ---- masking and the critical section ------------------------------------ */
/* One call timed, its counterpart outside the timed region. */
static void pair(struct rtb_ctx *ctx, int (*timed)(void), int (*other)(void), bool other_first,
                 const char *what)
{
    while (rtb_want(ctx)) {
        if (other_first && !rtb_ok(ctx, other(), what))
            return;
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = timed();
        rtb_ticks_t t1 = rtb_port_ts();
        if (!rtb_ok(ctx, rc, what) || (!other_first && !rtb_ok(ctx, other(), what)))
            return;
        rtb_add(ctx, t0, t1);
    }
}

static void mask(struct rtb_ctx *c) { pair(c, rtb_port_irq_mask, rtb_port_irq_unmask, false, "irq_mask"); }
static void unmask(struct rtb_ctx *c) { pair(c, rtb_port_irq_unmask, rtb_port_irq_mask, true, "irq_unmask"); }
static void crit_enter(struct rtb_ctx *c) { pair(c, rtb_port_critical_enter, rtb_port_critical_exit, false, "critical_enter"); }
static void crit_exit(struct rtb_ctx *c) { pair(c, rtb_port_critical_exit, rtb_port_critical_enter, true, "critical_exit"); }

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
