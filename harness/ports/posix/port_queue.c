/*
 * POSIX port: queues of words (Zephyr k_fifo / k_lifo / k_stack). Linux has
 * no such kernel object, so the port builds one from real primitives, the
 * way a k_fifo is built in Zephyr: a linked list under a lock, and a count
 * of items a getter blocks on. Here the lock is a process-shared pthread
 * mutex and the count a pshared sem_t, both in the shared region with the
 * nodes, so tasks that are processes use the same queue.
 *
 *  - FIFO/LIFO put without alloc links a node the queue owns (Zephyr links
 *    the caller's own node: no allocation either); put with alloc takes a
 *    node from a separate node heap under its own lock (Zephyr's
 *    k_fifo_alloc_put allocates from the thread's resource pool), and the
 *    get that returns such an item frees its node (Zephyr's "get.free").
 *  - STACK is a bounded array of words (k_stack).
 *  - A put to a full queue (no node left, stack full) is RTB_EWOULDBLOCK.
 *  - The count is posted after the list lock is released, so a woken
 *    higher-priority getter never blocks on the lock the putter still holds.
 */
#include "posix_port.h"

#include <errno.h>
#include <semaphore.h>

#define QUEUE_MAX_DEPTH 64
#define HEAP_NODES 256

struct qnode {
    struct qnode *next;
    uintptr_t item;
    bool from_heap;
};

struct queue_slot {
    pthread_mutex_t lock;
    sem_t items;
    unsigned kind, depth, count;
    struct qnode *head, *tail, *spare; /* spare: the queue's own free nodes */
    struct qnode own[QUEUE_MAX_DEPTH];
    uintptr_t words[QUEUE_MAX_DEPTH];  /* STACK */
    bool used;
};

struct node_heap {
    pthread_mutex_t lock;
    struct qnode *free;
    struct qnode nodes[HEAP_NODES];
    bool ready;
};

RTB_POSIX_POOL(struct queue_slot, queue_pool, RTB_MAX_QUEUES)
RTB_POSIX_POOL(struct node_heap, heap_pool, 1)
static struct queue_slot *queues;
static struct node_heap *heap;

#define QUEUE_OK(id) (queues && (id) >= 0 && (id) < RTB_MAX_QUEUES && queues[id].used)

static int heap_init(void)
{
    if (!(heap = heap_pool()))
        return ENOMEM;
    if (heap->ready)
        return 0;
    int rc = rtb_posix_shared_mutex_init(&heap->lock);
    if (rc)
        return rc;
    for (int i = 0; i < HEAP_NODES; i++) {
        heap->nodes[i].next = i + 1 < HEAP_NODES ? &heap->nodes[i + 1] : 0;
        heap->nodes[i].from_heap = true;
    }
    heap->free = &heap->nodes[0];
    heap->ready = true;
    return 0;
}

static struct qnode *heap_alloc(void)
{
    pthread_mutex_lock(&heap->lock);
    struct qnode *n = heap->free;
    if (n)
        heap->free = n->next;
    pthread_mutex_unlock(&heap->lock);
    return n;
}

static void heap_free(struct qnode *n)
{
    pthread_mutex_lock(&heap->lock);
    n->next = heap->free;
    heap->free = n;
    pthread_mutex_unlock(&heap->lock);
}

int rtb_port_queue_create(int id, unsigned kind, unsigned depth)
{
    if (!(queues = queue_pool()) || heap_init() != 0)
        return rtb_posix_fail("queue_create: not the runner, or shared region full", ENOMEM);
    if (id < 0 || id >= RTB_MAX_QUEUES || queues[id].used || kind > RTB_QUEUE_STACK ||
        depth == 0 || depth > QUEUE_MAX_DEPTH)
        return rtb_posix_fail("queue_create", EINVAL);
    struct queue_slot *q = &queues[id];
    int rc = rtb_posix_shared_mutex_init(&q->lock);
    if (rc)
        return rtb_posix_fail("queue_create: pthread_mutex_init", rc);
    if (sem_init(&q->items, rtb_posix.pshared, 0) != 0) {
        rc = errno;
        pthread_mutex_destroy(&q->lock);
        return rtb_posix_fail("queue_create: sem_init", rc);
    }
    q->kind = kind;
    q->depth = depth;
    q->count = 0;
    q->head = q->tail = q->spare = 0;
    for (unsigned i = 0; i < depth; i++) {
        q->own[i].from_heap = false;
        q->own[i].next = q->spare;
        q->spare = &q->own[i];
    }
    q->used = true;
    return RTB_OK;
}

