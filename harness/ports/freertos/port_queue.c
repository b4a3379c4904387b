/*
 * FreeRTOS port: message queues (xQueue, messages copied in and out),
 * queues of words (a FreeRTOS queue of uintptr_t: rtb_port_emulation
 * RTB_EMU_QUEUE), byte pipes (stream buffers: rtb_port_emulation
 * RTB_EMU_PIPE) and the heap (pvPortMalloc from heap_4).
 *
 * Queues and stream buffers are created with the ...CreateStatic calls on
 * storage the port owns per id, or, for the *_heap rows (rtb_port_alloc),
 * with the creates that take it from heap_4. Every timed service is a
 * prepared call of the kernel's function, or of a shim where its API is a
 * macro (xQueueSendToBack is xQueueGenericSend with a constant).
 */
#include "rtb_freertos.h"
#include "queue.h"
#include "stream_buffer.h"

#define W(x) ((rtb_word)(x))

RTB_KAPI(xQueueCreate, xQueueCreate((UBaseType_t)a0, (UBaseType_t)a1))
RTB_KAPI(xQueueCreateStatic,
         xQueueCreateStatic((UBaseType_t)a0, (UBaseType_t)a1, (uint8_t *)a2, (StaticQueue_t *)a3))
RTB_KAPI(xQueueSendToBack, xQueueSendToBack((QueueHandle_t)a0, (const void *)a1, (TickType_t)a2))
RTB_KAPI(xQueueSendToFront, xQueueSendToFront((QueueHandle_t)a0, (const void *)a1, (TickType_t)a2))

/* A queue of `depth` items of `size` bytes: static on `storage` of `room`
 * bytes and `mem`, or from heap_4; NULL if it does not fit or the heap is
 * exhausted. Untimed (the queues of words and the pipes are created
 * outside any window). */
static QueueHandle_t queue_new(unsigned depth, size_t size, uint8_t *storage, size_t room, StaticQueue_t *mem)
{
    if (rtb_freertos_from_heap)
        return xQueueCreate(depth, size);
    return (size_t)depth * size <= room ? xQueueCreateStatic(depth, size, storage, mem) : NULL;
}

/* ---- message queues ------------------------------------------------------ */
#define MSGQ_BYTES 256u /* a static queue's storage: depth x message size */
static QueueHandle_t msgqs[RTB_MAX_MSGQS];
static StaticQueue_t msgq_mem[RTB_MAX_MSGQS];
static uint8_t msgq_store[RTB_MAX_MSGQS][MSGQ_BYTES] __attribute__((aligned(8)));
#define MSGQ_OK(id) ((id) >= 0 && (id) < RTB_MAX_MSGQS && msgqs[id])

static int msgq_created(const struct rtb_kcall *c)
{
    QueueHandle_t h = (QueueHandle_t)c->ret;
    if (!h)
        return rtb_freertos_not_created("msgq_create");
    msgqs[c->aux[0]] = h;
    return RTB_OK;
}

int rtb_port_msgq_create_kcall(int id, size_t msg_size, unsigned depth, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_MSGQS || msgqs[id] || !msg_size || !depth)
        return rtb_freertos_fail("msgq_create", "bad id or size, or id in use");
    if (rtb_freertos_from_heap) {
        rtb_kcall_set(c, rtb_kapi_xQueueCreate, msgq_created, depth, msg_size, 0, 0);
    } else {
        if ((size_t)depth * msg_size > MSGQ_BYTES)
            return rtb_freertos_fail("msgq_create", "more than a queue's static storage (256 bytes)");
        rtb_kcall_set(c, rtb_kapi_xQueueCreateStatic, msgq_created, depth, msg_size, W(msgq_store[id]),
                      W(&msgq_mem[id]));
    }
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

static int msgq_deleted(const struct rtb_kcall *c)
{
    msgqs[c->aux[0]] = NULL;
    return RTB_OK;
}

int rtb_port_msgq_delete_kcall(int id, struct rtb_kcall *c)
{
    if (!MSGQ_OK(id))
        return rtb_freertos_fail("msgq_delete", "no such queue");
    rtb_kcall_set(c, RTB_KFN(vQueueDelete), msgq_deleted, W(msgqs[id]), 0, 0, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

int rtb_port_msgq_send_kcall(int id, const void *msg, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!MSGQ_OK(id))
        return rtb_freertos_fail("msgq_send", "no such queue");
    rtb_kcall_set(c, rtb_kapi_xQueueSendToBack, rtb_freertos_taken, W(msgqs[id]), W(msg),
                  rtb_freertos_ticks(timeout_us), 0);
    c->aux[0] = (rtb_word)timeout_us;
    return RTB_OK;
}

int rtb_port_msgq_receive_kcall(int id, void *msg, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!MSGQ_OK(id))
        return rtb_freertos_fail("msgq_receive", "no such queue");
    rtb_kcall_set(c, RTB_KFN(xQueueReceive), rtb_freertos_taken, W(msgqs[id]), W(msg),
                  rtb_freertos_ticks(timeout_us), 0);
    c->aux[0] = (rtb_word)timeout_us;
    return RTB_OK;
}

