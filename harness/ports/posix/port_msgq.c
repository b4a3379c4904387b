/*
 * POSIX port: message queues are POSIX message queues (mq_*, in the kernel,
 * like an RTOS's). Each queue is opened twice, blocking and non-blocking, so
 * a no-wait call is a plain mq_send/mq_receive on an O_NONBLOCK descriptor,
 * not a timed call. The name is unlinked at once: nothing is left in
 * /dev/mqueue even if the harness is killed.
 */
#include "posix_port.h"

#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <unistd.h>

static struct {
    mqd_t blocking, nonblocking;
    size_t size;
    bool used;
} queues[RTB_MAX_MSGQS];

#define Q_OK(id) ((id) >= 0 && (id) < RTB_MAX_MSGQS && queues[id].used)

int rtb_port_msgq_create(int id, size_t msg_size, unsigned depth)
{
    if (id < 0 || id >= RTB_MAX_MSGQS || queues[id].used || !msg_size || !depth)
        return rtb_posix_fail("msgq_create", EINVAL);
    char name[64];
    snprintf(name, sizeof name, "/rtbench-%ld-%d", (long)getpid(), id);
    struct mq_attr attr = {.mq_maxmsg = depth, .mq_msgsize = (long)msg_size};
    mqd_t b = mq_open(name, O_RDWR | O_CREAT | O_EXCL, 0600, &attr);
    if (b == (mqd_t)-1)
        return rtb_posix_fail("mq_open", errno);
    mqd_t nb = mq_open(name, O_RDWR | O_NONBLOCK);
    int err = errno;
    mq_unlink(name);
    if (nb == (mqd_t)-1) {
        mq_close(b);
        return rtb_posix_fail("mq_open(O_NONBLOCK)", err);
    }
    queues[id].blocking = b;
    queues[id].nonblocking = nb;
    queues[id].size = msg_size;
    queues[id].used = true;
    return RTB_OK;
}

int rtb_port_msgq_delete(int id)
{
    if (!Q_OK(id))
        return rtb_posix_fail("msgq_delete", EINVAL);
    queues[id].used = false;
    mq_close(queues[id].nonblocking);
    return mq_close(queues[id].blocking) ? rtb_posix_fail("mq_close", errno) : RTB_OK;
}

static int result(int rc, const char *what)
{
    if (rc == 0)
        return RTB_OK;
    if (errno == EAGAIN)
        return RTB_EWOULDBLOCK;
    if (errno == ETIMEDOUT)
        return RTB_ETIMEOUT;
    return rtb_posix_fail(what, errno);
}

int rtb_port_msgq_send(int id, const void *msg, int32_t timeout_us)
{
    if (!Q_OK(id))
        return rtb_posix_fail("msgq_send", EINVAL);
    int rc;
    if (timeout_us == RTB_NO_WAIT)
        return result(mq_send(queues[id].nonblocking, msg, queues[id].size, 0), "mq_send");
    if (timeout_us == RTB_WAIT_FOREVER) {
        while ((rc = mq_send(queues[id].blocking, msg, queues[id].size, 0)) && errno == EINTR)
            ;
        return result(rc, "mq_send");
    }
    struct timespec ts;
    rtb_posix_deadline(CLOCK_REALTIME, timeout_us, &ts); /* mq_* time out on CLOCK_REALTIME */
    while ((rc = mq_timedsend(queues[id].blocking, msg, queues[id].size, 0, &ts)) && errno == EINTR)
        ;
    return result(rc, "mq_timedsend");
}

int rtb_port_msgq_receive(int id, void *msg, int32_t timeout_us)
{
    if (!Q_OK(id))
        return rtb_posix_fail("msgq_receive", EINVAL);
    ssize_t n;
    if (timeout_us == RTB_NO_WAIT) {
        n = mq_receive(queues[id].nonblocking, msg, queues[id].size, 0);
    } else if (timeout_us == RTB_WAIT_FOREVER) {
        while ((n = mq_receive(queues[id].blocking, msg, queues[id].size, 0)) < 0 && errno == EINTR)
            ;
    } else {
        struct timespec ts;
        rtb_posix_deadline(CLOCK_REALTIME, timeout_us, &ts);
        while ((n = mq_timedreceive(queues[id].blocking, msg, queues[id].size, 0, &ts)) < 0 &&
               errno == EINTR)
            ;
    }
    return result(n < 0 ? -1 : 0, "mq_receive");
}
