/*
 * rtb_cycles.c — a QEMU TCG plugin (API version 1, QEMU 7.2) that prices
 * every instruction a Cortex-M3 or M4 image executes under -icount by the
 * processor's Technical Reference Manual, infers the exceptions QEMU takes,
 * and prices every window the harness logged (windows.c).
 *
 *   qemu-system-arm ... -icount shift=7,... \
 *     -plugin FILE.so,map=MAP,log=STAMPLOG,out=OUT,cpu=m3[,shift=7][,tick_ns=40]
 *
 *   map   the image's map (imagemap.h), written by rtbench from the ELF
 *   log   the harness's stamp log (--stamp-log; harness/core/stamplog.h)
 *   out   the output (format: windows.c)
 *   cpu   m3 (DDI 0337I) or m4 (DDI 0439B)
 *   shift -icount's shift (default 7)
 *   tick_ns the board counter's tick in ns of virtual time (default 40, the
 *         MPS2's 25 MHz TIMER0; the STM32F4's TIM2 2^shift): 2^shift/tick_ns
 *         counter ticks an instruction
 *
 * How a run is followed. Every instruction gets an inline add to one
 * counter (a per-block add would count twice the instructions QEMU runs
 * again after an I/O access aborts a block). Every block gets a callback as
 * it starts; there the block before it is settled: how many of its
 * instructions ran (the counter says), what each cost, and what happened at
 * the boundary between the two. A block that starts where the one before
 * could not go (neither its fall-through nor its branch's target) at a
 * handler's address is an exception's entry (QEMU takes interrupts only
 * between blocks); a return-type branch (BX LR, POP {..,PC}, LDR PC,[SP])
 * in a handler, outside any call the handler made, is the exception's
 * return; a handler right after a return, where the interrupted code did
 * not resume, is a tail-chain. A BLX to a handler's address is taken for a
 * call (Zephyr calls some; FreeRTOS's timer task calls a deferred handler),
 * and settled when that code returns: to the BLX's return address it was a
 * call, elsewhere an exception (counted then: an interrupt taken right after
 * a BLX); an exception inside it that returns to another task's code (a
 * switch) settles it as a call. Conditional branches are settled by where
 * the next block starts;
 * an IT-conditional load or store by whether it fired a memory callback.
 *
 * The model's exception costs (zero wait states): entry 12 cycles, return
 * 10 and tail-chain 6 (ARM knowledge article KA16366: the M3 TRM's 12 for
 * the return is a typographical error; the M3 and M4 take 10), each
 * instead of the return instruction's refill; a nested entry at the first
 * block boundary of a handler may have been a late arrival on silicon (the
 * stacking shared, the handler's return a tail-chain): its range reaches 16
 * cycles lower. On the M4F, lazy FP stacking: a handler that saves a task's
 * S16-S31 under IT (FreeRTOS, ThreadX, Zephyr) with the task's FP context
 * active makes the core stack S0-S15 and FPSCR first (+17), and a return to
 * a frame holding them unstacks them (+17); a handler's first FP
 * instruction with the frame's state unknown may cost [0, 17].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imagemap.h"
#include "qemu_plugin_v1.h"
#include "thumb_cost.h"
#include "windows.h"

RTB_EXPORT int qemu_plugin_version = 1;

#define MAX_TB 512      /* QEMU's TCG_MAX_INSNS */
#define RING 8          /* instructions remembered for a state in the past */
#define EVRING 16       /* exceptions remembered for the same */
#define MAX_DEPTH 32
#define CALLS 1024
#define CAPTURES 512
#define EXC_ENTRY 12
#define EXC_RETURN 10
#define EXC_TAIL 6
#define LATE_SAVING_ENTRY 12 /* a late arrival shares the stacking ... */
#define LATE_SAVING_RETURN 4 /* ... and its return is a tail-chain (6, not 10) */
#define FP_STACK 17          /* S0-S15 and FPSCR (DDI 0439B: "a possible 17 cycles more") */

struct block {
    struct block *next; /* in the cache's chain */
    uint32_t start, n, sum;
    struct rtb_insn ins[];
};

