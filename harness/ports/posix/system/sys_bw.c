/*
 * System section: bandwidths (LMBench bw_mem, bw_pipe, bw_unix, bw_file_rd,
 * bw_mmap_rd; the TI RT-Linux guide's bw_* rows).
 *
 * Every metric is a bandwidth: rtb_per_sample(ctx, 1, bytes) and one sample
 * moves `bytes` bytes, counted as LMBench counts them (bw_mem: the buffer
 * size, whatever the operation reads and writes: "a byte read and written
 * counts as 1"). Buffers come from mmap (page-aligned like LMBench's valloc),
 * never from the port's shared region, and are touched before timing.
 *
 * Slow samples: the core discards the first --warmup samples (default 100)
 * and this file stops a bw_mem metric after WARMUP_GUESS + a size-dependent
 * count of samples or MEM_CAP_US, whichever first, so a 16 MB metric takes
 * ~0.5 s instead of its whole budget; the note says so when it happens.
 *
 * Peers (the pipe / socket writer) are processes forked from the runner:
 * they inherit its CPU and SCHED_FIFO priority, die with it
 * (PR_SET_PDEATHSIG) and are SIGKILLed at the end of the metric. Files are
 * O_TMPFILE (or mkstemp + immediate unlink): no name ever remains; the
 * open2close variants reopen them through /proc/self/fd/N.
 */
#include "posix_port.h"
#include "system.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define KB 1024u
#define MB (1024u * 1024u)
#define XFER (64u * KB)          /* LMBench XFERSIZE: one pipe/socket/read chunk */
#define WARMUP_GUESS 100u        /* the harness's default --warmup */
#define MEM_CAP_US 450000u       /* a bw_mem metric measures at most this long */
#define MEM_BYTES_CAP (256u * MB) /* ... and at most this many bytes after warm-up */
#define IPC_SAMPLE (1u * MB)     /* bw_pipe / bw_unix: bytes per sample */
#define IPC_CAP_US 300000u
#define FILE_SIZE (1u * MB)
#define FILE_CAP_US 300000u

static volatile int sink; /* every sum ends here: the loops cannot be dropped */
static char note[200];

/* ---- helpers ------------------------------------------------------------ */

static void *map(size_t n)
{
    void *p = mmap(0, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? 0 : p;
}

static bool fail_errno(struct rtb_ctx *ctx, const char *what)
{
    rtb_posix_fail(what, errno);
    rtb_fail(ctx, what);
    return false;
}

/* Fork a peer that runs fn(arg) and never returns; -1 on failure. */
static pid_t spawn(void (*fn)(void *), void *arg)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        fn(arg);
        _exit(0);
    }
    return pid;
}

static void reap(pid_t pid)
{
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, 0, 0);
    }
}

/* Stop at the time cap; say so in the note. */
static bool over(struct rtb_ctx *ctx, rtb_ticks_t end, const char *what)
{
    if ((int64_t)(rtb_port_ts() - end) < 0)
        return false;
    snprintf(note, sizeof note, "%s", what);
    rtb_note(ctx, note);
    return true;
}

/* ---- bw_mem ------------------------------------------------------------- */

/* LMBench's loops work on 512-byte blocks of ints (128), unrolled. */
#define U1(m, b, s) m(b)
#define U2(m, b, s) U1(m, b, s) U1(m, (b) + (s), s)
#define U4(m, b, s) U2(m, b, s) U2(m, (b) + 2 * (s), s)
#define U8(m, b, s) U4(m, b, s) U4(m, (b) + 4 * (s), s)
#define U16(m, b, s) U8(m, b, s) U8(m, (b) + 8 * (s), s)
#define U32(m, b, s) U16(m, b, s) U16(m, (b) + 16 * (s), s)
#define U64(m, b, s) U32(m, b, s) U32(m, (b) + 32 * (s), s)
#define U128(m, b, s) U64(m, b, s) U64(m, (b) + 64 * (s), s)

#define RD(i) sum += p[i];
#define WR(i) p[i] = 1;
#define RDWR(i) sum += p[i]; p[i] = 1;
#define CP(i) d[i] = p[i];
/* The block loop: `body` per 512 bytes; the barrier keeps stores alive. */
#define BLOCKS(body)                                    \
    int sum = 0;                                        \
    for (int *last = p + n / sizeof(int) - 128; p <= last; p += 128, d += 128) { \
        body                                            \
        __asm__ volatile("" ::: "memory");              \
    }                                                   \
    (void)d;                                            \
    return sum;

