/*
 * System section: processes, memory mappings and files (LMBench lat_proc,
 * lat_pagefault, lat_mmap, lat_fs). One operation per sample, timed by the
 * runner on the benchmark CPU; the catalogue (91-system-processes.toml)
 * says where a sample differs from LMBench's batch average.
 *
 * Temporary files live in a private directory that a janitor process
 * removes even when the harness is killed (sys_tmpdir.c); files are also
 * unlinked right after opening wherever the metric allows.
 *
 * A child of fork() inherits the runner's SCHED_FIFO priority and its CPU
 * (the harness does not set SCHED_RESET_ON_FORK), so fork/exec children
 * run on the benchmark CPU at the runner's priority; they exit at once, die
 * with the harness (PR_SET_PDEATHSIG) and are killed by an alarm if they
 * ever hang.
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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

static int scratch_file(struct rtb_sys_tmp *t, size_t size)
{
    char path[320];
    if (rtb_sys_tmp_path(t, "scratch", path, sizeof path) != RTB_OK)
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        rtb_posix_fail("open scratch file", errno);
        return -1;
    }
    unlink(path);
    static char chunk[64 * 1024];
    memset(chunk, 0x5a, sizeof chunk);
    for (size_t done = 0; done < size;) {
        size_t k = size - done < sizeof chunk ? size - done : sizeof chunk;
        ssize_t w = write(fd, chunk, k);
        if (w <= 0) {
            rtb_posix_fail("write scratch file", w < 0 ? errno : ENOSPC);
            close(fd);
            return -1;
        }
        done += (size_t)w;
    }
    return fd;
}

/* What file system the temporary directory is on, for the record's note. */
static const char *fs_note(const struct rtb_sys_tmp *t, const char *what)
{
    static char note[160];
    struct statfs s;
    const char *fs = "unknown file system";
    if (statfs(t->dir, &s) == 0)
        fs = s.f_type == 0x01021994 ? "tmpfs" : s.f_type == 0xEF53 ? "ext2/3/4"
           : s.f_type == 0x58465342 ? "xfs" : s.f_type == 0x9123683E ? "btrfs" : "another file system";
    snprintf(note, sizeof note, "%s%stemporary directory on %s", what, *what ? "; " : "", fs);
    return note;
}

/* mlockall(MCL_FUTURE) would populate (and lock) every new mapping at mmap
 * time, so no page would ever be faulted in: for the memory-mapping metrics
 * new mappings stay unlocked (what is locked stays locked). */
static void future_mappings_unlocked(bool unlocked)
{
    if (rtb_posix.mlock)
        mlockall(unlocked ? MCL_CURRENT : MCL_CURRENT | MCL_FUTURE);
}

/* ---- Processes (lat_proc) ---------------------------------------------- */

#define PROC_CAP 300 /* a sample costs 0.2-2 ms: keep the metric under ~1 s */

enum { FORK_EXIT, FORK_EXEC, FORK_SHELL };

static char *const no_env[] = {0};

static void child_main(int mode)
{
    if (mode == FORK_EXIT)
        _exit(0); /* _exit: exit() would flush the harness's stdio buffers a second time */
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* kept across execve */
    alarm(10);                        /* kept across execve: a hung child dies */
    if (mode == FORK_EXEC) {
        char *const argv[] = {"true", 0};
        execve("/bin/true", argv, no_env);
    } else {
        char *const argv[] = {"sh", "-c", "/bin/true", 0};
        execve("/bin/sh", argv, no_env);
    }
    _exit(127);
}

static void fork_metric(struct rtb_ctx *ctx, int mode)
{
    if (mode == FORK_EXEC && access("/bin/true", X_OK) != 0) {
        rtb_unsupported(ctx, "/bin/true is not executable here");
        return;
    }
    if (mode == FORK_SHELL && (access("/bin/sh", X_OK) != 0 || access("/bin/true", X_OK) != 0)) {
        rtb_unsupported(ctx, "/bin/sh or /bin/true is not executable here");
        return;
    }
    unsigned k = 0;
    while (rtb_want(ctx)) {
        if (k++ == PROC_CAP) {
            rtb_note(ctx, "stopped after 300 samples (warm-up included): each costs a process");
            break;
        }
        int st;
        pid_t r;
        rtb_ticks_t t0 = rtb_port_ts();
        pid_t pid = fork();
        if (pid == 0)
            child_main(mode);
        if (pid < 0) {
            rtb_posix_fail("fork", errno);
            rtb_fail(ctx, "fork");
            return;
        }
        while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
            ;
        rtb_ticks_t t1 = rtb_port_ts();
        if (r < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            rtb_posix_fail("child", r < 0 ? errno : ECHILD);
            rtb_fail(ctx, WIFEXITED(st) && WEXITSTATUS(st) == 127 ? "execve failed in the child"
                                                                  : "the child did not exit with 0");
            return;
        }
        rtb_add(ctx, t0, t1);
        rtb_rest(ctx);
    }
}

