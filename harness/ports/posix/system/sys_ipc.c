/*
 * System section: inter-process communication latency (LMBench lat_pipe,
 * lat_unix, lat_udp, lat_tcp, lat_connect, lat_sem). The runner and an echo
 * process (a port task created with RTB_TASK_PROCESS: forked, pinned to the
 * benchmark CPU, SCHED_FIFO below the runner's priority when granted,
 * killed with the harness) pass one byte back and forth; one sample is one
 * round trip, as LMBench prints it, except lat_sem, which LMBench prints per
 * semaphore hand-off (half a round trip): see 92-system-ipc.toml.
 *
 * Nothing touches the file system: pipes and a socketpair, loopback
 * sockets on ephemeral ports, an IPC_PRIVATE semaphore set.
 */
#include "system.h"
#include "posix_port.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define ECHO_TASK 0

static void fail_errno(struct rtb_ctx *ctx, const char *what)
{
    rtb_posix_fail(what, errno);
    rtb_fail(ctx, "system call");
}

/* ---- The echo process and the ping-pong -------------------------------- */

/* arg: the descriptors, in | out << 16 (a plain value, valid in the child). */
static void echo_task(void *arg)
{
    int in = (int)((uintptr_t)arg & 0xffff), out = (int)((uintptr_t)arg >> 16);
    char c;
    for (;;) {
        ssize_t r = read(in, &c, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r != 1 || write(out, &c, 1) != 1)
            return; /* the runner closed its end */
    }
}

/* The runner's side: `out` to the echo process, `in` back; `close_after`
 * are the echo process's ends, closed in the runner once it exists (so a
 * dead echo process reads as end of file). */
static void ping_pong(struct rtb_ctx *ctx, int out, int in, int echo_in, int echo_out)
{
    uintptr_t arg = (uintptr_t)echo_in | (uintptr_t)echo_out << 16;
    int rc = rtb_port_task_create(ECHO_TASK, RTB_PRIO_HIGH, rtb_task_flags(ctx), echo_task, (void *)arg);
    close(echo_in);
    if (echo_out != echo_in)
        close(echo_out);
    if (!rtb_ok(ctx, rc, "task_create"))
        return;
    char c = 'x';
    while (rtb_want(ctx)) {
        rtb_ticks_t t0 = rtb_port_ts();
        ssize_t w = write(out, &c, 1);
        ssize_t r = w == 1 ? read(in, &c, 1) : -1;
        rtb_ticks_t t1 = rtb_port_ts();
        if (r != 1) {
            if (r == 0)
                errno = EPIPE;
            fail_errno(ctx, w != 1 ? "send" : "receive (echo process gone or silent for 1 s)");
            break;
        }
        rtb_add(ctx, t0, t1);
        rtb_rest(ctx);
    }
    rtb_port_task_delete(ECHO_TASK);
}

/* A receive on the runner's socket gives up after a second (a lost echo
 * process must not hang the run; pipes report it as end of file). */
static void recv_timeout(int fd)
{
    struct timeval tv = {1, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

static void ipc_pipe(struct rtb_ctx *ctx)
{
    int to[2], from[2];
    if (pipe2(to, O_CLOEXEC) != 0) {
        fail_errno(ctx, "pipe");
        return;
    }
    if (pipe2(from, O_CLOEXEC) != 0) {
        fail_errno(ctx, "pipe");
        close(to[0]);
        close(to[1]);
        return;
    }
    ping_pong(ctx, to[1], from[0], to[0], from[1]);
    close(to[1]);
    close(from[0]);
}

static void ipc_unix(struct rtb_ctx *ctx)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        fail_errno(ctx, "socketpair(AF_UNIX, SOCK_STREAM)");
        return;
    }
    recv_timeout(sv[0]);
    ping_pong(ctx, sv[0], sv[0], sv[1], sv[1]);
    close(sv[0]);
}

static void loopback(struct sockaddr_in *a)
{
    memset(a, 0, sizeof *a);
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

/* A listening TCP socket on 127.0.0.1 and an ephemeral port (*a). */
static int tcp_listener(struct sockaddr_in *a)
{
    socklen_t len = sizeof *a;
    loopback(a);
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l < 0)
        return -1;
    if (bind(l, (struct sockaddr *)a, sizeof *a) || listen(l, 16) ||
        getsockname(l, (struct sockaddr *)a, &len)) {
        int e = errno;
        close(l);
        errno = e;
        return -1;
    }
    return l;
}

static void ipc_udp(struct rtb_ctx *ctx)
{
    int s[2] = {-1, -1};
    struct sockaddr_in a[2];
    for (int i = 0; i < 2; i++) {
        socklen_t len = sizeof a[i];
        loopback(&a[i]);
        s[i] = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (s[i] < 0 || bind(s[i], (struct sockaddr *)&a[i], sizeof a[i]) ||
            getsockname(s[i], (struct sockaddr *)&a[i], &len)) {
            fail_errno(ctx, "UDP socket on 127.0.0.1");
            goto out;
        }
    }
    if (connect(s[0], (struct sockaddr *)&a[1], sizeof a[1]) || connect(s[1], (struct sockaddr *)&a[0], sizeof a[0])) {
        fail_errno(ctx, "connect (UDP)");
        goto out;
    }
    recv_timeout(s[0]);
    ping_pong(ctx, s[0], s[0], s[1], s[1]);
    s[1] = -1; /* closed by ping_pong */
out:
    for (int i = 0; i < 2; i++)
        if (s[i] >= 0)
            close(s[i]);
}

