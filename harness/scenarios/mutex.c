/*
 * Mutexes, uncontended: lock a free mutex, unlock an owned one with nobody
 * waiting (VxWorks semTake/semGive "Mutual Exclusion", Zephyr mutex.lock /
 * mutex.unlock .immediate). The other half of each pair is outside the
 * timed region.
 */
#include <rtb/bench.h>

#define MUTEX 0

static void lock_uncontended(struct rtb_ctx *ctx)
{
    if (!rtb_ok(ctx, rtb_port_mutex_create(MUTEX, 0), "mutex_create"))
        return;
    while (rtb_want(ctx)) {
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = rtb_port_mutex_lock(MUTEX);
        rtb_ticks_t t1 = rtb_port_ts();
        if (!rtb_ok(ctx, rc, "mutex_lock") ||
            !rtb_ok(ctx, rtb_port_mutex_unlock(MUTEX), "mutex_unlock"))
            break;
        rtb_add(ctx, t0, t1);
    }
    rtb_port_mutex_delete(MUTEX);
}

static void unlock_uncontended(struct rtb_ctx *ctx)
{
    if (!rtb_ok(ctx, rtb_port_mutex_create(MUTEX, 0), "mutex_create"))
        return;
    while (rtb_want(ctx)) {
        if (!rtb_ok(ctx, rtb_port_mutex_lock(MUTEX), "mutex_lock"))
            break;
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = rtb_port_mutex_unlock(MUTEX);
        rtb_ticks_t t1 = rtb_port_ts();
        if (!rtb_ok(ctx, rc, "mutex_unlock"))
            break;
        rtb_add(ctx, t0, t1);
    }
    rtb_port_mutex_delete(MUTEX);
}

const struct rtb_metric rtb_mutex_metrics[] = {
    {"mutex.lock.uncontended", lock_uncontended, RTB_CAP_MUTEX, 0},
    {"mutex.unlock.uncontended", unlock_uncontended, RTB_CAP_MUTEX, 0},
    {0, 0, 0, 0},
};
