/*
 * POSIX port: reader-writer locks (pthread_rwlock_t, process-shared, glibc's
 * default kind: readers preferred). An unlock by a task that holds none is
 * undefined in POSIX, as releasing a lock one does not own is in every kernel.
 */
#include "posix_port.h"

#include <errno.h>
#include <pthread.h>

struct rwlock_slot {
    pthread_rwlock_t rw;
    bool used;
};
RTB_POSIX_POOL(struct rwlock_slot, rwlock_pool, RTB_MAX_RWLOCKS)
static struct rwlock_slot *rwlocks; /* = rwlock_pool(), set by the first create */

#define RWLOCK_OK(id) (rwlocks && (id) >= 0 && (id) < RTB_MAX_RWLOCKS && rwlocks[id].used)

int rtb_port_rwlock_create(int id)
{
    if (!(rwlocks = rwlock_pool()))
        return rtb_posix_fail("rwlock_create: not the runner, or shared region full", ENOMEM);
    if (id < 0 || id >= RTB_MAX_RWLOCKS || rwlocks[id].used)
        return rtb_posix_fail("rwlock_create", EINVAL);
    pthread_rwlockattr_t a;
    pthread_rwlockattr_init(&a);
    int rc = pthread_rwlockattr_setpshared(&a, RTB_POSIX_PSHARED);
    if (!rc)
        rc = pthread_rwlock_init(&rwlocks[id].rw, &a);
    pthread_rwlockattr_destroy(&a);
    if (rc)
        return rtb_posix_fail("pthread_rwlock_init", rc);
    rwlocks[id].used = true;
    return RTB_OK;
}

int rtb_port_rwlock_delete(int id)
{
    if (!RWLOCK_OK(id))
        return rtb_posix_fail("rwlock_delete", EINVAL);
    rwlocks[id].used = false;
    int rc = pthread_rwlock_destroy(&rwlocks[id].rw);
    return rc ? rtb_posix_fail("pthread_rwlock_destroy", rc) : RTB_OK;
}

/* One lock call for both kinds: try, wait forever, or wait until a deadline. */
static int take(int id, int32_t timeout_us, bool write)
{
    if (!RWLOCK_OK(id))
        return rtb_posix_fail(write ? "rwlock_wrlock" : "rwlock_rdlock", EINVAL);
    pthread_rwlock_t *rw = &rwlocks[id].rw;
    int rc;
    if (timeout_us == RTB_NO_WAIT) {
        rc = write ? pthread_rwlock_trywrlock(rw) : pthread_rwlock_tryrdlock(rw);
        if (rc == EBUSY || rc == EAGAIN)
            return RTB_EWOULDBLOCK;
    } else if (timeout_us == RTB_WAIT_FOREVER) {
        rc = write ? pthread_rwlock_wrlock(rw) : pthread_rwlock_rdlock(rw);
    } else {
        struct timespec ts;
        rtb_posix_deadline(CLOCK_MONOTONIC, timeout_us, &ts);
        rc = write ? pthread_rwlock_clockwrlock(rw, CLOCK_MONOTONIC, &ts)
                   : pthread_rwlock_clockrdlock(rw, CLOCK_MONOTONIC, &ts);
        if (rc == ETIMEDOUT)
            return RTB_ETIMEOUT;
    }
    return rc ? rtb_posix_fail(write ? "pthread_rwlock_wrlock" : "pthread_rwlock_rdlock", rc)
              : RTB_OK;
}

int rtb_port_rwlock_rdlock(int id, int32_t timeout_us)
{
    return take(id, timeout_us, false);
}

int rtb_port_rwlock_wrlock(int id, int32_t timeout_us)
{
    return take(id, timeout_us, true);
}

int rtb_port_rwlock_unlock(int id)
{
    if (!RWLOCK_OK(id))
        return rtb_posix_fail("rwlock_unlock", EINVAL);
    int rc = pthread_rwlock_unlock(&rwlocks[id].rw);
    return rc ? rtb_posix_fail("pthread_rwlock_unlock", rc) : RTB_OK;
}