static int op_rd(int *p, int *d, size_t n) { BLOCKS(U32(RD, 0, 4)) }
static int op_wr(int *p, int *d, size_t n) { BLOCKS(U32(WR, 0, 4)) }
static int op_rdwr(int *p, int *d, size_t n) { BLOCKS(U32(RDWR, 0, 4)) }
static int op_cp(int *p, int *d, size_t n) { BLOCKS(U32(CP, 0, 4)) }
static int op_frd(int *p, int *d, size_t n) { BLOCKS(U128(RD, 0, 1)) }
static int op_fwr(int *p, int *d, size_t n) { BLOCKS(U128(WR, 0, 1)) }
static int op_fcp(int *p, int *d, size_t n) { BLOCKS(U128(CP, 0, 1)) }
static int op_bzero(int *p, int *d, size_t n)
{
    (void)d;
    memset(p, 0, n);
    __asm__ volatile("" ::: "memory");
    return 0;
}
static int op_bcopy(int *p, int *d, size_t n)
{
    memmove(d, p, n); /* bcopy(p, d, n) */
    __asm__ volatile("" ::: "memory");
    return 0;
}

typedef int (*mem_op)(int *, int *, size_t);

static void mem_run(struct rtb_ctx *ctx, mem_op op, bool two, size_t n)
{
    int *a = map(n), *b = two ? map(n) : 0;
    if (!a || (two && !b)) {
        fail_errno(ctx, "bw_mem: mmap");
    } else {
        memset(a, 0, n); /* LMBench bzero()s the buffer: pages are real */
        if (b)
            memset(b, 0, n);
        rtb_budget_from_now(ctx); /* the budget is the samples', not the buffers' set-up */
        rtb_per_sample(ctx, 1, n);
        uint64_t cap = MEM_BYTES_CAP / n;
        cap = WARMUP_GUESS + (cap < 30 ? 30 : cap);
        rtb_ticks_t end = rtb_port_ts() + rtb_us_to_ticks(ctx, MEM_CAP_US);
        for (uint64_t i = 0; rtb_want(ctx); i++) {
            if (i >= cap || over(ctx, end, "stopped at the metric's own cap (bytes or 0.45 s)"))
                break;
            int *pa = a, *pb = b;
            __asm__ volatile("" : "+r"(pa), "+r"(pb)); /* opaque to the optimiser */
            rtb_ticks_t t0 = rtb_port_ts();
            int s = op(pa, pb, n);
            rtb_ticks_t t1 = rtb_port_ts();
            sink = s;
            rtb_add(ctx, t0, t1);
            rtb_rest(ctx);
        }
    }
    if (a)
        munmap(a, n);
    if (b)
        munmap(b, n);
}

/* One metric function per (operation, size): the X-macro lists. */
#define MEM_OPS(X) X(rd, 0) X(wr, 0) X(rdwr, 0) X(cp, 1) X(fcp, 1) X(frd, 0) \
    X(fwr, 0) X(bzero, 0) X(bcopy, 1)
#define MEM_SIZES(X, op, two) X(op, two, 16k, 16 * KB) X(op, two, 256k, 256 * KB) \
    X(op, two, 1m, MB) X(op, two, 2m, 2 * MB) X(op, two, 4m, 4 * MB)            \
    X(op, two, 8m, 8 * MB) X(op, two, 16m, 16 * MB)

#define MEM_FN(op, two, sz, n) \
    static void mem_##op##_##sz(struct rtb_ctx *ctx) { mem_run(ctx, op_##op, two, n); }
#define MEM_FNS(op, two) MEM_SIZES(MEM_FN, op, two)
MEM_OPS(MEM_FNS)

/* ---- bw_pipe, bw_unix: a writer process, the runner reads ------------------ */

struct stream {
    int data[2];    /* [0] the runner reads, [1] the writer writes */
    int control[2]; /* the runner asks for `todo` bytes */
    char *buf;
};

