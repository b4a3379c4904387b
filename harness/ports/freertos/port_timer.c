/*
 * FreeRTOS port: software timers (timers.h). Callbacks run in the timer
 * daemon task (configTIMER_TASK_PRIORITY, above every benchmark task), and
 * every call sends a command to it through its queue: with the daemon more
 * urgent than the caller, a start, stop or delete switches to the daemon,
 * which carries the command out, and back; that is in the figures, as in
 * any FreeRTOS application with this common configuration.
 *
 * Timers count kernel ticks. A one-shot of `us` expires after
 * ceil(us / tick) + 1 ticks, so it never fires early (the first tick is
 * partial); a periodic timer's period is ceil(period / tick) ticks and its
 * first expiry one period after the start (FreeRTOS has one period per
 * timer: a first expiry different from the period is not available).
 *
 * A timer is created with xTimerCreateStatic on the slot's StaticTimer_t,
 * or with xTimerCreate from heap_4 for the *_heap rows (rtb_port_alloc).
 * A delete is a command too, which the daemon may not have run when the
 * id is created again (the .caller rows put it below the caller): a static
 * create first waits until the daemon ran every command sent before, so
 * the StaticTimer_t it reuses is no longer in the daemon's lists.
 */
#include "rtb_freertos.h"
#include "semphr.h"
#include "timers.h"

static struct {
    TimerHandle_t h;
    StaticTimer_t mem;
    rtb_timer_fn fn;
    void *arg;
    bool periodic;
    bool deleted; /* a delete was sent: the daemon may still hold `mem` */
} timers[RTB_MAX_TIMERS];
#define TIMER_OK(id) ((id) >= 0 && (id) < RTB_MAX_TIMERS && timers[id].h)

static void callback(TimerHandle_t t)
{
    int id = (int)(uintptr_t)pvTimerGetTimerID(t);
    timers[id].fn(timers[id].arg);
}

static TickType_t us_to_ticks(uint32_t us)
{
    const uint32_t tick_us = 1000000u / configTICK_RATE_HZ;
    TickType_t t = (TickType_t)((us + tick_us - 1) / tick_us);
    return t ? t : 1;
}

/* Every command sent so far has been run: a function call queued behind
 * them (FIFO) gives a semaphore the caller waits on, while the daemon,
 * whatever its priority, runs. Before a window, never in one. */
static void daemon_reached(void *sem, uint32_t unused)
{
    (void)unused;
    xSemaphoreGive((SemaphoreHandle_t)sem);
}

static int daemon_sync(void)
{
    static StaticSemaphore_t mem;
    static SemaphoreHandle_t sem;
    if (!sem)
        sem = xSemaphoreCreateBinaryStatic(&mem);
    if (xTimerPendFunctionCall(daemon_reached, sem, 0, portMAX_DELAY) != pdPASS)
        return rtb_freertos_fail("timer_create", "the timer daemon's queue refused a call");
    xSemaphoreTake(sem, portMAX_DELAY);
    return RTB_OK;
}

static int created(const struct rtb_kcall *c)
{
    TimerHandle_t h = (TimerHandle_t)c->ret;
    if (!h)
        return rtb_freertos_not_created("timer_create");
    timers[c->a[3]].h = h;
    return RTB_OK;
}

int rtb_port_timer_create_kcall(int id, rtb_timer_fn fn, void *arg, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_TIMERS || timers[id].h || !fn)
        return rtb_freertos_fail("timer_create", "bad id, or id in use");
    if (!rtb_freertos_from_heap && timers[id].deleted) {
        int rc = daemon_sync();
        if (rc != RTB_OK)
            return rc;
        timers[id].deleted = false;
    }
    timers[id].fn = fn;
    timers[id].arg = arg;
    timers[id].periodic = false;
    rtb_kcall_set(c, rtb_freertos_from_heap ? RTB_KFN(xTimerCreate) : RTB_KFN(xTimerCreateStatic), created,
                  (rtb_word) "rtb", 1, pdFALSE, (rtb_word)id);
    c->a[4] = arg ? (rtb_word)callback : (rtb_word)fn; /* no argument: the kernel calls fn itself */
    if (!rtb_freertos_from_heap)
        c->a[5] = (rtb_word)&timers[id].mem;
    return RTB_OK;
}

