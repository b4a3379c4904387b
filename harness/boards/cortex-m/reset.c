/*
 * reset.c — the reset entry of every Cortex-M board here: the FPU enabled
 * in a hard-float build, .data copied, .bss zeroed, VTOR at the board's
 * table (its startup.c), main() run. Written in C: a Cortex-M needs no
 * assembly to start, the core loads SP and PC from the table itself.
 */
#include <stdint.h>

#include "cm_vectors.h"
#include "rtb_board.h"

/* Linker script symbols (the board's .ld). */
extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];
extern const rtb_vector_t rtb_board_vectors[];

int main(void);

/* Copy .data from its load address, zero .bss, run main. main normally ends
 * the program through rtb_board_exit(); if it returns, its value is the exit
 * status. Word loops: the linker script aligns both sections to 4. (GCC may
 * turn them into memcpy/memset calls; libc.c's use no .data or .bss.) */
void Reset_Handler(void)
{
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
