/*
 * lowlevel.c — ThreadX's low-level initialisation for a Cortex-M board, written
 * for this board rather than taken from ThreadX's example
 * (ports/cortex_m3/gnu/example_build/tx_initialize_low_level.S assumes a
 * 6 MHz clock, its own vector table and linker symbols).
 *
 * _tx_initialize_low_level() is called by tx_kernel_enter() before
 * tx_application_define(), with the board already up (rtb_board_init:
 * vectors at VTOR, console, counter). It masks interrupts until the
 * scheduler starts (ThreadX unmasks them in _tx_thread_schedule), records
 * the system stack and the first free RAM address, programs SysTick for
 * the kernel tick and sets the system handlers' priorities.
 *
 * Exception priorities (raw 8-bit values, 0 most urgent; QEMU implements
 * all 8 bits, the FPGA 3):
 *   PendSV   0xFF  ThreadX switches threads in PendSV, and its idle loop
 *                  runs inside the PendSV handler: it must be the least
 *                  urgent exception, so everything below preempts it.
 *   SVCall   0xFF  unused by the cortex_m3 port (Thread-Metric's interrupt
 *                  tests trap with SVC: as ThreadX's example sets it).
 *   SysTick  0xC0  the tick: 6 << 5, strictly above PendSV even with 3
 *                  priority bits (else the tick would stop while idle).
 * The board's interrupts: TIMER0 wrap 0xE0 (counter.c), and the interrupt
 * source and the one-shot at RTB_THREADX_IRQ_PRIORITY (5 << 5).
 */
#include "tx_api.h"
#include "tx_initialize.h"
#include "tx_thread.h"
#include "tx_timer.h"

#include "cortex_m.h"
#include "rtb_board.h"

#ifndef RTB_THREADX_TICK_HZ
#error "RTB_THREADX_TICK_HZ: the kernel tick (tx_user.h)"
#endif

#define SCB_SHPR2 (*(volatile uint32_t *)0xE000ED1Cu) /* SVCall in bits 31:24 */
#define SCB_SHPR3 (*(volatile uint32_t *)0xE000ED20u) /* PendSV 23:16, SysTick 31:24 */

extern uint32_t __noinit_end[];             /* the board's .ld: the first RAM byte nothing uses */
extern const uint32_t rtb_board_vectors[];  /* startup.c: [0] is the initial stack */

VOID _tx_initialize_low_level(VOID)
{
    __asm volatile("cpsid i" ::: "memory");
    _tx_initialize_unused_memory = (VOID *)__noinit_end;
    _tx_thread_system_stack_ptr = (VOID *)(uintptr_t)rtb_board_vectors[0];

    CM_SYST_CSR = 0;
    /* The clock SysTick really counts, which the board may only know at run
     * time (rtb_board_init ran first, in main). 24 bits: at 168 MHz down to
     * 11 Hz, at 25 MHz 2 Hz. */
    CM_SYST_RVR = rtb_board_systick_hz() / RTB_THREADX_TICK_HZ - 1u;
    CM_SYST_CVR = 0;
    CM_SYST_CSR = 7u; /* core clock, interrupt, enable */

    SCB_SHPR2 = (SCB_SHPR2 & 0x00FFFFFFu) | (0xFFu << 24);
    SCB_SHPR3 = (SCB_SHPR3 & 0x0000FFFFu) | (0xC0u << 24) | (0xFFu << 16);
}

/* The tick's vector is ThreadX's own _tx_timer_interrupt (tx_timer_interrupt.S),
 * with no function of the port's before it: port.cmake defines
 * SysTick_Handler as that symbol at link time. It can be the vector itself:
 * it returns with BX LR, saving LR (the EXC_RETURN) and keeping the stack
 * 8-byte aligned around the C calls it makes, and it uses only the
 * registers the exception entry saved. (ThreadX's example enters it from
 * a SysTick_Handler of its own, push, call, pop, return, with room for
 * TX_ENABLE_EXECUTION_CHANGE_NOTIFY's calls, which this build leaves off.) */
