/*
 * The KADAK AMX Timing Guide's scenarios, as its text describes them (the
 * timing diagrams that define T1..T4 are not in the guide's text, so each
 * Ti is rtbench's reading of the described sequence, consecutive intervals
 * along the time line; the catalogue says so per metric).
 *
 * Wait/Wake (2.1) and Mailbox (2.2): low task B triggers high task A (A
 * starts: T1); A waits (B resumes: T2); B wakes A, or sends it a 12-byte
 * message (A resumes: T3); A ends (B resumes: T4). AMX tasks are resident
 * and "triggered"; here A is a resident task waiting on a trigger semaphore,
 * and "ends" by going back to that wait.
 *
 * Clock service (3.1): a compute-bound task A and a periodic timer (two
 * 1 ms ticks) whose procedure does nothing but stamp.
 * Task delay (3.2): task A waits one 1 ms tick; a lower task X runs.
 */
#include <rtb/bench.h>

enum { TASK_A = 0, TASK_B = 1 };
enum { TRIG = 0, WAKE = 1 };   /* semaphores */
enum { MBX = 0 };              /* message queue */
enum { TIMER = 0 };
#define MSG_SIZE 12            /* the AMX default message size */
#define TICK_US 1000u
/* ---- Wait/Wake and Mailbox --------------------------------------------- */
struct sync_state {
    struct rtb_ctx *ctx;
    int interval;              /* 1..4: which Ti this metric records */
    bool mailbox;
    volatile rtb_ticks_t b0, a1, a2, b3, b4, a5, a6, b7;
    volatile bool stop;
    volatile int rc;
};
static struct sync_state *sync_shared;

static void task_a(void *arg)
{
    struct sync_state *s = arg;
    unsigned char msg[MSG_SIZE];
    for (;;) {
        int rc = rtb_port_sem_take(TRIG, RTB_WAIT_FOREVER);
        s->a1 = rtb_port_ts();
        if (rc != RTB_OK || s->stop) {
            if (rc != RTB_OK)
                s->rc = rc;
            break;
        }
        s->a2 = rtb_port_ts();
        rc = s->mailbox ? rtb_port_msgq_receive(MBX, msg, RTB_WAIT_FOREVER)
                        : rtb_port_sem_take(WAKE, RTB_WAIT_FOREVER);
        s->a5 = rtb_port_ts();
        if (rc != RTB_OK || s->stop) {
            if (rc != RTB_OK)
                s->rc = rc;
            break;
        }
        s->a6 = rtb_port_ts(); /* "ends": back to waiting for the trigger */
    }
}

static void task_b(void *arg)
{
    struct sync_state *s = arg;
    unsigned char msg[MSG_SIZE] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    while (!s->stop) {
        s->b0 = rtb_port_ts();
        int rc = rtb_port_sem_give(TRIG);
        s->b3 = rtb_port_ts();
        if (rc == RTB_OK) {
            s->b4 = rtb_port_ts();
            rc = s->mailbox ? rtb_port_msgq_send(MBX, msg, RTB_WAIT_FOREVER)
                            : rtb_port_sem_give(WAKE);
            s->b7 = rtb_port_ts();
        }
        if (rc != RTB_OK) {
            s->rc = rc;
            break;
        }
        /* In order only when A preempted B at each step (real-time
         * priorities on one CPU); otherwise the cycle is not a sample. */
        if (s->b0 < s->a1 && s->a1 < s->a2 && s->a2 < s->b3 && s->b3 < s->b4 &&
            s->b4 < s->a5 && s->a5 < s->a6 && s->a6 < s->b7) {
            const rtb_ticks_t from[] = {s->b0, s->a2, s->b4, s->a6};
            const rtb_ticks_t to[] = {s->a1, s->b3, s->a5, s->b7};
            rtb_add(s->ctx, from[s->interval - 1], to[s->interval - 1]);
        }
        if (!rtb_want(s->ctx))
            break;
    }
    s->stop = true;
    rtb_port_sem_give(TRIG); /* release A wherever it waits */
    if (s->mailbox)
        rtb_port_msgq_send(MBX, msg, RTB_NO_WAIT);
    else
        rtb_port_sem_give(WAKE);
}

