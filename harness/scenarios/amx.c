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
    volatile rtb_stamp_t b0, a1, a2, b3, b4, a5, a6, b7;
    volatile bool stop;
    volatile int rc;
};
static struct sync_state *sync_shared;

/* A: waits for the trigger (a6 stamped first: "A ends"), a1 when it
 * returns; then waits for the wake-up or the message (a2 first), a5 after.
 * Each wait is one prepared call between its two stamps. */
static void task_a(void *arg)
{
    struct sync_state *s = arg;
    unsigned char msg[MSG_SIZE];
    struct rtb_kcall trig, wake;
    int rc = rtb_port_sem_take_kcall(TRIG, RTB_WAIT_FOREVER, &trig);
    if (rc == RTB_OK)
        rc = s->mailbox ? rtb_port_msgq_receive_kcall(MBX, msg, RTB_WAIT_FOREVER, &wake)
                        : rtb_port_sem_take_kcall(WAKE, RTB_WAIT_FOREVER, &wake);
    while (rc == RTB_OK) {
        rtb_stamp_t t;
        rtb_kcall_shared_timed(&trig, &s->a6, &t);
        s->a1 = t;
        if ((rc = rtb_kcall_rc(&trig)) != RTB_OK || s->stop)
            break;
        rtb_kcall_shared_timed(&wake, &s->a2, &t);
        s->a5 = t;
        if ((rc = rtb_kcall_rc(&wake)) != RTB_OK || s->stop)
            break;
    }
    if (rc != RTB_OK)
        s->rc = rc;
}

static bool in_order(const struct sync_state *s)
{
    const rtb_stamp_t t[] = {s->b0, s->a1, s->a2, s->b3, s->b4, s->a5, s->a6, s->b7};
    for (unsigned i = 1; i < sizeof t / sizeof t[0]; i++)
        if (rtb_stamp_delta(t[i - 1], t[i]) <= 0)
            return false;
    return true;
}

/* B: triggers A (b0 before, b3 when its call returns), wakes it or sends
 * it a message (b4 before, b7 after). */
