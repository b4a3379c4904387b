/* POSIX port services behind the semaphore, mutex, reader-writer lock and
 * condition-variable metrics: behaviour only (no timing thresholds; the
 * 1 ms waits only check that a timed wait returns ETIMEOUT). */
#include "check.h"
#include <rtb/port.h>
#include <pthread.h>

static void test_mutex_trylock(void)
{
    CHECK(rtb_port_mutex_create(0, RTB_MUTEX_RECURSIVE) == RTB_OK);
    CHECK(rtb_port_mutex_trylock(0) == RTB_OK);
    CHECK(rtb_port_mutex_trylock(0) == RTB_OK); /* nested: the owner may */
    CHECK(rtb_port_mutex_unlock(0) == RTB_OK && rtb_port_mutex_unlock(0) == RTB_OK);
    CHECK(rtb_port_mutex_delete(0) == RTB_OK);

    CHECK(rtb_port_mutex_create(0, 0) == RTB_OK);
    CHECK(rtb_port_mutex_lock(0) == RTB_OK);
    CHECK(rtb_port_mutex_trylock(0) == RTB_EWOULDBLOCK); /* plain: owned */
    CHECK(rtb_port_mutex_unlock(0) == RTB_OK);
    CHECK(rtb_port_mutex_delete(0) == RTB_OK);
    CHECK(rtb_port_mutex_trylock(0) == RTB_ERR); /* deleted */
}

static void test_rwlock(void)
{
    CHECK(rtb_port_caps() & RTB_CAP_RWLOCK);
    CHECK(rtb_port_rwlock_create(0) == RTB_OK);
    CHECK(rtb_port_rwlock_create(0) == RTB_ERR); /* id in use */
    CHECK(rtb_port_rwlock_rdlock(0, RTB_WAIT_FOREVER) == RTB_OK);
    CHECK(rtb_port_rwlock_rdlock(0, RTB_NO_WAIT) == RTB_OK); /* readers share */
    CHECK(rtb_port_rwlock_wrlock(0, RTB_NO_WAIT) == RTB_EWOULDBLOCK);
    CHECK(rtb_port_rwlock_wrlock(0, 1000) == RTB_ETIMEOUT);
    CHECK(rtb_port_rwlock_unlock(0) == RTB_OK && rtb_port_rwlock_unlock(0) == RTB_OK);
    CHECK(rtb_port_rwlock_wrlock(0, RTB_NO_WAIT) == RTB_OK);
    CHECK(rtb_port_rwlock_rdlock(0, RTB_NO_WAIT) == RTB_EWOULDBLOCK);
    CHECK(rtb_port_rwlock_unlock(0) == RTB_OK);
    CHECK(rtb_port_rwlock_delete(0) == RTB_OK);
    CHECK(rtb_port_rwlock_rdlock(0, RTB_NO_WAIT) == RTB_ERR); /* deleted */
}

static volatile int flag;

static void *signaller(void *arg)
{
    (void)arg;
    rtb_port_mutex_lock(0);
    flag = 1;
    rtb_port_cond_signal(0);
    rtb_port_mutex_unlock(0);
    return 0;
}

static void test_cond(void)
{
    CHECK(rtb_port_caps() & RTB_CAP_COND);
    CHECK(rtb_port_mutex_create(0, 0) == RTB_OK);
    CHECK(rtb_port_cond_create(0) == RTB_OK);
    CHECK(rtb_port_cond_signal(0) == RTB_OK);    /* nobody waits: nothing happens */
    CHECK(rtb_port_cond_broadcast(0) == RTB_OK);
    CHECK(rtb_port_mutex_lock(0) == RTB_OK);
    CHECK(rtb_port_cond_wait(0, 0, 1000) == RTB_ETIMEOUT);
    CHECK(rtb_port_mutex_trylock(0) == RTB_EWOULDBLOCK); /* held again after the wait */
    CHECK(rtb_port_cond_wait(0, 3, 1000) == RTB_ERR);    /* no such mutex */
    pthread_t t;
    CHECK(pthread_create(&t, 0, signaller, 0) == 0);
    while (!flag) /* the signal cannot be lost: flag is set under the mutex */
        CHECK(rtb_port_cond_wait(0, 0, RTB_WAIT_FOREVER) == RTB_OK);
    CHECK(rtb_port_mutex_unlock(0) == RTB_OK);
    pthread_join(t, 0);
    CHECK(rtb_port_cond_delete(0) == RTB_OK);
    CHECK(rtb_port_mutex_delete(0) == RTB_OK);
}

int main(void)
{
    test_mutex_trylock();
    test_rwlock();
    test_cond();
    return CHECK_DONE();
}
