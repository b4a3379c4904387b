/*
 * The stamp log: the two raw stamps of every sample a metric records, for
 * whatever replays the run instruction by instruction (rtbench audit, the
 * cycle model). They find each sample's window in their trace by the
 * values its stamps read (the identity of the sample), never by counting
 * windows in order: a scenario may take stamps it does not record (AMX's
 * four intervals per cycle, a warm-up, a cycle out of order).
 *
 * Off unless the harness is run with --stamp-log PATH, and only on a port
 * with a host file it can append to (rtb_port_log_open: a board's
 * semihosting under QEMU). Samples go to a fixed buffer as they are
 * recorded (after the window: a store or two) and to the file when the
 * metric ends; a metric with more samples than the buffer logs the first
 * RTB_PORT_STAMPLOG_PAIRS and says how many it recorded in all.
 *
 * Every value a benchmark loop reads recurs a loop pass later, so the
 * values alone name a load only once one load is known: each metric's
 * block starts with an anchor, one stamp rtb_stamplog_begin() takes (the
 * only counter load in that function), which places the counter on the
 * replay's instruction count.
 *
 * The file (little-endian): "rtbench stamp log 2\n", then per metric:
 * "RTBL", u16 id length, the id, u32 anchor, u32 pairs logged, u32 samples
 * recorded, then the pairs as u32 t0, u32 t1 (the stamps' low 32 bits).
 */
#ifndef RTB_STAMPLOG_H
#define RTB_STAMPLOG_H

#include <rtb/port.h>

/* Open the log at `path` (--stamp-log): RTB_OK, or the port's error. */
int rtb_stamplog_open(const char *path);
bool rtb_stamplog_on(void);
void rtb_stamplog_begin(void);                          /* a metric starts: the anchor */
void rtb_stamplog_add(rtb_stamp_t t0, rtb_stamp_t t1); /* a sample recorded */
/* The metric ended with `samples` recorded: its block to the file, then
 * rtb_stamplog_written(), the mark a replay reads the block at. */
int rtb_stamplog_end(const char *id, uint64_t samples);
void rtb_stamplog_written(void);

#endif
