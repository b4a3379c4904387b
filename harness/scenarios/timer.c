/*
 * Timers (VxWorks watchdogs: wdCreate, wdDelete, wdStart, wdCancel) and the
 * timer's own expiry latency, kept apart from the interrupt metrics so that
 * a sheet never mixes a timer's error into an interrupt response.
 *
 * Timer 0 is the one measured; timer 1, armed far in the future, is the
 * "timer in queue" of the VxWorks situations. Far = 60 s: never expires
 * within a metric (a metric's budget is seconds, the watchdog's default
 * 30 s).
 */
#include <rtb/bench.h>

enum { T0 = 0, T1 = 1, SEM = 0 };
#define FAR_US 60000000u
#define EXPIRY_US 1000u

static void nothing(void *arg)
{
    (void)arg;
}

static void create(struct rtb_ctx *ctx)
{
    while (rtb_want(ctx)) {
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = rtb_port_timer_create(T0, nothing, 0);
        rtb_ticks_t t1 = rtb_port_ts();
        if (!rtb_ok(ctx, rc, "timer_create"))
            return;
        rtb_add(ctx, t0, t1);
        if (!rtb_ok(ctx, rtb_port_timer_delete(T0), "timer_delete"))
            return;
    }
}

static void delete_timer(struct rtb_ctx *ctx, bool started)
{
    while (rtb_want(ctx)) {
        if (!rtb_ok(ctx, rtb_port_timer_create(T0, nothing, 0), "timer_create"))
            return;
        if (started && !rtb_ok(ctx, rtb_port_timer_start(T0, FAR_US, 0), "timer_start")) {
            rtb_port_timer_delete(T0);
            return;
        }
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = rtb_port_timer_delete(T0);
        rtb_ticks_t t1 = rtb_port_ts();
        if (!rtb_ok(ctx, rc, "timer_delete"))
            return;
        rtb_add(ctx, t0, t1);
    }
}

static void delete_started(struct rtb_ctx *ctx) { delete_timer(ctx, true); }
static void delete_idle(struct rtb_ctx *ctx) { delete_timer(ctx, false); }

/* Start timer 0 (stopped again outside the timed region), with or without
 * timer 1 already queued. */
static void start(struct rtb_ctx *ctx, bool other_queued)
{
    if (!rtb_ok(ctx, rtb_port_timer_create(T0, nothing, 0), "timer_create"))
        return;
    if (other_queued) {
        if (!rtb_ok(ctx, rtb_port_timer_create(T1, nothing, 0), "timer_create") ||
            !rtb_ok(ctx, rtb_port_timer_start(T1, FAR_US, 0), "timer_start")) {
            rtb_port_timer_delete(T0);
            return;
        }
    }
    while (rtb_want(ctx)) {
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = rtb_port_timer_start(T0, FAR_US, 0);
        rtb_ticks_t t1 = rtb_port_ts();
        if (!rtb_ok(ctx, rc, "timer_start") ||
            !rtb_ok(ctx, rtb_port_timer_cancel(T0), "timer_cancel"))
            break;
        rtb_add(ctx, t0, t1);
    }
    if (other_queued)
        rtb_port_timer_delete(T1);
    rtb_port_timer_delete(T0);
}

static void start_empty(struct rtb_ctx *ctx) { start(ctx, false); }
static void start_queued(struct rtb_ctx *ctx) { start(ctx, true); }

static void cancel(struct rtb_ctx *ctx)
{
    if (!rtb_ok(ctx, rtb_port_timer_create(T0, nothing, 0), "timer_create"))
        return;
    while (rtb_want(ctx)) {
        if (!rtb_ok(ctx, rtb_port_timer_start(T0, FAR_US, 0), "timer_start"))
            break;
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = rtb_port_timer_cancel(T0);
        rtb_ticks_t t1 = rtb_port_ts();
        if (!rtb_ok(ctx, rc, "timer_cancel"))
            break;
        rtb_add(ctx, t0, t1);
    }
    rtb_port_timer_delete(T0);
}

/* Expiry: the routine's first instruction against the instant the timer
 * was asked to expire (stamp before the start call + the delay). */
static volatile rtb_ticks_t fired_at;

static void stamp(void *arg)
{
    fired_at = rtb_port_ts();
    rtb_port_sem_give(SEM);
    (void)arg;
}

static void expiry(struct rtb_ctx *ctx)
{
    if (!rtb_ok(ctx, rtb_port_sem_create(SEM, 0, 1), "sem_create"))
        return;
    if (!rtb_ok(ctx, rtb_port_timer_create(T0, stamp, 0), "timer_create")) {
        rtb_port_sem_delete(SEM);
        return;
    }
    rtb_ticks_t delay = rtb_us_to_ticks(ctx, EXPIRY_US);
    while (rtb_want(ctx)) {
        rtb_ticks_t armed = rtb_port_ts();
        if (!rtb_ok(ctx, rtb_port_timer_start(T0, EXPIRY_US, 0), "timer_start"))
            break;
        /* generous: a lost expiry fails the metric instead of hanging it */
        if (!rtb_ok(ctx, rtb_port_sem_take(SEM, 1000000), "waiting for the expiry"))
            break;
        rtb_add(ctx, armed + delay, fired_at);
    }
    rtb_port_timer_delete(T0);
    rtb_port_sem_delete(SEM);
}

const struct rtb_metric rtb_timer_metrics[] = {
    {"timer.create", create, RTB_CAP_TIMER, 0},
    {"timer.delete.idle", delete_idle, RTB_CAP_TIMER, 0},
    {"timer.delete.started", delete_started, RTB_CAP_TIMER, 0},
    {"timer.start.empty_queue", start_empty, RTB_CAP_TIMER, 0},
    {"timer.start.timer_queued", start_queued, RTB_CAP_TIMER, 0},
    {"timer.cancel", cancel, RTB_CAP_TIMER, 0},
    {"timer.expiry.to_routine", expiry, RTB_CAP_TIMER | RTB_CAP_SEM, 0},
    {0, 0, 0, 0},
};
