/*
 * reset.c — the reset entry of every Cortex-M board here: the state a
 * reset gives made sure of, the FPU enabled in a hard-float build, .data
 * copied, .bss zeroed, VTOR at the board's table (its startup.c), main()
 * run. In C but for its first instructions: a Cortex-M loads SP and PC
 * from the table itself.
 *
 * A debugger may start the image without a reset (rtbench's GDB loader
 * sets SP and PC from the table and continues: docs/boards.md), from
 * wherever the last run stopped: in a handler (a fault), with interrupts
 * masked, SysTick running, lines enabled or pending. So the entry leaves
 * handler mode by an exception return onto itself, and the C part
 * disables and clears every interrupt and SysTick and unmasks, as after a
 * reset. After a real reset none of this changes anything.
 */
#include <stdint.h>

#include "cm_vectors.h"
#include "rtb_board.h"

/* Linker script symbols (the board's .ld). */
extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];
extern const rtb_vector_t rtb_board_vectors[];

int main(void);
void rtb_board_reset_c(void);

/* In thread mode: the main stack at the table's initial value, CONTROL 0
 * (a debugger's $sp may have been the process stack), then C. In handler
 * mode: a frame on the main stack whose return address is this entry,
 * xPSR only the Thumb bit, and an exception return to thread mode on the
 * main stack: the active exception ends and the entry runs again, in
 * thread mode. */
__attribute__((naked)) void Reset_Handler(void)
{
    __asm volatile("mrs r0, ipsr\n\t"
                   "cbz r0, 1f\n\t"
                   "ldr r0, =Reset_Handler\n\t"
                   "bic r0, r0, #1\n\t"
                   "mov r1, #0x01000000\n\t"
                   "mov r2, sp\n\t"
                   "bic r2, r2, #7\n\t" /* 8-aligned: xPSR says no padding */
                   "sub r2, r2, #32\n\t"
                   "mov sp, r2\n\t"
                   "str r0, [sp, #24]\n\t" /* the return address */
                   "str r1, [sp, #28]\n\t" /* xPSR */
                   "ldr lr, =0xFFFFFFF9\n\t" /* to thread mode, main stack */
                   "bx lr\n\t"
                   "1: ldr r0, =rtb_board_vectors\n\t"
                   "ldr r0, [r0]\n\t"
                   "msr msp, r0\n\t"
                   "movs r0, #0\n\t"
                   "msr control, r0\n\t"
                   "isb\n\t"
                   "b rtb_board_reset_c\n\t"
                   ".ltorg");
}

/* What a reset leaves: every external line disabled and not pending,
 * SysTick off, PendSV and SysTick not pending, interrupts unmasked. */
static void as_after_reset(void)
{
    CM_SYST_CSR = 0;
    for (unsigned i = 0; i < (RTB_BOARD_IRQ_COUNT + 31u) / 32u; i++) {
        CM_NVIC_ICER[i] = 0xFFFFFFFFu;
        CM_NVIC_ICPR[i] = 0xFFFFFFFFu;
    }
    CM_SCB_ICSR = (1u << 27) | (1u << 25); /* PENDSVCLR, PENDSTCLR */
    __asm volatile("dsb\n\tisb\n\tcpsie i" ::: "memory");
}

/* Copy .data from its load address, zero .bss, run main. main normally ends
 * the program through rtb_board_exit(); if it returns, its value is the exit
 * status. Word loops: the linker script aligns both sections to 4. (GCC may
 * turn them into memcpy/memset calls; libc.c's use no .data or .bss.) */
void rtb_board_reset_c(void)
{
    as_after_reset();
#if defined(__ARM_FP)
    /* A hard-float build (a Cortex-M4F): full access to the FPU
     * (CPACR CP10, CP11) before any code may use it. */
    CM_SCB_CPACR |= 0xFu << 20;
    __asm volatile("dsb\n\tisb" ::: "memory");
#endif
    const uint32_t *src = __data_load;
    for (uint32_t *dst = __data_start; dst < __data_end;)
        *dst++ = *src++;
    for (uint32_t *dst = __bss_start; dst < __bss_end;)
        *dst++ = 0;
    /* The table is linked where VTOR points after reset (the AN385's 0, an
     * STM32's flash at 0x08000000, aliased at 0); set it anyway so a boot
     * loader or debugger that left VTOR elsewhere does not matter. */
    CM_SCB_VTOR = (uint32_t)(uintptr_t)rtb_board_vectors;
    rtb_board_exit(main());
}
