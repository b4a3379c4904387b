/*
 * tm_zephyr.c — Thread-Metric's porting layer for Zephyr (the fifteen
 * services of tm_api.h), written for rtbench after Thread-Metric's template
 * and ThreadX's own layer, like tm_freertos.c, so the same peer measures
 * the three kernels on the same board. Each service is one kernel call
 * (porting rule 2); thread sleep counts Zephyr's tick (rule 3).
 *
 * How the services map:
 *   thread create   k_thread_create on a static k_thread and a 2 KiB stack
 *                   (as ThreadX's layer), then k_thread_suspend: main runs
 *                   the test's set-up as a cooperative thread
 *                   (CONFIG_MAIN_THREAD_PRIORITY -1, zephyr/prj.conf), so no
 *                   created thread runs before it is suspended
 *   resume/suspend  k_thread_resume / k_thread_suspend
 *   relinquish      k_yield (time slicing off)
 *   sleep           k_sleep(K_SECONDS(seconds))
 *   queue           k_msgq of 16-byte messages, 12 deep (ThreadX's 200 bytes)
 *   semaphore       k_sem, count 1, limit 1 (created available)
 *   memory pool     k_mem_slab of 128-byte blocks in 2048 bytes (ThreadX's
 *                   block pool)
 * Thread-Metric priorities run 1 (most urgent) .. 31, Zephyr's preemptible
 * ones 0 .. CONFIG_NUM_PREEMPT_PRIORITIES - 1 the same way round: p is p.
 * The interrupt tests trap with SVC, which Zephyr owns (system calls,
 * irq_offload): rtbench does not build them (rtbench.peers.threadmetric).
 */
#include <zephyr/kernel.h>

#include "board_internal.h"
#include "rtb_board.h"
#include "tm_api.h"

#define TM_MAX_THREADS 10
#define TM_STACK_BYTES 2048
#define TM_QUEUE_MESSAGES (200 / 16)
#define TM_BLOCK_BYTES 128
#define TM_POOL_BYTES 2048

K_THREAD_STACK_ARRAY_DEFINE(stacks, TM_MAX_THREADS, TM_STACK_BYTES);
static struct k_thread threads[TM_MAX_THREADS];
static void (*entries[TM_MAX_THREADS])(void);
static struct k_msgq queue;
static char __aligned(4) queue_buffer[TM_QUEUE_MESSAGES * 16];
static struct k_sem semaphore;
static struct k_mem_slab slab;
static char __aligned(4) pool[TM_POOL_BYTES];

/* Below every test thread: it runs when nothing else can, so the idle
 * thread's WFI never does (under QEMU a halted CPU's virtual time is not
 * instructions; rtbench's own Zephyr image does the same). */
K_THREAD_STACK_DEFINE(busy_stack, 512);
static struct k_thread busy_thread;

static void busy(void *a, void *b, void *c)
{
    (void)a, (void)b, (void)c;
    for (;;)
        ;
}

static void thread_entry(void *id, void *b, void *c)
{
    (void)b, (void)c;
    entries[(intptr_t)id]();
}

void tm_initialize(void (*test_initialization_function)(void))
{
    k_thread_create(&busy_thread, busy_stack, K_THREAD_STACK_SIZEOF(busy_stack), busy, NULL, NULL,
                    NULL, K_LOWEST_APPLICATION_THREAD_PRIO, 0, K_NO_WAIT);
    test_initialization_function(); /* in main, cooperative: nothing runs meanwhile */
}

int tm_thread_create(int thread_id, int priority, void (*entry_function)(void))
{
    if (thread_id < 0 || thread_id >= TM_MAX_THREADS)
        return TM_ERROR;
    entries[thread_id] = entry_function;
    k_thread_create(&threads[thread_id], stacks[thread_id], K_THREAD_STACK_SIZEOF(stacks[thread_id]),
                    thread_entry, (void *)(intptr_t)thread_id, NULL, NULL, priority, 0, K_NO_WAIT);
    k_thread_suspend(&threads[thread_id]); /* created, not started */
    return TM_SUCCESS;
}

int tm_thread_resume(int thread_id)
{
    k_thread_resume(&threads[thread_id]);
    return TM_SUCCESS;
}

int tm_thread_suspend(int thread_id)
{
    k_thread_suspend(&threads[thread_id]);
    return TM_SUCCESS;
}

void tm_thread_relinquish(void)
{
    k_yield();
}

void tm_thread_sleep(int seconds)
{
    k_sleep(K_SECONDS(seconds));
}

int tm_queue_create(int queue_id)
{
    (void)queue_id;
    k_msgq_init(&queue, queue_buffer, 16, TM_QUEUE_MESSAGES);
    return TM_SUCCESS;
}

int tm_queue_send(int queue_id, unsigned long *message_ptr)
{
    (void)queue_id;
    return k_msgq_put(&queue, message_ptr, K_NO_WAIT) == 0 ? TM_SUCCESS : TM_ERROR;
}

int tm_queue_receive(int queue_id, unsigned long *message_ptr)
{
    (void)queue_id;
    return k_msgq_get(&queue, message_ptr, K_NO_WAIT) == 0 ? TM_SUCCESS : TM_ERROR;
}

int tm_semaphore_create(int semaphore_id)
{
    (void)semaphore_id;
    return k_sem_init(&semaphore, 1, 1) == 0 ? TM_SUCCESS : TM_ERROR;
}

int tm_semaphore_get(int semaphore_id)
{
    (void)semaphore_id;
    return k_sem_take(&semaphore, K_NO_WAIT) == 0 ? TM_SUCCESS : TM_ERROR;
}

int tm_semaphore_put(int semaphore_id)
{
    (void)semaphore_id;
    k_sem_give(&semaphore);
    return TM_SUCCESS;
}

int tm_memory_pool_create(int pool_id)
{
    (void)pool_id;
    return k_mem_slab_init(&slab, pool, TM_BLOCK_BYTES, TM_POOL_BYTES / TM_BLOCK_BYTES) == 0
               ? TM_SUCCESS : TM_ERROR;
}

int tm_memory_pool_allocate(int pool_id, unsigned char **memory_ptr)
{
    (void)pool_id;
    return k_mem_slab_alloc(&slab, (void **)memory_ptr, K_NO_WAIT) == 0 ? TM_SUCCESS : TM_ERROR;
}

int tm_memory_pool_deallocate(int pool_id, unsigned char *memory_ptr)
{
    (void)pool_id;
    k_mem_slab_free(&slab, memory_ptr);
    return TM_SUCCESS;
}

int main(void)
{
    void tm_main(void); /* each test's entry (tm_*_test.c) */
    rtb_board_console_init(); /* the console (Zephyr's UART driver) */
    tm_main();
    return 0; /* the test's threads go on; the report thread ends the run (tm_board.c) */
}