static void proc_fork_exit(struct rtb_ctx *ctx) { fork_metric(ctx, FORK_EXIT); }
static void proc_fork_exec(struct rtb_ctx *ctx) { fork_metric(ctx, FORK_EXEC); }
static void proc_fork_shell(struct rtb_ctx *ctx) { fork_metric(ctx, FORK_SHELL); }

/* A procedure call: not inlined, and not removable (the asm makes it impure). */
__attribute__((noinline)) static int callee(int x)
{
    __asm__ volatile("" : "+r"(x));
    return x;
}

#define CALLS 1000

static void proc_call(struct rtb_ctx *ctx)
{
    rtb_per_sample(ctx, CALLS, 0);
    int acc = 0;
    while (rtb_want(ctx)) {
        rtb_ticks_t t0 = rtb_port_ts();
        for (int i = 0; i < CALLS; i++)
            acc = callee(acc);
        rtb_ticks_t t1 = rtb_port_ts();
        rtb_add(ctx, t0, t1);
        rtb_rest(ctx);
    }
    __asm__ volatile("" ::"r"(acc));
}

/* ---- Page fault (lat_pagefault) and mapping (lat_mmap) ----------------- */

#define PF_FILE (8u << 20)
#define PF_STRIDE (64u << 10) /* Linux's fault-around window: one fault per touch */
#define PF_TOUCHES (PF_FILE / PF_STRIDE)

static void mm_pagefault(struct rtb_ctx *ctx)
{
    struct rtb_sys_tmp t;
    if (!rtb_ok(ctx, rtb_sys_tmp_open(&t), "temporary directory"))
        return;
    int fd = scratch_file(&t, PF_FILE);
    rtb_note(ctx, fs_note(&t, "file in the page cache"));
    if (fd < 0) {
        rtb_fail(ctx, "scratch file");
        rtb_sys_tmp_close(&t);
        return;
    }
    future_mappings_unlocked(true);
    char *p = mmap(0, PF_FILE, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        rtb_posix_fail("mmap", errno);
        rtb_fail(ctx, "mmap");
    } else {
        /* the touch order: a fixed shuffle of the 64 KiB windows (LMBench
         * permutes the pages) */
        static unsigned order[PF_TOUCHES];
        uint32_t seed = 12345;
        for (unsigned i = 0; i < PF_TOUCHES; i++)
            order[i] = i;
        for (unsigned i = PF_TOUCHES - 1; i > 0; i--) {
            seed = seed * 1664525u + 1013904223u;
            unsigned j = (seed >> 8) % (i + 1), x = order[i];
            order[i] = order[j];
            order[j] = x;
        }
        unsigned i = PF_TOUCHES;
        while (rtb_want(ctx)) {
            if (i == PF_TOUCHES) { /* a pass is done: drop the page-table entries */
                if (madvise(p, PF_FILE, MADV_DONTNEED) != 0) {
                    rtb_posix_fail("madvise(MADV_DONTNEED)", errno);
                    rtb_fail(ctx, "madvise");
                    break;
                }
                i = 0;
                rtb_rest(ctx);
            }
            volatile const char *at = p + (size_t)order[i++] * PF_STRIDE;
            rtb_ticks_t t0 = rtb_port_ts();
            (void)*at;
            rtb_ticks_t t1 = rtb_port_ts();
            rtb_add(ctx, t0, t1);
        }
        munmap(p, PF_FILE);
    }
    future_mappings_unlocked(false);
    close(fd);
    rtb_sys_tmp_close(&t);
}

#define MM_SIZE (1u << 20)
#define MM_PSIZE (16u << 10) /* LMBench's PSIZE and N: one write per 16 KiB of the first tenth */
#define MM_TOUCHED (MM_SIZE / 10)

static void mm_mmap_1m(struct rtb_ctx *ctx)
{
    struct rtb_sys_tmp t;
    if (!rtb_ok(ctx, rtb_sys_tmp_open(&t), "temporary directory"))
        return;
    int fd = scratch_file(&t, MM_SIZE);
    rtb_note(ctx, fs_note(&t, ""));
    if (fd < 0) {
        rtb_fail(ctx, "scratch file");
        rtb_sys_tmp_close(&t);
        return;
    }
    future_mappings_unlocked(true);
    while (rtb_want(ctx)) {
        rtb_ticks_t t0 = rtb_port_ts();
        char *p = mmap(0, MM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) {
            rtb_posix_fail("mmap", errno);
            rtb_fail(ctx, "mmap");
            break;
        }
        for (size_t off = 0; off < MM_TOUCHED; off += MM_PSIZE)
            ((volatile char *)p)[off] = (char)MM_SIZE;
        munmap(p, MM_SIZE);
        rtb_ticks_t t1 = rtb_port_ts();
        rtb_add(ctx, t0, t1);
        rtb_rest(ctx);
    }
    future_mappings_unlocked(false);
    close(fd);
    rtb_sys_tmp_close(&t);
}

/* ---- File create and delete (lat_fs) ----------------------------------- */

#define FS_FILES 100   /* LMBench's files per directory */
#define FS_CAP 1000    /* samples per metric (warm-up included): ~50 us each, and as much again untimed */

