/*
 * FreeRTOS port: tasks. A task is created with xTaskCreateStatic on the
 * slot's own TCB and stack (rtb_port_alloc's default: the create row times
 * the kernel's work, no allocation), or with xTaskCreate (TCB and stack
 * from heap_4) for the *_heap rows. It runs task_entry, which calls the
 * scenario's function, then gives the slot's join semaphore and suspends
 * itself. The joiner takes that semaphore and deletes the task: deleting
 * another task frees it at once, whereas a task deleting itself leaves its
 * memory to the idle task, which may not have run before the slot is reused.
 */
#include <stddef.h>

#include "rtb_freertos.h"
#include "semphr.h"

#define STACK_WORDS 512u /* 2 KiB: the deepest scenario path needs under 1 KiB */

static struct slot {
    /* task_entry loads these three with one LDM: keep them first, in this order */
    void *arg;
    rtb_task_fn fn;
    struct slot *self;
    TaskHandle_t handle;
    SemaphoreHandle_t done; /* given when fn returned */
    StaticSemaphore_t done_mem;
    StaticTask_t tcb;
    StackType_t stack[STACK_WORDS];
    bool used;
} slots[RTB_MAX_TASKS];
_Static_assert(offsetof(struct slot, arg) == 0 && offsetof(struct slot, fn) == 4 &&
                   offsetof(struct slot, self) == 8,
               "task_entry's LDM reads arg, fn, self from a slot's first three words");

#define SLOT_OK(id) ((id) >= 0 && (id) < RTB_MAX_TASKS && slots[id].used)

void rtb_freertos_tasks_init(void)
{
    for (int i = 0; i < RTB_MAX_TASKS; i++) {
        slots[i].self = &slots[i];
        slots[i].done = xSemaphoreCreateBinaryStatic(&slots[i].done_mem);
    }
}

/* After the scenario's function: tell the joiner, and wait to be deleted
 * (a FreeRTOS task function must not return). */
void rtb_freertos_task_exit(struct slot *s);
void rtb_freertos_task_exit(struct slot *s)
{
    xSemaphoreGive(s->done);
    for (;;)
        vTaskSuspend(NULL); /* the joiner deletes us; a stray resume must not return */
}

/* Every task's entry; FreeRTOS starts it with r0 = its slot. The rows whose
 * window ends at the new task's first stamp (task.create.ctx,
 * task.start.ctx) hold what runs of ours before the scenario's function:
 * two instructions here (one load of arg, fn and the slot, the call), where
 * a C wrapper took four or more (a frame, two loads, the call). Not zero: a
 * FreeRTOS task function must never return, so the scenario's function,
 * which returns, cannot be the task's entry itself. */
__attribute__((naked)) static void task_entry(void *slot __attribute__((unused)))
{
    __asm volatile("ldm r0, {r0, r1, r4}\n\t" /* r0 = arg, r1 = fn, r4 = slot (kept across the call) */
                   "blx r1\n\t"
                   "mov r0, r4\n\t"
                   "b rtb_freertos_task_exit\n\t");
}

/* The slot's task, unstarted (rtb_port_emulation: RTB_EMU_TASK_CREATE_UNSTARTED):
 * FreeRTOS creates every task ready, so the scheduler is held while it is
 * created and suspended. Several kernel calls: the port's own functions,
 * one per create call (a0..a6 as for xTaskCreateStatic, a0..a5 as for
 * xTaskCreate), each answering the new task's handle (NULL: none). */
static rtb_word unstarted_static(rtb_word fn, rtb_word name, rtb_word depth, rtb_word param,
                                 rtb_word prio, rtb_word stack, rtb_word tcb, rtb_word a7)
{
    (void)a7;
    vTaskSuspendAll();
    TaskHandle_t h = xTaskCreateStatic((TaskFunction_t)fn, (const char *)name, (configSTACK_DEPTH_TYPE)depth,
                                       (void *)param, (UBaseType_t)prio, (StackType_t *)stack,
                                       (StaticTask_t *)tcb);
    if (h)
        vTaskSuspend(h);
    (void)xTaskResumeAll();
    return (rtb_word)h;
}

