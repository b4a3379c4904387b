/*
 * Interrupts: the sheets' key measurements, all from one interrupt source
 * (rtb_port_irq_*; on Linux a signal raised from the other CPU, see
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
 * flag, so it is running (not idle) when the interrupt arrives.
 *
 * Rows a user-space benchmark cannot reach (interrupt masking, the
 * kernel's interrupts-off regions, ISR prolog/epilog, software-interrupt
 * objects) are registered against the capability that would make them
 * measurable, so they read "unsupported" with the reason.
 */
#include <rtb/bench.h>

enum { TASK_SPIN = 0, TASK_HIGH = 1 };
enum { SEM = 0 };

enum interval {
    RAISED_TO_IN,       /* interrupt response */
    RAISED_TO_RESUME,   /* task response, no rescheduling */
    OUT_TO_RESUME,      /* return from handler to the interrupted task */
    RAISED_TO_OTHER,    /* task response with rescheduling */
    GIVE_TO_OTHER,      /* return from handler to another task: see below */
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
        rtb_port_sem_give(SEM); /* sem_post: async-signal-safe */
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
/* On an RTOS the switch to the readied task waits for the handler's return;
 * a Linux signal handler runs in task context, so the kernel switches at the
 * give's own return from the kernel, before the handler's last instruction.
 * The interval that exists is give -> readied task, and that is measured. */
static void return_different(struct rtb_ctx *c) { run(c, GIVE_TO_OTHER, true, RTB_PRIO_HIGH); }
static void to_task(struct rtb_ctx *c) { run(c, IN_TO_OTHER, true, RTB_PRIO_HIGH); }
/* The deferred handler (DSP/BIOS SWI, a Linux threaded handler): a task at
 * the top scenario priority, readied by the handler. */
static void to_deferred(struct rtb_ctx *c) { run(c, IN_TO_OTHER, true, RTB_PRIO_RUNNER - 1); }

/* Never called: the capability they need is one no user-space port has. */
static void out_of_reach(struct rtb_ctx *c) { rtb_unsupported(c, "not measurable here"); }

#define IRQ (RTB_CAP_IRQ | RTB_CAP_SEM)
const struct rtb_metric rtb_irq_metrics[] = {
    {"irq.response", response, IRQ, 0},
    {"irq.task_response.no_resched", task_response, IRQ, 0},
    {"irq.task_response.resched", task_response_resched, IRQ, 0},
    {"irq.return.interrupted", return_interrupted, IRQ, 0},
    {"irq.return.different", return_different, IRQ, 0},
    {"irq.handler_to_task", to_task, IRQ, 0},
    {"irq.handler_to_deferred", to_deferred, IRQ, 0},
    {"irq.kernel_latency", out_of_reach, RTB_CAP_IRQ_MASK, 0},
    {"irq.enable", out_of_reach, RTB_CAP_IRQ_MASK, 0},
    {"irq.disable", out_of_reach, RTB_CAP_IRQ_MASK, 0},
    {"irq.prolog.minimum", out_of_reach, RTB_CAP_IRQ_MASK, 0},
    {"irq.prolog.c_call", out_of_reach, RTB_CAP_IRQ_MASK, 0},
    {"irq.epilog.minimum", out_of_reach, RTB_CAP_IRQ_MASK, 0},
    {"irq.epilog.c_call", out_of_reach, RTB_CAP_IRQ_MASK, 0},
    {"swi.enable", out_of_reach, RTB_CAP_SWI, 0},
    {"swi.disable", out_of_reach, RTB_CAP_SWI, 0},
    {"swi.post.again", out_of_reach, RTB_CAP_SWI, 0},
    {"swi.post.no_ctx", out_of_reach, RTB_CAP_SWI, 0},
    {"swi.post.ctx", out_of_reach, RTB_CAP_SWI, 0},
    {0, 0, 0, 0},
};