struct frame {
    uint32_t resume[2]; /* where the interrupted code goes on (nresume 0: unknown) */
    uint8_t nresume;
    uint8_t tentative;  /* a BLX into a handler: a call, unless it returns elsewhere */
    uint8_t late;       /* its entry may have been a late arrival */
    uint8_t fp_known, fp_stacked, fp_unstack;
    uint32_t ret;       /* tentative: the BLX's return address */
    uint32_t blocks;    /* blocks run since its entry */
    uint32_t calls;     /* where its calls start in the call stack */
};

struct slot { /* one instruction's part of the state, for states in the past */
    uint16_t est, lo, hi;
    uint8_t cls, flags; /* 1 a kernel call, 2 an unknown branch */
};

struct event { /* an exception at the boundary before instruction idx */
    uint64_t idx;
    struct rtb_acc d;
};

struct capture { /* a state to take before instruction idx, its exceptions left out */
    uint64_t idx, load;
    uint32_t metric, handle;
    int8_t off;
    uint8_t open, head, tail;
};

enum outcome { O_NONE, O_TAKEN, O_NOT, O_UNKNOWN, O_EXC_RET };
enum enter { IN_FLOW, IN_RETURN, IN_EXCEPTION };

static struct {
    enum rtb_cpu cpu;
    unsigned shift;
    struct rtb_map map;
    struct rtb_windows *win;

    uint64_t icount; /* the inline adds: instructions started */
    struct block *cur;
    uint64_t cur_start;
    uint32_t gen, fired[MAX_TB];

    uint64_t idx; /* instructions accounted */
    struct rtb_acc G;
    struct {
        uint8_t kind, cls;
        uint8_t fold; /* a 16-bit instruction ran just before, in sequence: an IT folds onto it */
        uint16_t ldr_dest, dp_dest;
    } prev;
    uint8_t enter;

    struct slot ring[RING];
    struct event ev[EVRING];
    unsigned nev;
    struct capture cap[CAPTURES];
    unsigned ncap;
    uint64_t cap_min;

    struct frame fr[MAX_DEPTH];
    int depth;
    uint32_t calls[CALLS];
    uint32_t ncalls;

    struct block *cache[1 << 14];
    struct rtb_totals tot;
    uint64_t dropped; /* captures or frames that did not fit: a diagnostic */
    uint64_t block_bytes; /* the blocks' descriptions: a diagnostic */
} g;

/* ---- translation ---------------------------------------------------------- */

/* An IT block QEMU cut (at -icount's budget, or a page): where its rest
 * starts, and how many instructions of it remain. The code does not change,
 * so what a translation learnt holds for every later one. */
#define IT_SLOTS 4096
static struct {
    uint32_t addr;
    uint8_t left, real;
} it_table[IT_SLOTS];

static void it_state_put(uint32_t addr, int left, int real)
{
    for (unsigned i = 0, h = (addr >> 1) % IT_SLOTS; i < IT_SLOTS; i++, h = (h + 1) % IT_SLOTS)
        if (!it_table[h].addr || it_table[h].addr == addr) {
            it_table[h].addr = addr;
            it_table[h].left = (uint8_t)left;
            it_table[h].real = (uint8_t)real;
            return;
        }
}

static void it_state_get(uint32_t addr, int *left, int *real)
{
    for (unsigned i = 0, h = (addr >> 1) % IT_SLOTS; i < IT_SLOTS && it_table[h].addr;
         i++, h = (h + 1) % IT_SLOTS)
        if (it_table[h].addr == addr) {
            *left = it_table[h].left;
            *real = it_table[h].real;
            return;
        }
}

static uint32_t checksum(const uint8_t *p, size_t n, uint32_t h)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

