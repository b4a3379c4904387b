/*
 * windows.h — each sample the harness logged, found in the run and priced:
 * the plugin's cumulative counters at the stamps, kept for one metric at a
 * time, paired with the harness's stamp log (harness/core/stamplog.h) by
 * the values the stamps read, as the window audit pairs them
 * (src/rtbench/targets/stamplog.py), and written to the output file
 * (format: windows.c).
 */
#ifndef RTB_WINDOWS_H
#define RTB_WINDOWS_H

#include <stdint.h>

/* Everything counted from the start of the run, at one point of it. */
struct rtb_acc {
    uint64_t est, lo, hi;   /* estimated cycles, and the model's range */
    uint64_t cls[3];        /* instructions by owner: kernel, api, ours */
    uint64_t kcalls;        /* entries into kernel code from non-kernel code */
    uint64_t entries, returns, tails; /* exceptions: entry, return, tail-chain */
    uint64_t late;          /* entries that may have been late arrivals */
    uint64_t unknown;       /* conditional branches whose outcome an exception hid */
};

/* The run's totals, for the trailer. */
struct rtb_totals {
    struct rtb_acc acc;
    uint64_t instructions;
    uint64_t handler_calls;  /* a BLX into a handler address that was a call */
    uint64_t retro;          /* such a BLX that turned out an exception (counted at its return) */
    uint64_t handler_jumps;  /* an indirect jump into a handler address (a tail call) */
    uint64_t unexplained;    /* a block no flow rule explains */
    uint64_t unknown_ops;    /* instructions the decoder does not know (priced 1) */
};

struct rtb_windows;

/* `log`: the stamp log's path (NULL: none); `out`: the output's; `shift`:
 * -icount's; `tick_ns`: the board counter's tick in ns of virtual time;
 * `model`: the model's description for the file's header.
 * NULL and a message in err on failure. */
struct rtb_windows *rtb_windows_open(const char *log, const char *out, unsigned shift,
                                     unsigned tick_ns, unsigned computed_tail, const char *model,
                                     char *err, unsigned errlen);

/* The anchor load ran at instruction `idx`: a metric begins (the previous
 * one is paired with its block of the log and written). */
void rtb_windows_anchor(struct rtb_windows *w, uint64_t idx);

/* A stamp's load ran at instruction `load`: an opening one (kind 0) with
 * the state before the first instruction after it (load + tail + 1, the
 * exceptions at that boundary not included), a closing one (kind 1) with
 * the state before its first instruction (load - head, those included). */
void rtb_windows_load(struct rtb_windows *w, int kind, uint64_t load, unsigned head,
                      unsigned tail, const struct rtb_acc *state);

/* An exception was entered before instruction `at`: where a window the port
 * opened at a computed instant (an interrupt's raise) starts. Returns a
 * handle for rtb_windows_entry_state, which gives the state before
 * instruction at + off (-3 <= off <= 3, that boundary's exceptions not
 * included). */
#define RTB_ENTRY_REACH 3
uint32_t rtb_windows_entry(struct rtb_windows *w, uint64_t at);
void rtb_windows_entry_state(struct rtb_windows *w, uint32_t handle, int off,
                             const struct rtb_acc *state);

/* The metric under way has its block in the stamp log (the harness's
 * mark, rtb_stamplog_written): paired and written now, the file flushed,
 * before the metric's record is printed. */
void rtb_windows_written(struct rtb_windows *w);

/* The run ended: the last metric, the totals, the file closed. */
void rtb_windows_close(struct rtb_windows *w, const struct rtb_totals *t);

/* Generations: a capture taken for a metric that ended is dropped. */
uint32_t rtb_windows_metric(const struct rtb_windows *w);

#endif
