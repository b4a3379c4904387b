/*
 * Zephyr port: timers (k_timer). A timer's expiry function runs in the
 * system clock's interrupt (Zephyr has no timer task: k_timer_start
 * inserts the timeout itself), so the .caller rows time the same calls as
 * the plain ones. Timers are initialised, never deleted: the delete rows
 * say so (unsupported); the plain delete stops the timer.
 */
#include "rtb_zephyr.h"

static struct k_timer timer_obj[RTB_MAX_TIMERS] __noinit; /* kernel memory (port_sync.c) */
static struct {
    rtb_timer_fn fn;
    void *arg;
    bool used;
} timers[RTB_MAX_TIMERS];
#define TIMER_OK(id) ((id) >= 0 && (id) < RTB_MAX_TIMERS && timers[id].used)

static void expired(struct k_timer *t)
{
    int id = (int)(uintptr_t)k_timer_user_data_get(t);
    timers[id].fn(timers[id].arg);
}

/* One-shot (period 0: K_NO_WAIT) or periodic, the durations in ticks. */
RTB_KAPI_STMT(k_timer_start, k_timer_start((struct k_timer *)a0, rtb_zephyr_timeout(a1), rtb_zephyr_timeout(a2)))
RTB_KAPI_STMT(k_timer_stop, k_timer_stop((struct k_timer *)a0))

/* The create is k_timer_init, a kernel function (not a system call); the
 * user data the expiry function finds its slot by (aux[0]) is set after
 * the window: k_timer_init clears it. */
static int made(const struct rtb_kcall *c)
{
    struct k_timer *t = (struct k_timer *)c->a[0];
    k_timer_user_data_set(t, (void *)c->aux[0]);
    timers[c->aux[0]].used = true;
#if defined(CONFIG_USERSPACE)
    k_object_access_all_grant(t);
#endif
    return RTB_OK;
}

int rtb_port_timer_create_kcall(int id, rtb_timer_fn fn, void *arg, struct rtb_kcall *c)
{
    if (id < 0 || id >= RTB_MAX_TIMERS || timers[id].used || !fn)
        return rtb_zephyr_fail("timer_create", "bad id, or id in use");
    timers[id].fn = fn;
    timers[id].arg = arg;
    /* no argument: the kernel calls the routine itself */
    rtb_kcall_set(c, RTB_KFN(k_timer_init), made, (rtb_word)&timer_obj[id],
                  arg ? (rtb_word)expired : (rtb_word)fn, 0, 0);
    c->aux[0] = (rtb_word)id;
    return RTB_OK;
}

static int32_t ticks_of(uint32_t us)
{
    int32_t t = rtb_zephyr_ticks((int32_t)(us > INT32_MAX ? INT32_MAX : us));
    return t > 0 ? t : 1;
}

int rtb_port_timer_start_kcall(int id, uint32_t first_us, uint32_t period_us, struct rtb_kcall *c)
{
    if (!TIMER_OK(id))
        return rtb_zephyr_fail("timer_start", "no such timer");
    /* a timeout of n ticks ends at the n-th tick boundary, which can be
     * less than n whole ticks away: one more, so it never expires early
     * (as the FreeRTOS and ThreadX ports, and Zephyr's own k_sleep, do) */
    rtb_kcall_set(c, RTB_KFN(rtb_kapi_k_timer_start), 0, (rtb_word)&timer_obj[id],
                  (rtb_word)(ticks_of(first_us) + 1), period_us ? (rtb_word)ticks_of(period_us) : 0, 0);
    return RTB_OK;
}

int rtb_port_timer_cancel_kcall(int id, struct rtb_kcall *c)
{
    if (!TIMER_OK(id))
        return rtb_zephyr_fail("timer_cancel", "no such timer");
    rtb_kcall_set(c, RTB_KFN(rtb_kapi_k_timer_stop), 0, (rtb_word)&timer_obj[id], 0, 0, 0);
    return RTB_OK;
}

int rtb_port_timer_delete_kcall(int id, struct rtb_kcall *c)
{
    (void)id, (void)c;
    return rtb_zephyr_unsupported("timer_delete: Zephyr objects are not deleted (k_timer has no delete)");
}

int rtb_port_timer_delete(int id)
{
    if (!TIMER_OK(id))
        return rtb_zephyr_fail("timer_delete", "no such timer");
    k_timer_stop(&timer_obj[id]);
    timers[id].used = false;
    return RTB_OK;
}

RTB_KCALL_PLAIN(timer_create, (int id, rtb_timer_fn fn, void *arg), id, fn, arg)
RTB_KCALL_PLAIN(timer_start, (int id, uint32_t first_us, uint32_t period_us), id, first_us, period_us)
RTB_KCALL_PLAIN(timer_cancel, (int id), id)