static void writer(void *arg)
{
    struct stream *s = arg;
    size_t todo;
    close(s->data[0]);
    close(s->control[1]);
    while (read(s->control[0], &todo, sizeof todo) == (ssize_t)sizeof todo) {
        for (size_t done = 0; done < todo;) {
            ssize_t n = write(s->data[1], s->buf, XFER);
            if (n <= 0)
                _exit(1);
            done += (size_t)n;
        }
    }
    _exit(0);
}

/* One sample: ask the writer for IPC_SAMPLE bytes (16 chunks of 64 KB) and
 * read them in 64 KB reads, as LMBench's reader does (it asks for 10 MB). */
static void stream_run(struct rtb_ctx *ctx, bool unix_socket)
{
    struct stream s = {{-1, -1}, {-1, -1}, 0};
    pid_t pid = -1;
    int rc = unix_socket ? socketpair(AF_UNIX, SOCK_STREAM, 0, s.data) : pipe(s.data);
    if (rc != 0) {
        fail_errno(ctx, unix_socket ? "bw_unix: socketpair" : "bw_pipe: pipe");
        return;
    }
    if (pipe(s.control) != 0 || !(s.buf = map(XFER + 4096))) {
        fail_errno(ctx, "bw: pipe/mmap");
        goto out;
    }
    memset(s.buf, 1, XFER + 4096);
    if ((pid = spawn(writer, &s)) < 0) {
        fail_errno(ctx, "bw: fork");
        goto out;
    }
    char *rbuf = s.buf + 128; /* LMBench's reader: not page-aligned */
    size_t todo = IPC_SAMPLE;
    rtb_per_sample(ctx, 1, IPC_SAMPLE);
    rtb_ticks_t end = rtb_port_ts() + rtb_us_to_ticks(ctx, IPC_CAP_US);
    while (rtb_want(ctx) && !over(ctx, end, "stopped at the metric's own cap (0.3 s)")) {
        rtb_ticks_t t0 = rtb_port_ts();
        if (write(s.control[1], &todo, sizeof todo) != (ssize_t)sizeof todo) {
            fail_errno(ctx, "bw: control write");
            break;
        }
        size_t done = 0;
        while (done < todo) {
            ssize_t n = read(s.data[0], rbuf, XFER);
            if (n <= 0)
                break;
            done += (size_t)n;
        }
        rtb_ticks_t t1 = rtb_port_ts();
        if (done < todo) {
            fail_errno(ctx, "bw: read");
            break;
        }
        rtb_add(ctx, t0, t1);
        rtb_rest(ctx);
    }
out:
    reap(pid);
    for (int i = 0; i < 2; i++) {
        if (s.data[i] >= 0)
            close(s.data[i]);
        if (s.control[i] >= 0)
            close(s.control[i]);
    }
    if (s.buf)
        munmap(s.buf, XFER + 4096);
}

static void bw_pipe(struct rtb_ctx *ctx) { stream_run(ctx, false); }
static void bw_unix(struct rtb_ctx *ctx) { stream_run(ctx, true); }

/* ---- bw_file_rd, bw_mmap_rd: a 1 MB file in the page cache ------------------ */

/* A nameless 1 MB file: O_TMPFILE, or mkstemp unlinked at once. */
static int temp_file(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    int fd = open(dir, O_TMPFILE | O_RDWR, 0600);
    if (fd < 0) {
        char path[256];
        snprintf(path, sizeof path, "%s/rtbench-bw-XXXXXX", dir);
        fd = mkstemp(path);
        if (fd < 0)
            return -1;
        unlink(path);
    }
    static char chunk[XFER];
    memset(chunk, 7, sizeof chunk);
    for (size_t done = 0; done < FILE_SIZE; done += XFER)
        if (write(fd, chunk, XFER) != (ssize_t)XFER) {
            int e = errno;
            close(fd);
            errno = e ? e : EIO;
            return -1;
        }
    return fd;
}

/* LMBench's summing of a read or mapped buffer: every int of 512-byte blocks. */
static int sum_block(const int *p, size_t n)
{
    int sum = 0;
    for (const int *last = p + n / sizeof(int) - 128; p <= last; p += 128) {
        U128(RD, 0, 1)
    }
    return sum;
}

