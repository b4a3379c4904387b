/*
 * ThreadX port: application timers (tx_timer). Expiration functions run in
 * ThreadX's timer thread (priority 0, above every benchmark task: tx_user.h),
 * which the tick interrupt resumes when a timer expires. Unlike FreeRTOS's
 * timer daemon, starting, stopping and deleting a timer are direct calls
 * that touch the timer list under the kernel's interrupt lock: no command
 * is queued to the timer thread and no switch happens in the call.
 *
 * Timers count kernel ticks. A one-shot of `us` expires after
 * ceil(us / tick) + 1 ticks, so it never fires early (the first tick is
 * partial); a periodic timer's first expiry is computed the same way and its
 * period is ceil(period / tick) ticks (ThreadX keeps the two apart:
 * tx_timer_change's initial and reschedule ticks).
 */
#include "rtb_threadx.h"

static struct {
    TX_TIMER t;
    rtb_timer_fn fn;
    void *arg;
    bool used;
} timers[RTB_MAX_TIMERS];
#define TIMER_OK(id) ((id) >= 0 && (id) < RTB_MAX_TIMERS && timers[id].used)

static VOID expired(ULONG id)
{
    timers[id].fn(timers[id].arg);
}

static ULONG us_to_ticks(uint32_t us)
{
    const uint32_t tick_us = 1000000u / RTB_THREADX_TICK_HZ;
    ULONG t = (ULONG)((us + tick_us - 1) / tick_us);
    return t ? t : 1;
}

int rtb_port_timer_create(int id, rtb_timer_fn fn, void *arg)
{
    if (id < 0 || id >= RTB_MAX_TIMERS || timers[id].used || !fn)
        return rtb_threadx_fail("timer_create", "bad id, or id in use");
    timers[id].fn = fn;
    timers[id].arg = arg;
    /* created inactive; the initial ticks are set when it is started */
    UINT rc = tx_timer_create(&timers[id].t, "rtb", expired, (ULONG)id, 1, 0, TX_NO_ACTIVATE);
    if (rc != TX_SUCCESS)
        return rtb_threadx_status("tx_timer_create", rc);
    timers[id].used = true;
    return RTB_OK;
}

/* The timer is inactive here (created, or cancelled: the contract starts a
 * stopped timer), as tx_timer_change requires. */
int rtb_port_timer_start(int id, uint32_t first_us, uint32_t period_us)
{
    if (!TIMER_OK(id))
        return rtb_threadx_fail("timer_start", "no such timer");
    UINT rc = tx_timer_change(&timers[id].t, us_to_ticks(first_us) + 1,
                              period_us ? us_to_ticks(period_us) : 0);
    if (rc == TX_SUCCESS)
        rc = tx_timer_activate(&timers[id].t);
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("timer_start", rc);
}

int rtb_port_timer_cancel(int id)
{
    if (!TIMER_OK(id))
        return rtb_threadx_fail("timer_cancel", "no such timer");
    UINT rc = tx_timer_deactivate(&timers[id].t);
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_timer_deactivate", rc);
}

int rtb_port_timer_delete(int id)
{
    if (!TIMER_OK(id))
        return rtb_threadx_fail("timer_delete", "no such timer");
    timers[id].used = false;
    UINT rc = tx_timer_delete(&timers[id].t); /* deactivates an active timer first */
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_timer_delete", rc);
}
