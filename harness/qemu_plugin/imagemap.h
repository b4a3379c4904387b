/*
 * imagemap.h — what the plugin knows of the image it runs: whose code each
 * address is, where the stamps load the counter, and where handlers start.
 * rtbench writes it from the ELF and its link map (src/rtbench/targets/
 * cycles.py, write_map); a v1 plugin can read no symbol or memory itself.
 *
 * The file is text, one item a line, numbers in hexadecimal without 0x
 * unless said otherwise, '#' starting a comment line:
 *
 *   rtbench cycles map 1          the first line
 *   range START END CLASS         [START, END) is CLASS's code: kernel (the
 *                                 kernel and the C library), api (rtb_kapi_*
 *                                 and rtb_kisr_* functions) or ours (every
 *                                 other function of rtbench's); an address in
 *                                 no range is the kernel's
 *   ours ADDR                     one instruction of rtbench's wherever it
 *                                 sits (.rtb_stamps kind 3: a stamp's store)
 *   stamp ADDR KIND HEAD TAIL     a stamp's counter load (.rtb_stamps): KIND 0
 *                                 opens a window, 1 closes one; HEAD and TAIL
 *                                 (decimal) its instructions before and after
 *   anchor ADDR                   the stamp load in rtb_stamplog_begin: a
 *                                 metric begins (its stamp log block's anchor)
 *   written ADDR                  rtb_stamplog_written's first instruction:
 *                                 a metric's block is in the stamp log, its
 *                                 record not yet printed (optional: without
 *                                 it a metric is priced at the next anchor)
 *   handler ADDR [NAME]           an exception handler's first instruction: a
 *                                 vector table entry, or a function installed
 *                                 as one at run time
 *   computed-tail N               (decimal) the tail a computed opening
 *                                 instant is reported with (rtb_board_ts.h)
 */
#ifndef RTB_IMAGEMAP_H
#define RTB_IMAGEMAP_H

#include <stddef.h>
#include <stdint.h>

enum rtb_class { CLS_KERNEL = 0, CLS_API = 1, CLS_OURS = 2, CLS_NONE = 3 };

struct rtb_range {
    uint32_t start, end;
    uint8_t cls;
};

struct rtb_stampdef {
    uint32_t addr;
    uint8_t kind, head, tail;
};

struct rtb_map {
    struct rtb_range *ranges;
    size_t nranges;
    uint32_t *ours;
    size_t nours;
    struct rtb_stampdef *stamps;
    size_t nstamps;
    uint32_t *anchors;
    size_t nanchors;
    uint32_t *handlers;
    size_t nhandlers;
    uint32_t written; /* 0: none */
    unsigned computed_tail;
};

/* Read `path` into `m`: 0, or -1 with a message in err. */
int rtb_map_load(const char *path, struct rtb_map *m, char *err, size_t errlen);

int rtb_map_class(const struct rtb_map *m, uint32_t addr);
const struct rtb_stampdef *rtb_map_stamp(const struct rtb_map *m, uint32_t addr);
int rtb_map_is_anchor(const struct rtb_map *m, uint32_t addr);
int rtb_map_is_handler(const struct rtb_map *m, uint32_t addr);

#endif
