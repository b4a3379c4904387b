/*
 * Message queues with 4-byte messages (one word, as DSP/BIOS's 1-MADU
 * mailbox test; VxWorks msgQSend/msgQReceive): send with room and no task
 * waiting, send to a full queue and receive from an empty one without
 * waiting, receive with a message queued, send that readies a lower-priority
 * pended receiver, create and delete, and the two switches a queue causes
 * (handoff.c). Each timed call is prepared first (rtb/kcall.h); the call
 * that restores the queue between samples is outside the timed region.
 * DSP/BIOS mailboxes (MBX) are answered here too: on this
 * port a mailbox and a message queue are the same kernel object.
 */
#include <rtb/bench.h>
#include "handoff.h"

#define Q 0
#define DEPTH 4

static uint32_t msg_out = 0x5254424du, msg_in;

static bool make_queue(struct rtb_ctx *ctx)
{
    return rtb_ok(ctx, rtb_port_msgq_create(Q, sizeof msg_out, DEPTH), "msgq_create");
}

static void send_no_waiter(struct rtb_ctx *ctx)
{
    struct rtb_kcall send;
    if (!make_queue(ctx))
        return;
    if (rtb_ok(ctx, rtb_port_msgq_send_kcall(Q, &msg_out, RTB_NO_WAIT, &send), "msgq_send")) {
        while (rtb_want(ctx)) {
            if (!rtb_ok(ctx, rtb_time_kcall(ctx, &send, RTB_OK), "msgq_send") ||
                !rtb_ok(ctx, rtb_port_msgq_receive(Q, &msg_in, RTB_NO_WAIT), "msgq_receive"))
                break;
        }
    }
    rtb_port_msgq_delete(Q);
}

static void receive_available(struct rtb_ctx *ctx)
{
    struct rtb_kcall receive;
    if (!make_queue(ctx))
        return;
    if (rtb_ok(ctx, rtb_port_msgq_receive_kcall(Q, &msg_in, RTB_WAIT_FOREVER, &receive), "msgq_receive")) {
        while (rtb_want(ctx)) {
            msg_in = 0;
            if (!rtb_ok(ctx, rtb_port_msgq_send(Q, &msg_out, RTB_NO_WAIT), "msgq_send") ||
                !rtb_ok(ctx, rtb_time_kcall(ctx, &receive, RTB_OK), "msgq_receive"))
                break;
            if (msg_in != msg_out) {
                rtb_ok(ctx, RTB_ERR, "msgq_receive returned a different message");
                break;
            }
        }
    }
    rtb_port_msgq_delete(Q);
}

static void receive_unavailable(struct rtb_ctx *ctx)
{
    struct rtb_kcall receive;
    if (!make_queue(ctx))
        return;
    if (rtb_ok(ctx, rtb_port_msgq_receive_kcall(Q, &msg_in, RTB_NO_WAIT, &receive), "msgq_receive"))
        rtb_time_failing(ctx, &receive, 1, "msgq_receive on an empty queue did not fail");
    rtb_port_msgq_delete(Q);
}

static void send_full(struct rtb_ctx *ctx)
{
    struct rtb_kcall send;
    if (!make_queue(ctx))
        return;
    for (int i = 0; i < DEPTH; i++)
        if (!rtb_ok(ctx, rtb_port_msgq_send(Q, &msg_out, RTB_NO_WAIT), "msgq_send (fill)"))
            goto out;
    if (rtb_ok(ctx, rtb_port_msgq_send_kcall(Q, &msg_out, RTB_NO_WAIT, &send), "msgq_send"))
        rtb_time_failing(ctx, &send, 1, "msgq_send to a full queue did not fail");
out:
    rtb_port_msgq_delete(Q);
}

/* A new queue per sample; the delete (or create) outside the timed region.
 * A system limit (fs.mqueue.queues_max, RLIMIT_MSGQUEUE) fails the metric
 * with the port's words. */
static void create(struct rtb_ctx *ctx)
{
    struct rtb_kcall c;
    while (rtb_want(ctx)) {
        if (!rtb_ok(ctx, rtb_port_msgq_create_kcall(Q, sizeof msg_out, DEPTH, &c), "msgq_create") ||
            !rtb_ok(ctx, rtb_time_kcall(ctx, &c, RTB_OK), "msgq_create") ||
            !rtb_ok(ctx, rtb_port_msgq_delete(Q), "msgq_delete"))
            break;
    }
}

