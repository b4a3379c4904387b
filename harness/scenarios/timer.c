/*
 * Timers (VxWorks watchdogs: wdCreate, wdDelete, wdStart, wdCancel) and the
 * timer's own expiry latency, kept apart from the interrupt metrics so that
 * a sheet never mixes a timer's error into an interrupt response.
 *
 * Timer 0 is the one measured; timer 1, armed far in the future, is the
 * "timer in queue" of the VxWorks situations. Far = 60 s: never expires
 * within a metric (a metric's budget is seconds, the watchdog's default
 * 30 s).
 *
 * On a kernel whose timer calls are commands to a timer task (FreeRTOS's
 * daemon, at the top priority), a start, cancel or delete is a round trip:
 * the command queued, a switch to the daemon, its work, a switch back. The
 * plain rows measure that, as an application of that kernel meets it; the
 * .caller rows put the daemon below the caller for their duration
 * (rtb_port_timer_service_prio), so the window holds the caller's side
 * alone, and let the daemon run the command between samples. On a kernel
 * without a timer task both rows time the same call.
 */
#include <rtb/bench.h>

enum { T0 = 0, T1 = 1, SEM = 0 };
#define FAR_US 60000000u
#define EXPIRY_US 1000u
#define SETTLE_US 50u

/* A caller-only row: the timer task (if any) below the caller; false when
 * the kernel has none (the note says so) or the metric failed. */
static bool caller_only(struct rtb_ctx *ctx, bool caller)
{
    if (!caller)
        return false;
    int rc = rtb_port_timer_service_prio(RTB_PRIO_LOW - 1);
    if (rc == RTB_ENOTSUP) {
        rtb_note(ctx, "no timer task on this kernel: the call does its work itself (as in the row "
                      "without .caller)");
        return false;
    }
    return rtb_ok(ctx, rc, "timer task below the caller");
}

/* The timer task back at its own priority; before that, a pause in which
 * it runs the commands the caller-only samples queued. */
static void service_back(bool daemon)
{
    if (!daemon)
        return;
    rtb_port_task_delay(SETTLE_US);
    rtb_port_timer_service_prio(0);
}

/* Between two caller-only samples: the timer task runs their commands. */
static void drain(bool daemon)
{
    if (daemon)
        rtb_port_task_delay(SETTLE_US);
}

static void nothing(void *arg)
{
    (void)arg;
}

static void create(struct rtb_ctx *ctx)
{
    struct rtb_kcall c;
    while (rtb_want(ctx)) {
        if (!rtb_ok(ctx, rtb_port_timer_create_kcall(T0, nothing, 0, &c), "timer_create") ||
            !rtb_ok(ctx, rtb_time_kcall(ctx, &c, RTB_OK), "timer_create") ||
            !rtb_ok(ctx, rtb_port_timer_delete(T0), "timer_delete"))
            return;
    }
}

static void delete_timer(struct rtb_ctx *ctx, bool started, bool caller)
{
    struct rtb_kcall c;
    bool daemon = caller_only(ctx, caller);
    while (!rtb_stopped(ctx) && rtb_want(ctx)) {
        if (!rtb_ok(ctx, rtb_port_timer_create(T0, nothing, 0), "timer_create"))
            return;
        if (started && !rtb_ok(ctx, rtb_port_timer_start(T0, FAR_US, 0), "timer_start")) {
            rtb_port_timer_delete(T0);
            return;
        }
        drain(daemon);
        int rc = rtb_port_timer_delete_kcall(T0, &c);
        if (rc != RTB_OK)
            rtb_port_timer_delete(T0); /* a kernel that deletes nothing: the slot freed */
        if (!rtb_ok(ctx, rc, "timer_delete") || !rtb_ok(ctx, rtb_time_kcall(ctx, &c, RTB_OK), "timer_delete"))
            break;
        drain(daemon);
    }
    service_back(daemon);
}

