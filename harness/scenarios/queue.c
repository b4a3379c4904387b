/*
 * Queues of words (Zephyr latency_measure fifo.c, lifo.c, stack.c) through
 * the port's queue service, and DSP/BIOS's QUE list module.
 *
 * FIFO and LIFO: put and get without a switch, with the link node the
 * caller provides ("put"/"get") or one the kernel allocates on put and frees
 * on get ("put.alloc"/"get.free"), and the two switches (handoff.c): a
 * getter blocking on an empty queue, a putter waking a pended getter.
 * STACK (k_stack): push and pop, and the same two switches.
 *
 * QUE (DSP/BIOS) is a library doubly-linked list, not a kernel object: the
 * non-atomic operations are list code, measured here as such (a harness
 * copy of the algorithm, called through a non-inlined function as on the
 * DSP); the atomic ones (QUE_put/QUE_get) make the list operation atomic
 * with respect to other tasks, which on this layer means under a mutex.
 */
#include <rtb/bench.h>
#include "handoff.h"

#define QID 0
#define DEPTH 8

static const uintptr_t word = 0x51554555u;

static bool make(struct rtb_ctx *ctx, unsigned kind)
{
    if (!rtb_ok(ctx, rtb_port_queue_create(QID, kind, DEPTH), "queue_create"))
        return false;
    rtb_port_emulates(ctx, RTB_EMU_QUEUE);
    return true;
}

/* ---- no switch ----------------------------------------------------------- */
static void put_immediate(struct rtb_ctx *ctx, unsigned kind, bool alloc)
{
    struct rtb_kcall put;
    uintptr_t got;
    if (!make(ctx, kind))
        return;
    if (rtb_ok(ctx, rtb_port_queue_put_kcall(QID, word, alloc, &put), "queue_put")) {
        while (rtb_want(ctx)) {
            if (!rtb_ok(ctx, rtb_time_kcall(ctx, &put, RTB_OK), "queue_put") ||
                !rtb_ok(ctx, rtb_port_queue_get(QID, &got, RTB_NO_WAIT), "queue_get"))
                break;
        }
    }
    rtb_port_queue_delete(QID);
}

static void get_immediate(struct rtb_ctx *ctx, unsigned kind, bool alloc)
{
    struct rtb_kcall get;
    uintptr_t got = 0;
    if (!make(ctx, kind))
        return;
    if (rtb_ok(ctx, rtb_port_queue_get_kcall(QID, &got, RTB_NO_WAIT, &get), "queue_get")) {
        while (rtb_want(ctx)) {
            got = 0;
            if (!rtb_ok(ctx, rtb_port_queue_put(QID, word, alloc), "queue_put") ||
                !rtb_ok(ctx, rtb_time_kcall(ctx, &get, RTB_OK), "queue_get"))
                break;
            if (got != word) {
                rtb_ok(ctx, RTB_ERR, "queue_get returned a different word");
                break;
            }
        }
    }
    rtb_port_queue_delete(QID);
}

static void fifo_put(struct rtb_ctx *c) { put_immediate(c, RTB_QUEUE_FIFO, false); }
static void fifo_get(struct rtb_ctx *c) { get_immediate(c, RTB_QUEUE_FIFO, false); }
static void fifo_put_alloc(struct rtb_ctx *c) { put_immediate(c, RTB_QUEUE_FIFO, true); }
static void fifo_get_free(struct rtb_ctx *c) { get_immediate(c, RTB_QUEUE_FIFO, true); }
static void lifo_put(struct rtb_ctx *c) { put_immediate(c, RTB_QUEUE_LIFO, false); }
static void lifo_get(struct rtb_ctx *c) { get_immediate(c, RTB_QUEUE_LIFO, false); }
static void lifo_put_alloc(struct rtb_ctx *c) { put_immediate(c, RTB_QUEUE_LIFO, true); }
static void lifo_get_free(struct rtb_ctx *c) { get_immediate(c, RTB_QUEUE_LIFO, true); }
static void stack_push(struct rtb_ctx *c) { put_immediate(c, RTB_QUEUE_STACK, false); }
static void stack_pop(struct rtb_ctx *c) { get_immediate(c, RTB_QUEUE_STACK, false); }

/* ---- the two switches ------------------------------------------------------ */
static uintptr_t got_word;
static int pend(int q, struct rtb_kcall *c) { return rtb_port_queue_get_kcall(q, &got_word, RTB_WAIT_FOREVER, c); }
static int post(int q, struct rtb_kcall *c) { return rtb_port_queue_put_kcall(q, word, false, c); }
static int post_alloc(int q, struct rtb_kcall *c) { return rtb_port_queue_put_kcall(q, word, true, c); }
static const struct rtb_handoff_ops plain_ops = {.pend = pend, .post = post};
static const struct rtb_handoff_ops alloc_ops = {.pend = pend, .post = post_alloc};