static void on_exec(unsigned vcpu, void *ud);
static void on_mem(unsigned vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *ud);

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    if (n == 0 || n > MAX_TB)
        return;
    uint32_t start = (uint32_t)qemu_plugin_tb_vaddr(tb), sum = 2166136261u;
    const uint8_t *bytes[MAX_TB];
    for (size_t k = 0; k < n; k++) {
        struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, k);
        bytes[k] = qemu_plugin_insn_data(in);
        sum = checksum(bytes[k], (size_t)rtb_insn_size((uint16_t)(bytes[k][0] | bytes[k][1] << 8)),
                       sum);
    }
    /* The same code translated again (QEMU's cache flushed, or a block cut
     * by -icount's budget at the same length) reuses its description. */
    uint32_t h = (start ^ (uint32_t)n * 2654435761u ^ sum) & ((1u << 14) - 1);
    struct block *b = g.cache[h];
    while (b && !(b->start == start && b->n == n && b->sum == sum))
        b = b->next;
    if (!b) {
        b = calloc(1, sizeof *b + n * sizeof b->ins[0]);
        if (!b)
            abort();
        g.block_bytes += sizeof *b + n * sizeof b->ins[0];
        b->start = start;
        b->n = (uint32_t)n;
        b->sum = sum;
        b->next = g.cache[h];
        g.cache[h] = b;
        int it_left = 0, it_real = 0;
        it_state_get(start, &it_left, &it_real);
        for (size_t k = 0; k < n; k++) {
            struct rtb_insn *I = &b->ins[k];
            uint32_t a = (uint32_t)qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, k));
            int count = 0;
            rtb_decode(bytes[k], a, g.cpu, it_left > 0 && it_real, I, &count);
            if (it_left > 0)
                it_left--;
            if (I->it) {
                it_left = count ? count : 4;
                it_real = count > 0;
            }
            if (I->unknown)
                g.tot.unknown_ops++;
            I->cls = (uint8_t)rtb_map_class(&g.map, a);
            const struct rtb_stampdef *s = rtb_map_stamp(&g.map, a);
            if (rtb_map_is_anchor(&g.map, a)) {
                I->stamp = 3;
            } else if (g.map.written && a == g.map.written) {
                I->stamp = 4;
            } else if (s) {
                I->stamp = s->kind ? 2 : 1;
                I->head = s->head;
                I->tail = s->tail;
            }
        }
        if (it_left > 0) /* the IT block goes on in the block QEMU starts there */
            it_state_put(b->ins[n - 1].addr + b->ins[n - 1].size, it_left, it_real);
    }
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec, QEMU_PLUGIN_CB_NO_REGS, b);
    for (size_t k = 0; k < n; k++) {
        struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, k);
        qemu_plugin_register_vcpu_insn_exec_inline(in, QEMU_PLUGIN_INLINE_ADD_U64, &g.icount, 1);
        /* Loads alone would deliver only stores in QEMU 7.2 (EMBEDDED.md). */
        if (b->ins[k].cond == C_IT && b->ins[k].mem)
            qemu_plugin_register_vcpu_mem_cb(in, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
                                             (void *)(uintptr_t)b->ins[k].addr);
    }
}

/* An IT-conditional load or store ran (a skipped one fires nothing). The
 * block it ran in may be one QEMU made to execute that instruction again
 * after an I/O abort, which has no exec callback: find it in the current. */
static void on_mem(unsigned vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *ud)
{
    (void)vcpu, (void)info, (void)vaddr;
    uint32_t addr = (uint32_t)(uintptr_t)ud;
    if (!g.cur)
        return;
    for (uint32_t k = 0; k < g.cur->n; k++)
        if (g.cur->ins[k].addr == addr) {
            g.fired[k] = g.gen;
            return;
        }
}

/* ---- states ----------------------------------------------------------------- */

static void acc_add_event(struct rtb_acc *a, const struct rtb_acc *d, int sign)
{
    uint64_t *x = (uint64_t *)a;
    const uint64_t *y = (const uint64_t *)d;
    for (size_t i = 0; i < sizeof *a / sizeof(uint64_t); i++)
        x[i] += sign > 0 ? y[i] : -y[i];
}

/* The state before instruction s (at most RING - 1 back), with the
 * exceptions at that boundary (after) or without them. */