static void sync_run(struct rtb_ctx *ctx, bool mailbox, int interval)
{
    struct sync_state *s = rtb_shared_state(ctx, (void **)&sync_shared, sizeof *sync_shared);
    if (!s)
        return;
    s->ctx = ctx;
    s->mailbox = mailbox;
    s->interval = interval;
    bool ok = rtb_ok(ctx, rtb_port_sem_create(TRIG, 0, 1), "sem_create") &&
              (mailbox ? rtb_ok(ctx, rtb_port_msgq_create(MBX, MSG_SIZE, 4), "msgq_create")
                       : rtb_ok(ctx, rtb_port_sem_create(WAKE, 0, 1), "sem_create"));
    unsigned fl = rtb_task_flags(ctx);
    if (ok && rtb_ok(ctx, rtb_port_task_create(TASK_A, RTB_PRIO_HIGH, fl, task_a, s), "create task A")) {
        if (rtb_ok(ctx, rtb_port_task_create(TASK_B, RTB_PRIO_LOW, fl, task_b, s), "create task B")) {
            rtb_port_task_join(TASK_B);
        } else {
            s->stop = true;
            rtb_port_sem_give(TRIG);
        }
        rtb_port_task_join(TASK_A);
        rtb_ok(ctx, s->rc, mailbox ? "mailbox cycle" : "wait/wake cycle");
    }
    rtb_port_sem_delete(TRIG);
    if (mailbox)
        rtb_port_msgq_delete(MBX);
    else
        rtb_port_sem_delete(WAKE);
}

static void ww1(struct rtb_ctx *c) { sync_run(c, false, 1); }
static void ww2(struct rtb_ctx *c) { sync_run(c, false, 2); }
static void ww3(struct rtb_ctx *c) { sync_run(c, false, 3); }
static void ww4(struct rtb_ctx *c) { sync_run(c, false, 4); }
static void mb1(struct rtb_ctx *c) { sync_run(c, true, 1); }
static void mb2(struct rtb_ctx *c) { sync_run(c, true, 2); }
static void mb3(struct rtb_ctx *c) { sync_run(c, true, 3); }
static void mb4(struct rtb_ctx *c) { sync_run(c, true, 4); }

/* ---- Clock service: a periodic timer interrupting a compute-bound task -- */
struct clock_state {
    struct rtb_ctx *ctx;
    bool to_task;              /* record routine end -> task, else the whole interruption */
    volatile rtb_ticks_t routine_out;
    volatile unsigned fired;
};
static struct clock_state *clock_shared;

static void routine(void *arg)
{
    struct clock_state *s = arg;
    s->fired++;
    s->routine_out = rtb_port_ts();
}

/* The interruption is the one long gap between consecutive clock reads:
 * it falls either before `now` or between `now` and the fired test. */
static void compute_bound(void *arg)
{
    struct clock_state *s = arg;
    unsigned seen = s->fired;
    rtb_ticks_t prev = rtb_port_ts();
    while (rtb_want(s->ctx)) {
        rtb_ticks_t now;
        for (;;) { /* compute: nothing but the clock, so a gap is an interruption */
            now = rtb_port_ts();
            if (s->fired != seen)
                break;
            prev = now;
        }
        rtb_ticks_t after = rtb_port_ts();
        seen = s->fired;
        rtb_ticks_t from = prev, to = now;
        if (after - now > now - prev) {
            from = now;
            to = after;
        }
        rtb_add(s->ctx, s->to_task ? s->routine_out : from, to);
        rtb_rest(s->ctx);
        seen = s->fired; /* an expiry during a rest is not a sample */
        prev = rtb_port_ts();
    }
}

static void clock_run(struct rtb_ctx *ctx, bool to_task)
{
    struct clock_state *s = rtb_shared_state(ctx, (void **)&clock_shared, sizeof *clock_shared);
    if (!s)
        return;
    s->ctx = ctx;
    s->to_task = to_task;
    if (!rtb_ok(ctx, rtb_port_timer_create(TIMER, routine, s), "timer_create"))
        return;
    if (rtb_ok(ctx, rtb_port_timer_start(TIMER, 2 * TICK_US, 2 * TICK_US), "timer_start")) {
        if (rtb_ok(ctx, rtb_port_task_create(TASK_A, RTB_PRIO_LOW, 0, compute_bound, s),
                   "create task A"))
            rtb_port_task_join(TASK_A);
        rtb_port_timer_cancel(TIMER);
    }
    rtb_port_timer_delete(TIMER);
}

