/*
 * Zephyr port: message queues (k_msgq), queues of words (k_fifo, k_lifo,
 * k_stack), pipes (k_pipe) and the heap (k_malloc/k_free), Zephyr's own
 * objects in static pools with their buffers, as Zephyr applications
 * define them. Objects are initialised, never deleted (the delete rows say
 * so). Each timed service is a prepared call of the API as an application
 * writes it (rtb_kapi_* shims for the system-call wrappers and macros).
 *
 * k_fifo and k_lifo link items the caller provides, whose first word the
 * kernel uses as the link: a queue here has a pool of such nodes, one per
 * slot of its depth, each carrying its word; a put takes the next node
 * when it is prepared (outside the window). The .alloc rows use
 * k_fifo_alloc_put / k_lifo_alloc_put, which allocate a container from
 * the caller's resource pool (the system heap, assigned to each thread).
 */
#include <errno.h>
#include <string.h>

#include "rtb_zephyr.h"

#define W(x) ((rtb_word)(x))
#define MSG_MAX 64u /* bytes a message may have */
#define DEPTH_MAX 16u

static void public_object(const void *obj)
{
#if defined(CONFIG_USERSPACE)
    k_object_access_all_grant(obj);
#else
    (void)obj;
#endif
}

static void errno_call(struct rtb_kcall *c, int32_t timeout_us, const char *what)
{
    c->done = rtb_zephyr_errno_done;
    c->aux[0] = (rtb_word)timeout_us;
    c->aux[2] = (rtb_word)what;
}

/* ---- message queues ------------------------------------------------------ */
/* The kernel objects apart, __noinit: kernel memory on a userspace build
 * (port_sync.c). */
static struct k_msgq msgq_obj[RTB_MAX_MSGQS] __noinit;
static struct {
    char buffer[MSG_MAX * DEPTH_MAX] __aligned(4);
    bool used;
} msgqs[RTB_MAX_MSGQS];
#define MSGQ_OK(id) ((id) >= 0 && (id) < RTB_MAX_MSGQS && msgqs[id].used)

RTB_KAPI(k_msgq_put, k_msgq_put((struct k_msgq *)a0, (const void *)a1, rtb_zephyr_timeout(a2)))
RTB_KAPI(k_msgq_get, k_msgq_get((struct k_msgq *)a0, (void *)a1, rtb_zephyr_timeout(a2)))

static int msgq_made(const struct rtb_kcall *c)
{
    msgqs[c->aux[0]].used = true;
    public_object(&msgq_obj[c->aux[0]]);
    return RTB_OK;
}

/* k_msgq_init is a kernel function (not a system call): called as it is. */
int rtb_port_msgq_create_kcall(int id, size_t msg_size, unsigned depth, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_MSGQS || msgqs[id].used || !msg_size || !depth)
        return rtb_zephyr_fail("msgq_create", "bad id or size, or id in use");
    if (msg_size > MSG_MAX || depth > DEPTH_MAX)
        return rtb_zephyr_fail("msgq_create", "more than the port's buffer holds (64 B x 16)");
    rtb_kcall_set(c, RTB_KFN(k_msgq_init), msgq_made, W(&msgq_obj[id]), W(msgqs[id].buffer), msg_size, depth);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

int rtb_port_msgq_delete(int id)
{
    if (!MSGQ_OK(id))
        return rtb_zephyr_fail("msgq_delete", "no such queue");
    msgqs[id].used = false;
    return RTB_OK;
}

int rtb_port_msgq_delete_kcall(int id, struct rtb_kcall *c)
{
    (void)id, (void)c;
    return rtb_zephyr_unsupported("msgq_delete: Zephyr objects are not deleted (a static k_msgq has none)");
}

/* A full queue, no wait: -ENOMSG (RTB_EWOULDBLOCK); timed out: -EAGAIN. */
int rtb_port_msgq_send_kcall(int id, const void *msg, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!MSGQ_OK(id))
        return rtb_zephyr_fail("msgq_send", "no such queue");
    rtb_kcall_set(c, rtb_kapi_k_msgq_put, 0, W(&msgq_obj[id]), W(msg), (rtb_word)rtb_zephyr_ticks(timeout_us), 0);
    errno_call(c, timeout_us, "k_msgq_put");
    return RTB_OK;
}

int rtb_port_msgq_receive_kcall(int id, void *msg, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!MSGQ_OK(id))
        return rtb_zephyr_fail("msgq_receive", "no such queue");
    rtb_kcall_set(c, rtb_kapi_k_msgq_get, 0, W(&msgq_obj[id]), W(msg), (rtb_word)rtb_zephyr_ticks(timeout_us), 0);
    errno_call(c, timeout_us, "k_msgq_get");
    return RTB_OK;
}