static rtb_word unstarted_heap(rtb_word fn, rtb_word name, rtb_word depth, rtb_word param,
                               rtb_word prio, rtb_word handle, rtb_word a6, rtb_word a7)
{
    (void)a6, (void)a7;
    TaskHandle_t *h = (TaskHandle_t *)handle;
    vTaskSuspendAll();
    if (xTaskCreate((TaskFunction_t)fn, (const char *)name, (configSTACK_DEPTH_TYPE)depth, (void *)param,
                    (UBaseType_t)prio, h) == pdPASS)
        vTaskSuspend(*h);
    else
        *h = NULL;
    (void)xTaskResumeAll();
    return (rtb_word)*h;
}

/* xTaskCreate answers pdPASS (the handle went to the slot through its last
 * argument); xTaskCreateStatic and the emulation answer the handle. */
static int created(const struct rtb_kcall *c)
{
    struct slot *s = &slots[c->aux[0]];
    bool ok = c->fn == RTB_KFN(xTaskCreate) ? (BaseType_t)c->ret == pdPASS
                                             : (TaskHandle_t)c->ret == s->handle && s->handle;
    if (ok)
        return RTB_OK;
    s->used = false;
    return rtb_freertos_not_created("task_create");
}

int rtb_port_task_create_kcall(int id, int prio, unsigned flags, rtb_task_fn fn, void *arg,
                               struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_TASKS || slots[id].used || prio < 1 || prio > RTB_PRIO_MAX)
        return rtb_freertos_fail("task_create", "bad id or priority, or id in use");
    if (flags & (RTB_TASK_PROCESS | RTB_TASK_OTHER_CPU))
        return rtb_freertos_unsupported("task_create: one address space, one CPU");
    struct slot *s = &slots[id];
    bool heap = rtb_freertos_from_heap, unstarted = flags & RTB_TASK_SUSPENDED;
    s->fn = fn;
    s->arg = arg;
    s->used = true; /* a task more urgent than the caller runs, and may name itself, at once */
    xSemaphoreTake(s->done, 0); /* empty, whatever an earlier task left */
    rtb_kfn create = heap ? (unstarted ? unstarted_heap : RTB_KFN(xTaskCreate))
                          : (unstarted ? unstarted_static : RTB_KFN(xTaskCreateStatic));
    rtb_kcall_set(c, create, created, (rtb_word)task_entry, (rtb_word) "rtb", STACK_WORDS, (rtb_word)s);
    c->a[4] = rtb_freertos_prio(prio);
    if (heap) {
        s->handle = NULL; /* xTaskCreate writes it before the task can run */
        c->a[5] = (rtb_word)&s->handle;
    } else {
        /* A static task's handle is its StaticTask_t (tasks.c, prvCreateStaticTask),
         * known now: a task that runs inside the create can name itself. */
        s->handle = (TaskHandle_t)&s->tcb;
        c->a[5] = (rtb_word)s->stack;
        c->a[6] = (rtb_word)&s->tcb;
    }
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

/* A call of a void kernel function on task `id`'s handle (NULL: the caller
 * for id -1 where `self` allows it); done() then runs after the window. */
