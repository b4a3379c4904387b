/*
 * windows.c — the samples' windows (windows.h) and the output file.
 *
 * Pairing. Under -icount shift=S a counter of T ns a tick (tick_ns: the
 * MPS2's 25 MHz TIMER0 40, the STM32F4's TIM2 2^S) advances 2^S/T ticks
 * per instruction (3.2 at S=7 on the MPS2, 1 on the STM32F4), so once the anchor's load is placed (the
 * one load in rtb_stamplog_begin, whose value the log's block carries), a
 * value v names the load at instruction
 *     anchor_index + ((v - anchor) mod 2^32 + k * 2^32) * T / 2^S
 * within 1.5 ticks, or half an instruction where a tick is one (stamplog.py's
 * tolerance; loads are at least one instruction apart), k the counter's wraps since the anchor: 0 in a metric
 * shorter than 171 s of virtual time, else the first that names a load at
 * or after the previous sample's (less half a wrap). Each logged sample's
 * closing value names a closing load; its opening is (t1 - t0) mod 2^32
 * ticks before that and names an opening load; an opening value that names none was
 * computed by the port (an interrupt's raise): its window starts at the
 * instruction that value names, rounded, plus the tail and one, where an
 * exception was entered within RTB_ENTRY_REACH instructions. A window is
 *     [opening load + tail + 1, closing load - head)
 * exactly as the audit counts it (audit.py audit_span), and its cycles are
 * those of the same instructions with the exceptions taken at the
 * boundaries from its first to its last instruction.
 *
 * Memory. One metric's loads at a time, as runs: loads of the same shape
 * at a constant step whose states differ by a constant (a stamp run,
 * kcall.S rtb_port_stamp_run, is 4096 loads in a row) are one element.
 *
 * The output file (little-endian throughout):
 *   "rtbench cycles 1\n"
 *   u32 n, n bytes: the model, ASCII "key=value" words
 *   per metric, one per anchor, in the run's order, written (and flushed)
 *   at the stamp log's mark (rtb_stamplog_written) or else the next anchor:
 *     "RTBC", u16 n, n bytes: the metric's id (from the log's block)
 *     u32 anchor value, u32 pairs logged, u32 samples recorded (the block's)
 *     u32 status: bit 0 the log has no block for it (the run ended before
 *       the metric did, or no log was given)
 *     u32 records, then that many records of 44 bytes, one per logged
 *     sample, in the log's order:
 *       u32 t0, t1      the sample's stamps, as logged
 *       u32 instructions between the stamps, the stamps' own left out
 *       u32 est, lo, hi estimated cycles over the same instructions, with
 *                       the exceptions taken between them
 *       u32 kernel, api, ours   instructions by owner (they sum to the count)
 *       u16 kernel_calls        entries into kernel code from non-kernel code
 *       u8 entries, returns, tail_chains (saturated at 255)
 *       u8 flags: 1 the closing stamp names no load; 2 the opening instant
 *         was computed by the port (placed by its value); 4 no exception
 *         entry near that instant (no figure); 8 the window holds an entry
 *         that may have been a late arrival (lo counts it so); 16 it holds
 *         a conditional branch whose outcome an exception hid; 32 the
 *         closing load precedes the opening (no figure). With 1, 4 or 32 the
 *         figures are 0.
 *       u16 0
 *   "RTBE", u32 n = 16, then n u64: instructions, est, lo, hi, entries,
 *     returns, tail_chains, late, unknown_branches, kernel_calls,
 *     handler_calls, retro_exceptions, handler_jumps, unexplained_flows,
 *     unknown_opcodes, metrics (the whole run's)
 * A file cut short (QEMU killed) ends without the trailer.
 */
#include "windows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_MAGIC "rtbench stamp log 2\n"
#define OUT_MAGIC "rtbench cycles 1\n"

enum {
    F_UNFOUND = 1, F_COMPUTED = 2, F_UNPLACED = 4, F_LATE = 8, F_UNKNOWN = 16, F_NEGATIVE = 32,
};

struct run {
    uint64_t first, step; /* the first load's index, the step between loads */
    uint32_t count;
    uint8_t head, tail;
    struct rtb_acc base, delta, last;
};