/* Each a command to the timer daemon: a macro over xTimerGenericCommand. */
RTB_KAPI(xTimerChangePeriod, xTimerChangePeriod((TimerHandle_t)a0, (TickType_t)a1, portMAX_DELAY))
RTB_KAPI(xTimerStop, xTimerStop((TimerHandle_t)a0, portMAX_DELAY))
RTB_KAPI(xTimerDelete, xTimerDelete((TimerHandle_t)a0, portMAX_DELAY))

static int sent(const struct rtb_kcall *c)
{
    return (BaseType_t)c->ret == pdPASS ? RTB_OK : rtb_freertos_fail("timer command", "timer queue full");
}

/* The reload mode is the timer's own field (no command to the daemon):
 * set when the call is prepared. xTimerChangePeriod starts a dormant timer
 * too: one command. */
int rtb_port_timer_start_kcall(int id, uint32_t first_us, uint32_t period_us, struct rtb_kcall *c)
{
    if (!TIMER_OK(id))
        return rtb_freertos_fail("timer_start", "no such timer");
    bool periodic = period_us != 0;
    if (periodic && first_us != period_us)
        return rtb_freertos_unsupported("timer_start: a FreeRTOS timer's first expiry is its period");
    if (periodic != timers[id].periodic) {
        vTimerSetReloadMode(timers[id].h, periodic ? pdTRUE : pdFALSE);
        timers[id].periodic = periodic;
    }
    TickType_t ticks = periodic ? us_to_ticks(period_us) : us_to_ticks(first_us) + 1;
    rtb_kcall_set(c, rtb_kapi_xTimerChangePeriod, sent, (rtb_word)timers[id].h, ticks, 0, 0);
    return RTB_OK;
}

int rtb_port_timer_cancel_kcall(int id, struct rtb_kcall *c)
{
    if (!TIMER_OK(id))
        return rtb_freertos_fail("timer_cancel", "no such timer");
    rtb_kcall_set(c, rtb_kapi_xTimerStop, sent, (rtb_word)timers[id].h, 0, 0, 0);
    return RTB_OK;
}

static int deleted(const struct rtb_kcall *c)
{
    timers[c->aux[0]].h = NULL;
    timers[c->aux[0]].deleted = true;
    return sent(c);
}

int rtb_port_timer_delete_kcall(int id, struct rtb_kcall *c)
{
    if (!TIMER_OK(id))
        return rtb_freertos_fail("timer_delete", "no such timer");
    rtb_kcall_set(c, rtb_kapi_xTimerDelete, deleted, (rtb_word)timers[id].h, 0, 0, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

RTB_KCALL_PLAIN(timer_create, (int id, rtb_timer_fn fn, void *arg), id, fn, arg)
RTB_KCALL_PLAIN(timer_start, (int id, uint32_t first_us, uint32_t period_us), id, first_us, period_us)
RTB_KCALL_PLAIN(timer_cancel, (int id), id)
RTB_KCALL_PLAIN(timer_delete, (int id), id)

/* FreeRTOS's timer calls are commands to its timer daemon: the caller-only
 * rows put the daemon below the caller for their duration (0: back to
 * configTIMER_TASK_PRIORITY). */
int rtb_port_timer_service_prio(int prio)
{
    TaskHandle_t daemon = xTimerGetTimerDaemonTaskHandle();
    if (!daemon)
        return rtb_freertos_fail("timer service", "the timer daemon is not running");
    vTaskPrioritySet(daemon, prio ? rtb_freertos_prio(prio) : configTIMER_TASK_PRIORITY);
    return RTB_OK;
}
