#include "handoff.h"

enum { TASK_HIGH = 0, TASK_LOW = 1 };

struct handoff {
    struct rtb_ctx *ctx;
    const struct rtb_handoff_ops *ops;
    int obj;
    volatile rtb_stamp_t t0;  /* written by the outgoing task, read by the incoming one */
    volatile bool stop;
    volatile int pend_rc, post_rc;
    /* wake_ctx without one-CPU real-time ordering (the tasks on two CPUs,
     * or no SCHED_FIFO): LOW must post only once HIGH is pended, which the
     * scheduler no longer guarantees, so HIGH says when it is about to pend. */
    bool gate, cross_cpu;
    volatile int armed;
};

static struct handoff *shared; /* rtb_port_shared(): the two tasks may be processes */

/* An optional step of ops: RTB_OK when absent. */
static int step(int (*fn)(int), int obj)
{
    return fn ? fn(obj) : RTB_OK;
}

/* After a pend returned (rc): while ops->posted says no post came, pend
 * again (rtb_kcall_then_stamp: t1 is the stamp after the last return). */
static int until_posted(const struct rtb_handoff_ops *ops, int obj, struct rtb_kcall *pend, int rc,
                        rtb_stamp_t *t1)
{
    while (ops->posted && (rc == RTB_OK || rc == RTB_ETIMEOUT) && !ops->posted(obj)) {
        rtb_kcall_then_stamp(pend, t1);
        rc = rtb_kcall_rc(pend);
    }
    return rc == RTB_ETIMEOUT && ops->posted ? RTB_OK : rc;
}

/* block_ctx, HIGH task: stamp, then pend on the empty object and block. */
static void block_high(void *arg)
{
    struct handoff *h = arg;
    struct rtb_kcall pend;
    int rc = h->ops->pend(h->obj, &pend);
    while (rc == RTB_OK && !h->stop) {
        rc = step(h->ops->prepare, h->obj);
        if (rc == RTB_OK) {
            rtb_stamp_t ignored;
            rtb_kcall_after_stamp(&pend, &h->t0);
            rc = until_posted(h->ops, h->obj, &pend, rtb_kcall_rc(&pend), &ignored);
        }
        if (rc == RTB_OK)
            rc = step(h->ops->finish, h->obj);
    }
    if (rc != RTB_OK) {
        h->pend_rc = rc;
        h->stop = true;
    }
}

/* block_ctx, LOW task: runs only while HIGH is blocked. It posts, HIGH
 * preempts it inside the post call, pends again and blocks: the post call
 * returns to LOW, whose stamp right after it ends the sample. (LOW's first
 * run is its start, not the return from a post: no sample.) */
static void block_low(void *arg)
{
    struct handoff *h = arg;
    struct rtb_kcall post;
    int rc = h->ops->post(h->obj, &post);
    bool first = true;
    rtb_stamp_t t1 = 0;
    while (rc == RTB_OK && !h->stop) {
        if (!first) {
            rtb_add(h->ctx, h->t0, t1);
            if (!rtb_want(h->ctx)) {
                h->stop = true; /* HIGH sees it when the post below wakes it */
            } else {
                rtb_rest(h->ctx); /* HIGH is pended: between samples */
            }
        }
        first = false;
        if (h->ops->arm)
            h->ops->arm(h->obj);
        while ((rtb_kcall_then_stamp(&post, &t1), rc = rtb_kcall_rc(&post)) == RTB_EWOULDBLOCK)
            rtb_port_task_yield();
    }
    if (rc != RTB_OK) {
        h->post_rc = rc;
        h->stop = true;
    }
}

/* wake_ctx, HIGH task: pended; the stamp right after its pend call returns
 * ends the sample. */
static void wake_high(void *arg)
{
    struct handoff *h = arg;
    struct rtb_kcall pend;
    int rc = h->ops->pend(h->obj, &pend);
    while (rc == RTB_OK) {
        rtb_stamp_t t1;
        rc = step(h->ops->prepare, h->obj);
        h->armed = 1;
        if (rc == RTB_OK) {
            rtb_kcall_then_stamp(&pend, &t1);
            rc = until_posted(h->ops, h->obj, &pend, rtb_kcall_rc(&pend), &t1);
        }
        if (rc == RTB_OK)
            rc = step(h->ops->finish, h->obj);
        if (rc != RTB_OK || h->stop) /* stop: the runner's post released us after LOW failed */
            break;
        rtb_add(h->ctx, h->t0, t1);
        if (!rtb_want(h->ctx))
            break;
    }
    h->pend_rc = rc;
    h->stop = true;
}