static void delete(struct rtb_ctx *ctx)
{
    struct rtb_kcall c;
    while (rtb_want(ctx)) {
        if (!make_queue(ctx))
            break;
        int rc = rtb_port_msgq_delete_kcall(Q, &c);
        if (rc != RTB_OK)
            rtb_port_msgq_delete(Q); /* a kernel that deletes nothing: the slot freed */
        if (!rtb_ok(ctx, rc, "msgq_delete") || !rtb_ok(ctx, rtb_time_kcall(ctx, &c, RTB_OK), "msgq_delete"))
            break;
    }
}

static int pend(int obj, struct rtb_kcall *c)
{
    return rtb_port_msgq_receive_kcall(obj, &msg_in, RTB_WAIT_FOREVER, c);
}
/* No wait: a full queue (possible only without real-time priorities) must
 * not block the sender after the receiver has finished. */
static int post(int obj, struct rtb_kcall *c) { return rtb_port_msgq_send_kcall(obj, &msg_out, RTB_NO_WAIT, c); }
static const struct rtb_handoff_ops msgq_ops = {.pend = pend, .post = post};

/* ready_low's post: room is always there with real-time priorities (the
 * receiver empties the queue before the next post); without them posts may
 * outrun it, and a full queue then drops its oldest message (untimed)
 * rather than failing or blocking the sender after the receiver finished. */
static int drop_oldest(int obj)
{
    int rc = rtb_port_msgq_receive(obj, &msg_in, RTB_NO_WAIT);
    return rc == RTB_EWOULDBLOCK ? RTB_OK : rc;
}
static const struct rtb_handoff_ops msgq_ready_ops = {.pend = pend, .post = post, .unblock = drop_oldest};

/* Send that readies a lower-priority pended receiver and returns without a
 * switch (VxWorks msgQSend "Tasks pending", DSP/BIOS "Post a mailbox, no
 * context switch"): handoff.c's ready_low. */
static void send_waiter(struct rtb_ctx *ctx)
{
    if (!make_queue(ctx))
        return;
    rtb_handoff_ready_low(ctx, &msgq_ready_ops, Q);
    rtb_port_msgq_delete(Q);
}

static void receive_block_ctx(struct rtb_ctx *ctx)
{
    if (!make_queue(ctx))
        return;
    rtb_handoff_block_ctx(ctx, &msgq_ops, Q);
    rtb_port_msgq_delete(Q);
}

static void send_wake_ctx(struct rtb_ctx *ctx)
{
    if (!make_queue(ctx))
        return;
    rtb_handoff_wake_ctx(ctx, &msgq_ops, Q);
    rtb_port_msgq_delete(Q);
}

const struct rtb_metric rtb_msgq_metrics[] = {
    {"msgq.send.no_waiter", send_no_waiter, RTB_CAP_MSGQ, 0},
    {"msgq.receive.available", receive_available, RTB_CAP_MSGQ, 0},
    {"msgq.receive.unavailable_nowait", receive_unavailable, RTB_CAP_MSGQ, 0},
    {"msgq.send.full_nowait", send_full, RTB_CAP_MSGQ, 0},
    {"msgq.create", create, RTB_CAP_MSGQ, 0},
    {"msgq.delete", delete, RTB_CAP_MSGQ, 0},
    {"msgq.create_heap", create, RTB_CAP_MSGQ, RTB_FROM_HEAP},
    {"msgq.delete_heap", delete, RTB_CAP_MSGQ, RTB_FROM_HEAP},
    RTB_THREAD_AND_PROCESS("msgq.send.waiter_readied", send_waiter, RTB_CAP_MSGQ),
    RTB_THREAD_AND_PROCESS("msgq.receive.block_ctx", receive_block_ctx, RTB_CAP_MSGQ),
    RTB_THREAD_AND_PROCESS("msgq.send.wake_ctx", send_wake_ctx, RTB_CAP_MSGQ),
    {"msgq.send.wake_ctx.xcpu", send_wake_ctx, RTB_CAP_MSGQ | RTB_CAP_SMP, RTB_TASK_OTHER_CPU},
    {0, 0, 0, 0},
};