static int on_task(int id, bool self, void (*kfn)(TaskHandle_t), int (*done)(const struct rtb_kcall *),
                   const char *what, struct rtb_kcall *c)
{
    if (!(self && id == -1) && !SLOT_OK(id))
        return rtb_freertos_fail(what, "no such task");
    rtb_kcall_set(c, RTB_KFN(kfn), done, id == -1 ? 0 : (rtb_word)slots[id].handle, 0, 0, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

static int deleted(const struct rtb_kcall *c)
{
    slots[c->aux[0]].used = false;
    return RTB_OK;
}

int rtb_port_task_start_kcall(int id, struct rtb_kcall *c)
{
    return on_task(id, false, vTaskResume, 0, "task_start", c);
}

/* Another task: its memory is freed (heap) or free to reuse (static) in the call. */
int rtb_port_task_delete_kcall(int id, struct rtb_kcall *c)
{
    return on_task(id, false, vTaskDelete, deleted, "task_delete", c);
}

/* The caller's own handle suspends the caller. */
int rtb_port_task_suspend_kcall(int id, struct rtb_kcall *c)
{
    return on_task(id, false, vTaskSuspend, 0, "task_suspend", c);
}

int rtb_port_task_resume_kcall(int id, struct rtb_kcall *c)
{
    return on_task(id, false, vTaskResume, 0, "task_resume", c);
}

int rtb_port_task_set_prio_kcall(int id, int prio, struct rtb_kcall *c)
{
    if (prio < 1 || prio > RTB_PRIO_MAX || (id != -1 && !SLOT_OK(id)))
        return rtb_freertos_fail("task_set_prio", "bad id or priority");
    rtb_kcall_set(c, RTB_KFN(vTaskPrioritySet), 0, id == -1 ? 0 : (rtb_word)slots[id].handle,
                  rtb_freertos_prio(prio), 0, 0);
    return RTB_OK;
}

RTB_KAPI_STMT(taskYIELD, taskYIELD())

int rtb_port_task_yield_kcall(struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(rtb_kapi_taskYIELD), 0, 0, 0, 0, 0);
    return RTB_OK;
}

RTB_KCALL_PLAIN(task_create, (int id, int prio, unsigned flags, rtb_task_fn fn, void *arg), id, prio,
                flags, fn, arg)
RTB_KCALL_PLAIN(task_start, (int id), id)
RTB_KCALL_PLAIN(task_delete, (int id), id)
RTB_KCALL_PLAIN(task_suspend, (int id), id)
RTB_KCALL_PLAIN(task_resume, (int id), id)
RTB_KCALL_PLAIN(task_set_prio, (int id, int prio), id, prio)

void rtb_port_task_yield(void)
{
    taskYIELD();
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

/* At least `us`: whole kernel ticks with vTaskDelay (its first tick is
 * partial, hence one more), or, below a tick, the board's one-shot timer,
 * where it keeps time (not on QEMU's STM32F4: rtb_board_ts.h), so a 50 us
 * settle stays 50 us instead of a whole 1 ms tick. */
int rtb_port_task_delay(uint32_t us)
{
    const uint32_t tick_us = 1000000u / configTICK_RATE_HZ;
    if (us < tick_us && RTB_BOARD_ONESHOT_AVAILABLE() &&
        rtb_freertos_delay_ticks(RTB_BOARD_US_TICKS(us)) == 0)
        return RTB_OK;
    vTaskDelay((TickType_t)((us + tick_us - 1) / tick_us) + 1);
    return RTB_OK;
}

/* A delay of a tick or more times vTaskDelay itself; a shorter one is the
 * port's fine delay (the plain call). */
int rtb_port_task_delay_kcall(uint32_t us, struct rtb_kcall *c)
{
    const uint32_t tick_us = 1000000u / configTICK_RATE_HZ;
    if (us < tick_us) {
        rtb_kcall_set(c, RTB_KFN(rtb_port_task_delay), rtb_kcall_done_rc, us, 0, 0, 0);
        return RTB_OK;
    }
    rtb_kcall_set(c, RTB_KFN(vTaskDelay), 0, (TickType_t)((us + tick_us - 1) / tick_us) + 1, 0, 0, 0);
    return RTB_OK;
}

int rtb_port_sched_lock_kcall(struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(vTaskSuspendAll), 0, 0, 0, 0, 0);
    return RTB_OK;
}

int rtb_port_sched_unlock_kcall(struct rtb_kcall *c)
{
    rtb_kcall_set(c, RTB_KFN(xTaskResumeAll), 0, 0, 0, 0, 0);
    return RTB_OK;
}

RTB_KCALL_PLAIN0(sched_lock)
RTB_KCALL_PLAIN0(sched_unlock)