RTB_KCALL_PLAIN(msgq_create, (int id, size_t msg_size, unsigned depth), id, msg_size, depth)
RTB_KCALL_PLAIN(msgq_delete, (int id), id)
RTB_KCALL_PLAIN(msgq_send, (int id, const void *msg, int32_t timeout_us), id, msg, timeout_us)
RTB_KCALL_PLAIN(msgq_receive, (int id, void *msg, int32_t timeout_us), id, msg, timeout_us)

/* ---- queues of words ---------------------------------------------------------- */
#define QUEUE_WORDS 32u /* a static queue's depth at most */
static struct {
    QueueHandle_t h;
    unsigned kind;
    StaticQueue_t mem;
    uintptr_t store[QUEUE_WORDS];
} queues[RTB_MAX_QUEUES];
#define QUEUE_OK(id) ((id) >= 0 && (id) < RTB_MAX_QUEUES && queues[id].h)

int rtb_port_queue_create(int id, unsigned kind, unsigned depth)
{
    if (id < 0 || id >= RTB_MAX_QUEUES || queues[id].h || kind > RTB_QUEUE_STACK || !depth)
        return rtb_freertos_fail("queue_create", "bad id, kind or depth, or id in use");
    queues[id].kind = kind;
    queues[id].h = queue_new(depth, sizeof(uintptr_t), (uint8_t *)queues[id].store, sizeof queues[id].store,
                             &queues[id].mem);
    return queues[id].h ? RTB_OK : rtb_freertos_not_created("queue_create");
}

int rtb_port_queue_delete(int id)
{
    if (!QUEUE_OK(id))
        return rtb_freertos_fail("queue_delete", "no such queue");
    vQueueDelete(queues[id].h);
    queues[id].h = NULL;
    return RTB_OK;
}

/* done() of a put: pdTRUE, else the queue was full (it never waits). */
static int put_done(const struct rtb_kcall *c)
{
    return (BaseType_t)c->ret == pdTRUE ? RTB_OK : RTB_EWOULDBLOCK;
}

/* The kernel copies the item from memory: the prepared call's own scratch
 * word (aux[1]), which lives as long as the preparation. FIFO puts at the
 * back, LIFO and stack at the front (RTB_EMU_QUEUE). */
int rtb_port_queue_put_kcall(int id, uintptr_t item, bool alloc, struct rtb_kcall *c)
{
    (void)alloc; /* items are copied: no node to allocate (RTB_EMU_QUEUE) */
    if (!QUEUE_OK(id))
        return rtb_freertos_fail("queue_put", "no such queue");
    rtb_kcall_set(c, queues[id].kind == RTB_QUEUE_FIFO ? rtb_kapi_xQueueSendToBack : rtb_kapi_xQueueSendToFront,
                  put_done, W(queues[id].h), 0, 0, 0);
    c->aux[1] = item;
    c->a[1] = W(&c->aux[1]);
    return RTB_OK;
}

int rtb_port_queue_get_kcall(int id, uintptr_t *item, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!QUEUE_OK(id))
        return rtb_freertos_fail("queue_get", "no such queue");
    rtb_kcall_set(c, RTB_KFN(xQueueReceive), rtb_freertos_taken, W(queues[id].h), W(item),
                  rtb_freertos_ticks(timeout_us), 0);
    c->aux[0] = (rtb_word)timeout_us;
    return RTB_OK;
}

RTB_KCALL_PLAIN(queue_put, (int id, uintptr_t item, bool alloc), id, item, alloc)
RTB_KCALL_PLAIN(queue_get, (int id, uintptr_t *item, int32_t timeout_us), id, item, timeout_us)

/* ---- pipes: stream buffers ---------------------------------------------------- */
#define PIPE_BYTES 1024u
static StreamBufferHandle_t pipes[RTB_MAX_PIPES];
static StaticStreamBuffer_t pipe_mem[RTB_MAX_PIPES];
/* A stream buffer holds one byte less than its storage (stream_buffer.c;
 * xStreamBufferCreate adds that byte to the size it allocates). */
static uint8_t pipe_store[RTB_MAX_PIPES][PIPE_BYTES + 1];
#define PIPE_OK(id) ((id) >= 0 && (id) < RTB_MAX_PIPES && pipes[id])