int rtb_port_queue_delete(int id)
{
    if (!QUEUE_OK(id))
        return rtb_posix_fail("queue_delete", EINVAL);
    struct queue_slot *q = &queues[id];
    q->used = false;
    for (struct qnode *n = q->head, *next; n; n = next) {
        next = n->next;
        if (n->from_heap)
            heap_free(n);
    }
    q->head = q->tail = 0;
    sem_destroy(&q->items);
    pthread_mutex_destroy(&q->lock);
    return RTB_OK;
}

/* Link n (FIFO: at the tail; LIFO: at the head). Caller holds the lock. */
static void link_node(struct queue_slot *q, struct qnode *n)
{
    if (q->kind == RTB_QUEUE_LIFO || !q->head) {
        n->next = q->head;
        q->head = n;
        if (!q->tail)
            q->tail = n;
    } else {
        n->next = 0;
        q->tail->next = n;
        q->tail = n;
    }
}

int rtb_port_queue_put(int id, uintptr_t item, bool alloc)
{
    if (!QUEUE_OK(id) || (alloc && queues[id].kind == RTB_QUEUE_STACK))
        return rtb_posix_fail("queue_put", EINVAL);
    struct queue_slot *q = &queues[id];
    struct qnode *n = 0;
    if (alloc && !(n = heap_alloc()))
        return RTB_EWOULDBLOCK;
    pthread_mutex_lock(&q->lock);
    if (q->count == q->depth) {
        pthread_mutex_unlock(&q->lock);
        if (n)
            heap_free(n);
        return RTB_EWOULDBLOCK;
    }
    if (q->kind == RTB_QUEUE_STACK) {
        q->words[q->count] = item;
    } else {
        if (!n) {
            n = q->spare;
            q->spare = n->next;
        }
        n->item = item;
        link_node(q, n);
    }
    q->count++;
    pthread_mutex_unlock(&q->lock);
    return sem_post(&q->items) ? rtb_posix_fail("queue_put: sem_post", errno) : RTB_OK;
}

static int wait_item(struct queue_slot *q, int32_t timeout_us)
{
    int rc;
    if (timeout_us == RTB_NO_WAIT) {
        if (sem_trywait(&q->items) == 0)
            return RTB_OK;
        return errno == EAGAIN ? RTB_EWOULDBLOCK : rtb_posix_fail("queue_get: sem_trywait", errno);
    }
    if (timeout_us == RTB_WAIT_FOREVER) {
        while ((rc = sem_wait(&q->items)) != 0 && errno == EINTR)
            ;
    } else {
        struct timespec ts;
        rtb_posix_deadline(CLOCK_MONOTONIC, timeout_us, &ts);
        while ((rc = sem_clockwait(&q->items, CLOCK_MONOTONIC, &ts)) != 0 && errno == EINTR)
            ;
        if (rc && errno == ETIMEDOUT)
            return RTB_ETIMEOUT;
    }
    return rc ? rtb_posix_fail("queue_get: sem_wait", errno) : RTB_OK;
}

int rtb_port_queue_get(int id, uintptr_t *item, int32_t timeout_us)
{
    if (!QUEUE_OK(id))
        return rtb_posix_fail("queue_get", EINVAL);
    struct queue_slot *q = &queues[id];
    int rc = wait_item(q, timeout_us);
    if (rc != RTB_OK)
        return rc;
    struct qnode *n = 0;
    pthread_mutex_lock(&q->lock);
    q->count--;
    if (q->kind == RTB_QUEUE_STACK) {
        *item = q->words[q->count];
    } else {
        n = q->head;
        q->head = n->next;
        if (!q->head)
            q->tail = 0;
        *item = n->item;
        if (!n->from_heap) {
            n->next = q->spare;
            q->spare = n;
            n = 0;
        }
    }
    pthread_mutex_unlock(&q->lock);
    if (n)
        heap_free(n); /* the node alloc put took: freed by the get (Zephyr's get.free) */
    return RTB_OK;
}
