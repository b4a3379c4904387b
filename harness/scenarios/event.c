/*
 * Event flags (VxWorks eventSend/eventReceive, Zephyr k_event_post/set/
 * wait/wait_all): set with no task waiting; wait for events already set
 * (any, all, and receive-and-clear); a no-wait wait for events not set; a
 * set that readies a lower-priority waiter (handoff.c ready_low); and the
 * two switches events cause (handoff.c). A kernel without an event-flag
 * object (Linux) has the port build one, and every metric says how
 * (rtb_port_emulation).
 */
#include <rtb/bench.h>
#include "handoff.h"

#define EV 0
#define EV_BIT 1u
#define EV_BITS (1u | 2u) /* wait_all: two events */

static bool make(struct rtb_ctx *ctx)
{
    rtb_port_emulates(ctx, RTB_EMU_EVENTS);
    return rtb_ok(ctx, rtb_port_event_create(EV), "event_create");
}

/* A row whose window holds a wait that clears what it received. */
static bool make_clearing(struct rtb_ctx *ctx)
{
    rtb_port_emulates(ctx, RTB_EMU_EVENT_CLEAR);
    return make(ctx);
}

static int clear(void)
{
    uint32_t got;
    int rc = rtb_port_event_wait(EV, EV_BITS, RTB_EV_ANY | RTB_EV_CLEAR, RTB_NO_WAIT, &got);
    return rc == RTB_EWOULDBLOCK ? RTB_OK : rc;
}

static void set_no_waiter(struct rtb_ctx *ctx)
{
    struct rtb_kcall set;
    if (!make(ctx))
        return;
    if (rtb_ok(ctx, rtb_port_event_set_kcall(EV, EV_BIT, &set), "event_set")) {
        while (rtb_want(ctx)) {
            if (!rtb_ok(ctx, rtb_time_kcall(ctx, &set, RTB_OK), "event_set") ||
                !rtb_ok(ctx, clear(), "event_wait (clear)"))
                break;
        }
    }
    rtb_port_event_delete(EV);
}

static void wait_available(struct rtb_ctx *ctx, uint32_t want, unsigned mode)
{
    struct rtb_kcall wait;
    uint32_t got = 0;
    if (!make(ctx))
        return;
    if (rtb_ok(ctx, rtb_port_event_wait_kcall(EV, want, mode, RTB_WAIT_FOREVER, &got, &wait), "event_wait")) {
        while (rtb_want(ctx)) {
            got = 0;
            if (!rtb_ok(ctx, rtb_port_event_set(EV, EV_BITS), "event_set") ||
                !rtb_ok(ctx, rtb_time_kcall(ctx, &wait, RTB_OK), "event_wait") ||
                !rtb_ok(ctx, clear(), "event_wait (clear)"))
                break;
            if (got != want) {
                rtb_ok(ctx, RTB_ERR, "event_wait returned other events");
                break;
            }
        }
    }
    rtb_port_event_delete(EV);
}

static void wait_any_available(struct rtb_ctx *ctx) { wait_available(ctx, EV_BIT, RTB_EV_ANY); }
static void wait_all_available(struct rtb_ctx *ctx) { wait_available(ctx, EV_BITS, RTB_EV_ALL); }
static void receive_available(struct rtb_ctx *ctx)
{
    rtb_port_emulates(ctx, RTB_EMU_EVENT_CLEAR);
    wait_available(ctx, EV_BIT, RTB_EV_ANY | RTB_EV_CLEAR);
}

static void wait_unavailable_nowait(struct rtb_ctx *ctx)
{
    struct rtb_kcall wait;
    uint32_t got;
    if (!make_clearing(ctx))
        return;
    if (rtb_ok(ctx, rtb_port_event_wait_kcall(EV, EV_BIT, RTB_EV_ANY | RTB_EV_CLEAR, RTB_NO_WAIT, &got, &wait),
               "event_wait"))
        rtb_time_failing(ctx, &wait, 1, "event_wait for unset events did not fail");
    rtb_port_event_delete(EV);
}

/* ---- inter-task: the waiter clears what it received ------------------------ */
static int pend_any(int obj, struct rtb_kcall *c)
{
    return rtb_port_event_wait_kcall(obj, EV_BIT, RTB_EV_ANY | RTB_EV_CLEAR, RTB_WAIT_FOREVER, 0, c);
}
static int pend_all(int obj, struct rtb_kcall *c)
{
    return rtb_port_event_wait_kcall(obj, EV_BITS, RTB_EV_ALL | RTB_EV_CLEAR, RTB_WAIT_FOREVER, 0, c);
}
static int post_bit(int obj, struct rtb_kcall *c) { return rtb_port_event_set_kcall(obj, EV_BIT, c); }
static int post_bits(int obj, struct rtb_kcall *c) { return rtb_port_event_set_kcall(obj, EV_BITS, c); }
static const struct rtb_handoff_ops any_ops = {.pend = pend_any, .post = post_bit};
static const struct rtb_handoff_ops all_ops = {.pend = pend_all, .post = post_bits};

static void set_waiter_readied(struct rtb_ctx *ctx)
{
    if (!make(ctx))
        return;
    rtb_handoff_ready_low(ctx, &any_ops, EV);
    rtb_port_event_delete(EV);
}

static void block_ctx(struct rtb_ctx *ctx, const struct rtb_handoff_ops *ops)
{
    if (!make_clearing(ctx))
        return;
    rtb_handoff_block_ctx(ctx, ops, EV);
    rtb_port_event_delete(EV);
}

static void wait_block_ctx(struct rtb_ctx *ctx) { block_ctx(ctx, &any_ops); }
static void wait_all_block_ctx(struct rtb_ctx *ctx) { block_ctx(ctx, &all_ops); }

static void set_wake_ctx(struct rtb_ctx *ctx)
{
    if (!make_clearing(ctx))
        return;
    rtb_handoff_wake_ctx(ctx, &any_ops, EV);
    rtb_port_event_delete(EV);
}

const struct rtb_metric rtb_event_metrics[] = {
    {"event.set.no_waiter", set_no_waiter, RTB_CAP_EVENTS, 0},
    {"event.wait.available", wait_any_available, RTB_CAP_EVENTS, 0},
    {"event.wait_all.available", wait_all_available, RTB_CAP_EVENTS, 0},
    {"event.receive.available", receive_available, RTB_CAP_EVENTS, 0},
    {"event.receive.unavailable_nowait", wait_unavailable_nowait, RTB_CAP_EVENTS, 0},
    RTB_THREAD_AND_PROCESS("event.set.waiter_readied", set_waiter_readied, RTB_CAP_EVENTS | RTB_CAP_SEM),
    RTB_THREAD_PROCESS_AND_MIXED("event.wait.block_ctx", wait_block_ctx, RTB_CAP_EVENTS),
    RTB_THREAD_PROCESS_AND_MIXED("event.wait_all.block_ctx", wait_all_block_ctx, RTB_CAP_EVENTS),
    RTB_THREAD_PROCESS_AND_MIXED("event.set.wake_ctx", set_wake_ctx, RTB_CAP_EVENTS),
    {"event.set.wake_ctx.xcpu", set_wake_ctx, RTB_CAP_EVENTS | RTB_CAP_SMP, RTB_TASK_OTHER_CPU},
    {0, 0, 0, 0},
};
