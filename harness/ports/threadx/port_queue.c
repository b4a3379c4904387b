/*
 * ThreadX port: message queues (tx_queue, messages of 1..16 32-bit words
 * copied in and out), queues of words (a tx_queue of one-word messages:
 * rtb_port_emulation RTB_EMU_QUEUE), and the byte pool that backs stacks,
 * queue storage and the heap rows (tx_byte_allocate / tx_byte_release).
 *
 * A queue's storage comes from the byte pool when it is created and goes
 * back when it is deleted, as a ThreadX application creating queues at run
 * time does (and as FreeRTOS's xQueueCreate takes it from heap_4).
 * ThreadX has no byte pipe or stream buffer: the pipe rows are unsupported
 * (port_sys.c says why).
 */
#include "rtb_threadx.h"

/* ---- the byte pool ------------------------------------------------------------ */
TX_BYTE_POOL rtb_threadx_pool;
static UCHAR pool_memory[RTB_THREADX_POOL_BYTES] __attribute__((aligned(8)));

void rtb_threadx_pool_init(void *first_unused)
{
    (void)first_unused; /* the pool is a static array: the linker checks it fits */
    if (tx_byte_pool_create(&rtb_threadx_pool, "rtb", pool_memory, sizeof pool_memory) != TX_SUCCESS)
        rtb_board_exit(RTB_THREADX_EXIT_INIT);
}

void *rtb_threadx_alloc(ULONG size)
{
    void *p = TX_NULL;
    return tx_byte_allocate(&rtb_threadx_pool, &p, size, TX_NO_WAIT) == TX_SUCCESS ? p : TX_NULL;
}

void rtb_threadx_free(void *p)
{
    if (p)
        (void)tx_byte_release(p);
}

void *rtb_port_heap_alloc(size_t size)
{
    return rtb_threadx_alloc((ULONG)size);
}

void rtb_port_heap_free(void *p)
{
    rtb_threadx_free(p);
}

/* The heap rows: tx_byte_allocate itself, its block written to aux[0].
 * The contract has the block in c->ret (rtb/port.h, heap): done() puts it
 * there after the window, over the call's status, which it maps first.
 * (done() gets the call const; the prepared call itself is not.) */
static int allocated(const struct rtb_kcall *c)
{
    UINT rc = (UINT)c->ret;
    ((struct rtb_kcall *)c)->ret = rc == TX_SUCCESS ? c->aux[0] : 0;
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_byte_allocate", rc);
}

int rtb_port_heap_alloc_kcall(size_t size, struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(tx_byte_allocate), allocated, (rtb_word)&rtb_threadx_pool, (rtb_word)&c->aux[0],
                  (rtb_word)size, TX_NO_WAIT);
    return RTB_OK;
}

static int released(const struct rtb_kcall *c)
{
    UINT rc = (UINT)c->ret;
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_byte_release", rc);
}

int rtb_port_heap_free_kcall(void *p, struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(tx_byte_release), released, (rtb_word)p, 0, 0, 0);
    return RTB_OK;
}

static int timed_out(int32_t timeout_us)
{
    return timeout_us == RTB_NO_WAIT ? RTB_EWOULDBLOCK : RTB_ETIMEOUT;
}

struct txq {
    TX_QUEUE q;
    void *storage;
    unsigned kind; /* queues of words: RTB_QUEUE_* */
    bool used;
};

static int make(struct txq *x, const char *what, UINT words, unsigned depth)
{
    ULONG bytes = (ULONG)words * sizeof(ULONG) * depth;
    x->storage = rtb_threadx_alloc(bytes);
    if (!x->storage)
        return rtb_threadx_fail(what, "byte pool exhausted");
    UINT rc = tx_queue_create(&x->q, "rtb", words, x->storage, bytes);
    if (rc != TX_SUCCESS) {
        rtb_threadx_free(x->storage);
        return rtb_threadx_status("tx_queue_create", rc);
    }
    x->used = true;
    return RTB_OK;
}

