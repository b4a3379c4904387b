/* The stamp log (stamplog.h). */
#include "stamplog.h"

/* A board sets the buffer's size in <rtb_port_arch.h>: 8 bytes a sample. */
#ifndef RTB_PORT_STAMPLOG_PAIRS
#define RTB_PORT_STAMPLOG_PAIRS 1
#endif

static struct {
    bool on;
    uint32_t anchor;
    uint32_t n;
    uint32_t pairs[RTB_PORT_STAMPLOG_PAIRS][2];
} log_;

static const char magic[] = "rtbench stamp log 2\n";

int rtb_stamplog_open(const char *path)
{
    int rc = rtb_port_log_open(path);
    if (rc == RTB_OK)
        rc = rtb_port_log_write(magic, sizeof magic - 1);
    log_.on = rc == RTB_OK;
    return rc;
}

bool rtb_stamplog_on(void)
{
    return log_.on;
}

void rtb_stamplog_begin(void)
{
    log_.n = 0;
    if (log_.on)
        log_.anchor = (uint32_t)rtb_port_stamp_end();
}

void rtb_stamplog_add(rtb_stamp_t t0, rtb_stamp_t t1)
{
    if (!log_.on || log_.n >= RTB_PORT_STAMPLOG_PAIRS)
        return;
    log_.pairs[log_.n][0] = (uint32_t)t0;
    log_.pairs[log_.n][1] = (uint32_t)t1;
    log_.n++;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Called once a metric's block is in the file: whatever replays the run
 * (the cycle model's plugin) reads the block when this runs, before the
 * metric's record is printed. Never inlined: its address is the mark. */
__attribute__((noinline)) void rtb_stamplog_written(void)
{
    __asm volatile("" ::: "memory");
}

int rtb_stamplog_end(const char *id, uint64_t samples)
{
    if (!log_.on)
        return RTB_OK;
    unsigned char head[4 + 2 + 255 + 12];
    size_t len = 0;
    while (id[len] && len < 255)
        len++;
    head[0] = 'R', head[1] = 'T', head[2] = 'B', head[3] = 'L';
    head[4] = (unsigned char)len, head[5] = 0;
    for (size_t i = 0; i < len; i++)
        head[6 + i] = (unsigned char)id[i];
    put_u32(head + 6 + len, log_.anchor);
    put_u32(head + 10 + len, log_.n);
    put_u32(head + 14 + len, samples > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)samples);
    int rc = rtb_port_log_write(head, 18 + len);
    /* The buffer is little-endian u32 pairs on every board this runs on. */
    if (rc == RTB_OK && log_.n)
        rc = rtb_port_log_write(log_.pairs, (size_t)log_.n * sizeof log_.pairs[0]);
    rtb_stamplog_written();
    return rc;
}
