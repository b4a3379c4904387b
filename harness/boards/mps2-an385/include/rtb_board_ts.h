/*
 * rtb_board_ts.h — the timestamp counter: a 32-bit hardware count extended
 * to a 64-bit, up-counting, wrap-safe timestamp, inline because its cost is
 * part of every sample (it is measured and subtracted by the caller).
 *
 * Source (compile option):
 *  - default: CMSDK TIMER0, free-running from 0xFFFFFFFF down at PCLK
 *    (25 MHz), read as ~VALUE so it counts up. Works under QEMU.
 *  - RTB_BOARD_COUNTER_DWT: the core's DWT CYCCNT, CPU cycles. For silicon
 *    only: QEMU does not model the DWT (CYCCNT reads 0 for ever).
 *
 * Extension: the 32-bit count wraps every 2^32 ticks (171.8 s at 25 MHz).
 * rtb_board_ts() keeps the last count and a wrap count ("high") and bumps
 * high when the count went backwards. The compare-and-update must not be torn
 * by an interrupt that also reads the counter (it would store a later "last"
 * and the interrupted reader would see a false wrap), so the read runs with
 * PRIMASK set, saved and restored, which makes it callable from tasks and
 * interrupts alike and delays an interrupt by at most the few instructions
 * inside. It needs one read per wrap period: TIMER0's wrap interrupt
 * (counter.c) guarantees that even if nobody reads.
 *
 * Cost (QEMU -icount, measured as two back-to-back reads): 10 instructions
 * from one sampling load to the next, which is what a window between two
 * reads subtracts; interrupts are masked for 8 of them (after CPSID, up to
 * MSR), so an interrupt arriving while a task reads the counter can wait
 * that long. The raw 32-bit read, rtb_board_ts_raw(), is 3 instructions
 * (address, load, invert) and masks nothing.
 */
#ifndef RTB_BOARD_TS_H
#define RTB_BOARD_TS_H

#include <stdint.h>

#include "an385.h"
#include "rtb_board_config.h"

/* Under QEMU -icount shift=N one instruction is 2^N ns of virtual time. The
 * image is built for one N (default 7, the smallest at which every delta
 * converts back to an exact instruction count: below it one 40 ns tick is
 * more than half an instruction); 0 means real hardware, where ticks are
 * printed as CPU cycles. The image cannot see N: run it with the one it was
 * built for (the demo's known-length loop check fails otherwise). */
#ifndef RTB_BOARD_ICOUNT_SHIFT
#if defined(RTB_BOARD_COUNTER_DWT)
#define RTB_BOARD_ICOUNT_SHIFT 0
#else
#define RTB_BOARD_ICOUNT_SHIFT 7
#endif
#endif
#if defined(RTB_BOARD_COUNTER_DWT) && RTB_BOARD_ICOUNT_SHIFT != 0
#error "DWT CYCCNT is for silicon (QEMU reads 0): build it with RTB_BOARD_ICOUNT_SHIFT=0"
#endif

#if defined(RTB_BOARD_COUNTER_DWT)
#define RTB_BOARD_TS_HZ AN385_SYSCLK_HZ /* CPU cycles */
#define RTB_BOARD_TS_NAME "DWT_CYCCNT"
#else
#define RTB_BOARD_TS_HZ AN385_SYSCLK_HZ /* PCLK ticks; PCLK = HCLK on the AN385 */
#define RTB_BOARD_TS_NAME "CMSDK_TIMER0"
#endif
#define RTB_BOARD_NS_PER_TICK (1000000000u / RTB_BOARD_TS_HZ) /* 40, exact */
/* Microseconds in counter ticks (the ports' fine delays): 25 a µs. */
#define RTB_BOARD_US_TICKS(us) ((us) * (RTB_BOARD_TS_HZ / 1000000u))
/* The one-shot timer (oneshot.c) keeps time, on the FPGA and in QEMU. */
#define RTB_BOARD_ONESHOT_AVAILABLE() 1

struct rtb_board_ts_state {
    uint32_t last; /* count at the latest read */
    uint32_t high; /* wraps seen */
};
extern struct rtb_board_ts_state rtb_board_ts_state;

/* The 32-bit hardware count, counting up. Only for deltas under 2^32 ticks. */
static inline uint32_t rtb_board_ts_raw(void)
{
#if defined(RTB_BOARD_COUNTER_DWT)
    return CM_DWT_CYCCNT;
#else
    return ~AN385_TIMER0->value;
#endif
}