static int state_at(uint64_t s, int after, struct rtb_acc *o)
{
    if (s > g.idx || g.idx - s >= RING)
        return 0;
    *o = g.G;
    for (uint64_t j = s; j < g.idx; j++) {
        const struct slot *sl = &g.ring[j % RING];
        o->est -= sl->est;
        o->lo -= sl->lo;
        o->hi -= sl->hi;
        o->cls[sl->cls]--;
        if (sl->flags & 1)
            o->kcalls--;
        if (sl->flags & 2)
            o->unknown--;
    }
    for (unsigned i = 0; i < g.nev && i < EVRING; i++) {
        const struct event *e = &g.ev[(g.nev - 1 - i) % EVRING];
        if (e->idx < s)
            break;
        if (e->idx > s || !after)
            acc_add_event(o, &e->d, -1);
    }
    return 1;
}

static void add_capture(struct capture c)
{
    if (g.ncap == CAPTURES) {
        g.dropped++;
        return;
    }
    unsigned i = g.ncap++;
    while (i > 0 && g.cap[i - 1].idx > c.idx) {
        g.cap[i] = g.cap[i - 1];
        i--;
    }
    g.cap[i] = c;
    g.cap_min = g.cap[0].idx;
}

/* The captures due before instruction g.idx, that boundary's exceptions
 * left out (called before they are added). */
static void serve_captures(void)
{
    unsigned done = 0;
    while (done < g.ncap && g.cap[done].idx <= g.idx) {
        const struct capture *c = &g.cap[done++];
        struct rtb_acc st;
        if (c->idx != g.idx || c->metric != rtb_windows_metric(g.win) || !state_at(c->idx, 0, &st))
            continue;
        if (c->open)
            rtb_windows_load(g.win, 0, c->load, c->head, c->tail, &st);
        else
            rtb_windows_entry_state(g.win, c->handle, c->off, &st);
    }
    memmove(g.cap, g.cap + done, (g.ncap - done) * sizeof g.cap[0]);
    g.ncap -= done;
    g.cap_min = g.ncap ? g.cap[0].idx : UINT64_MAX;
}

static void add_event(const struct rtb_acc *d)
{
    struct event *e = &g.ev[g.nev++ % EVRING];
    e->idx = g.idx;
    e->d = *d;
    acc_add_event(&g.G, d, 1);
    g.prev.kind = K_OTHER;
    g.prev.fold = 0;
    g.prev.ldr_dest = g.prev.dp_dest = 0;
    g.enter = IN_EXCEPTION;
}

/* ---- instructions ------------------------------------------------------------ */

static void stamp(const struct rtb_insn *I)
{
    struct rtb_acc st;
    if (I->stamp == 3) {
        rtb_windows_anchor(g.win, g.idx);
        g.ncap = 0; /* the metric before is over */
        g.cap_min = UINT64_MAX;
    } else if (I->stamp == 4) { /* its block is in the log: priced before its record prints */
        rtb_windows_written(g.win);
        g.ncap = 0;
        g.cap_min = UINT64_MAX;
    } else if (I->stamp == 2) {
        if (state_at(g.idx - I->head, 1, &st))
            rtb_windows_load(g.win, 1, g.idx, I->head, I->tail, &st);
    } else {
        struct capture c = {g.idx + I->tail + 1, g.idx, rtb_windows_metric(g.win), 0, 0, 1,
                            I->head, I->tail};
        add_capture(c);
    }
}

/* Lazy FP stacking (M4F), decided where a handler's IT-conditional VSTM or
 * VLDM of S16-S31 ran or was skipped. */
static void lazy_fp(const struct rtb_insn *I, int ran, struct rtb_cost *c)
{
    struct frame *f = &g.fr[g.depth];
    if (I->cond == C_IT && I->fp == FP_STORE_MULTI) {
        f->fp_known = 1;
        if (ran && !f->fp_stacked) { /* the task's FP context is live: S0-S15 go first */
            c->est += FP_STACK, c->lo += FP_STACK, c->hi += FP_STACK;
            f->fp_stacked = f->fp_unstack = 1;
        }
    } else if (I->cond == C_IT && I->fp == FP_LOAD_MULTI) {
        f->fp_known = 1;
        f->fp_unstack = (uint8_t)ran; /* the frame returned to holds FP registers */
    } else if (ran && !f->fp_known && !f->fp_stacked) {
        c->hi += FP_STACK; /* the interrupted code's FP context: unknown */
        f->fp_stacked = 1;
    }
}

/* Account for the first n instructions of b; the last one costs *last when
 * given (a branch the boundary settled). */
