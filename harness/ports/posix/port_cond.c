/*
 * POSIX port: condition variables (pthread_cond_t, process-shared, timed
 * waits on CLOCK_MONOTONIC), used with a mutex of this port
 * (rtb_posix_mutex(): the pthread mutex behind an rtbench mutex id).
 */
#include "posix_port.h"

#include <errno.h>
#include <pthread.h>

struct cond_slot {
    pthread_cond_t c;
    bool used;
};
RTB_POSIX_POOL(struct cond_slot, cond_pool, RTB_MAX_CONDS)
static struct cond_slot *conds; /* = cond_pool(), set by the first create */

#define COND_OK(id) (conds && (id) >= 0 && (id) < RTB_MAX_CONDS && conds[id].used)

int rtb_port_cond_create(int id)
{
    if (!(conds = cond_pool()))
        return rtb_posix_fail("cond_create: not the runner, or shared region full", ENOMEM);
    if (id < 0 || id >= RTB_MAX_CONDS || conds[id].used)
        return rtb_posix_fail("cond_create", EINVAL);
    int rc = rtb_posix_shared_cond_init(&conds[id].c);
    if (rc)
        return rtb_posix_fail("pthread_cond_init", rc);
    conds[id].used = true;
    return RTB_OK;
}

int rtb_port_cond_delete(int id)
{
    if (!COND_OK(id))
        return rtb_posix_fail("cond_delete", EINVAL);
    conds[id].used = false;
    int rc = pthread_cond_destroy(&conds[id].c);
    return rc ? rtb_posix_fail("pthread_cond_destroy", rc) : RTB_OK;
}

int rtb_port_cond_wait(int id, int mutex_id, int32_t timeout_us)
{
    pthread_mutex_t *m = rtb_posix_mutex(mutex_id);
    if (!COND_OK(id) || !m)
        return rtb_posix_fail("cond_wait", EINVAL);
    int rc;
    if (timeout_us == RTB_WAIT_FOREVER) {
        rc = pthread_cond_wait(&conds[id].c, m);
    } else {
        /* RTB_NO_WAIT: a deadline already passed (unlock, relock, ETIMEDOUT) */
        struct timespec ts;
        rtb_posix_deadline(CLOCK_MONOTONIC, timeout_us > 0 ? timeout_us : 0, &ts);
        rc = pthread_cond_timedwait(&conds[id].c, m, &ts);
        if (rc == ETIMEDOUT)
            return RTB_ETIMEOUT;
    }
    return rc ? rtb_posix_fail("pthread_cond_wait", rc) : RTB_OK;
}

int rtb_port_cond_signal(int id)
{
    if (!COND_OK(id))
        return rtb_posix_fail("cond_signal", EINVAL);
    int rc = pthread_cond_signal(&conds[id].c);
    return rc ? rtb_posix_fail("pthread_cond_signal", rc) : RTB_OK;
}

int rtb_port_cond_broadcast(int id)
{
    if (!COND_OK(id))
        return rtb_posix_fail("cond_broadcast", EINVAL);
    int rc = pthread_cond_broadcast(&conds[id].c);
    return rc ? rtb_posix_fail("pthread_cond_broadcast", rc) : RTB_OK;
}