/* 64-bit timestamp in RTB_BOARD_TS_HZ ticks. Any context.
 *
 * One assembly block, so the instructions around the sampling load are
 * fixed by construction, not by the compiler's schedule: 3 before it
 * (save PRIMASK, mask, load the extension state), then the load that
 * samples the counter, then RTB_BOARD_TS_POST after it (TIMER0: invert the
 * down-count; compare with the last count; the wrap as 0 or -1 from the
 * carry; add it to the wrap count; store both; restore PRIMASK), with no
 * branch, so every read costs the same. A computed instant (a timer's
 * expiry, irqsrc.c) is reported as the value a read sampling at that
 * instant would have returned, minus that tail: then subtracting the
 * calibrated read cost from an interval that starts there is right. */
#if defined(RTB_BOARD_COUNTER_DWT)
#define RTB_BOARD_TS_INVERT "mov %[now], %[now]\n\t" /* keep the tail's length: CYCCNT counts up */
#else
#define RTB_BOARD_TS_INVERT "mvns %[now], %[now]\n\t"
#endif
#define RTB_BOARD_TS_POST 6u /* instructions after the sampling load */

static inline uint64_t rtb_board_ts(void)
{
    uint32_t pm, now, last, high, wrap;
#if defined(RTB_BOARD_COUNTER_DWT)
    volatile uint32_t *reg = &CM_DWT_CYCCNT;
#else
    volatile uint32_t *reg = &AN385_TIMER0->value;
#endif
    __asm volatile("mrs %[pm], primask\n\t"
                   "cpsid i\n\t"
                   "ldrd %[last], %[high], [%[st]]\n\t"
                   "ldr %[now], [%[reg]]\n\t" /* the sample */
                   RTB_BOARD_TS_INVERT
                   "cmp %[now], %[last]\n\t"             /* carry clear: it wrapped */
                   "sbc %[wrap], %[wrap], %[wrap]\n\t"   /* 0, or -1 on a wrap */
                   "sub %[high], %[high], %[wrap]\n\t"
                   "strd %[now], %[high], [%[st]]\n\t"
                   "msr primask, %[pm]"
                   : [pm] "=&r"(pm), [now] "=&r"(now), [last] "=&r"(last), [high] "=&r"(high),
                     [wrap] "=&r"(wrap)
                   : [st] "r"(&rtb_board_ts_state), [reg] "r"(reg)
                   : "cc", "memory");
    return ((uint64_t)high << 32) | now;
}

/* ---- window stamps ------------------------------------------------------- */
/* The stamps that open and close a timing window (rtb/port.h
 * rtb_port_stamp_start/_end): the raw 32-bit count, three instructions
 * (the register's address in two, movw/movt; the sampling load; the
 * inversion of TIMER0's down-count, or a move of the same length for DWT),
 * nothing masked, so an interrupt is never held up by one. Intervals are
 * taken modulo 2^32 (a window is far shorter than a wrap: 171 s).
 *
 * Each read lists its sampling load in the ELF section .rtb_stamps (not
 * loaded: a non-allocated section the linker keeps), as two words: the
 * load's address and RTB_BOARD_STAMP_KIND(kind): kind 0 opens a window, 1
 * closes one; bits 8-15 the instructions before the load, 16-23 after it.
 * The window audit (rtbench audit) finds every window's edges there,
 * without disassembling anything. */
#define RTB_BOARD_STAMP_HEAD 2u /* movw, movt */
#define RTB_BOARD_STAMP_TAIL 1u /* mvns */
#define RTB_BOARD_STAMP_KIND(k) ((k) | (RTB_BOARD_STAMP_HEAD << 8) | (RTB_BOARD_STAMP_TAIL << 16))
#define RTB_STAMP_STR2_(x) #x
#define RTB_STAMP_STR_(x) RTB_STAMP_STR2_(x)
#if defined(RTB_BOARD_COUNTER_DWT)
#define RTB_BOARD_STAMP_REG_LO "0x1004"
#define RTB_BOARD_STAMP_REG_HI "0xE000"
#define RTB_BOARD_STAMP_FIX "mov %[v], %[v]\n\t" /* the same length as TIMER0's inversion */
#else
#define RTB_BOARD_STAMP_REG_LO "0x0004" /* TIMER0 VALUE, 0x40000004 */
#define RTB_BOARD_STAMP_REG_HI "0x4000"
#define RTB_BOARD_STAMP_FIX "mvns %[v], %[v]\n\t"
#endif
/* One stamp; `kind` 0 (opens) or 1 (closes), as a string of one digit. */
#define RTB_BOARD_STAMP_ASM(kind)                                                    \
    "movw %[a], #" RTB_BOARD_STAMP_REG_LO "\n\t"                                     \
    "movt %[a], #" RTB_BOARD_STAMP_REG_HI "\n\t"                                     \
    "1: ldr %[v], [%[a]]\n\t"                                                         \
    ".pushsection .rtb_stamps, \"\", %%progbits\n\t"                                 \
    ".word 1b\n\t"                                                                    \
    ".word " kind " | (" RTB_STAMP_STR_(RTB_BOARD_STAMP_HEAD) " << 8) | ("           \
    RTB_STAMP_STR_(RTB_BOARD_STAMP_TAIL) " << 16)\n\t"                                \
    ".popsection\n\t" RTB_BOARD_STAMP_FIX

