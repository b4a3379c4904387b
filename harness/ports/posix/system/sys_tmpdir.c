/*
 * The System section's temporary directory: $TMPDIR (or /tmp)
 * /rtbench-sys-XXXXXX, made per metric by a janitor process that guards it:
 * a child forked for it (it makes the directory once out of the harness's
 * process group, so no moment leaves one unguarded), which waits for end of file on
 * a pipe whose only writer is the harness. The harness closing the pipe at
 * the end of the metric, or dying (SIGKILL included), wakes the janitor,
 * which empties and removes the directory and exits. A janitor can guard a
 * System V semaphore set the same way (rtb_sys_tmp_open_sem).
 *
 * The janitor must outlive the harness's own killing: rtbench stops a hung
 * or interrupted harness with SIGKILL to its whole process group, so the
 * janitor is a process group of its own (set by the harness right after
 * fork: the child inherits a SCHED_FIFO priority on a CPU a busy scenario
 * holds, and may not run before the metric ends). It keeps the harness's
 * stderr open until it has cleaned up, so rtbench, which reads that pipe to
 * its end after a kill, sees the clean-up finished before it goes on.
 */
#include "system.h"
#include "posix_port.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sem.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>


/* Unlink every entry of `dir`, then the directory (files only are ever made
 * there). getdents64 and unlinkat: no allocation after fork. */
static void remove_dir(const char *dir)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        char buf[4096] __attribute__((aligned(8)));
        bool removed = true;
        while (removed) { /* again from the start until a pass removes nothing */
            removed = false;
            lseek(dfd, 0, SEEK_SET);
            long n;
            while ((n = syscall(SYS_getdents64, dfd, buf, sizeof buf)) > 0) {
                for (long off = 0; off < n;) {
                    struct dirent64 *d = (struct dirent64 *)(buf + off);
                    if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..") &&
                        unlinkat(dfd, d->d_name, 0) == 0)
                        removed = true;
                    off += d->d_reclen;
                }
            }
        }
        close(dfd);
    }
    rmdir(dir);
}

/* What the janitor tells the harness once it guards its charge: 0 or the
 * errno of making the directory, and the directory's name (mkdtemp's). */
struct janitor_status {
    int err;
    char dir[sizeof ((struct rtb_sys_tmp *)0)->dir];
};

/* The janitor makes the directory itself, after leaving the harness's
 * process group: there is no moment when the directory exists and no
 * janitor outside that group guards it (made by the harness before the
 * fork, a SIGKILL to the group between the two left it behind). */
static void janitor_main(char *dir, int semid, int rfd, int sfd)
{
    static const int quiet[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2};
    setpgid(0, 0); /* out of the harness's process group (the parent does it too) */
    for (unsigned i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
        signal(quiet[i], SIG_IGN);
    struct sched_param sp = {.sched_priority = 0};
    sched_setscheduler(0, SCHED_OTHER, &sp); /* cleaning up is not real-time work */
    for (int fd = 0; fd < 1024; fd++) /* hold nothing of the harness's but stderr (above) */
        if (fd != rfd && fd != sfd && fd != STDERR_FILENO)
            close(fd);
    struct janitor_status st = {0};
    if (dir && !mkdtemp(dir)) /* no allocation: the harness has threads */
        st.err = errno ? errno : EIO;
    if (dir)
        memcpy(st.dir, dir, sizeof st.dir);
    (void)!write(sfd, &st, sizeof st); /* one write under PIPE_BUF: whole or nothing */
    close(sfd);
    if (st.err)
        _exit(1);
    char c;
    ssize_t r;
    while ((r = read(rfd, &c, 1)) != 0 && (r > 0 || errno == EINTR))
        ;
    if (dir)
        remove_dir(dir);
    if (semid >= 0)
        semctl(semid, 0, IPC_RMID);
    _exit(0);
}

/* Fork the janitor of `dir` (a mkdtemp template it makes and guards, the
 * name written back; or NULL) and `semid` (-1: none), and wait until it
 * guards them. */
static int janitor_start(struct rtb_sys_tmp *t, char *dir, int semid)
{
    int p[2], s[2];
    t->wfd = -1;
    t->janitor = 0;
    if (pipe2(p, O_CLOEXEC) != 0)
        return rtb_posix_fail("pipe2", errno);
    if (pipe2(s, O_CLOEXEC) != 0) {
        int e = errno;
        close(p[0]);
        close(p[1]);
        return rtb_posix_fail("pipe2", e);
    }
    pid_t pid = fork();
    if (pid == 0)
        janitor_main(dir, semid, p[0], s[1]);
    int e = errno;
    close(p[0]);
    close(s[1]);
    if (pid < 0) {
        close(p[1]);
        close(s[0]);
        return rtb_posix_fail("fork (clean-up janitor)", e);
    }
    /* The child may not run before the metric ends: it inherited the
     * runner's SCHED_FIFO priority and CPU, which a busy scenario holds. So
     * its group and its priority are set from here, at once (and the read
     * below leaves it the CPU). */
    setpgid(pid, pid);
    struct sched_param other = {.sched_priority = 0};
    sched_setscheduler(pid, SCHED_OTHER, &other);
    struct janitor_status st;
    ssize_t got;
    while ((got = read(s[0], &st, sizeof st)) < 0 && errno == EINTR)
        ;
    close(s[0]);
    if (got != (ssize_t)sizeof st || st.err) {
        close(p[1]); /* a janitor still waiting ends; one that failed has */
        while (waitpid(pid, 0, 0) < 0 && errno == EINTR)
            ;
        return rtb_posix_fail(dir ? "mkdtemp (clean-up janitor)" : "clean-up janitor",
                              got == (ssize_t)sizeof st ? st.err : EPIPE);
    }
    if (dir)
        memcpy(dir, st.dir, sizeof st.dir);
    t->wfd = p[1];
    t->janitor = pid;
    return RTB_OK;
}

int rtb_sys_tmp_open(struct rtb_sys_tmp *t)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    t->wfd = -1;
    t->janitor = 0;
    if ((size_t)snprintf(t->dir, sizeof t->dir, "%s/rtbench-sys-XXXXXX", base) >= sizeof t->dir)
        return rtb_posix_fail("temporary directory: $TMPDIR too long", ENAMETOOLONG);
    return janitor_start(t, t->dir, -1); /* it makes the directory (janitor_main) */
}

int rtb_sys_tmp_open_sem(struct rtb_sys_tmp *t, int semid)
{
    t->dir[0] = '\0';
    if (janitor_start(t, 0, semid) != RTB_OK) {
        semctl(semid, 0, IPC_RMID);
        return RTB_ERR;
    }
    return RTB_OK;
}

/* The janitor removes the directory and everything in it (or the semaphore
 * set), then exits. */
void rtb_sys_tmp_close(struct rtb_sys_tmp *t)
{
    if (t->wfd < 0)
        return;
    close(t->wfd);
    t->wfd = -1;
    while (waitpid(t->janitor, 0, 0) < 0 && errno == EINTR)
        ;
}

int rtb_sys_tmp_path(const struct rtb_sys_tmp *t, const char *name, char *out, size_t n)
{
    if ((size_t)snprintf(out, n, "%s/%s", t->dir, name) >= n)
        return rtb_posix_fail("temporary path too long", ENAMETOOLONG);
    return RTB_OK;
}

/* A file of `size` bytes (not sparse: every page in the page cache), opened
 * read-write and already unlinked. -1 with the port's error set. */
