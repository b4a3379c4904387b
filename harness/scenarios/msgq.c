/*
 * Message queues with 4-byte messages (one word, as DSP/BIOS's 1-MADU
 * mailbox test; VxWorks msgQSend/msgQReceive): send with room and no task
 * waiting, receive with a message queued, and the two switches a queue
 * causes (handoff.c). The call that restores the queue between samples is
 * outside the timed region.
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
    if (!make_queue(ctx))
        return;
    while (rtb_want(ctx)) {
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = rtb_port_msgq_send(Q, &msg_out, RTB_NO_WAIT);
        rtb_ticks_t t1 = rtb_port_ts();
        if (!rtb_ok(ctx, rc, "msgq_send") ||
            !rtb_ok(ctx, rtb_port_msgq_receive(Q, &msg_in, RTB_NO_WAIT), "msgq_receive"))
            break;
        rtb_add(ctx, t0, t1);
    }
    rtb_port_msgq_delete(Q);
}

static void receive_available(struct rtb_ctx *ctx)
{
    if (!make_queue(ctx))
        return;
    while (rtb_want(ctx)) {
        if (!rtb_ok(ctx, rtb_port_msgq_send(Q, &msg_out, RTB_NO_WAIT), "msgq_send"))
            break;
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = rtb_port_msgq_receive(Q, &msg_in, RTB_WAIT_FOREVER);
        rtb_ticks_t t1 = rtb_port_ts();
        if (!rtb_ok(ctx, rc, "msgq_receive"))
            break;
        if (msg_in != msg_out) {
            rtb_ok(ctx, RTB_ERR, "msgq_receive returned a different message");
            break;
        }
        rtb_add(ctx, t0, t1);
    }
    rtb_port_msgq_delete(Q);
}

static int pend(int obj) { return rtb_port_msgq_receive(obj, &msg_in, RTB_WAIT_FOREVER); }
/* No wait: a full queue (possible only without real-time priorities) must
 * not block the sender after the receiver has finished. */
static int post(int obj) { return rtb_port_msgq_send(obj, &msg_out, RTB_NO_WAIT); }
static const struct rtb_handoff_ops msgq_ops = {pend, post};

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
    RTB_THREAD_AND_PROCESS("msgq.receive.block_ctx", receive_block_ctx, RTB_CAP_MSGQ),
    RTB_THREAD_AND_PROCESS("msgq.send.wake_ctx", send_wake_ctx, RTB_CAP_MSGQ),
    {0, 0, 0, 0},
};