static int unmake(struct txq *x)
{
    x->used = false;
    UINT rc = tx_queue_delete(&x->q);
    rtb_threadx_free(x->storage);
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_queue_delete", rc);
}

/* ---- message queues ------------------------------------------------------ */
static struct txq msgqs[RTB_MAX_MSGQS];
#define MSGQ_OK(id) ((id) >= 0 && (id) < RTB_MAX_MSGQS && msgqs[id].used)

/* tx_queue_create is a macro when ThreadX checks errors: a shim; a0 the
 * control block, a1 the message words, a2 the storage, a3 its bytes. The
 * storage comes from the byte pool when the call is prepared (ThreadX
 * creates a queue on the memory it is given). */
RTB_KAPI(tx_queue_create, tx_queue_create((TX_QUEUE *)a0, "rtb", (UINT)a1, (VOID *)a2, (ULONG)a3))

static int msgq_created(const struct rtb_kcall *c)
{
    struct txq *x = (struct txq *)c->aux[0];
    UINT rc = (UINT)c->ret;
    if (rc != TX_SUCCESS) {
        rtb_threadx_free(x->storage);
        return rtb_threadx_status("tx_queue_create", rc);
    }
    x->used = true;
    return RTB_OK;
}

int rtb_port_msgq_create_kcall(int id, size_t msg_size, unsigned depth, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_MSGQS || msgqs[id].used || !msg_size || !depth)
        return rtb_threadx_fail("msgq_create", "bad id or size, or id in use");
    if (msg_size % sizeof(ULONG) || msg_size > 16 * sizeof(ULONG))
        return rtb_threadx_unsupported("msgq_create: ThreadX messages are 1 to 16 32-bit words");
    UINT words = (UINT)(msg_size / sizeof(ULONG));
    ULONG bytes = (ULONG)words * sizeof(ULONG) * depth;
    if (!(msgqs[id].storage = rtb_threadx_alloc(bytes)))
        return rtb_threadx_fail("msgq_create", "byte pool exhausted");
    rtb_kcall_set(c, rtb_kapi_tx_queue_create, msgq_created, (rtb_word)&msgqs[id].q, words,
                  (rtb_word)msgqs[id].storage, bytes);
    c->aux[0] = (rtb_word)&msgqs[id];
    return RTB_OK;
}

static int msgq_deleted(const struct rtb_kcall *c)
{
    struct txq *x = (struct txq *)c->aux[0];
    x->used = false;
    rtb_threadx_free(x->storage);
    UINT rc = (UINT)c->ret;
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_queue_delete", rc);
}

int rtb_port_msgq_delete_kcall(int id, struct rtb_kcall *c)
{
    if (!MSGQ_OK(id))
        return rtb_threadx_fail("msgq_delete", "no such queue");
    rtb_kcall_set(c, RTB_KFN(tx_queue_delete), msgq_deleted, (rtb_word)&msgqs[id].q, 0, 0, 0);
    c->aux[0] = (rtb_word)&msgqs[id];
    return RTB_OK;
}

/* done() of a send or receive: aux[0] the timeout, aux[1] the status that
 * means "full" or "empty". */
static int transferred(const struct rtb_kcall *c)
{
    UINT rc = (UINT)c->ret;
    if (rc == TX_SUCCESS)
        return RTB_OK;
    return rc == (UINT)c->aux[1] ? timed_out((int32_t)c->aux[0]) : rtb_threadx_status("tx_queue", rc);
}

int rtb_port_msgq_send_kcall(int id, const void *msg, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!MSGQ_OK(id))
        return rtb_threadx_fail("msgq_send", "no such queue");
    rtb_kcall_set(c, RTB_KFN(tx_queue_send), transferred, (rtb_word)&msgqs[id].q, (rtb_word)msg,
                  rtb_threadx_ticks(timeout_us), 0);
    c->aux[0] = (rtb_word)timeout_us;
    c->aux[1] = TX_QUEUE_FULL;
    return RTB_OK;
}