struct runs {
    struct run *v;
    size_t n, cap;
};

struct entry {
    uint64_t at;
    uint8_t have; /* bit off + REACH: that state is there */
    struct rtb_acc st[2 * RTB_ENTRY_REACH + 1];
};

struct rtb_windows {
    FILE *out;
    char *log_path;
    FILE *log;
    long log_at; /* where the next block starts */
    unsigned shift, computed_tail;
    unsigned tick_ns; /* the counter's tick in ns of virtual time (40: the MPS2's 25 MHz) */
    int64_t tol;      /* how far a value may be from its load's, in ticks * tick_ns */
    uint32_t metric;  /* anchors seen */
    int open;         /* a metric is under way */
    uint64_t anchor;  /* its anchor's index */
    uint64_t cursor;  /* the last closing load a sample named */
    struct runs loads[2];
    struct entry *entries;
    size_t nentries, cap_entries;
};

#define N_ACC (sizeof(struct rtb_acc) / sizeof(uint64_t))

static void acc_sub(struct rtb_acc *d, const struct rtb_acc *a, const struct rtb_acc *b)
{
    const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
    uint64_t *z = (uint64_t *)d;
    for (size_t i = 0; i < N_ACC; i++)
        z[i] = x[i] - y[i];
}

static void acc_mul_add(struct rtb_acc *d, const struct rtb_acc *base, const struct rtb_acc *delta,
                        uint64_t k)
{
    const uint64_t *x = (const uint64_t *)base, *y = (const uint64_t *)delta;
    uint64_t *z = (uint64_t *)d;
    for (size_t i = 0; i < N_ACC; i++)
        z[i] = x[i] + k * y[i];
}

static void put(struct rtb_windows *w, const void *p, size_t n)
{
    if (fwrite(p, 1, n, w->out) != n) { /* a full disk: QEMU goes on, the file is short */
    }
}

static void put_u16(struct rtb_windows *w, uint16_t v)
{
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    put(w, b, 2);
}

static void put_u32(struct rtb_windows *w, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(w, b, 4);
}

static void put_u64(struct rtb_windows *w, uint64_t v)
{
    put_u32(w, (uint32_t)v);
    put_u32(w, (uint32_t)(v >> 32));
}

struct rtb_windows *rtb_windows_open(const char *log, const char *out, unsigned shift,
                                     unsigned tick_ns, unsigned computed_tail, const char *model,
                                     char *err, unsigned errlen)
{
    struct rtb_windows *w = calloc(1, sizeof *w);
    if (!w)
        abort();
    w->out = fopen(out, "wb");
    if (!w->out) {
        snprintf(err, errlen, "cannot write %s", out);
        free(w);
        return NULL;
    }
    static char buf[1 << 20];
    setvbuf(w->out, buf, _IOFBF, sizeof buf);
    w->log_path = log ? strdup(log) : NULL;
    w->shift = shift;
    w->tick_ns = tick_ns;
    /* 1.5 ticks (the counter's own rounding and a margin) where a tick is
     * shorter than an instruction (the MPS2's 40 ns against 128 at shift
     * 7); half an instruction where a tick is one (the STM32F4's TIM2),
     * whose values are exact and whose loads may be one instruction apart. */
    w->tol = 3 * (int64_t)tick_ns / 2;
    if (w->tol > (1ll << shift) / 2)
        w->tol = (1ll << shift) / 2;
    w->computed_tail = computed_tail;
    put(w, OUT_MAGIC, strlen(OUT_MAGIC));
    put_u32(w, (uint32_t)strlen(model));
    put(w, model, strlen(model));
    return w;
}

uint32_t rtb_windows_metric(const struct rtb_windows *w)
{
    return w->metric;
}

/* ---- the loads ---------------------------------------------------------- */