/* Gate of wake_low: wait until HIGH is about to pend, then let it block:
 * on one CPU a yield hands it the CPU; on another CPU, 50 us covers the few
 * hundred ns from its flag to its sleep in the kernel. */
static bool wait_armed(struct handoff *h)
{
    while (!h->armed && !h->stop)
        rtb_port_task_yield();
    if (h->stop)
        return false;
    h->armed = 0;
    if (h->cross_cpu) {
        rtb_ticks_t until = rtb_port_ts() + rtb_us_to_ticks(h->ctx, 50);
        while ((int64_t)(rtb_port_ts() - until) < 0)
            ;
    } else {
        rtb_port_task_yield();
    }
    return true;
}

/* wake_ctx, LOW task: runs only while HIGH is pended (with real-time
 * priorities on one CPU; else gated); stamp, then the post. */
static void wake_low(void *arg)
{
    struct handoff *h = arg;
    struct rtb_kcall post;
    int rc = h->ops->post(h->obj, &post);
    while (rc == RTB_OK && !h->stop) {
        rtb_rest(h->ctx); /* HIGH is pended: a pause here is between samples */
        if (h->gate && !wait_armed(h))
            break;
        if (h->ops->arm)
            h->ops->arm(h->obj);
        rtb_kcall_after_stamp(&post, &h->t0);
        rc = rtb_kcall_rc(&post);
        if (rc == RTB_EWOULDBLOCK) {
            rtb_port_task_yield(); /* only without real-time priorities */
            rc = RTB_OK;
        }
    }
    if (rc != RTB_OK)
        h->post_rc = rc;
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
    h->t0 = rtb_port_stamp_start();
    unsigned fl = rtb_task_flags(ctx);
    struct rtb_port_info pi;
    rtb_port_info(&pi);
    h->cross_cpu = (fl & RTB_TASK_OTHER_CPU) || pi.cpu < 0;
    h->gate = h->cross_cpu || !pi.realtime;
    if (high == block_high && h->cross_cpu) {
        rtb_unsupported(ctx, "a blocking switch needs both tasks on one CPU (run pinned)");
        return;
    }
    /* .xcpu: only HIGH, the task that is woken, sits on the other CPU.
     * .k_to_u / .u_to_k: the switch goes from HIGH to LOW in block_ctx and
     * from LOW to HIGH in wake_ctx, and each task's mode follows its role. */
    bool high_out = high == block_high;
    unsigned fl_high = rtb_task_flags_as(ctx, high_out ? RTB_OUTGOING : RTB_INCOMING);
    unsigned fl_low = rtb_task_flags_as(ctx, high_out ? RTB_INCOMING : RTB_OUTGOING);
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_HIGH, RTB_PRIO_HIGH, fl_high, high, h),
                "create high task"))
        return;
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_LOW, RTB_PRIO_LOW, fl_low & ~RTB_TASK_OTHER_CPU, low, h),
                "create low task")) {
        struct rtb_kcall post;
        h->stop = true;
        if (ops->post(obj, &post) == RTB_OK) /* release HIGH if it is already pended */
            rtb_kcall_run(&post);
        rtb_port_task_join(TASK_HIGH);
        return;
    }
    /* LOW first: if it failed (its post could not even be prepared: a
     * user-mode task on a kernel that has no such system call), HIGH may
     * still be pended, and the runner releases it, by a post of its own or,
     * failing that, by deleting it. */
    rtb_port_task_join(TASK_LOW);
    if (h->post_rc != RTB_OK && !h->pend_rc) {
        struct rtb_kcall post;
        h->stop = true;
        if (ops->post(obj, &post) != RTB_OK || rtb_kcall_run(&post) != RTB_OK) {
            rtb_port_task_delete(TASK_HIGH);
            rtb_ok(ctx, h->post_rc, "post");
            return;
        }
    }
    rtb_port_task_join(TASK_HIGH);
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

/* ---- ready_low: post readies a lower-priority waiter, no switch ---------- */
enum { TASK_HELPER = 2 };
#define PRIO_HELPER (RTB_PRIO_LOW - 5)