static char fs_names[FS_FILES][320];
static char fs_buf[10 * 1024];

static int fs_create(const char *path, size_t size)
{
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0666); /* creat(2), as LMBench */
    if (fd < 0)
        return rtb_posix_fail("open(O_CREAT)", errno);
    if (size && write(fd, fs_buf, size) != (ssize_t)size) {
        int e = errno;
        close(fd);
        return rtb_posix_fail("write", e ? e : ENOSPC);
    }
    return close(fd) ? rtb_posix_fail("close", errno) : RTB_OK;
}

/* Another sample of a file metric? At most FS_CAP (warm-up included). */
static bool fs_wanted(struct rtb_ctx *ctx, const struct rtb_sys_tmp *t, unsigned *k)
{
    if (*k >= FS_CAP) {
        rtb_note(ctx, fs_note(t, "stopped after 1000 samples (warm-up included)"));
        return false;
    }
    if (!rtb_want(ctx))
        return false;
    ++*k;
    return true;
}

/* One metric: a round creates FS_FILES files, then unlinks them; either the
 * creates or the unlinks are timed, one file per sample. */
static void fs_metric(struct rtb_ctx *ctx, size_t size, bool timed_delete)
{
    struct rtb_sys_tmp t;
    if (!rtb_ok(ctx, rtb_sys_tmp_open(&t), "temporary directory"))
        return;
    rtb_note(ctx, fs_note(&t, ""));
    for (int i = 0; i < FS_FILES; i++) {
        char name[16];
        snprintf(name, sizeof name, "%d", i);
        if (!rtb_ok(ctx, rtb_sys_tmp_path(&t, name, fs_names[i], sizeof fs_names[i]), "path")) {
            rtb_sys_tmp_close(&t);
            return;
        }
    }
    unsigned k = 0;
    bool going = true;
    while (going) {
        int made = 0;
        for (; made < FS_FILES; made++) {
            if (!timed_delete && !(going = fs_wanted(ctx, &t, &k)))
                break;
            rtb_ticks_t t0 = rtb_port_ts();
            int rc = fs_create(fs_names[made], size);
            rtb_ticks_t t1 = rtb_port_ts();
            if (!rtb_ok(ctx, rc, "create")) {
                going = false;
                break;
            }
            if (!timed_delete)
                rtb_add(ctx, t0, t1);
        }
        for (int i = 0; i < made; i++) {
            bool timed = timed_delete && going && (going = fs_wanted(ctx, &t, &k));
            rtb_ticks_t t0 = rtb_port_ts();
            int rc = unlink(fs_names[i]);
            rtb_ticks_t t1 = rtb_port_ts();
            if (rc != 0) {
                rtb_posix_fail("unlink", errno);
                rtb_fail(ctx, "delete");
                going = false;
            } else if (timed) {
                rtb_add(ctx, t0, t1);
            }
        }
        rtb_rest(ctx);
    }
    rtb_sys_tmp_close(&t);
}

static void fs_create_0k(struct rtb_ctx *ctx) { fs_metric(ctx, 0, false); }
static void fs_create_1k(struct rtb_ctx *ctx) { fs_metric(ctx, 1024, false); }
static void fs_create_4k(struct rtb_ctx *ctx) { fs_metric(ctx, 4096, false); }
static void fs_create_10k(struct rtb_ctx *ctx) { fs_metric(ctx, 10240, false); }
static void fs_delete_0k(struct rtb_ctx *ctx) { fs_metric(ctx, 0, true); }
static void fs_delete_1k(struct rtb_ctx *ctx) { fs_metric(ctx, 1024, true); }
static void fs_delete_4k(struct rtb_ctx *ctx) { fs_metric(ctx, 4096, true); }
static void fs_delete_10k(struct rtb_ctx *ctx) { fs_metric(ctx, 10240, true); }

const struct rtb_metric rtb_sys_proc_metrics[] = {
    {"sys.proc.fork_exit", proc_fork_exit, 0, 0},
    {"sys.proc.fork_exec", proc_fork_exec, 0, 0},
    {"sys.proc.fork_shell", proc_fork_shell, 0, 0},
    {"sys.proc.call", proc_call, 0, 0},
    {"sys.mm.pagefault", mm_pagefault, 0, 0},
    {"sys.mm.mmap_1m", mm_mmap_1m, 0, 0},
    {"sys.fs.create.0k", fs_create_0k, 0, 0},
    {"sys.fs.create.1k", fs_create_1k, 0, 0},
    {"sys.fs.create.4k", fs_create_4k, 0, 0},
    {"sys.fs.create.10k", fs_create_10k, 0, 0},
    {"sys.fs.delete.0k", fs_delete_0k, 0, 0},
    {"sys.fs.delete.1k", fs_delete_1k, 0, 0},
    {"sys.fs.delete.4k", fs_delete_4k, 0, 0},
    {"sys.fs.delete.10k", fs_delete_10k, 0, 0},
    {0, 0, 0, 0},
};
