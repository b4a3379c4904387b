/*
 * System section: system calls, signals and select (LMBench lat_syscall,
 * lat_sig, lat_select). One call per sample, timed by the runner on the
 * benchmark CPU; LMBench times a batch and prints the average. The
 * catalogue (90-system-calls.toml) says where else a sample differs.
 */
#include "system.h"
#include "posix_port.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* Fail the metric with errno in the reason. */
static void fail_errno(struct rtb_ctx *ctx, const char *what)
{
    rtb_posix_fail(what, errno);
    rtb_fail(ctx, "system call");
}

/* ---- Simple system calls (lat_syscall) --------------------------------- */

static void call_rw(struct rtb_ctx *ctx, bool do_write)
{
    int fd = open(do_write ? "/dev/null" : "/dev/zero", (do_write ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
    if (fd < 0) {
        rtb_unsupported(ctx, do_write ? "/dev/null cannot be opened" : "/dev/zero cannot be opened");
        return;
    }
    char c = 0;
    while (rtb_want(ctx)) {
        rtb_ticks_t t0 = rtb_port_ts();
        ssize_t n = do_write ? write(fd, &c, 1) : read(fd, &c, 1);
        rtb_ticks_t t1 = rtb_port_ts();
        if (n != 1) {
            fail_errno(ctx, do_write ? "write" : "read");
            break;
        }
        rtb_add(ctx, t0, t1);
    }
    close(fd);
}

static void call_read(struct rtb_ctx *ctx) { call_rw(ctx, false); }
static void call_write(struct rtb_ctx *ctx) { call_rw(ctx, true); }

enum { STAT, FSTAT, OPEN_CLOSE };

/* stat, fstat and open/close of a small file made in the temporary
 * directory (LMBench's default is /usr/include/linux/types.h). */
static void call_file(struct rtb_ctx *ctx, int which)
{
    struct rtb_sys_tmp t;
    char path[320];
    if (!rtb_ok(ctx, rtb_sys_tmp_open(&t), "temporary directory"))
        return;
    int fd = -1;
    if (rtb_ok(ctx, rtb_sys_tmp_path(&t, "target", path, sizeof path), "path")) {
        static const char text[1024] = "rtbench: the file of the stat, fstat and open/close metrics\n";
        fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 || write(fd, text, sizeof text) != (ssize_t)sizeof text)
            fail_errno(ctx, "create the target file");
    }
    while (!rtb_stopped(ctx) && rtb_want(ctx)) {
        struct stat sb;
        int rc = 0, g = -1;
        rtb_ticks_t t0 = rtb_port_ts();
        if (which == STAT)
            rc = stat(path, &sb);
        else if (which == FSTAT)
            rc = fstat(fd, &sb);
        else if ((g = open(path, O_RDONLY)) >= 0)
            rc = close(g);
        rtb_ticks_t t1 = rtb_port_ts();
        if (rc != 0 || (which == OPEN_CLOSE && g < 0)) {
            fail_errno(ctx, which == STAT ? "stat" : which == FSTAT ? "fstat" : "open/close");
            break;
        }
        rtb_add(ctx, t0, t1);
    }
    if (fd >= 0)
        close(fd);
    rtb_sys_tmp_close(&t);
}

static void call_stat(struct rtb_ctx *ctx) { call_file(ctx, STAT); }
static void call_fstat(struct rtb_ctx *ctx) { call_file(ctx, FSTAT); }
static void call_open(struct rtb_ctx *ctx) { call_file(ctx, OPEN_CLOSE); }

/* ---- Signals (lat_sig) -------------------------------------------------- */

static volatile sig_atomic_t caught;

static void on_usr1(int sig)
{
    (void)sig;
    caught++;
}

static void sig_install(struct rtb_ctx *ctx)
{
    struct sigaction sa, old, keep;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, 0, &keep) != 0) {
        fail_errno(ctx, "sigaction");
        return;
    }
    while (rtb_want(ctx)) {
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = sigaction(SIGUSR1, &sa, &old);
        rtb_ticks_t t1 = rtb_port_ts();
        if (rc != 0) {
            fail_errno(ctx, "sigaction");
            break;
        }
        rtb_add(ctx, t0, t1);
    }
    sigaction(SIGUSR1, &keep, 0);
}

static void sig_catch(struct rtb_ctx *ctx)
{
    struct sigaction sa, keep;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, &keep) != 0) {
        fail_errno(ctx, "sigaction");
        return;
    }
    sigset_t usr1, was;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_UNBLOCK, &usr1, &was);
    pid_t me = getpid();
    while (rtb_want(ctx)) {
        sig_atomic_t before = caught;
        rtb_ticks_t t0 = rtb_port_ts();
        int rc = kill(me, SIGUSR1); /* delivered on the way back from kill() */
        rtb_ticks_t t1 = rtb_port_ts();
        if (rc != 0) {
            fail_errno(ctx, "kill");
            break;
        }
        if (caught == before) {
            rtb_posix_fail("SIGUSR1", EAGAIN);
            rtb_fail(ctx, "the handler had not run when kill() returned");
            break;
        }
        rtb_add(ctx, t0, t1);
    }
    pthread_sigmask(SIG_SETMASK, &was, 0);
    sigaction(SIGUSR1, &keep, 0);
}

static sigjmp_buf prot_env;