RTB_KCALL_PLAIN(msgq_create, (int id, size_t msg_size, unsigned depth), id, msg_size, depth)
RTB_KCALL_PLAIN(msgq_send, (int id, const void *msg, int32_t timeout_us), id, msg, timeout_us)
RTB_KCALL_PLAIN(msgq_receive, (int id, void *msg, int32_t timeout_us), id, msg, timeout_us)

/* ---- queues of words: k_fifo, k_lifo, k_stack -------------------------------- */
struct node {
    void *link; /* the kernel's */
    uintptr_t word;
};

/* One array per type: the kernel's object list is found by type, and a
 * union's members are not. */
static struct k_fifo fifo_obj[RTB_MAX_QUEUES] __noinit;
static struct k_lifo lifo_obj[RTB_MAX_QUEUES] __noinit;
static struct k_stack stack_obj[RTB_MAX_QUEUES] __noinit;

static struct wq {
    unsigned kind;
    struct {
        struct k_fifo *fifo;
        struct k_lifo *lifo;
        struct k_stack *stack;
    } o;
    struct node nodes[DEPTH_MAX + 1];
    unsigned next;     /* the next node a put takes */
    stack_data_t stack_buf[DEPTH_MAX];
    unsigned depth;
    bool used;
} queues[RTB_MAX_QUEUES];
#define QUEUE_OK(id) ((id) >= 0 && (id) < RTB_MAX_QUEUES && queues[id].used)

RTB_KAPI_STMT(k_fifo_init, k_fifo_init((struct k_fifo *)a0))
RTB_KAPI_STMT(k_lifo_init, k_lifo_init((struct k_lifo *)a0))
RTB_KAPI_STMT(k_stack_init, k_stack_init((struct k_stack *)a0, (stack_data_t *)a1, (uint32_t)a2))
RTB_KAPI_STMT(k_fifo_put, k_fifo_put((struct k_fifo *)a0, (void *)a1))
RTB_KAPI_STMT(k_lifo_put, k_lifo_put((struct k_lifo *)a0, (void *)a1))
RTB_KAPI(k_fifo_alloc_put, k_fifo_alloc_put((struct k_fifo *)a0, (void *)a1))
RTB_KAPI(k_lifo_alloc_put, k_lifo_alloc_put((struct k_lifo *)a0, (void *)a1))
RTB_KAPI(k_stack_push, k_stack_push((struct k_stack *)a0, (stack_data_t)a1))
RTB_KAPI(k_fifo_get, k_fifo_get((struct k_fifo *)a0, rtb_zephyr_timeout(a1)))
RTB_KAPI(k_lifo_get, k_lifo_get((struct k_lifo *)a0, rtb_zephyr_timeout(a1)))
RTB_KAPI(k_stack_pop, k_stack_pop((struct k_stack *)a0, (stack_data_t *)a1, rtb_zephyr_timeout(a2)))

static int queue_made(const struct rtb_kcall *c)
{
    struct wq *q = &queues[c->aux[0]];
    q->used = true;
    public_object(q->kind == RTB_QUEUE_FIFO ? (const void *)q->o.fifo
                  : q->kind == RTB_QUEUE_LIFO ? (const void *)q->o.lifo : (const void *)q->o.stack);
    return RTB_OK;
}

