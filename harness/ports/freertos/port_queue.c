/*
 * FreeRTOS port: message queues (xQueue, messages copied in and out),
 * queues of words (a FreeRTOS queue of uintptr_t: rtb_port_emulation
 * RTB_EMU_QUEUE), byte pipes (stream buffers: rtb_port_emulation
 * RTB_EMU_PIPE) and the heap (pvPortMalloc from heap_4).
 *
 * Queues and stream buffers are created with the ...CreateStatic calls on
 * storage the port owns per id, or, for the *_heap rows (rtb_port_alloc),
 * with the creates that take it from heap_4.
 */
#include "rtb_freertos.h"
#include "queue.h"
#include "stream_buffer.h"

#define W(x) ((rtb_word)(x))

static int timed_out(int32_t timeout_us)
{
    return timeout_us == RTB_NO_WAIT ? RTB_EWOULDBLOCK : RTB_ETIMEOUT;
}

RTB_KAPI(xQueueCreate, xQueueCreate((UBaseType_t)a0, (UBaseType_t)a1))
RTB_KAPI(xQueueCreateStatic,
         xQueueCreateStatic((UBaseType_t)a0, (UBaseType_t)a1, (uint8_t *)a2, (StaticQueue_t *)a3))
RTB_KAPI(xQueueSendToBack, xQueueSendToBack((QueueHandle_t)a0, (const void *)a1, (TickType_t)a2))

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

int rtb_port_queue_put(int id, uintptr_t item, bool alloc)
{
    (void)alloc; /* items are copied: no node to allocate (RTB_EMU_QUEUE) */
    if (!QUEUE_OK(id))
        return rtb_freertos_fail("queue_put", "no such queue");
    BaseType_t ok = queues[id].kind == RTB_QUEUE_FIFO ? xQueueSendToBack(queues[id].h, &item, 0)
                                                      : xQueueSendToFront(queues[id].h, &item, 0);
    return ok == pdTRUE ? RTB_OK : RTB_EWOULDBLOCK;
}

int rtb_port_queue_get(int id, uintptr_t *item, int32_t timeout_us)
{
    if (!QUEUE_OK(id))
        return rtb_freertos_fail("queue_get", "no such queue");
    return xQueueReceive(queues[id].h, item, rtb_freertos_ticks(timeout_us)) == pdTRUE
               ? RTB_OK : timed_out(timeout_us);
}

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

/* All n bytes or nothing with no wait (the space or data is checked first);
 * with a wait, until all n moved or the timeout. */
int rtb_port_pipe_write(int id, const void *buf, size_t n, int32_t timeout_us)
{
    if (!PIPE_OK(id) || n > PIPE_BYTES)
        return rtb_freertos_fail("pipe_write", "no such pipe, or more than it holds");
    if (timeout_us == RTB_NO_WAIT && xStreamBufferSpacesAvailable(pipes[id]) < n)
        return RTB_EWOULDBLOCK;
    size_t done = xStreamBufferSend(pipes[id], buf, n, rtb_freertos_ticks(timeout_us));
    return done == n ? RTB_OK : timed_out(timeout_us);
}

int rtb_port_pipe_read(int id, void *buf, size_t n, int32_t timeout_us)
{
    if (!PIPE_OK(id))
        return rtb_freertos_fail("pipe_read", "no such pipe");
    if (timeout_us == RTB_NO_WAIT && xStreamBufferBytesAvailable(pipes[id]) < n)
        return RTB_EWOULDBLOCK;
    unsigned char *b = buf;
    size_t got = 0;
    while (got < n) {
        size_t r = xStreamBufferReceive(pipes[id], b + got, n - got, rtb_freertos_ticks(timeout_us));
        if (r == 0)
            return timed_out(timeout_us);
        got += r;
    }
    return RTB_OK;
}

/* ---- heap ------------------------------------------------------------------------ */
void *rtb_port_heap_alloc(size_t size)
{
    return pvPortMalloc(size);
}

void rtb_port_heap_free(void *p)
{
    vPortFree(p);
}