/* SA_NODEFER: SIGSEGV stays unblocked, so jumping out needs no sigprocmask. */
static void on_segv(int sig)
{
    (void)sig;
    siglongjmp(prot_env, 1);
}

static void sig_prot(struct rtb_ctx *ctx)
{
    long pg = sysconf(_SC_PAGESIZE);
    char *page = mmap(0, (size_t)pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) {
        fail_errno(ctx, "mmap");
        return;
    }
    (void)*(volatile char *)page; /* the page is mapped: the write faults on protection only */
    struct sigaction sa, keep_segv, keep_bus;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_segv;
    sa.sa_flags = SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &keep_segv);
    sigaction(SIGBUS, &sa, &keep_bus);
    while (rtb_want(ctx)) {
        volatile rtb_ticks_t t0 = rtb_port_ts();
        if (sigsetjmp(prot_env, 0) == 0) {
            *(volatile char *)page = 1;
            /* not reached: the write faults */
            sigaction(SIGSEGV, &keep_segv, 0);
            sigaction(SIGBUS, &keep_bus, 0);
            rtb_posix_fail("write to a PROT_READ page", EFAULT);
            rtb_fail(ctx, "no protection fault");
            munmap(page, (size_t)pg);
            return;
        }
        rtb_ticks_t t1 = rtb_port_ts();
        rtb_add(ctx, t0, t1);
    }
    sigaction(SIGSEGV, &keep_segv, 0);
    sigaction(SIGBUS, &keep_bus, 0);
    munmap(page, (size_t)pg);
}

/* ---- select on 200 TCP sockets (lat_select tcp) ------------------------- */

#define SELECT_FDS 200

/* A connected loopback TCP pair: *client, and *server accepted from a
 * listener on 127.0.0.1 (closed again). 0 or -1 with the port's error set. */
static int tcp_pair(int *client, int *server)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    *client = *server = -1;
    if (l < 0)
        return rtb_posix_fail("socket", errno);
    if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 4) ||
        getsockname(l, (struct sockaddr *)&a, &len)) {
        int e = errno;
        close(l);
        return rtb_posix_fail("listen on 127.0.0.1", e);
    }
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a) != 0) {
        int e = errno;
        if (c >= 0)
            close(c);
        close(l);
        return rtb_posix_fail("connect to 127.0.0.1", e);
    }
    int s = accept4(l, 0, 0, SOCK_CLOEXEC);
    int e = errno;
    close(l);
    if (s < 0) {
        close(c);
        return rtb_posix_fail("accept", e);
    }
    *client = c;
    *server = s;
    return RTB_OK;
}

/* LMBench opens one TCP connection and dup()s it 200 times; select() asks
 * whether the descriptors are writable, with a zero timeout. */
static void call_select(struct rtb_ctx *ctx)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 2 * SELECT_FDS && rl.rlim_max > rl.rlim_cur) {
        rl.rlim_cur = rl.rlim_max < 1024 ? rl.rlim_max : 1024;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    int c, s;
    if (tcp_pair(&c, &s) != RTB_OK) {
        rtb_unsupported(ctx, rtb_port_last_error());
        return;
    }
    static int fds[SELECT_FDS];
    int n = 0, maxfd = -1;
    fd_set all;
    FD_ZERO(&all);
    for (; n < SELECT_FDS; n++) {
        fds[n] = fcntl(c, F_DUPFD_CLOEXEC, 0);
        if (fds[n] < 0 || fds[n] >= FD_SETSIZE)
            break;
        FD_SET(fds[n], &all);
        if (fds[n] > maxfd)
            maxfd = fds[n];
    }
    if (n < SELECT_FDS) {
        if (fds[n] >= 0)
            close(fds[n]);
        rtb_posix_fail("dup", fds[n] < 0 ? errno : EMFILE);
        rtb_unsupported(ctx, "200 socket descriptors below FD_SETSIZE cannot be made");
    }
    while (n == SELECT_FDS && rtb_want(ctx)) {
        fd_set w = all;
        struct timeval tv = {0, 0};
        rtb_ticks_t t0 = rtb_port_ts();
        int r = select(maxfd + 1, 0, &w, 0, &tv);
        rtb_ticks_t t1 = rtb_port_ts();
        if (r != SELECT_FDS) {
            if (r < 0)
                fail_errno(ctx, "select");
            else {
                rtb_posix_fail("select", EAGAIN);
                rtb_fail(ctx, "select did not find all 200 sockets writable");
            }
            break;
        }
        rtb_add(ctx, t0, t1);
    }
    for (int i = 0; i < n; i++)
        close(fds[i]);
    close(c);
    close(s);
}

const struct rtb_metric rtb_sys_call_metrics[] = {
    {"sys.syscall.read", call_read, 0, 0},
    {"sys.syscall.write", call_write, 0, 0},
    {"sys.syscall.stat", call_stat, 0, 0},
    {"sys.syscall.fstat", call_fstat, 0, 0},
    {"sys.syscall.open_close", call_open, 0, 0},
    {"sys.signal.install", sig_install, 0, 0},
    {"sys.signal.catch", sig_catch, 0, 0},
    {"sys.signal.prot_fault", sig_prot, 0, 0},
    {"sys.select.tcp200", call_select, 0, 0},
    {0, 0, 0, 0},
};
