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
 */
#include "rtb_freertos.h"
#include "timers.h"

static struct {
    TimerHandle_t h;
    rtb_timer_fn fn;
    void *arg;
    bool periodic;
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

int rtb_port_timer_create(int id, rtb_timer_fn fn, void *arg)
{
    if (id < 0 || id >= RTB_MAX_TIMERS || timers[id].h || !fn)
        return rtb_freertos_fail("timer_create", "bad id, or id in use");
    timers[id].fn = fn;
    timers[id].arg = arg;
    timers[id].periodic = false;
    timers[id].h = xTimerCreate("rtb", 1, pdFALSE, (void *)(uintptr_t)id, callback);
    return timers[id].h ? RTB_OK : rtb_freertos_fail("xTimerCreate", "heap_4 exhausted");
}

int rtb_port_timer_start(int id, uint32_t first_us, uint32_t period_us)
{
    if (!TIMER_OK(id))
        return rtb_freertos_fail("timer_start", "no such timer");
    bool periodic = period_us != 0;
    if (periodic && first_us != period_us)
        return rtb_freertos_unsupported("timer_start: a FreeRTOS timer's first expiry is its period");
    if (periodic != timers[id].periodic) { /* local: no command to the daemon */
        vTimerSetReloadMode(timers[id].h, periodic ? pdTRUE : pdFALSE);
        timers[id].periodic = periodic;
    }
    TickType_t ticks = periodic ? us_to_ticks(period_us) : us_to_ticks(first_us) + 1;
    /* xTimerChangePeriod starts a dormant timer too: one command */
    return xTimerChangePeriod(timers[id].h, ticks, portMAX_DELAY) == pdPASS
               ? RTB_OK : rtb_freertos_fail("xTimerChangePeriod", "timer queue full");
}

int rtb_port_timer_cancel(int id)
{
    if (!TIMER_OK(id))
        return rtb_freertos_fail("timer_cancel", "no such timer");
    return xTimerStop(timers[id].h, portMAX_DELAY) == pdPASS
               ? RTB_OK : rtb_freertos_fail("xTimerStop", "timer queue full");
}

int rtb_port_timer_delete(int id)
{
    if (!TIMER_OK(id))
        return rtb_freertos_fail("timer_delete", "no such timer");
    BaseType_t ok = xTimerDelete(timers[id].h, portMAX_DELAY);
    timers[id].h = NULL;
    return ok == pdPASS ? RTB_OK : rtb_freertos_fail("xTimerDelete", "timer queue full");
}
