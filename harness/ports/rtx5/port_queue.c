/*
 * RTX5 port: message queues (osMessageQueue: fixed-size messages copied in
 * and out) and queues of words (a message queue of one-word messages:
 * rtb_port_emulation RTB_EMU_QUEUE, FIFO only: CMSIS-RTOS2 puts a message
 * by priority, never at the front).
 *
 * Control block and message storage are static (cb_mem, mq_mem): RTX5
 * keeps a header of three words beside each message, so a queue's
 * storage is osRtxMessageQueueMemSize(depth, size) bytes of the slot's.
 * Put and get from a thread are osMessageQueuePut / osMessageQueueGet with
 * priority 0 (FIFO among equals).
 */
#include "rtb_rtx5.h"

#define W(x) ((rtb_word)(x))
#define STORE_BYTES 512u /* a queue's storage: osRtxMessageQueueMemSize(depth, size) */

struct rtxq {
    osRtxMessageQueue_t cb;
    uint32_t store[STORE_BYTES / sizeof(uint32_t)];
    osMessageQueueAttr_t attr;
    osMessageQueueId_t id;
    bool used;
};

static int made(const struct rtb_kcall *c)
{
    struct rtxq *q = (struct rtxq *)c->aux[0];
    q->id = (osMessageQueueId_t)c->ret;
    if (!q->id)
        return rtb_rtx5_fail("osMessageQueueNew", "returned NULL");
    q->used = true;
    return RTB_OK;
}

static int make(struct rtxq *q, size_t msg_size, unsigned depth, struct rtb_kcall *c)
{
    if (q->used || depth < 1 || msg_size < 1 || osRtxMessageQueueMemSize(depth, msg_size) > STORE_BYTES)
        return rtb_rtx5_fail("msgq_create", "id in use, or depth x size too large for the static storage");
    q->attr = (osMessageQueueAttr_t){
        .name = "rtb",
        .cb_mem = rtb_rtx5_from_heap ? NULL : &q->cb,
        .cb_size = rtb_rtx5_from_heap ? 0 : sizeof q->cb,
        .mq_mem = rtb_rtx5_from_heap ? NULL : q->store,
        .mq_size = rtb_rtx5_from_heap ? 0 : osRtxMessageQueueMemSize(depth, msg_size)};
    rtb_kcall_set(c, RTB_KFN(osMessageQueueNew), made, depth, msg_size, W(&q->attr), 0);
    c->aux[0] = W(q);
    return RTB_OK;
}

static int unmade(const struct rtb_kcall *c)
{
    ((struct rtxq *)c->aux[2])->used = false;
    return rtb_rtx5_status_done(c, "osMessageQueueDelete");
}

static void unmake(struct rtxq *q, struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(osMessageQueueDelete), unmade, W(q->id), 0, 0, 0);
    c->aux[0] = (rtb_word)RTB_WAIT_FOREVER;
    c->aux[2] = W(q);
}

static int put_done(const struct rtb_kcall *c)
{
    return rtb_rtx5_status_done(c, "osMessageQueuePut");
}

static int get_done(const struct rtb_kcall *c)
{
    return rtb_rtx5_status_done(c, "osMessageQueueGet");
}

static void put(struct rtxq *q, const void *msg, int32_t timeout_us, struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(osMessageQueuePut), put_done, W(q->id), W(msg), 0, rtb_rtx5_ticks(timeout_us));
    c->aux[0] = (rtb_word)timeout_us;
}

static void get(struct rtxq *q, void *msg, int32_t timeout_us, struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(osMessageQueueGet), get_done, W(q->id), W(msg), 0, rtb_rtx5_ticks(timeout_us));
    c->aux[0] = (rtb_word)timeout_us;
}

/* ---- message queues ------------------------------------------------------ */
static struct rtxq msgqs[RTB_MAX_MSGQS];
#define MSGQ_OK(id) ((id) >= 0 && (id) < RTB_MAX_MSGQS && msgqs[id].used)

int rtb_port_msgq_create_kcall(int id, size_t msg_size, unsigned depth, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_MSGQS)
        return rtb_rtx5_fail("msgq_create", "bad id");
    return make(&msgqs[id], msg_size, depth, c);
}

int rtb_port_msgq_delete_kcall(int id, struct rtb_kcall *c)
{
    if (!MSGQ_OK(id))
        return rtb_rtx5_fail("msgq_delete", "no such queue");
    unmake(&msgqs[id], c);
    return RTB_OK;
}

int rtb_port_msgq_send_kcall(int id, const void *msg, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!MSGQ_OK(id))
        return rtb_rtx5_fail("msgq_send", "no such queue");
    put(&msgqs[id], msg, timeout_us, c);
    return RTB_OK;
}

int rtb_port_msgq_receive_kcall(int id, void *msg, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!MSGQ_OK(id))
        return rtb_rtx5_fail("msgq_receive", "no such queue");
    get(&msgqs[id], msg, timeout_us, c);
    return RTB_OK;
}

RTB_KCALL_PLAIN(msgq_create, (int id, size_t msg_size, unsigned depth), id, msg_size, depth)
RTB_KCALL_PLAIN(msgq_delete, (int id), id)
RTB_KCALL_PLAIN(msgq_send, (int id, const void *msg, int32_t timeout_us), id, msg, timeout_us)
RTB_KCALL_PLAIN(msgq_receive, (int id, void *msg, int32_t timeout_us), id, msg, timeout_us)

/* ---- queues of words: FIFO only ------------------------------------------ */
static struct rtxq queues[RTB_MAX_QUEUES];
#define QUEUE_OK(id) ((id) >= 0 && (id) < RTB_MAX_QUEUES && queues[id].used)

int rtb_port_queue_create_kcall(int id, unsigned kind, unsigned depth, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_QUEUES)
        return rtb_rtx5_fail("queue_create", "bad id");
    if (kind != RTB_QUEUE_FIFO)
        return rtb_rtx5_unsupported("queue_create: CMSIS-RTOS2's message queue puts by priority "
                                    "behind its equals, never at the front: FIFO only");
    return make(&queues[id], sizeof(uintptr_t), depth, c);
}

int rtb_port_queue_delete_kcall(int id, struct rtb_kcall *c)
{
    if (!QUEUE_OK(id))
        return rtb_rtx5_fail("queue_delete", "no such queue");
    unmake(&queues[id], c);
    return RTB_OK;
}

/* The item is copied: it travels in aux[1], whose address the put gets. */
int rtb_port_queue_put_kcall(int id, uintptr_t item, bool alloc, struct rtb_kcall *c)
{
    (void)alloc; /* copied: no link node either way */
    if (!QUEUE_OK(id))
        return rtb_rtx5_fail("queue_put", "no such queue");
    put(&queues[id], NULL, RTB_NO_WAIT, c);
    c->aux[1] = item;
    c->a[1] = W(&c->aux[1]);
    return RTB_OK;
}

int rtb_port_queue_get_kcall(int id, uintptr_t *item, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!QUEUE_OK(id))
        return rtb_rtx5_fail("queue_get", "no such queue");
    get(&queues[id], item, timeout_us, c);
    return RTB_OK;
}

RTB_KCALL_PLAIN(queue_create, (int id, unsigned kind, unsigned depth), id, kind, depth)
RTB_KCALL_PLAIN(queue_delete, (int id), id)
RTB_KCALL_PLAIN(queue_put, (int id, uintptr_t item, bool alloc), id, item, alloc)
RTB_KCALL_PLAIN(queue_get, (int id, uintptr_t *item, int32_t timeout_us), id, item, timeout_us)