/* bw_file_rd's doit(): read the file in 64 KB chunks, summing each. */
static bool read_sum(int fd, int *buf)
{
    int sum = 0;
    for (size_t done = 0; done < FILE_SIZE; done += XFER) {
        if (read(fd, buf, XFER) != (ssize_t)XFER)
            return false;
        sum += sum_block(buf, XFER);
    }
    sink = sum;
    return true;
}

enum file_mode { FILE_IO, FILE_O2C, MMAP_MO, MMAP_O2C };

/* One sample of `mode`; false with errno set on failure. */
static bool file_sample(enum file_mode mode, int fd, const char *path, int *buf, void *map_mo)
{
    switch (mode) {
    case FILE_IO:
        return lseek(fd, 0, SEEK_SET) == 0 && read_sum(fd, buf);
    case FILE_O2C: {
        int f = open(path, O_RDONLY);
        if (f < 0)
            return false;
        bool ok = read_sum(f, buf);
        close(f);
        return ok;
    }
    case MMAP_MO:
        sink = sum_block(map_mo, FILE_SIZE);
        return true;
    case MMAP_O2C: {
        int f = open(path, O_RDONLY);
        if (f < 0)
            return false;
        void *m = mmap(0, FILE_SIZE, PROT_READ, MAP_SHARED, f, 0);
        if (m == MAP_FAILED) {
            close(f);
            return false;
        }
        sink = sum_block(m, FILE_SIZE);
        close(f);
        munmap(m, FILE_SIZE);
        return true;
    }
    }
    return false;
}

static void file_run(struct rtb_ctx *ctx, enum file_mode mode)
{
    int fd = temp_file();
    if (fd < 0) {
        fail_errno(ctx, "bw_file: temporary file");
        return;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int *buf = map(XFER);
    void *mo = mode == MMAP_MO ? mmap(0, FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0) : 0;
    if (!buf || mo == MAP_FAILED) {
        fail_errno(ctx, "bw_file: mmap");
    } else {
        rtb_budget_from_now(ctx); /* writing the file is no part of the budget */
        rtb_per_sample(ctx, 1, FILE_SIZE);
        rtb_ticks_t end = rtb_port_ts() + rtb_us_to_ticks(ctx, FILE_CAP_US);
        while (rtb_want(ctx) && !over(ctx, end, "stopped at the metric's own cap (0.3 s)")) {
            rtb_ticks_t t0 = rtb_port_ts();
            bool ok = file_sample(mode, fd, path, buf, mo);
            rtb_ticks_t t1 = rtb_port_ts();
            if (!ok) {
                fail_errno(ctx, "bw_file: open/read/mmap");
                break;
            }
            rtb_add(ctx, t0, t1);
            rtb_rest(ctx);
        }
    }
    if (mo && mo != MAP_FAILED)
        munmap(mo, FILE_SIZE);
    if (buf)
        munmap(buf, XFER);
    close(fd);
}

static void file_rd_io(struct rtb_ctx *ctx) { file_run(ctx, FILE_IO); }
static void file_rd_o2c(struct rtb_ctx *ctx) { file_run(ctx, FILE_O2C); }
static void mmap_rd_mo(struct rtb_ctx *ctx) { file_run(ctx, MMAP_MO); }
static void mmap_rd_o2c(struct rtb_ctx *ctx) { file_run(ctx, MMAP_O2C); }

/* ---- registry ------------------------------------------------------------ */

#define MEM_ENTRY(op, two, sz, n) {"sys.bw.mem." #op "." #sz, mem_##op##_##sz, 0, 0},
#define MEM_ENTRIES(op, two) MEM_SIZES(MEM_ENTRY, op, two)

const struct rtb_metric rtb_sys_bw_metrics[] = {
    MEM_OPS(MEM_ENTRIES)
    {"sys.bw.pipe", bw_pipe, RTB_CAP_PROCESS, RTB_TASK_PROCESS},
    {"sys.bw.unix", bw_unix, RTB_CAP_PROCESS, RTB_TASK_PROCESS},
    {"sys.bw.file_rd.io.1m", file_rd_io, 0, 0},
    {"sys.bw.file_rd.o2c.1m", file_rd_o2c, 0, 0},
    {"sys.bw.mmap_rd.mo.1m", mmap_rd_mo, 0, 0},
    {"sys.bw.mmap_rd.o2c.1m", mmap_rd_o2c, 0, 0},
    {0, 0, 0, 0},
};