static void ipc_tcp(struct rtb_ctx *ctx)
{
    struct sockaddr_in a;
    int l = tcp_listener(&a);
    if (l < 0) {
        fail_errno(ctx, "listen on 127.0.0.1");
        return;
    }
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a) != 0) {
        fail_errno(ctx, "connect to 127.0.0.1");
    } else {
        int s = accept4(l, 0, 0, SOCK_CLOEXEC);
        if (s < 0) {
            fail_errno(ctx, "accept");
        } else {
            recv_timeout(c);
            ping_pong(ctx, c, c, s, s);
        }
    }
    if (c >= 0)
        close(c);
    close(l);
}

/* connect() to a listener on 127.0.0.1: on loopback the handshake completes
 * inside the call. The runner then accepts and closes both ends untimed;
 * the client closes with SO_LINGER 0 (a reset), so no TIME_WAIT
 * connections pile up and use the ephemeral ports. */
static void ipc_tcp_connect(struct rtb_ctx *ctx)
{
    struct sockaddr_in a;
    int l = tcp_listener(&a);
    if (l < 0) {
        fail_errno(ctx, "listen on 127.0.0.1");
        return;
    }
    struct linger lg = {1, 0};
    while (rtb_want(ctx)) {
        int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (c < 0) {
            fail_errno(ctx, "socket");
            break;
        }
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = connect(c, (struct sockaddr *)&a, sizeof a);
        rtb_ticks_t t1 = rtb_port_ts();
        if (rc != 0) {
            fail_errno(ctx, "connect to 127.0.0.1");
            close(c);
            break;
        }
        int s = accept4(l, 0, 0, SOCK_CLOEXEC);
        setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
        close(c);
        if (s < 0) {
            fail_errno(ctx, "accept");
            break;
        }
        close(s);
        rtb_add(ctx, t0, t1);
        rtb_rest(ctx);
    }
    close(l);
}

/* ---- SysV semaphores (lat_sem) ------------------------------------------ */

/* A SysV set outlives its processes, and IPC_RMID right after semget would
 * make it unusable, so a janitor (sys_tmpdir.c) removes it at the end of the
 * metric or when the harness dies, its process group SIGKILLed included.
 * The echo process removes it too if the harness dies: its parent-death
 * signal becomes SIGTERM, whose handler removes the set. */
static int sem_set = -1;   /* the runner's copy, inherited by the echo process */
static pid_t sem_harness;

static void sem_orphaned(int sig)
{
    (void)sig;
    semctl(sem_set, 0, IPC_RMID);
    _exit(0);
}

static void sem_echo(void *arg)
{
    (void)arg;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = sem_orphaned;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != sem_harness)
        sem_orphaned(0); /* the harness died before the line above */
    struct sembuf take0 = {0, -1, 0}, give1 = {1, 1, 0};
    for (;;) {
        if (semop(sem_set, &take0, 1) != 0) {
            if (errno == EINTR)
                continue;
            return; /* removed */
        }
        if (semop(sem_set, &give1, 1) != 0)
            return;
    }
}

static void ipc_sysvsem(struct rtb_ctx *ctx)
{
    sem_harness = getpid();
    sem_set = semget(IPC_PRIVATE, 2, IPC_CREAT | IPC_EXCL | 0600);
    if (sem_set < 0) {
        rtb_posix_fail("semget", errno);
        rtb_unsupported(ctx, rtb_port_last_error()); /* e.g. a kernel without SysV IPC */
        return;
    }
    struct rtb_sys_tmp janitor;
    if (!rtb_ok(ctx, rtb_sys_tmp_open_sem(&janitor, sem_set), "semaphore set janitor")) {
        sem_set = -1; /* removed already */
        return;
    }
    rtb_per_sample(ctx, 2, 0); /* a round trip is two hand-offs; LMBench prints one */
    int rc = rtb_port_task_create(ECHO_TASK, RTB_PRIO_HIGH, rtb_task_flags(ctx), sem_echo, 0);
    if (rtb_ok(ctx, rc, "task_create")) {
        struct sembuf give0 = {0, 1, 0}, take1 = {1, -1, 0};
        struct timespec second = {1, 0};
        while (rtb_want(ctx)) {
            rtb_ticks_t t0 = rtb_port_ts();
            int r = semop(sem_set, &give0, 1);
            if (r == 0)
                r = semtimedop(sem_set, &take1, 1, &second);
            rtb_ticks_t t1 = rtb_port_ts();
            if (r != 0) {
                fail_errno(ctx, "semop (echo process gone or silent for 1 s)");
                break;
            }
            rtb_add(ctx, t0, t1);
            rtb_rest(ctx);
        }
        rtb_port_task_delete(ECHO_TASK);
    }
    rtb_sys_tmp_close(&janitor); /* the janitor removes the set */
    sem_set = -1;
}

const struct rtb_metric rtb_sys_ipc_metrics[] = {
    {"sys.ipc.pipe.rtt", ipc_pipe, RTB_CAP_PROCESS, RTB_TASK_PROCESS},
    {"sys.ipc.unix.rtt", ipc_unix, RTB_CAP_PROCESS, RTB_TASK_PROCESS},
    {"sys.ipc.udp.rtt", ipc_udp, RTB_CAP_PROCESS, RTB_TASK_PROCESS},
    {"sys.ipc.tcp.rtt", ipc_tcp, RTB_CAP_PROCESS, RTB_TASK_PROCESS},
    {"sys.ipc.tcp.connect", ipc_tcp_connect, 0, 0},
    {"sys.ipc.sysvsem.handoff", ipc_sysvsem, RTB_CAP_PROCESS, RTB_TASK_PROCESS},
    {0, 0, 0, 0},
};