static void account(struct block *b, uint32_t n, const struct rtb_cost *last, int last_ran,
                    int last_unknown)
{
    for (uint32_t k = 0; k < n; k++) {
        const struct rtb_insn *I = &b->ins[k];
        if (g.idx >= g.cap_min)
            serve_captures();
        struct rtb_cost c = I->c;
        int ran = 1;
        if (k + 1 == n && last) {
            c = *last;
            ran = last_ran;
        } else if (I->cond == C_IT) {
            if (I->mem) {
                ran = g.fired[k] == g.gen;
                if (!ran)
                    c.est = c.lo = c.hi = 1;
            } else { /* skipped (1 cycle) or not: undecidable */
                if (c.lo > 1)
                    c.lo = 1;
                if (c.hi < 1)
                    c.hi = 1;
            }
        }
        if (I->it && g.prev.fold)
            c.lo = 0; /* folded onto the 16-bit instruction before: zero cycles */
        if (ran && I->mem) {
            if ((I->kind == K_LDR || I->kind == K_STR_REG) && g.prev.kind == K_LDR &&
                !(I->addr_regs & g.prev.ldr_dest) && c.lo > 0)
                c.est--, c.lo--, c.hi--; /* pipelined behind the load before */
            if (I->addr_regs & g.prev.dp_dest)
                c.est++, c.lo++, c.hi++; /* the address waits for the register bank */
        }
        if (I->fp && g.depth > 0 && g.cpu == RTB_M4)
            lazy_fp(I, ran, &c);
        if (I->stamp)
            stamp(I);
        uint8_t flags = 0;
        if (I->cls == CLS_KERNEL && g.prev.cls != CLS_KERNEL && g.prev.cls != CLS_NONE &&
            g.enter == IN_FLOW)
            flags |= 1;
        if (k + 1 == n && last_unknown)
            flags |= 2;
        g.G.est += c.est;
        g.G.lo += c.lo;
        g.G.hi += c.hi;
        g.G.cls[I->cls]++;
        g.G.kcalls += flags & 1;
        g.G.unknown += (flags >> 1) & 1;
        g.ring[g.idx % RING] = (struct slot){c.est, c.lo, c.hi, I->cls, flags};
        g.prev.kind = ran ? I->kind : K_OTHER;
        g.prev.ldr_dest = ran && I->kind == K_LDR ? I->dest : 0;
        g.prev.dp_dest = ran && I->kind == K_DP ? I->dest : 0;
        g.prev.cls = I->cls;
        g.prev.fold = I->size == 2;
        g.enter = IN_FLOW;
        g.idx++;
    }
}

/* ---- exceptions --------------------------------------------------------------- */

static struct rtb_acc event_cost(int est, int lo, int hi)
{
    struct rtb_acc d;
    memset(&d, 0, sizeof d);
    d.est = (uint64_t)est;
    d.lo = (uint64_t)lo;
    d.hi = (uint64_t)hi;
    return d;
}

/* The states a window opened at a computed instant near this entry may
 * start from: those before it now, those after it when they come. */
static void entry_states(void)
{
    uint32_t h = rtb_windows_entry(g.win, g.idx);
    if (h == UINT32_MAX)
        return;
    for (int off = -RTB_ENTRY_REACH; off <= 0; off++) {
        struct rtb_acc st;
        if ((int64_t)g.idx + off >= 0 && state_at(g.idx + (uint64_t)(int64_t)off, 0, &st))
            rtb_windows_entry_state(g.win, h, off, &st);
    }
    for (int off = 1; off <= RTB_ENTRY_REACH; off++) {
        struct capture c = {g.idx + (uint64_t)off, 0, rtb_windows_metric(g.win), h, (int8_t)off,
                            0, 0, 0};
        add_capture(c);
    }
}

