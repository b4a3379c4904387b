/*
 * POSIX port: byte pipes are pipe(2) (in the kernel; bytes copied in by
 * write and out by read). Like the message queues, each end is opened twice:
 * the pipe's own blocking descriptors, and non-blocking ones reopened through
 * /proc/self/fd (a new open file description, so O_NONBLOCK does not leak
 * into the blocking one); a no-wait call is one plain read/write on those.
 * Without /proc the no-wait call polls first. The descriptors are made by
 * the runner before any task exists, so tasks that are forked processes
 * inherit them. A write of at most PIPE_BUF bytes is atomic (all or nothing).
 */
#include "posix_port.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>

static struct {
    int rd, wr;       /* blocking */
    int rd_nb, wr_nb; /* non-blocking, or -1 */
    bool used;
} pipes[RTB_MAX_PIPES];

#define PIPE_OK(id) ((id) >= 0 && (id) < RTB_MAX_PIPES && pipes[id].used)

static int reopen(int fd, int flags)
{
    char path[40];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return open(path, flags | O_NONBLOCK | O_CLOEXEC);
}

int rtb_port_pipe_create(int id)
{
    if (id < 0 || id >= RTB_MAX_PIPES || pipes[id].used)
        return rtb_posix_fail("pipe_create", EINVAL);
    int fd[2];
    if (pipe2(fd, O_CLOEXEC) != 0)
        return rtb_posix_fail("pipe2", errno);
    pipes[id].rd = fd[0];
    pipes[id].wr = fd[1];
    pipes[id].rd_nb = reopen(fd[0], O_RDONLY);
    pipes[id].wr_nb = reopen(fd[1], O_WRONLY);
    pipes[id].used = true;
    return RTB_OK;
}

static void close_if(int fd)
{
    if (fd >= 0)
        close(fd);
}

int rtb_port_pipe_delete(int id)
{
    if (!PIPE_OK(id))
        return rtb_posix_fail("pipe_delete", EINVAL);
    pipes[id].used = false;
    close_if(pipes[id].rd_nb);
    close_if(pipes[id].wr_nb);
    close(pipes[id].rd);
    return close(pipes[id].wr) ? rtb_posix_fail("close", errno) : RTB_OK;
}

/* 1: ready, 0: timed out, <0: RTB_ERR. */
static int wait_ready(int fd, short ev, int32_t timeout_us)
{
    struct pollfd p = {.fd = fd, .events = ev};
    int ms = timeout_us < 0 ? -1 : (timeout_us + 999) / 1000;
    int rc;
    while ((rc = poll(&p, 1, ms)) < 0 && errno == EINTR)
        ;
    return rc < 0 ? rtb_posix_fail("poll", errno) : rc;
}

/* Move all n bytes on a blocking descriptor. */
static int all(int fd, void *buf, size_t n, bool writing)
{
    unsigned char *b = buf;
    while (n) {
        ssize_t r = writing ? write(fd, b, n) : read(fd, b, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return rtb_posix_fail(writing ? "write" : "read", errno);
        if (r == 0)
            return rtb_posix_fail("read: pipe closed", EPIPE);
        b += r;
        n -= (size_t)r;
    }
    return RTB_OK;
}

/* No wait: one call on the non-blocking descriptor. A write is all or
 * nothing up to PIPE_BUF; a read that found bytes finishes blocking (the
 * writer writes whole frames). */
static int nowait(int id, void *buf, size_t n, bool writing)
{
    int nb = writing ? pipes[id].wr_nb : pipes[id].rd_nb;
    int fd = writing ? pipes[id].wr : pipes[id].rd;
    if (nb < 0) {
        int r = wait_ready(fd, writing ? POLLOUT : POLLIN, 0);
        if (r <= 0)
            return r < 0 ? r : RTB_EWOULDBLOCK;
        return all(fd, buf, n, writing);
    }
    ssize_t r = writing ? write(nb, buf, n) : read(nb, buf, n);
    if (r < 0)
        return errno == EAGAIN ? RTB_EWOULDBLOCK
                               : rtb_posix_fail(writing ? "write" : "read", errno);
    if ((size_t)r == n)
        return RTB_OK;
    if (writing)
        return rtb_posix_fail("write: partial no-wait write (more than PIPE_BUF)", EAGAIN);
    if (r == 0)
        return rtb_posix_fail("read: pipe closed", EPIPE);
    return all(fd, (unsigned char *)buf + r, n - (size_t)r, false);
}

static int transfer(int id, void *buf, size_t n, int32_t timeout_us, bool writing)
{
    if (!PIPE_OK(id))
        return rtb_posix_fail(writing ? "pipe_write" : "pipe_read", EINVAL);
    if (timeout_us == RTB_NO_WAIT)
        return nowait(id, buf, n, writing);
    int fd = writing ? pipes[id].wr : pipes[id].rd;
    if (timeout_us != RTB_WAIT_FOREVER) {
        int r = wait_ready(fd, writing ? POLLOUT : POLLIN, timeout_us);
        if (r <= 0)
            return r < 0 ? r : RTB_ETIMEOUT;
    }
    return all(fd, buf, n, writing);
}

int rtb_port_pipe_write(int id, const void *buf, size_t n, int32_t timeout_us)
{
    return transfer(id, (void *)buf, n, timeout_us, true);
}

int rtb_port_pipe_read(int id, void *buf, size_t n, int32_t timeout_us)
{
    return transfer(id, buf, n, timeout_us, false);
}