struct ready {
    struct rtb_ctx *ctx;
    const struct rtb_handoff_ops *ops;
    int obj;
    volatile bool stop;
    volatile int pend_rc, post_rc;
};
static struct ready *ready_shared;

/* Post once, untimed (a release or a last wake-up). */
static void post_once(const struct rtb_handoff_ops *ops, int obj)
{
    struct rtb_kcall post;
    if (ops->post(obj, &post) == RTB_OK)
        rtb_kcall_run(&post);
}

/* HIGH: hold the object, block until LOW is pended, time the post. */
static void ready_high(void *arg)
{
    struct ready *r = arg;
    struct rtb_kcall post;
    int rc = r->ops->post(r->obj, &post);
    while (rc == RTB_OK) {
        rc = step(r->ops->hold, r->obj);
        if (rc != RTB_OK)
            break;
        rc = rtb_port_sem_take(RTB_HANDOFF_SEM, RTB_WAIT_FOREVER);
        if (rc != RTB_OK || r->stop) {
            rtb_kcall_run(&post); /* release what hold took */
            break;
        }
        while ((rc = rtb_time_kcall(r->ctx, &post, RTB_OK)) == RTB_EWOULDBLOCK && r->ops->unblock)
            rc = r->ops->unblock(r->obj); /* a full queue: only without real-time priorities */
        if (rc != RTB_OK || !rtb_want(r->ctx))
            break;
    }
    r->post_rc = rc;
    r->stop = true;
    /* A signal object may have lost posts (only without real-time
     * priorities): one more makes sure LOW's last pend returns. */
    if (!r->ops->hold)
        post_once(r->ops, r->obj);
}

/* LOW: pend (blocks: HIGH holds or has not posted), release, again. */
static void ready_low(void *arg)
{
    struct ready *r = arg;
    struct rtb_kcall pend;
    int rc = r->ops->pend(r->obj, &pend);
    while (rc == RTB_OK && !r->stop) {
        rc = rtb_kcall_run(&pend);
        if (rc == RTB_OK)
            rc = step(r->ops->finish, r->obj);
    }
    if (rc != RTB_OK) {
        r->pend_rc = rc;
        r->stop = true;
    }
}

/* HELPER: runs only when HIGH and LOW are both blocked; wakes HIGH. */
static void ready_helper(void *arg)
{
    struct ready *r = arg;
    while (!r->stop) {
        rtb_port_sem_give(RTB_HANDOFF_SEM);
        rtb_port_task_yield(); /* only without real-time priorities */
    }
    rtb_port_sem_give(RTB_HANDOFF_SEM); /* HIGH may wait for it after a failure */
}

void rtb_handoff_ready_low(struct rtb_ctx *ctx, const struct rtb_handoff_ops *ops, int obj)
{
    struct ready *r = rtb_shared_state(ctx, (void **)&ready_shared, sizeof *ready_shared);
    if (!r || !rtb_ok(ctx, rtb_port_sem_create(RTB_HANDOFF_SEM, 0, 1), "create handoff semaphore"))
        return;
    r->ctx = ctx;
    r->ops = ops;
    r->obj = obj;
    unsigned fl = rtb_task_flags(ctx);
    static const struct {
        int id, prio;
        rtb_task_fn fn;
        const char *what;
    } tasks[] = {
        {TASK_HIGH, RTB_PRIO_HIGH, ready_high, "create high task"},
        {TASK_LOW, RTB_PRIO_LOW, ready_low, "create low task"},
        {TASK_HELPER, PRIO_HELPER, ready_helper, "create helper task"},
    };
    int made = 0;
    for (; made < 3; made++)
        if (!rtb_ok(ctx, rtb_port_task_create(tasks[made].id, tasks[made].prio, fl,
                                              tasks[made].fn, r), tasks[made].what))
            break;
    if (made < 3) { /* release whoever started: stop, and the posts they wait for */
        r->stop = true;
        rtb_port_sem_give(RTB_HANDOFF_SEM);
        if (!ops->hold)
            post_once(ops, obj);
    }
    for (int i = 0; i < made; i++)
        rtb_port_task_join(tasks[i].id);
    rtb_port_sem_delete(RTB_HANDOFF_SEM);
    rtb_ok(ctx, r->pend_rc, "pend");
    rtb_ok(ctx, r->post_rc, "post");
}