static void enter_exception(const uint32_t *resume, int nresume)
{
    int late = g.depth > 0 && !g.fr[g.depth].tentative && g.fr[g.depth].blocks <= 1;
    struct rtb_acc d = event_cost(EXC_ENTRY, late ? EXC_ENTRY - LATE_SAVING_ENTRY : EXC_ENTRY,
                                  EXC_ENTRY);
    d.entries = 1;
    d.late = (uint64_t)late;
    entry_states();
    add_event(&d);
    if (g.depth + 1 >= MAX_DEPTH) {
        g.dropped++;
        return;
    }
    struct frame *f = &g.fr[++g.depth];
    memset(f, 0, sizeof *f);
    for (int i = 0; i < nresume && i < 2; i++)
        f->resume[i] = resume[i];
    f->nresume = (uint8_t)(nresume > 2 ? 2 : nresume);
    f->late = (uint8_t)late;
    f->calls = g.ncalls;
}

static int resumes(const struct frame *f, uint32_t x)
{
    for (int i = 0; i < f->nresume; i++)
        if (f->resume[i] == x)
            return 1;
    return 0;
}

/* The exception of frame g.depth returned; `next` runs now. */
static void leave_exception(uint32_t next)
{
    struct frame *f = &g.fr[g.depth];
    int fp = g.cpu == RTB_M4 && f->fp_unstack ? FP_STACK : 0;
    g.ncalls = f->calls;
    if (rtb_map_is_handler(&g.map, next) && !resumes(f, next)) {
        struct rtb_acc d = event_cost(EXC_TAIL + fp, EXC_TAIL + fp, EXC_TAIL + fp);
        d.tails = 1;
        entry_states();
        add_event(&d);
        f->tentative = f->late = f->fp_known = f->fp_stacked = f->fp_unstack = 0;
        f->blocks = 0;
        return;
    }
    int lo = f->late ? EXC_RETURN - LATE_SAVING_RETURN : EXC_RETURN;
    struct rtb_acc d = event_cost(EXC_RETURN + fp, lo + fp, EXC_RETURN + fp);
    d.returns = 1;
    add_event(&d);
    int switched = f->nresume > 0 && !resumes(f, next);
    g.depth--;
    /* Returned into other code than it interrupted (a task switch) under a
     * BLX into a handler not yet settled: that was a call, in a task now
     * switched away (its return would be read in another task's code). */
    while (switched && g.depth > 0 && g.fr[g.depth].tentative) {
        g.ncalls = g.fr[g.depth].calls;
        g.depth--;
        g.tot.handler_calls++;
    }
}

static void push_call(uint32_t ret)
{
    if (g.depth == 0)
        return; /* thread mode: its returns are never an exception's */
    if (g.ncalls == CALLS) {
        g.dropped++;
        return;
    }
    g.calls[g.ncalls++] = ret;
}

/* The boundary after the first n instructions of b (all ran), before the
 * block at `next` (has_next 0: the run ended). */