static void switch_pair(struct rtb_ctx *ctx, unsigned kind, bool alloc, bool block)
{
    if (!make(ctx, kind))
        return;
    const struct rtb_handoff_ops *ops = alloc ? &alloc_ops : &plain_ops;
    if (block)
        rtb_handoff_block_ctx(ctx, ops, QID);
    else
        rtb_handoff_wake_ctx(ctx, ops, QID);
    rtb_port_queue_delete(QID);
}

static void fifo_get_blocking(struct rtb_ctx *c) { switch_pair(c, RTB_QUEUE_FIFO, false, true); }
static void fifo_put_wake(struct rtb_ctx *c) { switch_pair(c, RTB_QUEUE_FIFO, false, false); }
static void fifo_get_free_blocking(struct rtb_ctx *c) { switch_pair(c, RTB_QUEUE_FIFO, true, true); }
static void fifo_put_alloc_wake(struct rtb_ctx *c) { switch_pair(c, RTB_QUEUE_FIFO, true, false); }
static void lifo_get_blocking(struct rtb_ctx *c) { switch_pair(c, RTB_QUEUE_LIFO, false, true); }
static void lifo_put_wake(struct rtb_ctx *c) { switch_pair(c, RTB_QUEUE_LIFO, false, false); }
static void lifo_get_free_blocking(struct rtb_ctx *c) { switch_pair(c, RTB_QUEUE_LIFO, true, true); }
static void lifo_put_alloc_wake(struct rtb_ctx *c) { switch_pair(c, RTB_QUEUE_LIFO, true, false); }
static void stack_pop_blocking(struct rtb_ctx *c) { switch_pair(c, RTB_QUEUE_STACK, false, true); }
static void stack_push_wake(struct rtb_ctx *c) { switch_pair(c, RTB_QUEUE_STACK, false, false); }

/* ---- DSP/BIOS QUE: a doubly-linked list with a header element ------------- */
struct que_elem {
    struct que_elem *next, *prev;
};

#define QUE_CALL __attribute__((noinline))

static QUE_CALL void que_new(struct que_elem *q) { q->next = q->prev = q; }
static QUE_CALL bool que_empty(struct que_elem *q) { return q->next == q; }

/* Insert elem before qelem (QUE_insert); at the tail: before the header. */
static QUE_CALL void que_insert(struct que_elem *qelem, struct que_elem *elem)
{
    elem->next = qelem;
    elem->prev = qelem->prev;
    qelem->prev->next = elem;
    qelem->prev = elem;
}

static QUE_CALL void que_remove(struct que_elem *elem)
{
    elem->prev->next = elem->next;
    elem->next->prev = elem->prev;
}

static QUE_CALL void que_enqueue(struct que_elem *q, struct que_elem *elem)
{
    que_insert(q, elem);
}

static QUE_CALL struct que_elem *que_dequeue(struct que_elem *q)
{
    struct que_elem *e = q->next;
    q->next = e->next;
    e->next->prev = q;
    return e;
}

/* Scenario-local list (one task only). Three elements queued: a, b, c;
 * `x` is the element each sample adds and takes out again. */
static struct que_elem que, el[3], x;
static volatile bool que_sink;

static void que_setup(void)
{
    que_new(&que);
    for (int i = 0; i < 3; i++)
        que_enqueue(&que, &el[i]);
}

enum que_op { QUE_ENQUEUE, QUE_DEQUEUE, QUE_INSERT, QUE_REMOVE, QUE_EMPTY, QUE_PUT, QUE_GET };

#define MX 0

static void que_measure(struct rtb_ctx *ctx, enum que_op op)
{
    bool locked = op == QUE_PUT || op == QUE_GET;
    rtb_unranked(ctx, locked ? "DSP/BIOS's QUE is a list library, not a kernel service: rtbench's "
                               "copy of its algorithm between the port's mutex lock and unlock"
                             : "DSP/BIOS's QUE is a list library, not a kernel service: rtbench's "
                               "copy of its algorithm is what the row times");
    if (locked && !rtb_ok(ctx, rtb_port_mutex_create(MX, 0), "mutex_create"))
        return;
    que_setup();
    while (rtb_want(ctx)) {
        rtb_stamp_t t0, t1;
        int rc = RTB_OK;
        switch (op) {
        case QUE_ENQUEUE:
            t0 = rtb_port_stamp_start();
            que_enqueue(&que, &x);
            t1 = rtb_port_stamp_end();
            que_remove(&x);
            break;
        case QUE_DEQUEUE: /* front element taken, put back at the front */
            t0 = rtb_port_stamp_start();
            struct que_elem *e = que_dequeue(&que);
            t1 = rtb_port_stamp_end();
            que_insert(que.next, e);
            break;
        case QUE_INSERT: /* into the middle: before el[1] */
            t0 = rtb_port_stamp_start();
            que_insert(&el[1], &x);
            t1 = rtb_port_stamp_end();
            que_remove(&x);
            break;
        case QUE_REMOVE:
            que_insert(&el[1], &x);
            t0 = rtb_port_stamp_start();
            que_remove(&x);
            t1 = rtb_port_stamp_end();
            break;
        case QUE_EMPTY:
            t0 = rtb_port_stamp_start();
            que_sink = que_empty(&que);
            t1 = rtb_port_stamp_end();
            break;
        case QUE_PUT:
            t0 = rtb_port_stamp_start();
            rc = rtb_port_mutex_lock(MX);
            que_enqueue(&que, &x);
            rc |= rtb_port_mutex_unlock(MX);
            t1 = rtb_port_stamp_end();
            que_remove(&x);
            break;
        default: /* QUE_GET */
            t0 = rtb_port_stamp_start();
            rc = rtb_port_mutex_lock(MX);
            struct que_elem *g = que_dequeue(&que);
            rc |= rtb_port_mutex_unlock(MX);
            t1 = rtb_port_stamp_end();
            que_insert(que.next, g);
            break;
        }
        if (!rtb_ok(ctx, rc, "mutex lock/unlock"))
            break;
        rtb_add(ctx, t0, t1);
    }
    if (locked)
        rtb_port_mutex_delete(MX);
}

