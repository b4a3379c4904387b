/*
 * cm_stamps.h — the window stamps of every Cortex-M board, built on the
 * board's RTB_BOARD_STAMP_ASM(kind) (its rtb_board_ts.h: the instructions
 * that read its counter, the load listed in .rtb_stamps): the opening and
 * closing stamps, the stamps stored into slots, and the known loop of
 * method.busywait where the board offers it (RTB_BOARD_HAS_KNOWN_WORK).
 * Included by a board's rtb_board_ts.h after its stamp.
 */
#ifndef CM_STAMPS_H
#define CM_STAMPS_H

#include <stdint.h>

static inline uint32_t rtb_board_stamp_start(void)
{
    uint32_t a, v;
    __asm volatile(RTB_BOARD_STAMP_ASM("0") : [a] "=&r"(a), [v] "=r"(v) : : "memory");
    return v;
}

static inline uint32_t rtb_board_stamp_end(void)
{
    uint32_t a, v;
    __asm volatile(RTB_BOARD_STAMP_ASM("1") : [a] "=&r"(a), [v] "=r"(v) : : "memory");
    return v;
}

/* A stamp stored into a slot another task or the interrupted code reads
 * (an interrupt handler's stamps: rtb/irq_isr.h). The slot's address is
 * built and the value stored by instructions the asm lists in
 * .rtb_stamps as kind 3, rtbench's own, wherever they sit: the window
 * audit counts them as rtbench's even inside a handler written in the
 * kernel's convention. An opening stamp builds the address before it (out
 * of the window it opens), a closing one after it. */
#define RTB_BOARD_MARK_OURS(label) \
    ".pushsection .rtb_stamps, \"\", %%progbits\n\t.word " label ", 3\n\t.popsection\n\t"
#define RTB_BOARD_SLOT_ADDR                                        \
    "3: movw %[s], #:lower16:%c[slot]\n\t" RTB_BOARD_MARK_OURS("3b") \
    "4: movt %[s], #:upper16:%c[slot]\n\t" RTB_BOARD_MARK_OURS("4b")
#define RTB_BOARD_SLOT_STORE "5: str %[v], [%[s]]\n\t" RTB_BOARD_MARK_OURS("5b")
#define RTB_BOARD_STAMP_OPEN_TO(lvalue)                                                   \
    do {                                                                              \
        uint32_t a_, v_, s_;                                                          \
        __asm volatile(RTB_BOARD_SLOT_ADDR RTB_BOARD_STAMP_ASM("0") RTB_BOARD_SLOT_STORE \
                       : [a] "=&r"(a_), [v] "=&r"(v_), [s] "=&r"(s_)                  \
                       : [slot] "i"(&(lvalue))                                        \
                       : "memory");                                                   \
    } while (0)
#define RTB_BOARD_STAMP_CLOSE_TO(lvalue)                                                  \
    do {                                                                              \
        uint32_t a_, v_, s_;                                                          \
        __asm volatile(RTB_BOARD_STAMP_ASM("1") "\n\t" RTB_BOARD_SLOT_ADDR RTB_BOARD_SLOT_STORE \
                       : [a] "=&r"(a_), [v] "=&r"(v_), [s] "=&r"(s_)                  \
                       : [slot] "i"(&(lvalue))                                        \
                       : "memory");                                                   \
    } while (0)

#ifdef RTB_BOARD_HAS_KNOWN_WORK
/* A piece of work of known cost: a loop of exactly 1 + 2 * loops
 * instructions (a move, then a subtract and a branch per pass). */
#define RTB_BOARD_KNOWN_LOOPS 1000u
#define RTB_BOARD_KNOWN_WORK()                                              \
    do {                                                                    \
        uint32_t n_;                                                        \
        __asm volatile("mov %0, %1\n\t"                                     \
                       "1: subs %0, %0, #1\n\t"                             \
                       "bne 1b"                                             \
                       : "=&r"(n_) : "i"(RTB_BOARD_KNOWN_LOOPS) : "cc");    \
    } while (0)
#define RTB_BOARD_KNOWN_WORK_COST (1u + 2u * RTB_BOARD_KNOWN_LOOPS)
#endif

#endif /* CM_STAMPS_H */
