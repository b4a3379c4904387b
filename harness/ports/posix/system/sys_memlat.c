/*
 * System section: LMBench lat_mem_rd, memory read latency by buffer size at
 * stride 128 (the TI RT-Linux guide's lat_mem_rd-stride128-sz* rows).
 *
 * As lmbench3's line_initialize(): the buffer (mmap, page-aligned) holds a
 * ring of pointers, one in the first word of every 128-byte line; the
 * pages are visited in a shuffled order and, within a page, the lines in a
 * shuffled order (so neither the next-line nor the stride prefetcher can
 * run ahead), and the last line of a page points to the first of the next
 * page. The shuffles come from a fixed-seed generator: every run walks the
 * same chain. Sizes below a page use the lines of that part page.
 *
 * One sample = CHAIN dependent loads (p = *p, unrolled by 100), continuing
 * round the ring from where the previous sample stopped, so successive
 * samples walk the whole buffer: rtb_per_sample(ctx, CHAIN, 0) and the
 * reader's figure is ns per load, LMBench's output. The chain is walked
 * once before timing (lmbench "runs through the chain once to clear the
 * cache"). A metric measures at most CAP_US; its time budget starts after
 * the chain is made and walked.
 */
#include "posix_port.h"
#include "system.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define STRIDE 128u
#define CHAIN 1000u
#define CAP_US 150000u
#define PAGE 4096u

static void *volatile sink;

static uint64_t rng_next(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void shuffle(size_t *a, size_t n, uint64_t *s)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(rng_next(s) % i), t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

/* Build the ring in buf[0..size): the visiting order is every page in a
 * shuffled order and, inside each, its lines in a shuffled order; each line
 * points to the next in that order, the last to the first. Returns the
 * first element, or NULL. */
static void **chain(char *buf, size_t size)
{
    size_t page = size < PAGE ? size : PAGE;
    size_t npages = size / page, nlines = page / STRIDE;
    size_t bytes = (npages + size / STRIDE) * sizeof(size_t);
    size_t *pages = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED)
        return 0;
    size_t *order = pages + npages, k = 0;
    uint64_t seed = 0x5eed;
    for (size_t i = 0; i < npages; i++)
        pages[i] = i * page;
    shuffle(pages, npages, &seed);
    for (size_t i = 0; i < npages; i++) {
        size_t *lines = order + k;
        for (size_t j = 0; j < nlines; j++)
            lines[j] = pages[i] + j * STRIDE;
        shuffle(lines, nlines, &seed);
        k += nlines;
    }
    for (size_t i = 0; i < k; i++)
        *(void **)(buf + order[i]) = buf + order[i + 1 < k ? i + 1 : 0];
    void **first = (void **)(buf + order[0]);
    munmap(pages, bytes);
    return first;
}

#define ONE p = (void **)*p;
#define TEN ONE ONE ONE ONE ONE ONE ONE ONE ONE ONE
#define HUNDRED TEN TEN TEN TEN TEN TEN TEN TEN TEN TEN

static void lat_mem_rd(struct rtb_ctx *ctx, size_t size)
{
    char *buf = mmap(0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED) {
        rtb_posix_fail("lat_mem_rd: mmap", errno);
        rtb_fail(ctx, "lat_mem_rd: mmap");
        return;
    }
    memset(buf, 0, size);
    void **p = chain(buf, size);
    if (!p) {
        rtb_posix_fail("lat_mem_rd: mmap", errno);
        rtb_fail(ctx, "lat_mem_rd: mmap");
    } else {
        for (size_t i = 0; i < size / STRIDE; i++) /* once round: clear the cache */
            p = (void **)*p;
        rtb_budget_from_now(ctx); /* 64 MB took more than a --quick block's budget */
        rtb_per_sample(ctx, CHAIN, 0);
        rtb_ticks_t end = rtb_port_ts() + rtb_us_to_ticks(ctx, CAP_US);
        while (rtb_want(ctx) && (int64_t)(rtb_port_ts() - end) < 0) {
            rtb_ticks_t t0 = rtb_port_ts();
            for (unsigned i = 0; i < CHAIN / 100; i++) {
                HUNDRED
            }
            rtb_ticks_t t1 = rtb_port_ts();
            rtb_add(ctx, t0, t1);
            rtb_rest(ctx);
        }
        sink = p;
    }
    munmap(buf, size);
}

/* Sizes 512 B .. 64 MB, doubling (LMBench's own steps between are not kept). */
#define MEMLAT_SIZES(X)                                                          \
    X(512, 512) X(1k, 1 << 10) X(2k, 2 << 10) X(4k, 4 << 10) X(8k, 8 << 10)      \
    X(16k, 16 << 10) X(32k, 32 << 10) X(64k, 64 << 10) X(128k, 128 << 10)        \
    X(256k, 256 << 10) X(512k, 512 << 10) X(1m, 1 << 20) X(2m, 2 << 20)          \
    X(4m, 4 << 20) X(8m, 8 << 20) X(16m, 16 << 20) X(32m, 32 << 20) X(64m, 64 << 20)

#define MEMLAT_FN(name, n) \
    static void memlat_##name(struct rtb_ctx *ctx) { lat_mem_rd(ctx, (size_t)(n)); }
MEMLAT_SIZES(MEMLAT_FN)

#define MEMLAT_ENTRY(name, n) {"sys.memlat.s128." #name, memlat_##name, 0, 0},

const struct rtb_metric rtb_sys_memlat_metrics[] = {
    MEMLAT_SIZES(MEMLAT_ENTRY)
    {0, 0, 0, 0},
};