static void task_b(void *arg)
{
    struct sync_state *s = arg;
    unsigned char msg[MSG_SIZE] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    struct rtb_kcall trig, wake;
    int rc = rtb_port_sem_give_kcall(TRIG, &trig);
    if (rc == RTB_OK)
        rc = s->mailbox ? rtb_port_msgq_send_kcall(MBX, msg, RTB_WAIT_FOREVER, &wake)
                        : rtb_port_sem_give_kcall(WAKE, &wake);
    while (rc == RTB_OK && !s->stop) {
        rtb_stamp_t t;
        rtb_kcall_shared_timed(&trig, &s->b0, &t);
        s->b3 = t;
        if ((rc = rtb_kcall_rc(&trig)) != RTB_OK)
            break;
        rtb_kcall_shared_timed(&wake, &s->b4, &t);
        s->b7 = t;
        if ((rc = rtb_kcall_rc(&wake)) != RTB_OK)
            break;
        /* In order only when A preempted B at each step (real-time
         * priorities on one CPU); otherwise the cycle is not a sample. */
        if (in_order(s)) {
            const rtb_stamp_t from[] = {s->b0, s->a2, s->b4, s->a6};
            const rtb_stamp_t to[] = {s->a1, s->b3, s->a5, s->b7};
            rtb_add(s->ctx, from[s->interval - 1], to[s->interval - 1]);
        }
        if (!rtb_want(s->ctx))
            break;
    }
    if (rc != RTB_OK)
        s->rc = rc;
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

/* ---- Stamp runs: where a task resumes -----------------------------------
 * A task that something interrupts or switches away from, and that must
 * say when it runs again, spins in rtb_port_stamp_run: stamps one after the
 * other into a buffer (seven instructions a pass on the board, four of them
 * after any resumption before the next counter load). None of its stamps
 * is taken while another task or handler runs, so the first one after an
 * instant is the task's resumption after it. */
/* Stamps of one run. The clock's: under the 2 ms timer period on the board
 * (about 8 700 instructions: never two expiries in one run). The delay's:
 * over the longest the delayed task sleeps (a one-tick delay lasts up to
 * two ticks, 15 625 instructions), so the first stamps after A's switch
 * are still there when A wakes. */
#define RUN 2048u
#define RUN_DELAY 4096u
/* A board whose RAM cannot also hold these buffers (8 and 16 KiB) says so
 * (RTB_PORT_NO_ROOM_FOR_RUNS: the STM32F4's 96 KiB), and the rows that
 * need them are unsupported with its words rather than failed. */
#ifdef RTB_PORT_NO_ROOM_FOR_RUNS
#define ROOM_FOR_RUNS(ctx) (rtb_unsupported(ctx, RTB_PORT_NO_ROOM_FOR_RUNS), false)
#else
#define ROOM_FOR_RUNS(ctx) true
#endif

static rtb_stamp_t entry(const rtb_stamp_t *buf, uint32_t i)
{
    return RTB_PORT_STAMP_RUN_VALUE(buf[i]);
}

static bool first_after(const rtb_stamp_t *buf, uint32_t n, rtb_stamp_t t, rtb_stamp_t *out)
{
    bool found = false;
    for (uint32_t i = 0; i < n; i++) {
        rtb_stamp_t v = entry(buf, i);
        if (rtb_stamp_delta(t, v) > 0 && (!found || rtb_stamp_delta(v, *out) > 0)) {
            *out = v;
            found = true;
        }
    }
    return found;
}

/* ---- Clock service: a periodic timer interrupting a compute-bound task -- */
struct clock_state {
    struct rtb_ctx *ctx;
    bool to_task;              /* record routine end -> task, else the whole interruption */
    rtb_stamp_t run[RUN];
};
static struct clock_state *clock_shared;
/* The timer's procedure: a count that says it ran, then its stamp, last,
 * into a slot at a fixed address (the window it opens holds the store and
 * the return of rtbench's, nothing more). Threads only: plain statics. */
static volatile unsigned fired;
static volatile rtb_stamp_t routine_out;

static void routine(void *arg)
{
    (void)arg;
    fired++;
    RTB_PORT_STAMP_OPEN_TO(routine_out);
}

/* The task computes (a run of stamps); in a run one expiry landed in, the
 * interruption is the gap between the stamps around the routine's, less a
 * pass of the run (the shortest gap in it: what the task's own loop costs),
 * and the routine-to-task interval ends at the first stamp after the
 * routine's. A run the expiry did not land in whole (it fired between runs)
 * is no sample. */
static void compute_bound(void *arg)
{
    struct clock_state *s = arg;
    while (rtb_want(s->ctx)) {
        unsigned seen = fired;
        rtb_port_stamp_run(s->run, RUN);
        if (fired != seen + 1u)
            continue;
        rtb_stamp_t out = routine_out, to = 0, from = entry(s->run, 0);
        if (rtb_stamp_delta(from, out) <= 0 || !first_after(s->run, RUN, out, &to))
            continue;
        int64_t pass = -1;
        for (uint32_t i = 1; i < RUN; i++) {
            int64_t gap = rtb_stamp_delta(entry(s->run, i - 1), entry(s->run, i));
            if (pass < 0 || gap < pass)
                pass = gap;
            if (rtb_stamp_delta(entry(s->run, i), out) > 0)
                from = entry(s->run, i);
        }
        if (s->to_task)
            rtb_add(s->ctx, out, to);
        else
            rtb_add_net(s->ctx, (int64_t)RTB_PORT_UNITS((rtb_ticks_t)(rtb_stamp_delta(from, to) - pass)));
        rtb_rest(s->ctx);
    }
}

static void clock_run(struct rtb_ctx *ctx, bool to_task)
{
    if (!ROOM_FOR_RUNS(ctx))
        return;
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
/* A delays for one tick; X, below it, runs while A sleeps. The switch: from
 * A's stamp before the delay to X's first stamp after it (X in stamp runs,
 * where the port has a tight one: a board). The wake-up: on a tick-driven
 * kernel from the tick interrupt that ends the delay (rtb_port_tick_stamps)
 * to A's stamp when its delay call returns; where the port has no tick, from
 * the instant one tick after A's stamp. */
struct delay_state {
    struct rtb_ctx *ctx;
    bool wakeup;               /* record the wake-up, else A's delay -> X */
    bool ticked;               /* the port stamps its kernel's tick */
    volatile rtb_stamp_t before, x_first;
    volatile int x_seen;       /* x_first is X's read for this delay */
    volatile int delaying;
    volatile int resting;      /* A rests the CPU: X sleeps too */
    volatile int x_running;    /* X is in its stamp runs */
    volatile bool stop;
    volatile int rc;
    rtb_stamp_t run[RUN_DELAY];
};
static struct delay_state *delay_shared;

/* A: the stamp (shared: X's window starts there), the delay, the stamp
 * after it returns (the wake-up's end). */
static void delayer(void *arg)
{
    struct delay_state *s = arg;
    rtb_ticks_t tick = rtb_us_to_ticks(s->ctx, TICK_US);
    struct rtb_kcall delay;
    int rc = rtb_port_task_delay_kcall(TICK_US, &delay);
    while (rc == RTB_OK && rtb_want(s->ctx)) {
        s->resting = 1; /* X computes whenever A sleeps: rest the CPU as a whole */
        rtb_rest(s->ctx);
        s->resting = 0;
        s->x_seen = 0;
        s->delaying = 1;
        bool x_running = s->x_running;
        rtb_stamp_t after;
        rtb_kcall_timed(&delay, (rtb_stamp_t *)&s->before, &after);
        rtb_stamp_t tick_at = rtb_port_tick_stamp();
        s->delaying = 0;
        if ((rc = rtb_kcall_rc(&delay)) != RTB_OK)
            break;
        rtb_stamp_t x_first = 0;
        if (s->wakeup)
            rtb_add(s->ctx, s->ticked ? tick_at : (rtb_stamp_t)(s->before + tick), after);
        else if (s->ticked && x_running && first_after(s->run, RUN_DELAY, s->before, &x_first))
            rtb_add(s->ctx, s->before, x_first);
        else if (!s->ticked && s->x_seen) /* X ran while A slept */
            rtb_add(s->ctx, s->before, s->x_first);
    }
    if (rc != RTB_OK)
        s->rc = rc;
    s->stop = true;
}

/* X: runs whenever A sleeps. On a board, stamp runs (A takes a sample only
 * once X is in them: the first switch to X enters its task function);
 * elsewhere its first clock read after A's switch away is the stop stamp
 * (read after the test, so a stale read never counts). */
static void other_task(void *arg)
{
    struct delay_state *s = arg;
    while (!s->stop) {
        if (s->ticked) {
            s->x_running = 1;
            rtb_port_stamp_run(s->run, RUN_DELAY);
            continue;
        }
        if (s->delaying && !s->x_seen) {
            s->x_first = rtb_port_stamp_end();
            s->x_seen = 1;
        }
        if (s->resting)
            rtb_port_task_delay(10000);
    }
}

static void delay_run(struct rtb_ctx *ctx, bool wakeup)
{
    if (!ROOM_FOR_RUNS(ctx))
        return;
    struct delay_state *s = rtb_shared_state(ctx, (void **)&delay_shared, sizeof *delay_shared);
    if (!s)
        return;
    s->ctx = ctx;
    s->wakeup = wakeup;
    s->ticked = rtb_port_tick_stamps(true) == RTB_OK;
    rtb_note(ctx, s->ticked ? (wakeup ? "from the tick interrupt that ends the delay"
                                      : "to the other task's first stamp after the switch")
                            : "from one tick after the delay call (no kernel tick to stamp)");
    if (rtb_ok(ctx, rtb_port_task_create(TASK_A, RTB_PRIO_HIGH, 0, delayer, s), "create task A")) {
        if (!rtb_ok(ctx, rtb_port_task_create(TASK_B, RTB_PRIO_LOW, 0, other_task, s), "create task X"))
            s->stop = true;
        rtb_port_task_join(TASK_A);
        if (!s->stop)
            s->stop = true;
        rtb_port_task_join(TASK_B);
        rtb_ok(ctx, s->rc, "task_delay");
    }
    if (s->ticked)
        rtb_port_tick_stamps(false);
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
