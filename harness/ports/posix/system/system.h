/*
 * The POSIX port's System section (the TI RT-Linux performance guide's rows:
 * LMBench-style OS latencies, bandwidths, memory latency, timer wake-up).
 * Each file measures one group and exports its registry table; system.c
 * lists them in sheet order. These scenarios use the C library and Linux
 * freely: they are what a general-purpose OS offers, so they belong to the
 * port and an RTOS port simply has none.
 */
#ifndef RTB_POSIX_SYSTEM_H
#define RTB_POSIX_SYSTEM_H

#include <rtb/bench.h>
#include <stddef.h>
#include <sys/types.h>

extern const struct rtb_metric rtb_posix_xsig_metrics[]; /* ../xsig.c: signals between CPUs */
extern const struct rtb_metric rtb_sys_call_metrics[];    /* sys_call.c: syscalls, signals, select */
extern const struct rtb_metric rtb_sys_proc_metrics[];    /* sys_proc.c: fork/exec, page fault, mmap, files */
extern const struct rtb_metric rtb_sys_ipc_metrics[];     /* sys_ipc.c: pipe, AF_UNIX, TCP, UDP, connect */
extern const struct rtb_metric rtb_sys_ctx_metrics[];     /* sys_ctx.c: lat_ctx */
extern const struct rtb_metric rtb_sys_bw_metrics[];      /* sys_bw.c: pipe, AF_UNIX and memory bandwidth */
extern const struct rtb_metric rtb_sys_memlat_metrics[];  /* sys_memlat.c: lat_mem_rd */
extern const struct rtb_metric rtb_sys_ops_metrics[];     /* sys_ops.c: lat_ops */
extern const struct rtb_metric rtb_sys_timer_metrics[];   /* sys_timer.c: timer wake-up (cyclictest) */

/* A per-metric temporary directory that is removed even when the harness and
 * its process group are killed (sys_tmpdir.c): open it at the start of a metric, close it at the
 * end; rtb_sys_tmp_path builds "<dir>/<name>". */
struct rtb_sys_tmp {
    char dir[256];
    int wfd;      /* the janitor's pipe, write end; -1: closed */
    pid_t janitor;
};
int rtb_sys_tmp_open(struct rtb_sys_tmp *t);
/* The same janitor for a System V semaphore set: removed (IPC_RMID) at
 * rtb_sys_tmp_close or when the harness dies. On failure the set is removed
 * at once. */
int rtb_sys_tmp_open_sem(struct rtb_sys_tmp *t, int semid);
void rtb_sys_tmp_close(struct rtb_sys_tmp *t);
int rtb_sys_tmp_path(const struct rtb_sys_tmp *t, const char *name, char *out, size_t n);

#endif