void rtb_windows_load(struct rtb_windows *w, int kind, uint64_t load, unsigned head,
                      unsigned tail, const struct rtb_acc *state)
{
    if (!w->open)
        return;
    struct runs *rs = &w->loads[kind ? 1 : 0];
    struct run *r = rs->n ? &rs->v[rs->n - 1] : NULL;
    if (r && r->head == head && r->tail == tail && load > r->first) {
        struct rtb_acc d;
        acc_sub(&d, state, &r->last);
        if (r->count == 1) {
            r->step = load - r->first;
            r->delta = d;
            r->last = *state;
            r->count = 2;
            return;
        }
        if (load == r->first + r->step * r->count && !memcmp(&d, &r->delta, sizeof d)) {
            r->count++;
            r->last = *state;
            return;
        }
    }
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? 2 * rs->cap : 1024;
        rs->v = realloc(rs->v, rs->cap * sizeof *rs->v);
        if (!rs->v)
            abort();
    }
    r = &rs->v[rs->n++];
    memset(r, 0, sizeof *r);
    r->first = load;
    r->count = 1;
    r->head = (uint8_t)head;
    r->tail = (uint8_t)tail;
    r->base = r->last = *state;
}

uint32_t rtb_windows_entry(struct rtb_windows *w, uint64_t at)
{
    if (!w->open)
        return UINT32_MAX;
    if (w->nentries == w->cap_entries) {
        w->cap_entries = w->cap_entries ? 2 * w->cap_entries : 256;
        w->entries = realloc(w->entries, w->cap_entries * sizeof *w->entries);
        if (!w->entries)
            abort();
    }
    struct entry *e = &w->entries[w->nentries];
    e->at = at;
    e->have = 0;
    return (uint32_t)w->nentries++;
}

void rtb_windows_entry_state(struct rtb_windows *w, uint32_t h, int off, const struct rtb_acc *s)
{
    if (!w->open || h >= w->nentries || off < -RTB_ENTRY_REACH || off > RTB_ENTRY_REACH)
        return;
    w->entries[h].st[off + RTB_ENTRY_REACH] = *s;
    w->entries[h].have |= (uint8_t)(1u << (off + RTB_ENTRY_REACH));
}

/* ---- pairing ------------------------------------------------------------- */

/* The load among `rs` whose value is the anchor's + D ticks (|error| <=
 * 1.5 ticks): 1 and its index and state, or 0. */
static int find(const struct rtb_windows *w, const struct runs *rs, int64_t D, uint64_t *load,
                struct rtb_acc *st, const struct run **of)
{
    if (D < 0 || !rs->n)
        return 0;
    int64_t num = (int64_t)w->tick_ns * D; /* the load's distance from the anchor, in instructions * 2^S */
    uint64_t guess = w->anchor + (uint64_t)(num >> w->shift);
    size_t lo = 0, hi = rs->n; /* the first run that starts after the guess */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (rs->v[mid].first <= guess)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo ? lo - 1 : 0; i <= lo && i < rs->n; i++) {
        const struct run *r = &rs->v[i];
        uint64_t k0 = 0;
        if (r->count > 1 && guess > r->first)
            k0 = (guess - r->first) / r->step;
        for (uint64_t k = k0 ? k0 - 1 : 0; k <= k0 + 1 && k < r->count; k++) {
            uint64_t at = r->first + k * r->step;
            int64_t diff = num - (int64_t)((at - w->anchor) << w->shift);
            if (at >= w->anchor && diff >= -w->tol && diff <= w->tol) {
                *load = at;
                acc_mul_add(st, &r->base, &r->delta, k);
                *of = r;
                return 1;
            }
        }
    }
    return 0;
}

/* A sample's closing load: its value is the anchor's + d ticks modulo 2^32,
 * the first such load at or after the previous sample's less half a wrap
 * (samples are logged in the order they were taken; a metric longer than a
 * wrap of the counter, 171 s at 25 MHz, has several candidates). */
static int find_close(struct rtb_windows *w, uint32_t d, int64_t *D, uint64_t *load,
                      struct rtb_acc *st, const struct run **of)
{
    const struct runs *rs = &w->loads[1];
    uint64_t last = rs->n ? rs->v[rs->n - 1].first + rs->v[rs->n - 1].step *
                                                         (rs->v[rs->n - 1].count - 1) : 0;
    uint64_t half = (1ull << 31) * w->tick_ns >> w->shift, floor = w->cursor > half ? w->cursor - half : 0;
    int found = 0;
    for (int64_t D1 = d; w->anchor + (uint64_t)(((int64_t)w->tick_ns * D1) >> w->shift) <= last + 1; D1 += 1ll << 32) {
        uint64_t at;
        struct rtb_acc s1;
        const struct run *r1;
        if (!find(w, rs, D1, &at, &s1, &r1))
            continue;
        if (!found || (*load < floor && at >= floor)) {
            *D = D1, *load = at, *st = s1, *of = r1;
            found = 1;
        }
        if (at >= floor)
            break;
    }
    if (found)
        w->cursor = *load;
    return found;
}

