/*
 * cm_vectors.h — what a Cortex-M board's vector table (its startup.c) is
 * made of: the default handler every unowned vector is a weak alias of
 * (rtb_board_unexpected, which reports the exception through fault.c),
 * DEFAULT(name) to declare one such alias, and the entry type. Included by
 * the one file that holds the table: an alias must name a function of the
 * same translation unit, hence a static function in a header.
 */
#ifndef CM_VECTORS_H
#define CM_VECTORS_H

#include <stdint.h>

#include "cortex_m.h"

/* Reset entry (reset.c); the top of the main stack (the board's .ld), the
 * table's first entry. */
extern uint32_t __stack_top[];
void Reset_Handler(void);

/* The default handler: find the stacked frame (MSP or PSP, by EXC_RETURN
 * bit 2) without touching the stack, and report from C (fault.c). */
__attribute__((naked, used)) static void rtb_board_unexpected(void)
{
    __asm volatile("tst lr, #4\n\t"
                   "ite eq\n\t"
                   "mrseq r0, msp\n\t"
                   "mrsne r0, psp\n\t"
                   "mov r1, lr\n\t"
                   "b rtb_board_report_exception\n\t");
}

#define DEFAULT(name) void name(void) __attribute__((weak, alias("rtb_board_unexpected")))

/* Entry 0 is the initial stack pointer, the rest are handlers: a union keeps
 * that in ISO C (no object-to-function pointer cast). */
typedef union {
    void (*handler)(void);
    const void *stack;
} rtb_vector_t;

#define SYSTEM_VECTORS 16

/* The system handlers every table names, weak aliases of the report, and
 * the table's first 16 entries (the initial stack, reset, the system
 * exceptions; 7-10 and 13 reserved). */
#define CM_SYSTEM_HANDLERS                                                                   \
    DEFAULT(NMI_Handler);                                                                    \
    DEFAULT(HardFault_Handler);                                                              \
    DEFAULT(MemManage_Handler);                                                              \
    DEFAULT(BusFault_Handler);                                                               \
    DEFAULT(UsageFault_Handler);                                                             \
    DEFAULT(SVC_Handler);                                                                    \
    DEFAULT(DebugMon_Handler);                                                               \
    DEFAULT(PendSV_Handler);                                                                 \
    DEFAULT(SysTick_Handler)
#define CM_SYSTEM_VECTORS                                                                    \
    {.stack = __stack_top}, {Reset_Handler}, {NMI_Handler}, {HardFault_Handler},             \
        {MemManage_Handler}, {BusFault_Handler}, {UsageFault_Handler}, {0}, {0}, {0}, {0},   \
        {SVC_Handler}, {DebugMon_Handler}, {0}, {PendSV_Handler}, { SysTick_Handler }

#endif /* CM_VECTORS_H */