static void delete_started(struct rtb_ctx *ctx) { delete_timer(ctx, true, false); }
static void delete_idle(struct rtb_ctx *ctx) { delete_timer(ctx, false, false); }
static void delete_started_caller(struct rtb_ctx *ctx) { delete_timer(ctx, true, true); }
static void delete_idle_caller(struct rtb_ctx *ctx) { delete_timer(ctx, false, true); }

static void start(struct rtb_ctx *ctx, bool other_queued, bool caller)
{
    struct rtb_kcall go;
    if (!rtb_ok(ctx, rtb_port_timer_create(T0, nothing, 0), "timer_create"))
        return;
    bool daemon = caller_only(ctx, caller);
    if (other_queued) {
        if (!rtb_ok(ctx, rtb_port_timer_create(T1, nothing, 0), "timer_create") ||
            !rtb_ok(ctx, rtb_port_timer_start(T1, FAR_US, 0), "timer_start")) {
            rtb_port_timer_delete(T0);
            return;
        }
    }
    if (!rtb_stopped(ctx) && rtb_ok(ctx, rtb_port_timer_start_kcall(T0, FAR_US, 0, &go), "timer_start")) {
        drain(daemon);
        while (rtb_want(ctx)) {
            if (!rtb_ok(ctx, rtb_time_kcall(ctx, &go, RTB_OK), "timer_start") ||
                !rtb_ok(ctx, rtb_port_timer_cancel(T0), "timer_cancel"))
                break;
            drain(daemon);
        }
    }
    service_back(daemon);
    if (other_queued)
        rtb_port_timer_delete(T1);
    rtb_port_timer_delete(T0);
}

static void start_empty(struct rtb_ctx *ctx) { start(ctx, false, false); }
static void start_queued(struct rtb_ctx *ctx) { start(ctx, true, false); }
static void start_empty_caller(struct rtb_ctx *ctx) { start(ctx, false, true); }
static void start_queued_caller(struct rtb_ctx *ctx) { start(ctx, true, true); }

static void cancel(struct rtb_ctx *ctx, bool caller)
{
    struct rtb_kcall stop;
    if (!rtb_ok(ctx, rtb_port_timer_create(T0, nothing, 0), "timer_create"))
        return;
    bool daemon = caller_only(ctx, caller);
    if (!rtb_stopped(ctx) && rtb_ok(ctx, rtb_port_timer_cancel_kcall(T0, &stop), "timer_cancel")) {
        while (rtb_want(ctx)) {
            if (!rtb_ok(ctx, rtb_port_timer_start(T0, FAR_US, 0), "timer_start"))
                break;
            drain(daemon);
            if (!rtb_ok(ctx, rtb_time_kcall(ctx, &stop, RTB_OK), "timer_cancel"))
                break;
            drain(daemon);
        }
    }
    service_back(daemon);
    rtb_port_timer_delete(T0);
}

static void cancel_plain(struct rtb_ctx *ctx) { cancel(ctx, false); }
static void cancel_caller(struct rtb_ctx *ctx) { cancel(ctx, true); }

/* ---- the expiry ----------------------------------------------------------
 * On a tick-driven kernel (every board kernel) the window starts at the
 * tick interrupt that expires the timer (rtb_port_tick_stamps: a stamp
 * before the kernel's own tick handler) and ends at the routine's first
 * instruction: the kernel's expiry work, and where it runs routines in a
 * timer task the switch to it, and no phase of the tick. The routine stamps
 * first, then keeps the tick's stamp (more ticks come before the task that
 * records looks); it calls nothing, so the compiler puts nothing before the
 * stamp. Where the port has no tick (Linux's timers are programmed to the
 * nanosecond) the window starts at the expiry instant asked for. */
static volatile rtb_stamp_t fired_at, fired_tick;
static volatile int fired;

static void stamp_at_tick(void *arg)
{
    (void)arg;
    RTB_PORT_STAMP_CLOSE_TO(fired_at);
    fired_tick = rtb_port_tick_stamp();
    fired = 1;
}