/* The state where a window opened at a computed instant starts: at the
 * instruction the value names (rounded half to even, as Python's round()),
 * plus the tail and one, near an exception's entry. */
static int computed_start(const struct rtb_windows *w, int64_t D, uint64_t *start,
                          struct rtb_acc *st)
{
    if (D < 0)
        return 0;
    uint64_t num = (uint64_t)w->tick_ns * (uint64_t)D, one = 1ull << w->shift;
    uint64_t q = num >> w->shift, rem = num & (one - 1);
    if (2 * rem > one || (2 * rem == one && (q & 1)))
        q++;
    *start = w->anchor + q + w->computed_tail + 1;
    size_t lo = 0, hi = w->nentries; /* the first entry at or after start - REACH */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (w->entries[mid].at + RTB_ENTRY_REACH < *start)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < w->nentries && w->entries[i].at <= *start + RTB_ENTRY_REACH; i++) {
        int off = (int)((int64_t)*start - (int64_t)w->entries[i].at);
        if (w->entries[i].have & (1u << (off + RTB_ENTRY_REACH))) {
            *st = w->entries[i].st[off + RTB_ENTRY_REACH];
            return 1;
        }
    }
    return 0;
}

static uint32_t sat32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static uint8_t sat8(uint64_t v)
{
    return v > 255 ? 255 : (uint8_t)v;
}

