/*
 * tm_freertos.c — Thread-Metric's porting layer for FreeRTOS (the fifteen
 * services of tm_api.h), written for rtbench after Thread-Metric's template
 * (tm_porting_layer_template.c) and ThreadX's own layer, so the same peer
 * measures both kernels on the same board. Each service is one kernel call,
 * not a macro (porting rule 2); thread sleep counts the kernel tick, built
 * at 100 Hz for these images (rule 3).
 *
 * How the services map:
 *   thread create   xTaskCreate (TCB and stack from heap_4), created
 *                   suspended: an initialisation task at the most urgent
 *                   priority runs the test's set-up, so vTaskSuspend follows
 *                   each create before the task can run
 *   resume/suspend  vTaskResume / vTaskSuspend
 *   relinquish      taskYIELD (time slicing is off: configUSE_TIME_SLICING 0)
 *   sleep           vTaskDelay(seconds * configTICK_RATE_HZ)
 *   queue           xQueueCreate of 16-byte messages (as many as ThreadX's
 *                   layer fits in 200 bytes: 12), send/receive without wait
 *   semaphore       binary semaphore, created available, take/give without wait
 *   memory pool     FreeRTOS has no fixed-block pool: pvPortMalloc /
 *                   vPortFree of 128 bytes from heap_4 (a general heap)
 * Thread-Metric priorities run 1 (most urgent) .. 31; FreeRTOS's are the
 * other way round: p runs at 31 - p, the initialisation task at 31.
 */
#include <stdint.h>

#include "FreeRTOS.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"

#include "rtb_board.h"
#include "tm_api.h"

#define TM_MAX_THREADS 10
#define TM_STACK_WORDS 512u /* 2 KiB, as ThreadX's layer (2096 bytes) */
#define TM_QUEUE_MESSAGES (200u / 16u)
#define TM_BLOCK_BYTES 128u

static TaskHandle_t threads[TM_MAX_THREADS];
static void (*entries[TM_MAX_THREADS])(void);
static QueueHandle_t queues[1];
static SemaphoreHandle_t semaphores[1];
static void (*initialization)(void);

static UBaseType_t priority(int tm_priority)
{
    return (UBaseType_t)(configMAX_PRIORITIES - 1 - tm_priority);
}

static void thread_entry(void *id)
{
    entries[(intptr_t)id]();
    vTaskSuspend(NULL); /* a test's thread never returns; if one did, it stops here */
}

static void initialization_task(void *unused)
{
    (void)unused;
    initialization();
    vTaskDelete(NULL);
}

/* Called from main (tm_main): the test's set-up runs in a task, then the
 * kernel starts. */
void tm_initialize(void (*test_initialization_function)(void))
{
    initialization = test_initialization_function;
    if (xTaskCreate(initialization_task, "tm init", TM_STACK_WORDS, NULL,
                    configMAX_PRIORITIES - 1, NULL) != pdPASS)
        rtb_board_exit(1);
    vTaskStartScheduler();
}

int tm_thread_create(int thread_id, int priority_, void (*entry_function)(void))
{
    if (thread_id < 0 || thread_id >= TM_MAX_THREADS)
        return TM_ERROR;
    entries[thread_id] = entry_function;
    if (xTaskCreate(thread_entry, "tm", TM_STACK_WORDS, (void *)(intptr_t)thread_id,
                    priority(priority_), &threads[thread_id]) != pdPASS)
        return TM_ERROR;
    vTaskSuspend(threads[thread_id]); /* created, not started */
    return TM_SUCCESS;
}

int tm_thread_resume(int thread_id)
{
    vTaskResume(threads[thread_id]);
    return TM_SUCCESS;
}

int tm_thread_suspend(int thread_id)
{
    vTaskSuspend(threads[thread_id]);
    return TM_SUCCESS;
}

void tm_thread_relinquish(void)
{
    taskYIELD();
}

void tm_thread_sleep(int seconds)
{
    vTaskDelay((TickType_t)seconds * configTICK_RATE_HZ);
}

int tm_queue_create(int queue_id)
{
    queues[queue_id] = xQueueCreate(TM_QUEUE_MESSAGES, 4 * sizeof(unsigned long));
    return queues[queue_id] ? TM_SUCCESS : TM_ERROR;
}

int tm_queue_send(int queue_id, unsigned long *message_ptr)
{
    return xQueueSendToBack(queues[queue_id], message_ptr, 0) == pdPASS ? TM_SUCCESS : TM_ERROR;
}

int tm_queue_receive(int queue_id, unsigned long *message_ptr)
{
    return xQueueReceive(queues[queue_id], message_ptr, 0) == pdPASS ? TM_SUCCESS : TM_ERROR;
}

int tm_semaphore_create(int semaphore_id)
{
    semaphores[semaphore_id] = xSemaphoreCreateBinary();
    if (!semaphores[semaphore_id])
        return TM_ERROR;
    xSemaphoreGive(semaphores[semaphore_id]); /* available, as ThreadX's count of 1 */
    return TM_SUCCESS;
}

int tm_semaphore_get(int semaphore_id)
{
    return xSemaphoreTake(semaphores[semaphore_id], 0) == pdPASS ? TM_SUCCESS : TM_ERROR;
}

int tm_semaphore_put(int semaphore_id)
{
    return xSemaphoreGive(semaphores[semaphore_id]) == pdPASS ? TM_SUCCESS : TM_ERROR;
}

int tm_memory_pool_create(int pool_id)
{
    (void)pool_id; /* heap_4 is there from the start */
    return TM_SUCCESS;
}

int tm_memory_pool_allocate(int pool_id, unsigned char **memory_ptr)
{
    (void)pool_id;
    *memory_ptr = pvPortMalloc(TM_BLOCK_BYTES);
    return *memory_ptr ? TM_SUCCESS : TM_ERROR;
}

int tm_memory_pool_deallocate(int pool_id, unsigned char *memory_ptr)
{
    (void)pool_id;
    vPortFree(memory_ptr);
    return TM_SUCCESS;
}

int main(void)
{
    void tm_main(void); /* each test's entry (tm_*_test.c) */
    rtb_board_init();
    tm_main();
    rtb_board_exit(1); /* the scheduler returned */
}