static void boundary(struct block *b, uint32_t n, uint32_t next, int has_next)
{
    const struct rtb_insn *I = &b->ins[n - 1];
    int complete = n == b->n;
    uint32_t fall = I->addr + I->size;
    int br = complete ? I->branch : BR_NONE;
    enum outcome out = O_NONE;
    enum { E_NONE, E_ENTRY, E_RETURN, E_RETRO, E_TENTATIVE } exc = E_NONE;
    uint32_t resume[2] = {0, 0};
    int nresume = 0;
    struct frame *f = &g.fr[g.depth];
    int transfer = IN_FLOW;

    f->blocks++;
    if (!has_next) {
        account(b, n, NULL, 1, 0);
        return;
    }
    int handler = rtb_map_is_handler(&g.map, next);
    int skipped = I->cond == C_IT && next == fall; /* an IT-conditional branch not taken */

    if (br == BR_RETURN && !skipped) {
        uint32_t top = g.ncalls > f->calls ? g.calls[g.ncalls - 1] : 0;
        out = O_TAKEN;
        transfer = IN_RETURN;
        if (g.depth > 0 && g.ncalls > f->calls) { /* a call the handler made returns */
            uint32_t i = g.ncalls;
            while (i > f->calls && g.calls[i - 1] != next)
                i--;
            if (i > f->calls) {
                g.ncalls = i - 1;
            } else if (handler) { /* returned to its caller, then an interrupt */
                g.ncalls--;
                resume[0] = top;
                nresume = 1;
                exc = E_ENTRY;
            } else { /* left the handler from inside a call */
                out = O_EXC_RET;
                exc = E_RETURN;
            }
        } else if (g.depth > 0 && f->tentative) {
            if (next == f->ret) {
                g.depth--; /* the BLX was a call */
                g.tot.handler_calls++;
            } else {
                out = O_EXC_RET;
                exc = E_RETRO;
            }
        } else if (g.depth > 0) {
            out = O_EXC_RET;
            exc = E_RETURN;
        } else if (handler) { /* thread mode: a function returned, then an interrupt */
            exc = E_ENTRY;
        }
    } else if (next == fall || (br == BR_DIRECT && next == I->target)) {
        if (br != BR_NONE)
            out = next == fall && I->cond != C_ALWAYS && !(br == BR_DIRECT && I->target == fall)
                      ? O_NOT : O_TAKEN;
        if (I->call && out == O_TAKEN)
            push_call(fall);
    } else if (handler) {
        if (br == BR_INDIRECT && I->call) { /* a BLX into a handler: a call, until it returns elsewhere */
            out = O_TAKEN;
            exc = E_TENTATIVE;
        } else if (br == BR_INDIRECT) { /* a jump into a handler (rtb_board_tick_entry's BX) */
            out = O_TAKEN;
            g.tot.handler_jumps++;
        } else {
            exc = E_ENTRY;
            resume[nresume++] = fall;
            if (br == BR_DIRECT && I->target != fall)
                resume[nresume++] = I->target;
            if (br != BR_NONE)
                out = I->cond == C_ALWAYS ? O_TAKEN : O_UNKNOWN;
        }
    } else {
        if (br == BR_INDIRECT) {
            out = O_TAKEN;
            if (I->call)
                push_call(fall);
        } else {
            g.tot.unexplained++;
            if (br != BR_NONE)
                out = O_TAKEN;
        }
    }
    if (br != BR_NONE && skipped && out == O_NONE)
        out = O_NOT;

    /* The last instruction's price, now that its outcome is known. */
    struct rtb_cost c = I->c, *last = NULL;
    int ran = 1, unknown = 0;
    switch (out) {
    case O_TAKEN:
        c.est += RTB_P_EST, c.lo += RTB_P_LO, c.hi += RTB_P_HI;
        last = &c;
        break;
    case O_NOT:
        c.est = c.lo = c.hi = 1;
        ran = 0;
        last = &c;
        break;
    case O_UNKNOWN: /* not taken (1) or taken (c + P) */
        c.est = (uint8_t)((1 + c.est + RTB_P_EST) / 2);
        c.lo = 1;
        c.hi += RTB_P_HI;
        unknown = 1;
        last = &c;
        break;
    case O_EXC_RET: /* the return's 10 (or 6) may include the instruction */
        c.lo = 0;
        last = &c;
        break;
    default:
        break;
    }
    account(b, n, last, ran, unknown);
    if (out == O_TAKEN || out == O_UNKNOWN || out == O_EXC_RET)
        g.prev.fold = 0; /* the next instruction comes after a refill */
    if (g.idx >= g.cap_min)
        serve_captures(); /* before this boundary's exceptions */

    switch (exc) {
    case E_ENTRY:
        enter_exception(resume, nresume);
        break;
    case E_RETURN:
        leave_exception(next);
        break;
    case E_RETRO: { /* that BLX was an exception's entry after all: its costs now */
        struct rtb_acc d = event_cost(EXC_ENTRY, EXC_ENTRY, EXC_ENTRY);
        d.entries = 1;
        add_event(&d);
        g.tot.retro++;
        g.fr[g.depth].tentative = 0;
        leave_exception(next);
        break;
    }
    case E_TENTATIVE:
        if (g.depth + 1 < MAX_DEPTH) {
            struct frame *t = &g.fr[++g.depth];
            memset(t, 0, sizeof *t);
            t->tentative = 1;
            t->ret = fall;
            t->calls = g.ncalls;
        }
        g.enter = IN_FLOW;
        break;
    default:
        g.enter = (uint8_t)transfer;
        break;
    }
}

/* ---- callbacks ---------------------------------------------------------------- */

