/*
 * RTX5 port: timers (osTimer). Callbacks run in RTX5's timer thread
 * (OS_TIMER_THREAD_PRIO 40, above every benchmark thread), which the tick
 * wakes through its callback queue when a timer expires. Starting,
 * stopping and deleting are direct calls on the timer list (SVC): no
 * command is queued to the timer thread.
 *
 * CMSIS-RTOS2 fixes a timer's kind at creation (osTimerOnce or
 * osTimerPeriodic) and starts it with one time: a periodic timer's first
 * expiry is its period. The contract's create knows neither, so the timer
 * is created one-shot, and a start of the other kind (prepared outside the
 * window) re-creates it periodic first; a periodic start whose first
 * expiry differs from its period is refused (no RTX5 call does it).
 * A one-shot of `us` expires after ceil(us / tick) + 1 ticks, never early.
 */
#include "rtb_rtx5.h"

#define W(x) ((rtb_word)(x))

static struct timer_slot {
    osRtxTimer_t cb;
    osTimerAttr_t attr;
    osTimerId_t id;
    rtb_timer_fn fn;
    void *arg;
    osTimerType_t type;
    bool used;
} timers[RTB_MAX_TIMERS];
#define TIMER_OK(id) ((id) >= 0 && (id) < RTB_MAX_TIMERS && timers[id].used)

static uint32_t us_to_ticks(uint32_t us)
{
    uint32_t t = (us + RTB_RTX5_TICK_US - 1) / RTB_RTX5_TICK_US;
    return t ? t : 1;
}

/* the callback and its argument: the routine itself when it takes none
 * (the kernel calls it directly), else the scenario's fn(arg) */
static void expired(void *slot)
{
    struct timer_slot *t = slot;
    t->fn(t->arg);
}

static osTimerFunc_t func_of(struct timer_slot *t)
{
    return t->arg ? expired : (osTimerFunc_t)t->fn;
}

static void set_attr(struct timer_slot *t)
{
    t->attr = (osTimerAttr_t){.name = "rtb",
                              .cb_mem = rtb_rtx5_from_heap ? NULL : &t->cb,
                              .cb_size = rtb_rtx5_from_heap ? 0 : sizeof t->cb};
}

static int created(const struct rtb_kcall *c)
{
    struct timer_slot *t = (struct timer_slot *)c->aux[1];
    t->id = (osTimerId_t)c->ret;
    if (!t->id)
        return rtb_rtx5_fail("osTimerNew", "returned NULL");
    t->used = true;
    return RTB_OK;
}

int rtb_port_timer_create_kcall(int id, rtb_timer_fn fn, void *arg, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_TIMERS || timers[id].used || !fn)
        return rtb_rtx5_fail("timer_create", "bad id, or id in use");
    struct timer_slot *t = &timers[id];
    t->fn = fn;
    t->arg = arg;
    t->type = osTimerOnce;
    set_attr(t);
    rtb_kcall_set(c, RTB_KFN(osTimerNew), created, W(func_of(t)), osTimerOnce, W(arg ? (void *)t : NULL),
                  W(&t->attr));
    c->aux[1] = W(t);
    return RTB_OK;
}

static int status(const struct rtb_kcall *c)
{
    int32_t rc = (int32_t)c->ret;
    return rc == osOK ? RTB_OK : rtb_rtx5_status((const char *)c->aux[1], rc);
}

/* Re-create slot t as a timer of `type` (outside any window). */
static int recreate(struct timer_slot *t, osTimerType_t type)
{
    osStatus_t rc = osTimerDelete(t->id);
    if (rc != osOK)
        return rtb_rtx5_status("osTimerDelete", rc);
    set_attr(t);
    t->id = osTimerNew(func_of(t), type, t->arg ? (void *)t : NULL, &t->attr);
    if (!t->id) {
        t->used = false;
        return rtb_rtx5_fail("osTimerNew", "returned NULL");
    }
    t->type = type;
    return RTB_OK;
}

int rtb_port_timer_start_kcall(int id, uint32_t first_us, uint32_t period_us, struct rtb_kcall *c)
{
    if (!TIMER_OK(id))
        return rtb_rtx5_fail("timer_start", "no such timer");
    struct timer_slot *t = &timers[id];
    osTimerType_t type = period_us ? osTimerPeriodic : osTimerOnce;
    uint32_t ticks = period_us ? us_to_ticks(period_us) : us_to_ticks(first_us) + 1;
    if (period_us && us_to_ticks(first_us) != ticks)
        return rtb_rtx5_unsupported("timer_start: an RTX5 periodic timer's first expiry is its period");
    if (t->type != type) {
        int rc = recreate(t, type);
        if (rc != RTB_OK)
            return rc;
    }
    rtb_kcall_set(c, RTB_KFN(osTimerStart), status, W(t->id), ticks, 0, 0);
    c->aux[1] = W("osTimerStart");
    return RTB_OK;
}

/* Stopping a timer that is not running (osErrorResource) is a no-op. */
static int stopped(const struct rtb_kcall *c)
{
    int32_t rc = (int32_t)c->ret;
    return rc == osOK || rc == osErrorResource ? RTB_OK : rtb_rtx5_status("osTimerStop", rc);
}

int rtb_port_timer_cancel_kcall(int id, struct rtb_kcall *c)
{
    if (!TIMER_OK(id))
        return rtb_rtx5_fail("timer_cancel", "no such timer");
    rtb_kcall_set(c, RTB_KFN(osTimerStop), stopped, W(timers[id].id), 0, 0, 0);
    return RTB_OK;
}

static int deleted(const struct rtb_kcall *c)
{
    ((struct timer_slot *)c->aux[2])->used = false;
    return status(c);
}

int rtb_port_timer_delete_kcall(int id, struct rtb_kcall *c)
{
    if (!TIMER_OK(id))
        return rtb_rtx5_fail("timer_delete", "no such timer");
    rtb_kcall_set(c, RTB_KFN(osTimerDelete), deleted, W(timers[id].id), 0, 0, 0);
    c->aux[1] = W("osTimerDelete");
    c->aux[2] = W(&timers[id]);
    return RTB_OK;
}

RTB_KCALL_PLAIN(timer_create, (int id, rtb_timer_fn fn, void *arg), id, fn, arg)
RTB_KCALL_PLAIN(timer_start, (int id, uint32_t first_us, uint32_t period_us), id, first_us, period_us)
RTB_KCALL_PLAIN(timer_cancel, (int id), id)
RTB_KCALL_PLAIN(timer_delete, (int id), id)