int rtb_port_queue_create_kcall(int id, unsigned kind, unsigned depth, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_QUEUES || queues[id].used || kind > RTB_QUEUE_STACK || !depth ||
        depth > DEPTH_MAX)
        return rtb_zephyr_fail("queue_create", "bad id, kind or depth, or id in use");
    struct wq *q = &queues[id];
    q->kind = kind;
    q->depth = depth;
    q->next = 0;
    q->o.fifo = &fifo_obj[id];
    q->o.lifo = &lifo_obj[id];
    q->o.stack = &stack_obj[id];
    if (kind == RTB_QUEUE_FIFO)
        rtb_kcall_set(c, RTB_KFN(rtb_kapi_k_fifo_init), queue_made, W(q->o.fifo), 0, 0, 0);
    else if (kind == RTB_QUEUE_LIFO)
        rtb_kcall_set(c, RTB_KFN(rtb_kapi_k_lifo_init), queue_made, W(q->o.lifo), 0, 0, 0);
    else
        rtb_kcall_set(c, RTB_KFN(rtb_kapi_k_stack_init), queue_made, W(q->o.stack), W(q->stack_buf), depth, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

int rtb_port_queue_delete(int id)
{
    if (!QUEUE_OK(id))
        return rtb_zephyr_fail("queue_delete", "no such queue");
    queues[id].used = false;
    return RTB_OK;
}

int rtb_port_queue_delete_kcall(int id, struct rtb_kcall *c)
{
    (void)id, (void)c;
    return rtb_zephyr_unsupported("queue_delete: Zephyr objects are not deleted");
}

/* done() of k_*_alloc_put and k_stack_push: 0, or -ENOMEM / -ENOMEM (full). */
static int pushed(const struct rtb_kcall *c)
{
    return (int)c->ret == 0 ? RTB_OK : RTB_EWOULDBLOCK;
}

int rtb_port_queue_put_kcall(int id, uintptr_t item, bool alloc, struct rtb_kcall *c)
{
    if (!QUEUE_OK(id))
        return rtb_zephyr_fail("queue_put", "no such queue");
    struct wq *q = &queues[id];
    if (q->kind == RTB_QUEUE_STACK) {
        rtb_kcall_set(c, rtb_kapi_k_stack_push, pushed, W(q->o.stack), item, 0, 0);
        return RTB_OK;
    }
    if (!alloc && k_is_user_context())
        return rtb_zephyr_unsupported("queue_put: k_fifo_put/k_lifo_put are not system calls: a user-mode "
                                      "thread puts with k_fifo_alloc_put");
    struct node *n = &q->nodes[q->next];
    q->next = (q->next + 1) % (q->depth + 1); /* a ring one longer than the queue: never in use twice */
    n->word = item;
    if (q->kind == RTB_QUEUE_FIFO)
        rtb_kcall_set(c, alloc ? rtb_kapi_k_fifo_alloc_put : RTB_KFN(rtb_kapi_k_fifo_put), alloc ? pushed : 0,
                      W(q->o.fifo), alloc ? W(&n->word) : W(n), 0, 0);
    else
        rtb_kcall_set(c, alloc ? rtb_kapi_k_lifo_alloc_put : RTB_KFN(rtb_kapi_k_lifo_put), alloc ? pushed : 0,
                      W(q->o.lifo), alloc ? W(&n->word) : W(n), 0, 0);
    return RTB_OK;
}

/* A fifo/lifo get returns the item (NULL: nothing within the timeout): a
 * node of the queue's ring (a plain put), or the word of one (an
 * allocated put passed &node->word, and the kernel hands back that
 * pointer, its container freed). aux[2]: the queue. */
static int got_item(const struct rtb_kcall *c)
{
    const struct wq *q = (const struct wq *)c->aux[2];
    const unsigned char *p = (const unsigned char *)c->ret;
    if (!p)
        return (int32_t)c->aux[0] == RTB_NO_WAIT ? RTB_EWOULDBLOCK : RTB_ETIMEOUT;
    size_t off = (size_t)(p - (const unsigned char *)q->nodes) % sizeof(struct node);
    uintptr_t word = off == 0 ? ((const struct node *)p)->word : *(const uintptr_t *)p;
    if (c->aux[1])
        *(uintptr_t *)c->aux[1] = word;
    return RTB_OK;
}

static int popped(const struct rtb_kcall *c)
{
    int rc = (int)c->ret;
    if (rc == 0)
        return RTB_OK;
    return (int32_t)c->aux[0] == RTB_NO_WAIT ? RTB_EWOULDBLOCK : RTB_ETIMEOUT;
}

int rtb_port_queue_get_kcall(int id, uintptr_t *item, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!QUEUE_OK(id))
        return rtb_zephyr_fail("queue_get", "no such queue");
    struct wq *q = &queues[id];
    int32_t ticks = rtb_zephyr_ticks(timeout_us);
    if (q->kind == RTB_QUEUE_STACK) {
        rtb_kcall_set(c, rtb_kapi_k_stack_pop, popped, W(q->o.stack), W(item), (rtb_word)ticks, 0);
    } else {
        rtb_kcall_set(c, q->kind == RTB_QUEUE_FIFO ? rtb_kapi_k_fifo_get : rtb_kapi_k_lifo_get, got_item,
                      q->kind == RTB_QUEUE_FIFO ? W(q->o.fifo) : W(q->o.lifo), (rtb_word)ticks, 0, 0);
        c->aux[1] = W(item);
        c->aux[2] = W(q);
    }
    c->aux[0] = (rtb_word)timeout_us;
    return RTB_OK;
}

RTB_KCALL_PLAIN(queue_create, (int id, unsigned kind, unsigned depth), id, kind, depth)
RTB_KCALL_PLAIN(queue_put, (int id, uintptr_t item, bool alloc), id, item, alloc)
RTB_KCALL_PLAIN(queue_get, (int id, uintptr_t *item, int32_t timeout_us), id, item, timeout_us)