/* One logged sample's record. */
static void put_record(struct rtb_windows *w, uint32_t anchor, uint32_t t0, uint32_t t1)
{
    uint64_t close_at = 0, open_at = 0, start = 0, end = 0;
    struct rtb_acc sc, so, d;
    const struct run *rc = NULL, *ro = NULL;
    unsigned flags = 0;
    memset(&d, 0, sizeof d);
    int64_t D1 = 0, D0;
    if (!find_close(w, t1 - anchor, &D1, &close_at, &sc, &rc)) {
        flags |= F_UNFOUND;
    } else {
        end = close_at - rc->head;
        D0 = D1 - (int64_t)(uint32_t)(t1 - t0); /* a window is shorter than a wrap */
        if (find(w, &w->loads[0], D0, &open_at, &so, &ro)) {
            start = open_at + ro->tail + 1;
        } else {
            flags |= F_COMPUTED;
            if (!computed_start(w, D0, &start, &so))
                flags |= F_UNPLACED;
        }
        if (!(flags & F_UNPLACED) && end < start)
            flags |= F_NEGATIVE;
    }
    if (!(flags & (F_UNFOUND | F_UNPLACED | F_NEGATIVE))) {
        acc_sub(&d, &sc, &so);
        if (d.late)
            flags |= F_LATE;
        if (d.unknown)
            flags |= F_UNKNOWN;
    } else {
        start = end = 0;
    }
    put_u32(w, t0);
    put_u32(w, t1);
    put_u32(w, sat32(end - start));
    put_u32(w, sat32(d.est));
    put_u32(w, sat32(d.lo));
    put_u32(w, sat32(d.hi));
    put_u32(w, sat32(d.cls[0]));
    put_u32(w, sat32(d.cls[1]));
    put_u32(w, sat32(d.cls[2]));
    put_u16(w, d.kcalls > 0xFFFF ? 0xFFFF : (uint16_t)d.kcalls);
    uint8_t b[4] = {sat8(d.entries), sat8(d.returns), sat8(d.tails), (uint8_t)flags};
    put(w, b, 4);
    put_u16(w, 0);
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* The next block of the stamp log: the id (NUL-terminated), the anchor, the
 * pairs; 0 when there is none (no log, or the run ended inside it). */
static int next_block(struct rtb_windows *w, char *id, uint32_t *anchor, uint32_t *npairs,
                      uint32_t *recorded, uint32_t **pairs)
{
    uint8_t head[6 + 255 + 12];
    if (!w->log_path)
        return 0;
    if (!w->log) {
        char magic[sizeof LOG_MAGIC];
        w->log = fopen(w->log_path, "rb");
        if (!w->log)
            return 0;
        if (fread(magic, 1, strlen(LOG_MAGIC), w->log) != strlen(LOG_MAGIC) ||
            memcmp(magic, LOG_MAGIC, strlen(LOG_MAGIC)) != 0) {
            fclose(w->log);
            w->log = NULL;
            return 0;
        }
        w->log_at = (long)strlen(LOG_MAGIC);
    }
    clearerr(w->log);
    if (fseek(w->log, w->log_at, SEEK_SET) != 0 || fread(head, 1, 6, w->log) != 6 ||
        memcmp(head, "RTBL", 4) != 0)
        return 0;
    unsigned n = head[4] | (head[5] << 8);
    if (n > 255 || fread(head + 6, 1, n + 12, w->log) != n + 12)
        return 0;
    memcpy(id, head + 6, n);
    id[n] = 0;
    *anchor = get_u32(head + 6 + n);
    *npairs = get_u32(head + 10 + n);
    *recorded = get_u32(head + 14 + n);
    *pairs = malloc((size_t)*npairs * 8 + 1);
    if (!*pairs)
        abort();
    if (fread(*pairs, 8, *npairs, w->log) != *npairs) {
        free(*pairs);
        return 0;
    }
    w->log_at += 6 + (long)n + 12 + 8 * (long)*npairs;
    return 1;
}

/* The metric under way is over: its block of the log, one record a sample. */
static void finish(struct rtb_windows *w)
{
    char id[256] = "";
    uint32_t anchor = 0, npairs = 0, recorded = 0, *pairs = NULL, status = 0;
    if (!next_block(w, id, &anchor, &npairs, &recorded, &pairs))
        status |= 1;
    put(w, "RTBC", 4);
    put_u16(w, (uint16_t)strlen(id));
    put(w, id, strlen(id));
    put_u32(w, anchor);
    put_u32(w, npairs);
    put_u32(w, recorded);
    put_u32(w, status);
    put_u32(w, npairs);
    for (uint32_t i = 0; i < npairs; i++) {
        const uint8_t *p = (const uint8_t *)pairs + 8 * (size_t)i;
        put_record(w, anchor, get_u32(p), get_u32(p + 4));
    }
    free(pairs);
    if (getenv("RTB_CYCLES_DEBUG"))
        fprintf(stderr, "rtb_cycles: %s: %zu+%zu load runs, %zu entries, %zu KiB held\n", id,
                w->loads[0].n, w->loads[1].n, w->nentries,
                ((w->loads[0].cap + w->loads[1].cap) * sizeof(struct run) +
                 w->cap_entries * sizeof(struct entry)) / 1024);
    w->loads[0].n = w->loads[1].n = 0;
    w->nentries = 0;
    w->open = 0;
    fflush(w->out); /* whoever reads the record next reads this first */
}

void rtb_windows_written(struct rtb_windows *w)
{
    if (w->open)
        finish(w);
}

void rtb_windows_anchor(struct rtb_windows *w, uint64_t idx)
{
    if (w->open)
        finish(w);
    w->metric++;
    w->open = 1;
    w->anchor = w->cursor = idx;
}

void rtb_windows_close(struct rtb_windows *w, const struct rtb_totals *t)
{
    if (w->open)
        finish(w);
    const struct rtb_acc *a = &t->acc;
    uint64_t v[16] = {t->instructions, a->est, a->lo, a->hi, a->entries, a->returns, a->tails,
                      a->late, a->unknown, a->kcalls, t->handler_calls, t->retro,
                      t->handler_jumps, t->unexplained, t->unknown_ops, w->metric};
    put(w, "RTBE", 4);
    put_u32(w, 16);
    for (int i = 0; i < 16; i++)
        put_u64(w, v[i]);
    fclose(w->out);
    if (w->log)
        fclose(w->log);
}