int rtb_port_msgq_receive_kcall(int id, void *msg, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!MSGQ_OK(id))
        return rtb_threadx_fail("msgq_receive", "no such queue");
    rtb_kcall_set(c, RTB_KFN(tx_queue_receive), transferred, (rtb_word)&msgqs[id].q, (rtb_word)msg,
                  rtb_threadx_ticks(timeout_us), 0);
    c->aux[0] = (rtb_word)timeout_us;
    c->aux[1] = TX_QUEUE_EMPTY;
    return RTB_OK;
}

RTB_KCALL_PLAIN(msgq_create, (int id, size_t msg_size, unsigned depth), id, msg_size, depth)
RTB_KCALL_PLAIN(msgq_delete, (int id), id)
RTB_KCALL_PLAIN(msgq_send, (int id, const void *msg, int32_t timeout_us), id, msg, timeout_us)
RTB_KCALL_PLAIN(msgq_receive, (int id, void *msg, int32_t timeout_us), id, msg, timeout_us)

/* ---- queues of words ---------------------------------------------------------- */
_Static_assert(sizeof(uintptr_t) == sizeof(ULONG), "a word is one ThreadX message word");
static struct txq queues[RTB_MAX_QUEUES];
#define QUEUE_OK(id) ((id) >= 0 && (id) < RTB_MAX_QUEUES && queues[id].used)

int rtb_port_queue_create(int id, unsigned kind, unsigned depth)
{
    if (id < 0 || id >= RTB_MAX_QUEUES || queues[id].used || kind > RTB_QUEUE_STACK || !depth)
        return rtb_threadx_fail("queue_create", "bad id, kind or depth, or id in use");
    queues[id].kind = kind;
    return make(&queues[id], "queue_create", 1, depth);
}

int rtb_port_queue_delete(int id)
{
    return QUEUE_OK(id) ? unmake(&queues[id]) : rtb_threadx_fail("queue_delete", "no such queue");
}

/* A put sends the word from the prepared call's own aux[2] (tx_queue_send
 * copies the message from the pointer it is given): FIFO at the back,
 * LIFO and stack at the front (tx_queue_front_send). */
int rtb_port_queue_put_kcall(int id, uintptr_t item, bool alloc, struct rtb_kcall *c)
{
    (void)alloc; /* items are copied: no node to allocate (RTB_EMU_QUEUE) */
    if (!QUEUE_OK(id))
        return rtb_threadx_fail("queue_put", "no such queue");
    rtb_kcall_set(c, queues[id].kind == RTB_QUEUE_FIFO ? RTB_KFN(tx_queue_send) : RTB_KFN(tx_queue_front_send),
                  transferred, (rtb_word)&queues[id].q, (rtb_word)&c->aux[2], TX_NO_WAIT, 0);
    c->aux[0] = (rtb_word)RTB_NO_WAIT;
    c->aux[1] = TX_QUEUE_FULL;
    c->aux[2] = (rtb_word)item;
    return RTB_OK;
}

/* A get receives the word into the caller's item itself (one ULONG). */
int rtb_port_queue_get_kcall(int id, uintptr_t *item, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!QUEUE_OK(id))
        return rtb_threadx_fail("queue_get", "no such queue");
    rtb_kcall_set(c, RTB_KFN(tx_queue_receive), transferred, (rtb_word)&queues[id].q, (rtb_word)item,
                  rtb_threadx_ticks(timeout_us), 0);
    c->aux[0] = (rtb_word)timeout_us;
    c->aux[1] = TX_QUEUE_EMPTY;
    return RTB_OK;
}

RTB_KCALL_PLAIN(queue_put, (int id, uintptr_t item, bool alloc), id, item, alloc)
RTB_KCALL_PLAIN(queue_get, (int id, uintptr_t *item, int32_t timeout_us), id, item, timeout_us)