static void que_enqueue_m(struct rtb_ctx *c) { que_measure(c, QUE_ENQUEUE); }
static void que_dequeue_m(struct rtb_ctx *c) { que_measure(c, QUE_DEQUEUE); }
static void que_insert_m(struct rtb_ctx *c) { que_measure(c, QUE_INSERT); }
static void que_remove_m(struct rtb_ctx *c) { que_measure(c, QUE_REMOVE); }
static void que_empty_m(struct rtb_ctx *c) { que_measure(c, QUE_EMPTY); }
static void que_put_m(struct rtb_ctx *c) { que_measure(c, QUE_PUT); }
static void que_get_m(struct rtb_ctx *c) { que_measure(c, QUE_GET); }

const struct rtb_metric rtb_queue_metrics[] = {
    {"fifo.put.immediate", fifo_put, RTB_CAP_QUEUE, 0},
    {"fifo.get.immediate", fifo_get, RTB_CAP_QUEUE, 0},
    {"fifo.put.alloc.immediate", fifo_put_alloc, RTB_CAP_QUEUE, 0},
    {"fifo.get.free.immediate", fifo_get_free, RTB_CAP_QUEUE, 0},
    RTB_THREAD_AND_PROCESS("fifo.get.blocking", fifo_get_blocking, RTB_CAP_QUEUE),
    RTB_THREAD_AND_PROCESS("fifo.put.wake_ctx", fifo_put_wake, RTB_CAP_QUEUE),
    RTB_THREAD_PROCESS_AND_MIXED("fifo.get.free.blocking", fifo_get_free_blocking, RTB_CAP_QUEUE),
    RTB_THREAD_PROCESS_AND_MIXED("fifo.put.alloc.wake_ctx", fifo_put_alloc_wake, RTB_CAP_QUEUE),
    {"lifo.put.immediate", lifo_put, RTB_CAP_QUEUE, 0},
    {"lifo.get.immediate", lifo_get, RTB_CAP_QUEUE, 0},
    {"lifo.put.alloc.immediate", lifo_put_alloc, RTB_CAP_QUEUE, 0},
    {"lifo.get.free.immediate", lifo_get_free, RTB_CAP_QUEUE, 0},
    RTB_THREAD_AND_PROCESS("lifo.get.blocking", lifo_get_blocking, RTB_CAP_QUEUE),
    RTB_THREAD_AND_PROCESS("lifo.put.wake_ctx", lifo_put_wake, RTB_CAP_QUEUE),
    RTB_THREAD_PROCESS_AND_MIXED("lifo.get.free.blocking", lifo_get_free_blocking, RTB_CAP_QUEUE),
    RTB_THREAD_PROCESS_AND_MIXED("lifo.put.alloc.wake_ctx", lifo_put_alloc_wake, RTB_CAP_QUEUE),
    {"stack.push.immediate", stack_push, RTB_CAP_QUEUE, 0},
    {"stack.pop.immediate", stack_pop, RTB_CAP_QUEUE, 0},
    RTB_THREAD_PROCESS_AND_MIXED("stack.pop.blocking", stack_pop_blocking, RTB_CAP_QUEUE),
    RTB_THREAD_PROCESS_AND_MIXED("stack.push.wake_ctx", stack_push_wake, RTB_CAP_QUEUE),
    {"que.enqueue.nonatomic", que_enqueue_m, 0, 0},
    {"que.dequeue.nonatomic", que_dequeue_m, 0, 0},
    {"que.insert.nonatomic", que_insert_m, 0, 0},
    {"que.remove.nonatomic", que_remove_m, 0, 0},
    {"que.empty.nonatomic", que_empty_m, 0, 0},
    {"que.put.locked", que_put_m, RTB_CAP_MUTEX, 0},
    {"que.get.locked", que_get_m, RTB_CAP_MUTEX, 0},
    {0, 0, 0, 0},
};
