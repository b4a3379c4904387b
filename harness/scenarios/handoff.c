#include "handoff.h"

enum { TASK_HIGH = 0, TASK_LOW = 1 };

struct handoff {
    struct rtb_ctx *ctx;
    const struct rtb_handoff_ops *ops;
    int obj;
    volatile rtb_ticks_t t0;  /* written by the outgoing task, read by the incoming one */
    volatile bool stop;
    volatile int pend_rc, post_rc;
};

static struct handoff *shared; /* rtb_port_shared(): the two tasks may be processes */

/* block_ctx, HIGH task: stamp, then pend on the empty object and block. */
static void block_high(void *arg)
{
    struct handoff *h = arg;
    while (!h->stop) {
        h->t0 = rtb_port_ts();
        int rc = h->ops->pend(h->obj);
        if (rc != RTB_OK) {
            h->pend_rc = rc;
            h->stop = true;
        }
    }
}

/* block_ctx, LOW task: runs only while HIGH is blocked. Its first act after
 * the switch is the stop stamp; then it posts, and HIGH preempts it inside
 * the post call until HIGH blocks again. */
static void block_low(void *arg)
{
    struct handoff *h = arg;
    for (;;) {
        rtb_ticks_t t1 = rtb_port_ts();
        if (h->stop)
            break;
        rtb_add(h->ctx, h->t0, t1);
        if (!rtb_want(h->ctx))
            h->stop = true; /* HIGH sees it when the post below wakes it */
        int rc;
        while ((rc = h->ops->post(h->obj)) == RTB_EWOULDBLOCK)
            rtb_port_task_yield();
        if (rc != RTB_OK) {
            h->post_rc = rc;
            h->stop = true;
            break;
        }
        if (h->stop)
            break;
    }
}

/* wake_ctx, HIGH task: pended; its first act after the switch is the stop stamp. */
static void wake_high(void *arg)
{
    struct handoff *h = arg;
    for (;;) {
        int rc = h->ops->pend(h->obj);
        rtb_ticks_t t1 = rtb_port_ts();
        if (rc != RTB_OK) {
            h->pend_rc = rc;
            break;
        }
        rtb_add(h->ctx, h->t0, t1);
        if (!rtb_want(h->ctx))
            break;
    }
    h->stop = true;
}

/* wake_ctx, LOW task: runs only while HIGH is pended; stamp, then post. */
static void wake_low(void *arg)
{
    struct handoff *h = arg;
    while (!h->stop) {
        h->t0 = rtb_port_ts();
        int rc = h->ops->post(h->obj);
        if (rc == RTB_EWOULDBLOCK) {
            rtb_port_task_yield(); /* only without real-time priorities */
        } else if (rc != RTB_OK) {
            h->post_rc = rc;
            break;
        }
    }
}

static void run_pair(struct rtb_ctx *ctx, const struct rtb_handoff_ops *ops, int obj,
                     rtb_task_fn high, rtb_task_fn low)
{
    struct handoff *h = rtb_shared_state(ctx, (void **)&shared, sizeof *shared);
    if (!h)
        return;
    h->ctx = ctx;
    h->ops = ops;
    h->obj = obj;
    h->t0 = rtb_port_ts();
    unsigned fl = rtb_task_flags(ctx);
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_HIGH, RTB_PRIO_HIGH, fl, high, h), "create high task"))
        return;
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_LOW, RTB_PRIO_LOW, fl, low, h), "create low task")) {
        h->stop = true;
        ops->post(obj); /* release HIGH if it is already pended */
        rtb_port_task_join(TASK_HIGH);
        return;
    }
    rtb_port_task_join(TASK_HIGH);
    rtb_port_task_join(TASK_LOW);
    rtb_ok(ctx, h->pend_rc, "pend");
    rtb_ok(ctx, h->post_rc, "post");
}

void rtb_handoff_block_ctx(struct rtb_ctx *ctx, const struct rtb_handoff_ops *ops, int obj)
{
    run_pair(ctx, ops, obj, block_high, block_low);
}

void rtb_handoff_wake_ctx(struct rtb_ctx *ctx, const struct rtb_handoff_ops *ops, int obj)
{
    run_pair(ctx, ops, obj, wake_high, wake_low);
}
