/*
 * The cycle model's test image: runs each hand-summed instruction sequence
 * (seq.S) once between two window stamps, and logs the two stamps as the
 * harness's stamp log does (harness/core/stamplog.h: one block a sequence,
 * named after it, with its anchor), to the file --stamp-log PATH names on
 * the semihosting command line. Bare metal: no kernel, no C library.
 */
#include <stdint.h>

#include "seq.h"

#define SYS_OPEN 0x01u
#define SYS_WRITE 0x05u
#define SYS_GET_CMDLINE 0x15u
#define SYS_EXIT_EXTENDED 0x20u

static int32_t semihost(uint32_t op, void *block)
{
    register uint32_t r0 __asm("r0") = op;
    register void *r1 __asm("r1") = block;
    __asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return (int32_t)r0;
}

static uint32_t len(const char *s)
{
    uint32_t n = 0;
    while (s[n])
        n++;
    return n;
}

static int log_fd = -1;

static void put(const void *p, uint32_t n)
{
    uint32_t block[3] = {(uint32_t)log_fd, (uint32_t)(uintptr_t)p, n};
    if (log_fd >= 0)
        semihost(SYS_WRITE, block);
}

static void put_u32(uint32_t v)
{
    put(&v, 4);
}

static void open_log(void)
{
    static char line[256];
    uint32_t block[3] = {(uint32_t)(uintptr_t)line, sizeof line, 0};
    if (semihost(SYS_GET_CMDLINE, block) != 0)
        return;
    for (char *p = line; *p; p++) {
        const char *key = "--stamp-log ";
        uint32_t k = 0;
        while (key[k] && p[k] == key[k])
            k++;
        if (!key[k]) {
            char *path = p + k, *end = path;
            while (*end && *end != ' ')
                end++;
            *end = 0;
            uint32_t o[3] = {(uint32_t)(uintptr_t)path, 5u /* wb */, len(path)};
            log_fd = semihost(SYS_OPEN, o);
            put("rtbench stamp log 2\n", 20);
            return;
        }
    }
}

void rtb_stamplog_begin(uint32_t *anchor); /* seq.S: the anchor's one counter load */

/* The stamp log's mark, as the harness's (harness/core/stamplog.c): the
 * plugin writes a sequence's figures when this runs. */
__attribute__((noinline)) void rtb_stamplog_written(void)
{
    __asm volatile("" ::: "memory");
}

int main(void)
{
    open_log();
    for (const struct seq *s = sequences; s->name; s++) {
        uint32_t anchor, t[2];
        rtb_stamplog_begin(&anchor);
        s->run(t);
        uint16_t n = (uint16_t)len(s->name);
        put("RTBL", 4);
        put(&n, 2);
        put(s->name, n);
        put_u32(anchor);
        put_u32(1); /* pairs logged */
        put_u32(1); /* samples recorded */
        put(t, 8);
        rtb_stamplog_written();
    }
    uint32_t done[2] = {0x20026u, 0};
    semihost(SYS_EXIT_EXTENDED, done);
    for (;;)
        ;
}