/* ---- pipes --------------------------------------------------------------------- */
#define PIPE_BYTES 1024u
static struct k_pipe pipe_obj[RTB_MAX_PIPES] __noinit;
static struct {
    unsigned char buf[PIPE_BYTES] __aligned(4);
    size_t moved; /* the bytes the last call moved */
    bool used;
} pipes[RTB_MAX_PIPES];
#define PIPE_OK(id) ((id) >= 0 && (id) < RTB_MAX_PIPES && pipes[id].used)

RTB_KAPI_STMT(k_pipe_init, k_pipe_init((struct k_pipe *)a0, (unsigned char *)a1, (size_t)a2))
/* All n bytes or nothing (min_xfer = n), as the contract's pipe moves them. */
RTB_KAPI(k_pipe_put, k_pipe_put((struct k_pipe *)a0, (const void *)a1, (size_t)a2, (size_t *)a3, (size_t)a2,
                                rtb_zephyr_timeout(a4)))
RTB_KAPI(k_pipe_get, k_pipe_get((struct k_pipe *)a0, (void *)a1, (size_t)a2, (size_t *)a3, (size_t)a2,
                                rtb_zephyr_timeout(a4)))

static int pipe_made(const struct rtb_kcall *c)
{
    pipes[c->aux[0]].used = true;
    public_object(&pipe_obj[c->aux[0]]);
    return RTB_OK;
}

int rtb_port_pipe_create_kcall(int id, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_PIPES || pipes[id].used)
        return rtb_zephyr_fail("pipe_create", "bad id, or id in use");
    rtb_kcall_set(c, RTB_KFN(rtb_kapi_k_pipe_init), pipe_made, W(&pipe_obj[id]), W(pipes[id].buf), PIPE_BYTES, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

int rtb_port_pipe_delete(int id)
{
    if (!PIPE_OK(id))
        return rtb_zephyr_fail("pipe_delete", "no such pipe");
    pipes[id].used = false;
    return RTB_OK;
}

int rtb_port_pipe_delete_kcall(int id, struct rtb_kcall *c)
{
    (void)id, (void)c;
    return rtb_zephyr_unsupported("pipe_delete: Zephyr objects are not deleted");
}

static int pipe_io(int id, bool write, void *buf, size_t n, int32_t timeout_us, struct rtb_kcall *c)
{
    if (!PIPE_OK(id) || n > PIPE_BYTES)
        return rtb_zephyr_fail(write ? "pipe_write" : "pipe_read", "no such pipe, or more than it holds");
    rtb_kcall_set(c, write ? rtb_kapi_k_pipe_put : rtb_kapi_k_pipe_get, 0, W(&pipe_obj[id]), W(buf), n,
                  W(&pipes[id].moved));
    c->a[4] = (rtb_word)rtb_zephyr_ticks(timeout_us);
    errno_call(c, timeout_us, write ? "k_pipe_put" : "k_pipe_get");
    return RTB_OK;
}

int rtb_port_pipe_write_kcall(int id, const void *buf, size_t n, int32_t timeout_us, struct rtb_kcall *c)
{
    return pipe_io(id, true, (void *)buf, n, timeout_us, c);
}

int rtb_port_pipe_read_kcall(int id, void *buf, size_t n, int32_t timeout_us, struct rtb_kcall *c)
{
    return pipe_io(id, false, buf, n, timeout_us, c);
}

RTB_KCALL_PLAIN(pipe_create, (int id), id)
RTB_KCALL_PLAIN(pipe_write, (int id, const void *buf, size_t n, int32_t timeout_us), id, buf, n, timeout_us)
RTB_KCALL_PLAIN(pipe_read, (int id, void *buf, size_t n, int32_t timeout_us), id, buf, n, timeout_us)

/* ---- heap: the system heap (k_malloc / k_free) --------------------------------- */
static int allocated(const struct rtb_kcall *c)
{
    return c->ret ? RTB_OK : RTB_ERR;
}

int rtb_port_heap_alloc_kcall(size_t size, struct rtb_kcall *c)
{
    if (k_is_user_context())
        return rtb_zephyr_unsupported("heap_alloc: k_malloc is not a system call");
    rtb_kcall_set(c, RTB_KFN(k_malloc), allocated, size, 0, 0, 0);
    return RTB_OK;
}

int rtb_port_heap_free_kcall(void *p, struct rtb_kcall *c)
{
    if (k_is_user_context())
        return rtb_zephyr_unsupported("heap_free: k_free is not a system call");
    rtb_kcall_set(c, RTB_KFN(k_free), 0, W(p), 0, 0, 0);
    return RTB_OK;
}

void *rtb_port_heap_alloc(size_t size)
{
    return k_malloc(size);
}

void rtb_port_heap_free(void *p)
{
    k_free(p);
}