static void on_exec(unsigned vcpu, void *ud)
{
    (void)vcpu;
    struct block *nb = ud;
    if (g.cur) {
        uint64_t n = g.icount - g.cur_start;
        if (n > g.cur->n) /* cannot happen: a block runs at most its instructions */
            n = g.cur->n;
        if (n)
            boundary(g.cur, (uint32_t)n, nb->start, 1);
    }
    g.cur = nb;
    g.cur_start = g.icount;
    g.gen++;
}

static void on_end(qemu_plugin_id_t id, void *ud)
{
    (void)id, (void)ud;
    if (g.cur) {
        uint64_t n = g.icount - g.cur_start;
        if (n > g.cur->n)
            n = g.cur->n;
        if (n)
            boundary(g.cur, (uint32_t)n, 0, 0);
        g.cur = NULL;
    }
    g.tot.acc = g.G;
    g.tot.instructions = g.idx;
    if (getenv("RTB_CYCLES_DEBUG"))
        fprintf(stderr, "rtb_cycles: %llu KiB of block descriptions, %llu dropped\n",
                (unsigned long long)(g.block_bytes / 1024), (unsigned long long)g.dropped);
    rtb_windows_close(g.win, &g.tot);
}

static const char *arg(int argc, char **argv, const char *key)
{
    size_t n = strlen(key);
    for (int i = 0; i < argc; i++)
        if (!strncmp(argv[i], key, n) && argv[i][n] == '=')
            return argv[i] + n + 1;
    return NULL;
}

RTB_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                   char **argv)
{
    char err[300], model[400];
    const char *map = arg(argc, argv, "map"), *log = arg(argc, argv, "log");
    const char *out = arg(argc, argv, "out"), *cpu = arg(argc, argv, "cpu");
    const char *shift = arg(argc, argv, "shift"), *tick = arg(argc, argv, "tick_ns");
    if (strcmp(info->target_name, "arm") != 0) {
        qemu_plugin_outs("rtb_cycles: an ARM (Cortex-M) guest only\n");
        return -1;
    }
    if (!map || !out || !cpu || (strcmp(cpu, "m3") && strcmp(cpu, "m4"))) {
        qemu_plugin_outs("rtb_cycles: map=PATH, out=PATH and cpu=m3|m4 are required\n");
        return -1;
    }
    g.cpu = !strcmp(cpu, "m4") ? RTB_M4 : RTB_M3;
    g.shift = shift ? (unsigned)atoi(shift) : 7;
    unsigned tick_ns = tick ? (unsigned)atoi(tick) : 40;
    if (tick_ns < 1 || tick_ns > 65536) {
        qemu_plugin_outs("rtb_cycles: tick_ns=1..65536\n");
        return -1;
    }
    if (g.shift < 1 || g.shift > 16 || rtb_map_load(map, &g.map, err, sizeof err) != 0) {
        qemu_plugin_outs(g.shift < 1 || g.shift > 16 ? "rtb_cycles: shift=1..16\n" : err);
        return -1;
    }
    snprintf(model, sizeof model,
             "cpu=%s shift=%u ticks_per_instruction=%u/%u entry=%d return=%d tail_chain=%d "
             "late_arrival_saving=%d refill=%d..%d(est %d) fp_lazy_stacking=%d "
             "computed_tail=%u source=%s",
             cpu, g.shift, 1u << g.shift, tick_ns, EXC_ENTRY, EXC_RETURN, EXC_TAIL,
             LATE_SAVING_ENTRY + LATE_SAVING_RETURN, RTB_P_LO, RTB_P_HI, RTB_P_EST, FP_STACK,
             g.map.computed_tail,
             g.cpu == RTB_M4 ? "ARM-DDI-0439B" : "ARM-DDI-0337I");
    g.win = rtb_windows_open(log, out, g.shift, tick_ns, g.map.computed_tail, model, err,
                             sizeof err);
    if (!g.win) {
        qemu_plugin_outs(err);
        return -1;
    }
    g.cap_min = UINT64_MAX;
    g.prev.cls = CLS_NONE;
    g.gen = 1; /* fired[] starts at 0: no instruction has fired */
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
    qemu_plugin_register_atexit_cb(id, on_end, NULL);
    return 0;
}
