/*
 * FreeRTOS port: tasks. A task is created with xTaskCreate (TCB and stack
 * from heap_4: the call applications use), runs a wrapper that calls the
 * scenario's function, gives the slot's join semaphore and suspends itself.
 * The joiner takes that semaphore and deletes the task: deleting another
 * task frees it at once, whereas a task deleting itself leaves its memory
 * to the idle task, which may not have run before the slot is reused.
 */
#include "rtb_freertos.h"
#include "semphr.h"

#define STACK_WORDS 512u /* 2 KiB: the deepest scenario path needs under 1 KiB */

static struct slot {
    TaskHandle_t handle;
    SemaphoreHandle_t done; /* given by the wrapper when fn returned */
    StaticSemaphore_t done_mem;
    rtb_task_fn fn;
    void *arg;
    bool used;
} slots[RTB_MAX_TASKS];

#define SLOT_OK(id) ((id) >= 0 && (id) < RTB_MAX_TASKS && slots[id].used)

void rtb_freertos_tasks_init(void)
{
    for (int i = 0; i < RTB_MAX_TASKS; i++)
        slots[i].done = xSemaphoreCreateBinaryStatic(&slots[i].done_mem);
}

static void wrapper(void *p)
{
    struct slot *s = p;
    s->fn(s->arg);
    xSemaphoreGive(s->done);
    for (;;)
        vTaskSuspend(NULL); /* the joiner deletes us; a stray resume must not return */
}

int rtb_port_task_create(int id, int prio, unsigned flags, rtb_task_fn fn, void *arg)
{
    if (id < 0 || id >= RTB_MAX_TASKS || slots[id].used || prio < 1 || prio > RTB_PRIO_MAX)
        return rtb_freertos_fail("task_create", "bad id or priority, or id in use");
    if (flags & (RTB_TASK_PROCESS | RTB_TASK_OTHER_CPU))
        return rtb_freertos_unsupported("task_create: one address space, one CPU");
    struct slot *s = &slots[id];
    s->fn = fn;
    s->arg = arg;
    s->used = true; /* a task more urgent than the caller runs, and may name itself, at once */
    xSemaphoreTake(s->done, 0); /* empty, whatever an earlier task left */
    BaseType_t rc;
    if (flags & RTB_TASK_SUSPENDED) { /* rtb_port_emulation: RTB_EMU_TASK_CREATE_UNSTARTED */
        vTaskSuspendAll();
        rc = xTaskCreate(wrapper, "rtb", STACK_WORDS, s, rtb_freertos_prio(prio), &s->handle);
        if (rc == pdPASS)
            vTaskSuspend(s->handle);
        (void)xTaskResumeAll();
    } else {
        rc = xTaskCreate(wrapper, "rtb", STACK_WORDS, s, rtb_freertos_prio(prio), &s->handle);
    }
    if (rc != pdPASS) {
        s->used = false;
        return rtb_freertos_fail("xTaskCreate", "heap_4 exhausted");
    }
    return RTB_OK;
}

int rtb_port_task_start(int id)
{
    if (!SLOT_OK(id))
        return rtb_freertos_fail("task_start", "no such task");
    vTaskResume(slots[id].handle);
    return RTB_OK;
}

int rtb_port_task_join(int id)
{
    if (!SLOT_OK(id))
        return rtb_freertos_fail("task_join", "no such task");
    xSemaphoreTake(slots[id].done, portMAX_DELAY);
    vTaskDelete(slots[id].handle);
    slots[id].used = false;
    return RTB_OK;
}

int rtb_port_task_delete(int id)
{
    if (!SLOT_OK(id))
        return rtb_freertos_fail("task_delete", "no such task");
    vTaskDelete(slots[id].handle); /* another task: its memory is freed now */
    slots[id].used = false;
    return RTB_OK;
}

int rtb_port_task_suspend(int id)
{
    if (!SLOT_OK(id))
        return rtb_freertos_fail("task_suspend", "no such task");
    vTaskSuspend(slots[id].handle); /* the caller's own handle suspends the caller */
    return RTB_OK;
}

int rtb_port_task_resume(int id)
{
    if (!SLOT_OK(id))
        return rtb_freertos_fail("task_resume", "no such task");
    vTaskResume(slots[id].handle);
    return RTB_OK;
}

void rtb_port_task_yield(void)
{
    taskYIELD();
}

int rtb_port_task_set_prio(int id, int prio)
{
    if (prio < 1 || prio > RTB_PRIO_MAX || (id != -1 && !SLOT_OK(id)))
        return rtb_freertos_fail("task_set_prio", "bad id or priority");
    vTaskPrioritySet(id == -1 ? NULL : slots[id].handle, rtb_freertos_prio(prio));
    return RTB_OK;
}

/* At least `us`: whole kernel ticks with vTaskDelay (its first tick is
 * partial, hence one more), or, below a tick, the board's one-shot timer,
 * so a 50 us settle stays 50 us instead of a whole 1 ms tick. */
int rtb_port_task_delay(uint32_t us)
{
    const uint32_t tick_us = 1000000u / configTICK_RATE_HZ;
    if (us < tick_us && rtb_freertos_delay_ticks(us * (RTB_BOARD_TS_HZ / 1000000u)) == 0)
        return RTB_OK;
    vTaskDelay((TickType_t)((us + tick_us - 1) / tick_us) + 1);
    return RTB_OK;
}

int rtb_port_sched_lock(void)
{
    vTaskSuspendAll();
    return RTB_OK;
}

int rtb_port_sched_unlock(void)
{
    (void)xTaskResumeAll();
    return RTB_OK;
}
