/*
 * Memory: the port's general-purpose heap (Zephyr heap.malloc/free:
 * k_malloc of 10 bytes, then k_free of it, each call timed on its own), at
 * 10 bytes and two larger sizes; and DSP/BIOS MEM_alloc/MEM_free, whose
 * cases need a first-fit free list the benchmark arranges (the block that
 * fits is the first/second/third/fourth of the list; the freed block has
 * zero/one/two free neighbours), so they need a port that has one.
 */
#include <rtb/bench.h>

static void heap_pair(struct rtb_ctx *ctx, size_t size, bool time_free)
{
    struct rtb_kcall alloc, release;
    if (!rtb_ok(ctx, rtb_port_heap_alloc_kcall(size, &alloc), "heap_alloc"))
        return;
    while (rtb_want(ctx)) {
        int rc = time_free ? rtb_kcall_run(&alloc) : rtb_time_kcall(ctx, &alloc, RTB_OK);
        if (rc != RTB_OK) {
            rtb_ok(ctx, RTB_ERR, "heap_alloc returned NULL");
            break;
        }
        void *p = (void *)alloc.ret;
        *(volatile unsigned char *)p = 1; /* the block is used, as a caller would */
        if (!rtb_ok(ctx, rtb_port_heap_free_kcall(p, &release), "heap_free"))
            break;
        rc = time_free ? rtb_time_kcall(ctx, &release, RTB_OK) : rtb_kcall_run(&release);
        if (!rtb_ok(ctx, rc, "heap_free"))
            break;
    }
}

static void malloc_10(struct rtb_ctx *c) { heap_pair(c, 10, false); }
static void free_10(struct rtb_ctx *c) { heap_pair(c, 10, true); }
static void malloc_256(struct rtb_ctx *c) { heap_pair(c, 256, false); }
static void free_256(struct rtb_ctx *c) { heap_pair(c, 256, true); }
static void malloc_4096(struct rtb_ctx *c) { heap_pair(c, 4096, false); }
static void free_4096(struct rtb_ctx *c) { heap_pair(c, 4096, true); }

/* Needs RTB_CAP_FIRST_FIT_HEAP, which no port provides yet: the porting
 * layer has no call to arrange a heap's free list. */
static void first_fit(struct rtb_ctx *ctx)
{
    rtb_unsupported(ctx, "the porting layer has no first-fit heap with an arrangeable free list");
}

#define FIRST_FIT (RTB_CAP_HEAP | RTB_CAP_FIRST_FIT_HEAP)

const struct rtb_metric rtb_mem_metrics[] = {
    {"heap.malloc.size10", malloc_10, RTB_CAP_HEAP, 0},
    {"heap.free.size10", free_10, RTB_CAP_HEAP, 0},
    {"heap.malloc.size256", malloc_256, RTB_CAP_HEAP, 0},
    {"heap.free.size256", free_256, RTB_CAP_HEAP, 0},
    {"heap.malloc.size4096", malloc_4096, RTB_CAP_HEAP, 0},
    {"heap.free.size4096", free_4096, RTB_CAP_HEAP, 0},
    {"mem.alloc.first_block", first_fit, FIRST_FIT, 0},
    {"mem.alloc.second_block", first_fit, FIRST_FIT, 0},
    {"mem.alloc.third_block", first_fit, FIRST_FIT, 0},
    {"mem.alloc.fourth_block", first_fit, FIRST_FIT, 0},
    {"mem.free.coalesce_none", first_fit, FIRST_FIT, 0},
    {"mem.free.coalesce_one", first_fit, FIRST_FIT, 0},
    {"mem.free.coalesce_two", first_fit, FIRST_FIT, 0},
    {0, 0, 0, 0},
};
