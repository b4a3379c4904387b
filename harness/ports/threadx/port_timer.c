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

static struct timer_slot {
    TX_TIMER t;
    rtb_timer_fn fn;
    void *arg;
    ULONG initial, period; /* the ticks of the last start (0: never started) */
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

/* created inactive; the initial ticks are set when it is started. A macro
 * when ThreadX checks errors: a shim; a0 the control block, a1 the id the
 * expiration function gets, a2 that function (the routine itself when it
 * takes no argument: the kernel calls it directly). */
RTB_KAPI(tx_timer_create, tx_timer_create((TX_TIMER *)a0, "rtb", (VOID (*)(ULONG))a2, (ULONG)a1, 1, 0,
                                          TX_NO_ACTIVATE))

static int created(const struct rtb_kcall *c)
{
    UINT rc = (UINT)c->ret;
    if (rc != TX_SUCCESS)
        return rtb_threadx_status("tx_timer_create", rc);
    timers[c->a[1]].used = true;
    return RTB_OK;
}

int rtb_port_timer_create_kcall(int id, rtb_timer_fn fn, void *arg, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_TIMERS || timers[id].used || !fn)
        return rtb_threadx_fail("timer_create", "bad id, or id in use");
    timers[id].fn = fn;
    timers[id].arg = arg;
    timers[id].initial = timers[id].period = 0;
    rtb_kcall_set(c, rtb_kapi_tx_timer_create, created, (rtb_word)&timers[id].t, (rtb_word)id,
                  arg ? (rtb_word)expired : (rtb_word)fn, 0);
    return RTB_OK;
}

/* Starting a timer with a new expiry is ThreadX's two calls, as an
 * application makes them: tx_timer_change (the timer's ticks: it must be
 * inactive, as it is here, created or cancelled; the contract starts a
 * stopped timer), then tx_timer_activate. The change only stores the
 * ticks, so it is made when the start is prepared, and the window holds
 * the start itself, tx_timer_activate. A cancel leaves the ticks where the
 * timer stopped (ThreadX's deactivate keeps the time left), so its done()
 * sets the slot's last ticks again: a start prepared once and made after
 * each cancel (timer.start.*) arms the same expiry every time. */
static int status(const struct rtb_kcall *c)
{
    UINT rc = (UINT)c->ret;
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status((const char *)c->aux[0], rc);
}

int rtb_port_timer_start_kcall(int id, uint32_t first_us, uint32_t period_us, struct rtb_kcall *c)
{
    if (!TIMER_OK(id))
        return rtb_threadx_fail("timer_start", "no such timer");
    struct timer_slot *t = &timers[id];
    t->initial = us_to_ticks(first_us) + 1;
    t->period = period_us ? us_to_ticks(period_us) : 0;
    UINT rc = tx_timer_change(&t->t, t->initial, t->period);
    if (rc != TX_SUCCESS)
        return rtb_threadx_status("tx_timer_change", rc);
    rtb_kcall_set(c, RTB_KFN(tx_timer_activate), status, (rtb_word)&t->t, 0, 0, 0);
    c->aux[0] = (rtb_word) "tx_timer_activate";
    return RTB_OK;
}

static int cancelled(const struct rtb_kcall *c)
{
    struct timer_slot *t = (struct timer_slot *)c->aux[1];
    UINT rc = (UINT)c->ret;
    if (rc != TX_SUCCESS)
        return rtb_threadx_status("tx_timer_deactivate", rc);
    rc = t->initial ? tx_timer_change(&t->t, t->initial, t->period) : TX_SUCCESS;
    return rc == TX_SUCCESS ? RTB_OK : rtb_threadx_status("tx_timer_change", rc);
}

int rtb_port_timer_cancel_kcall(int id, struct rtb_kcall *c)
{
    if (!TIMER_OK(id))
        return rtb_threadx_fail("timer_cancel", "no such timer");
    rtb_kcall_set(c, RTB_KFN(tx_timer_deactivate), cancelled, (rtb_word)&timers[id].t, 0, 0, 0);
    c->aux[1] = (rtb_word)&timers[id];
    return RTB_OK;
}

static int deleted(const struct rtb_kcall *c)
{
    ((struct timer_slot *)c->aux[1])->used = false;
    return status(c);
}

/* tx_timer_delete deactivates an active timer first. */
int rtb_port_timer_delete_kcall(int id, struct rtb_kcall *c)
{
    if (!TIMER_OK(id))
        return rtb_threadx_fail("timer_delete", "no such timer");
    rtb_kcall_set(c, RTB_KFN(tx_timer_delete), deleted, (rtb_word)&timers[id].t, 0, 0, 0);
    c->aux[0] = (rtb_word) "tx_timer_delete";
    c->aux[1] = (rtb_word)&timers[id];
    return RTB_OK;
}

RTB_KCALL_PLAIN(timer_create, (int id, rtb_timer_fn fn, void *arg), id, fn, arg)
RTB_KCALL_PLAIN(timer_start, (int id, uint32_t first_us, uint32_t period_us), id, first_us, period_us)
RTB_KCALL_PLAIN(timer_cancel, (int id), id)
RTB_KCALL_PLAIN(timer_delete, (int id), id)
