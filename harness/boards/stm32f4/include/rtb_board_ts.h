/*
 * rtb_board_ts.h — the STM32F4's timestamp: one image, two counters, chosen
 * at start-up (counter.c) by whether the DWT cycle counter counts:
 *
 *  - DWT CYCCNT (silicon): CPU cycles at the 16 MHz HSI, zero flash wait
 *    states. Figures are printed as cycles.
 *  - TIM2 (QEMU, whose DWT reads 0 for ever): prescaler 2^N - 1 for
 *    -icount shift=N (127 at 7). QEMU's TIM2 counts virtual nanoseconds
 *    divided by PSC + 1, and each guest instruction is 2^N ns, so the count
 *    advances exactly once per instruction. Figures are printed as guest
 *    instructions.
 *
 * Both count up, 32 bits, one unit per count: the conversion to the
 * printed unit is the identity either way. What differs is the register's
 * address, which every stamp loads from rtb_board_counter_addr (set once
 * by counter.c before anything reads it), and the words the records carry
 * (rtb_board_ts_unit() and friends, counter.c): never guessed by Python.
 *
 * Extension to 64 bits as on the AN385 (boards/mps2-an385/include/
 * rtb_board_ts.h): the last count and a wrap count, updated with PRIMASK
 * set; on silicon TIM5's interrupt reads it four times per wrap (counter.c
 * says why not on QEMU).
 */
#ifndef RTB_BOARD_TS_H
#define RTB_BOARD_TS_H

#include <stdbool.h>
#include <stdint.h>

#include "rtb_board_config.h"
#include "stm32f4.h"

/* The -icount shift the image is built for (TIM2's prescaler on QEMU). */
#ifndef RTB_BOARD_ICOUNT_SHIFT
#define RTB_BOARD_ICOUNT_SHIFT 7
#endif
#if RTB_BOARD_ICOUNT_SHIFT < 1 || RTB_BOARD_ICOUNT_SHIFT > 16
#error "RTB_BOARD_ICOUNT_SHIFT: TIM2's prescaler is 2^shift - 1 (16 bits)"
#endif

/* The counter register every stamp reads (DWT CYCCNT or TIM2 CNT), and
 * whether it is the DWT's. Set by rtb_board_ts_init() (counter.c). */
extern volatile uint32_t *rtb_board_counter_addr;
extern bool rtb_board_counter_dwt;

/* What the records say about the counter (counter.c), decided at start-up. */
const char *rtb_board_ts_source(void);
const char *rtb_board_ts_unit(void);
const char *rtb_board_ts_unit_detail(void);
uint32_t rtb_board_ts_hz(void);
#define RTB_BOARD_TS_SOURCE rtb_board_ts_source()
#define RTB_BOARD_TS_UNIT rtb_board_ts_unit()
#define RTB_BOARD_TS_UNIT_DETAIL rtb_board_ts_unit_detail()
#define RTB_BOARD_TS_HZ rtb_board_ts_hz()
/* Microseconds in counter ticks (the ports' fine delays): 16 a µs on
 * silicon, 1000 / 2^shift on QEMU (7.8125 at shift 7), rounded up. */
uint32_t rtb_board_us_ticks(uint32_t us);
#define RTB_BOARD_US_TICKS(us) rtb_board_us_ticks(us)
/* Whether the one-shot timer (irqsrc.c) keeps time: on silicon only. */
#define RTB_BOARD_ONESHOT_AVAILABLE() rtb_board_counter_dwt

struct rtb_board_ts_state {
    uint32_t last; /* count at the latest read */
    uint32_t high; /* wraps seen */
};
extern struct rtb_board_ts_state rtb_board_ts_state;

/* The 32-bit count. Only for deltas under 2^32 ticks. */
static inline uint32_t rtb_board_ts_raw(void)
{
    return *rtb_board_counter_addr;
}

/* 64-bit timestamp. Any context. One assembly block of fixed length:
 * 3 instructions before the sampling load (save PRIMASK, mask, load the
 * extension state), RTB_BOARD_TS_POST after it (compare, the wrap as 0 or
 * -1 from the carry, add it, store both, restore PRIMASK), no branch. */
#define RTB_BOARD_TS_POST 5u

static inline uint64_t rtb_board_ts(void)
{
    uint32_t pm, now, last, high, wrap;
    volatile uint32_t *reg = rtb_board_counter_addr;
    __asm volatile("mrs %[pm], primask\n\t"
                   "cpsid i\n\t"
                   "ldrd %[last], %[high], [%[st]]\n\t"
                   "ldr %[now], [%[reg]]\n\t" /* the sample */
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
/* The raw 32-bit count in four instructions: the address of
 * rtb_board_counter_addr (movw, movt), the register's address from it, the
 * sampling load; nothing after it (both counters count up), nothing
 * masked. Listed in .rtb_stamps as on the AN385 (the load's address; the
 * kind, the instructions before and after it), so the window audit finds
 * the edges without disassembling. */
#define RTB_BOARD_STAMP_HEAD 3 /* movw, movt, ldr of the address */
#define RTB_BOARD_STAMP_TAIL 0
#define RTB_STAMP_STR2_(x) #x
#define RTB_STAMP_STR_(x) RTB_STAMP_STR2_(x)
#define RTB_BOARD_STAMP_ASM(kind)                                                    \
    "movw %[a], #:lower16:rtb_board_counter_addr\n\t"                                \
    "movt %[a], #:upper16:rtb_board_counter_addr\n\t"                                \
    "ldr %[a], [%[a]]\n\t"                                                            \
    "1: ldr %[v], [%[a]]\n\t"                                                         \
    ".pushsection .rtb_stamps, \"\", %%progbits\n\t"                                 \
    ".word 1b\n\t"                                                                    \
    ".word " kind " | (" RTB_STAMP_STR_(RTB_BOARD_STAMP_HEAD) " << 8) | ("           \
    RTB_STAMP_STR_(RTB_BOARD_STAMP_TAIL) " << 16)\n\t"                                \
    ".popsection\n\t"

/* A stamp run stores the count as read: it counts up, nothing to turn. */
#define RTB_BOARD_STAMP_RUN_VALUE(entry) (entry)

/* Ticks are the printed unit (one count per instruction or per cycle). */
static inline uint64_t rtb_board_ts_to_unit(uint64_t ticks)
{
    return ticks;
}
#define RTB_BOARD_INSTR_TICKS(n) ((uint32_t)(n))

#ifndef RTB_BOARD_NAME
#define RTB_BOARD_NAME "STM32F4 (Cortex-M4F, 16 MHz HSI, 0 wait states)"
#endif
#ifndef RTB_BOARD_CPU
#define RTB_BOARD_CPU "Cortex-M4F"
#endif

/* The known loop of method.busywait (cm_stamps.h), as on the AN385: exact
 * in instructions under QEMU; offered whatever the counter (the image
 * cannot know at build time), and on silicon method.busywait says that
 * it does not measure its length in cycles (a taken branch costs more). */
#define RTB_BOARD_HAS_KNOWN_WORK 1

/* rtb_board_stamp_start/_end, the stamps into slots and the known loop,
 * built on the stamp above: every Cortex-M board's. */
#include "cm_stamps.h"

#endif /* RTB_BOARD_TS_H */