static void timer_service(struct rtb_ctx *c) { clock_run(c, false); }
static void timer_to_task(struct rtb_ctx *c) { clock_run(c, true); }

/* ---- Task delay for one tick -------------------------------------------- */
struct delay_state {
    struct rtb_ctx *ctx;
    bool wakeup;               /* record expiry -> A, else A's delay -> X */
    volatile rtb_ticks_t before, x_first;
    volatile int delaying;
    volatile int resting;      /* A rests the CPU: X sleeps too */
    volatile bool stop;
    volatile int rc;
};
static struct delay_state *delay_shared;

static void delayer(void *arg)
{
    struct delay_state *s = arg;
    rtb_ticks_t tick = rtb_us_to_ticks(s->ctx, TICK_US);
    while (rtb_want(s->ctx)) {
        s->resting = 1; /* X computes whenever A sleeps: rest the CPU as a whole */
        rtb_rest(s->ctx);
        s->resting = 0;
        s->x_first = 0;
        s->delaying = 1;
        s->before = rtb_port_ts();
        int rc = rtb_port_task_delay(TICK_US);
        rtb_ticks_t after = rtb_port_ts();
        s->delaying = 0;
        if (rc != RTB_OK) {
            s->rc = rc;
            break;
        }
        if (s->wakeup)
            rtb_add(s->ctx, s->before + tick, after);
        else if (s->x_first) /* X ran while A slept (always, with real-time priorities) */
            rtb_add(s->ctx, s->before, s->x_first);
    }
    s->stop = true;
}

/* X: runs whenever A sleeps; its first clock read after A's switch away
 * is the stop stamp (read after the test, so a stale read never counts). */
static void other_task(void *arg)
{
    struct delay_state *s = arg;
    while (!s->stop) {
        if (s->delaying && !s->x_first)
            s->x_first = rtb_port_ts();
        if (s->resting)
            rtb_port_task_delay(10000);
    }
}

static void delay_run(struct rtb_ctx *ctx, bool wakeup)
{
    struct delay_state *s = rtb_shared_state(ctx, (void **)&delay_shared, sizeof *delay_shared);
    if (!s)
        return;
    s->ctx = ctx;
    s->wakeup = wakeup;
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_A, RTB_PRIO_HIGH, 0, delayer, s), "create task A"))
        return;
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_B, RTB_PRIO_LOW, 0, other_task, s), "create task X"))
        s->stop = true;
    rtb_port_task_join(TASK_A);
    if (!s->stop)
        s->stop = true;
    rtb_port_task_join(TASK_B);
    rtb_ok(ctx, s->rc, "task_delay");
}

static void delay_switch(struct rtb_ctx *c) { delay_run(c, false); }
static void delay_wakeup(struct rtb_ctx *c) { delay_run(c, true); }

/* Never called: needs caches the benchmark can switch off. */
static void uncached(struct rtb_ctx *c) { rtb_unsupported(c, "caches cannot be disabled"); }

#define SYNC (RTB_CAP_SEM)
#define MBOX (RTB_CAP_SEM | RTB_CAP_MSGQ)
const struct rtb_metric rtb_amx_metrics[] = {
    RTB_THREAD_AND_PROCESS("amx.waitwake.t1", ww1, SYNC),
    RTB_THREAD_AND_PROCESS("amx.waitwake.t2", ww2, SYNC),
    RTB_THREAD_AND_PROCESS("amx.waitwake.t3", ww3, SYNC),
    RTB_THREAD_AND_PROCESS("amx.waitwake.t4", ww4, SYNC),
    RTB_THREAD_AND_PROCESS("amx.mailbox.t1", mb1, MBOX),
    RTB_THREAD_AND_PROCESS("amx.mailbox.t2", mb2, MBOX),
    RTB_THREAD_AND_PROCESS("amx.mailbox.t3", mb3, MBOX),
    RTB_THREAD_AND_PROCESS("amx.mailbox.t4", mb4, MBOX),
    {"amx.timer.interruption", timer_service, RTB_CAP_TIMER, 0},
    {"amx.timer.routine_to_task", timer_to_task, RTB_CAP_TIMER, 0},
    {"amx.delay.switch", delay_switch, 0, 0},
    {"amx.delay.wakeup", delay_wakeup, 0, 0},
    {"sched.switch.uncached", uncached, RTB_CAP_CACHE_DISABLE, 0},
    {0, 0, 0, 0},
};
