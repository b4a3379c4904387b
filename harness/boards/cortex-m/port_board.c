/*
 * The board's share of every kernel port (rtb_board_port.h): rtb_port_write,
 * rtb_port_shared, the host file of the stamp log (rtb_port_log_*) and the
 * counter's and CPU's fields of rtb_port_info.
 * Built into a kernel port's harness image only (not the peers' images,
 * which have no rtbench core).
 */
#include <stddef.h>

#include "rtb_board.h"
#include "rtb_board_port.h"

/* kcall.S reads a prepared call at fixed offsets. */
_Static_assert(offsetof(struct rtb_kcall, a[4]) == 20 && offsetof(struct rtb_kcall, ret) == 36,
               "struct rtb_kcall no longer matches kcall.S");

void rtb_board_port_info(struct rtb_port_info *o)
{
    o->ts_source = RTB_BOARD_TS_SOURCE;
    o->ref_clock = "";
    o->ts_hz_nominal = RTB_BOARD_TS_HZ;
    o->unit = RTB_BOARD_TS_UNIT;
    o->unit_detail = RTB_BOARD_TS_UNIT_DETAIL;
    o->resolution = 1; /* one instruction (or cycle): the conversion is exact */
    o->realtime = true; /* the kernel's own fixed-priority preemptive scheduler */
    o->rt_reason = "";
    o->mlock = true;    /* no paging */
    o->cpu = 0;
    o->cpus_online = 1;
}

/* ---- output --------------------------------------------------------------- */
void rtb_port_write(const char *s, size_t n)
{
    rtb_board_write(s, n);
}

/* ---- the stamp log's host file (core/stamplog.h) ------------------------- */
static int log_handle = -1;

int rtb_port_log_open(const char *path)
{
    log_handle = rtb_board_host_open(path);
    return log_handle >= 0 ? RTB_OK : RTB_ERR;
}

int rtb_port_log_write(const void *buf, size_t n)
{
    return log_handle >= 0 && rtb_board_host_write(log_handle, buf, n) == 0 ? RTB_OK : RTB_ERR;
}

/* ---- the kernel's tick as an instant (rtb_board_tick_stamps) --------------- */
int rtb_port_tick_stamps(bool on)
{
    rtb_board_tick_stamps(on);
    return RTB_OK;
}

rtb_stamp_t rtb_port_tick_stamp(void)
{
    return rtb_board_tick_stamp;
}

/* ---- shared memory: one address space, a static arena ---------------------- */
/* Its size is the board's (RAM: 128 KiB of the AN385's 4 MiB). */
static unsigned char arena[RTB_BOARD_ARENA_SIZE] __attribute__((aligned(16)));
static size_t arena_used;

void *rtb_port_shared(size_t size)
{
    size = (size + 15u) & ~(size_t)15u;
    if (size > sizeof arena - arena_used)
        return 0;
    arena_used += size;
    return arena + arena_used - size;
}