/* A delta of ticks in the unit figures are printed in: instructions under
 * -icount (round(ticks * 40 / 2^N), i.e. (ticks * 5 + 8) >> 4 at N = 7; every
 * delta is within one tick, 0.31 instruction, of the exact count, so the
 * rounding recovers it), else CPU cycles. */
#if RTB_BOARD_ICOUNT_SHIFT > 0
#define RTB_BOARD_TS_UNIT "instructions"
static inline uint64_t rtb_board_ts_to_unit(uint64_t ticks)
{
    return (ticks * RTB_BOARD_NS_PER_TICK + (1u << (RTB_BOARD_ICOUNT_SHIFT - 1)))
           >> RTB_BOARD_ICOUNT_SHIFT;
}
/* n instructions in counter ticks, rounded (for a computed instant). */
#define RTB_BOARD_INSTR_TICKS(n) \
    ((((uint32_t)(n) << RTB_BOARD_ICOUNT_SHIFT) + RTB_BOARD_NS_PER_TICK / 2u) / RTB_BOARD_NS_PER_TICK)
#define RTB_STR2_(x) #x
#define RTB_STR_(x) RTB_STR2_(x)
#define RTB_BOARD_TS_UNIT_DETAIL                                                               \
    "guest instructions executed, exact: QEMU -icount shift=" RTB_STR_(RTB_BOARD_ICOUNT_SHIFT)  \
    " makes every instruction 2^shift ns of virtual time, the 25 MHz TIMER0 advances 2^shift/40" \
    " ticks per instruction and each interval is rounded back to instructions. Every"          \
    " instruction counts 1 (a divide as a move), and exception entry and return (the"          \
    " hardware stacking: 12 cycles each way on a Cortex-M3 or M4) count 0. Not CPU cycles, not time."
#else
#define RTB_BOARD_TS_UNIT "cycles"
static inline uint64_t rtb_board_ts_to_unit(uint64_t ticks)
{
    return ticks;
}
#define RTB_BOARD_INSTR_TICKS(n) ((uint32_t)(n)) /* about one cycle each on a Cortex-M3/M4 */
#define RTB_BOARD_TS_UNIT_DETAIL                                                        \
    "CPU core cycles (DWT CYCCNT at the core clock), on silicon: wait states, the"      \
    " pipeline and exception entry/return included"
#endif

/* Where the timestamp comes from, in words for the record. */
#if defined(RTB_BOARD_COUNTER_DWT)
#define RTB_BOARD_TS_SOURCE "DWT CYCCNT (CPU cycles), 32 bits extended to 64"
#else
#define RTB_BOARD_TS_SOURCE "CMSDK TIMER0 at 25 MHz (PCLK), 32 bits extended to 64"
#endif
/* A stamp run stores TIMER0 as read (kcall.S): a down-count, inverted. */
#if defined(RTB_BOARD_COUNTER_DWT)
#define RTB_BOARD_STAMP_RUN_VALUE(entry) (entry)
#else
#define RTB_BOARD_STAMP_RUN_VALUE(entry) (~(entry))
#endif

/* The board's name and core (board.cmake defines them: the AN386 reuses
 * this code with a Cortex-M4). */
#ifndef RTB_BOARD_NAME
#define RTB_BOARD_NAME "MPS2 AN385 (Cortex-M3, 25 MHz)"
#endif
#ifndef RTB_BOARD_CPU
#define RTB_BOARD_CPU "Cortex-M3"
#endif

/* A piece of work of known cost for method.busywait (cm_stamps.h): exact
 * under -icount; on silicon the branch's pipeline refill makes it longer in
 * cycles, so it is only offered in instructions. */
#if RTB_BOARD_ICOUNT_SHIFT > 0
#define RTB_BOARD_HAS_KNOWN_WORK 1
#endif

/* rtb_board_stamp_start/_end, the stamps into slots and the known loop,
 * built on the stamp above: every Cortex-M board's. */
#include "cm_stamps.h"

#endif /* RTB_BOARD_TS_H */