int rtb_port_pipe_create(int id)
{
    if (id < 0 || id >= RTB_MAX_PIPES || pipes[id])
        return rtb_freertos_fail("pipe_create", "bad id, or id in use");
    pipes[id] = rtb_freertos_from_heap
                    ? xStreamBufferCreate(PIPE_BYTES, 1)
                    : xStreamBufferCreateStatic(PIPE_BYTES + 1, 1, pipe_store[id], &pipe_mem[id]);
    return pipes[id] ? RTB_OK : rtb_freertos_not_created("pipe_create");
}

int rtb_port_pipe_delete(int id)
{
    if (!PIPE_OK(id))
        return rtb_freertos_fail("pipe_delete", "no such pipe");
    vStreamBufferDelete(pipes[id]);
    pipes[id] = NULL;
    return RTB_OK;
}

/* done() of a send or receive: all n bytes (a[2]) moved; none, "would block"
 * or "timed out" (aux[0]: the timeout); some, a short transfer. */
static int moved(const struct rtb_kcall *c)
{
    if ((size_t)c->ret == (size_t)c->a[2])
        return RTB_OK;
    if (c->ret == 0)
        return (int32_t)c->aux[0] == RTB_NO_WAIT ? RTB_EWOULDBLOCK : RTB_ETIMEOUT;
    return rtb_freertos_fail("pipe", "a short transfer: the stream buffer moved part of the bytes");
}

/* One xStreamBufferSend / xStreamBufferReceive of n bytes. A no-wait
 * transfer with too little room or data moves part of it: the plain calls
 * below check first (all or nothing), outside the window. */
int rtb_port_pipe_write_kcall(int id, const void *buf, size_t n, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!PIPE_OK(id) || n > PIPE_BYTES)
        return rtb_freertos_fail("pipe_write", "no such pipe, or more than it holds");
    rtb_kcall_set(c, RTB_KFN(xStreamBufferSend), moved, W(pipes[id]), W(buf), n, rtb_freertos_ticks(timeout_us));
    c->aux[0] = (rtb_word)timeout_us;
    return RTB_OK;
}

int rtb_port_pipe_read_kcall(int id, void *buf, size_t n, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!PIPE_OK(id))
        return rtb_freertos_fail("pipe_read", "no such pipe");
    rtb_kcall_set(c, RTB_KFN(xStreamBufferReceive), moved, W(pipes[id]), W(buf), n,
                  rtb_freertos_ticks(timeout_us));
    c->aux[0] = (rtb_word)timeout_us;
    return RTB_OK;
}

/* All n bytes or nothing with no wait (the room checked first); with a
 * wait, one send: it blocks until all n fit or the timeout. */
int rtb_port_pipe_write(int id, const void *buf, size_t n, int32_t timeout_us)
{
    struct rtb_kcall c;
    int rc = rtb_port_pipe_write_kcall(id, buf, n, timeout_us, &c);
    if (rc != RTB_OK)
        return rc;
    if (timeout_us == RTB_NO_WAIT && xStreamBufferSpacesAvailable(pipes[id]) < n)
        return RTB_EWOULDBLOCK;
    return rtb_kcall_run(&c);
}

/* All n bytes or nothing with no wait (the data checked first); with a
 * wait, receives until all n came (a receive returns what is there) or one
 * times out. */
int rtb_port_pipe_read(int id, void *buf, size_t n, int32_t timeout_us)
{
    if (!PIPE_OK(id))
        return rtb_freertos_fail("pipe_read", "no such pipe");
    if (timeout_us == RTB_NO_WAIT && xStreamBufferBytesAvailable(pipes[id]) < n)
        return RTB_EWOULDBLOCK;
    unsigned char *b = buf;
    for (size_t got = 0, r; got < n; got += r) {
        r = xStreamBufferReceive(pipes[id], b + got, n - got, rtb_freertos_ticks(timeout_us));
        if (r == 0)
            return timeout_us == RTB_NO_WAIT ? RTB_EWOULDBLOCK : RTB_ETIMEOUT;
    }
    return RTB_OK;
}

/* ---- heap ------------------------------------------------------------------------ */
static int allocated(const struct rtb_kcall *c)
{
    return c->ret ? RTB_OK : rtb_freertos_fail("heap_alloc", "heap_4 exhausted");
}

int rtb_port_heap_alloc_kcall(size_t size, struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(pvPortMalloc), allocated, size, 0, 0, 0);
    return RTB_OK;
}

int rtb_port_heap_free_kcall(void *p, struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(vPortFree), 0, W(p), 0, 0, 0);
    return RTB_OK;
}

void *rtb_port_heap_alloc(size_t size)
{
    return pvPortMalloc(size);
}

void rtb_port_heap_free(void *p)
{
    vPortFree(p);
}