static void stamp_and_give(void *arg)
{
    fired_at = rtb_port_stamp_end();
    rtb_port_sem_give(SEM);
    (void)arg;
}

static void expiry_from_tick(struct rtb_ctx *ctx)
{
    if (!rtb_ok(ctx, rtb_port_timer_create(T0, stamp_at_tick, 0), "timer_create"))
        return;
    while (rtb_want(ctx)) {
        fired = 0;
        if (!rtb_ok(ctx, rtb_port_timer_start(T0, EXPIRY_US, 0), "timer_start"))
            break;
        rtb_port_task_delay(3 * EXPIRY_US); /* past the expiry's tick and the next */
        if (!fired) {
            rtb_fail(ctx, "the timer did not expire within three times its delay");
            break;
        }
        rtb_add(ctx, fired_tick, fired_at);
    }
    rtb_port_timer_delete(T0);
}

static void expiry_from_instant(struct rtb_ctx *ctx)
{
    if (!rtb_ok(ctx, rtb_port_sem_create(SEM, 0, 1), "sem_create"))
        return;
    if (!rtb_ok(ctx, rtb_port_timer_create(T0, stamp_and_give, 0), "timer_create")) {
        rtb_port_sem_delete(SEM);
        return;
    }
    rtb_ticks_t delay = rtb_us_to_ticks(ctx, EXPIRY_US);
    while (rtb_want(ctx)) {
        rtb_stamp_t armed = rtb_port_stamp_start();
        if (!rtb_ok(ctx, rtb_port_timer_start(T0, EXPIRY_US, 0), "timer_start"))
            break;
        /* generous: a lost expiry fails the metric instead of hanging it */
        if (!rtb_ok(ctx, rtb_port_sem_take(SEM, 1000000), "waiting for the expiry"))
            break;
        rtb_add(ctx, (rtb_stamp_t)(armed + delay), fired_at);
    }
    rtb_port_timer_delete(T0);
    rtb_port_sem_delete(SEM);
}

static void expiry(struct rtb_ctx *ctx)
{
    if (rtb_port_tick_stamps(true) == RTB_OK) {
        rtb_note(ctx, "from the tick interrupt that expires the timer");
        expiry_from_tick(ctx);
        rtb_port_tick_stamps(false);
    } else {
        rtb_note(ctx, "from the expiry instant asked for (no kernel tick)");
        expiry_from_instant(ctx);
    }
}

const struct rtb_metric rtb_timer_metrics[] = {
    {"timer.create", create, RTB_CAP_TIMER, 0},
    {"timer.delete.idle", delete_idle, RTB_CAP_TIMER, 0},
    {"timer.create_heap", create, RTB_CAP_TIMER, RTB_FROM_HEAP},
    {"timer.delete_heap.idle", delete_idle, RTB_CAP_TIMER, RTB_FROM_HEAP},
    {"timer.delete.started", delete_started, RTB_CAP_TIMER, 0},
    {"timer.start.empty_queue", start_empty, RTB_CAP_TIMER, 0},
    {"timer.start.timer_queued", start_queued, RTB_CAP_TIMER, 0},
    {"timer.cancel", cancel_plain, RTB_CAP_TIMER, 0},
    {"timer.expiry.to_routine", expiry, RTB_CAP_TIMER | RTB_CAP_SEM, 0},
    {"timer.delete.idle.caller", delete_idle_caller, RTB_CAP_TIMER, 0},
    {"timer.delete.started.caller", delete_started_caller, RTB_CAP_TIMER, 0},
    {"timer.start.empty_queue.caller", start_empty_caller, RTB_CAP_TIMER, 0},
    {"timer.start.timer_queued.caller", start_queued_caller, RTB_CAP_TIMER, 0},
    {"timer.cancel.caller", cancel_caller, RTB_CAP_TIMER, 0},
    {0, 0, 0, 0},
};
