/*
 * startup.c — reset entry and vector table of the MPS2 AN385 (Cortex-M3),
 * and of the AN386 (the same image with a Cortex-M4F: the FPU is enabled
 * first in a hard-float build).
 *
 * The table has the 16 system entries and the AN385's 32 external
 * interrupts. Every handler (an385_vectors.h) is a weak alias of
 * rtb_board_unexpected() below, which reports the exception on the console
 * (fault.c) and ends QEMU with a non-zero status; code that owns an
 * exception defines the name (the FreeRTOS port's handlers are mapped to
 * SVC_Handler, PendSV_Handler and SysTick_Handler in FreeRTOSConfig.h).
 * Written in C: a Cortex-M needs no assembly to start, the core loads SP
 * and PC from the table itself.
 */
#include <stdint.h>

#include "an385.h"
#include "an385_vectors.h"
#include "rtb_board.h"

/* Linker script symbols (an385.ld). */
extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_top[];

int main(void);
void rtb_board_unexpected(void);

/* The default handler: find the stacked frame (MSP or PSP, by EXC_RETURN
 * bit 2) without touching the stack, and report from C (fault.c). Here, not
 * in fault.c, because an alias must name a function of the same file. */
__attribute__((naked)) void rtb_board_unexpected(void)
{
    __asm volatile("tst lr, #4\n\t"
                   "ite eq\n\t"
                   "mrseq r0, msp\n\t"
                   "mrsne r0, psp\n\t"
                   "mov r1, lr\n\t"
                   "b rtb_board_report_exception\n\t");
}

#define DEFAULT(name) void name(void) __attribute__((weak, alias("rtb_board_unexpected")))
DEFAULT(NMI_Handler);
DEFAULT(HardFault_Handler);
DEFAULT(MemManage_Handler);
DEFAULT(BusFault_Handler);
DEFAULT(UsageFault_Handler);
DEFAULT(SVC_Handler);
DEFAULT(DebugMon_Handler);
DEFAULT(PendSV_Handler);
DEFAULT(SysTick_Handler);
DEFAULT(UART0RX_IRQHandler);
DEFAULT(UART0TX_IRQHandler);
DEFAULT(UART1RX_IRQHandler);
DEFAULT(UART1TX_IRQHandler);
DEFAULT(UART2RX_IRQHandler);
DEFAULT(UART2TX_IRQHandler);
DEFAULT(GPIO0ALL_IRQHandler);
DEFAULT(GPIO1ALL_IRQHandler);
DEFAULT(TIMER0_IRQHandler);
DEFAULT(TIMER1_IRQHandler);
DEFAULT(DUALTIMER_IRQHandler);
DEFAULT(SPI_IRQHandler);
DEFAULT(UARTOVF_IRQHandler);
DEFAULT(ETHERNET_IRQHandler);
DEFAULT(I2S_IRQHandler);
DEFAULT(TSC_IRQHandler);
DEFAULT(GPIO2_IRQHandler);
DEFAULT(GPIO3_IRQHandler);
DEFAULT(UART3RX_IRQHandler);
DEFAULT(UART3TX_IRQHandler);
DEFAULT(UART4RX_IRQHandler);
DEFAULT(UART4TX_IRQHandler);
DEFAULT(SPI2_IRQHandler);
DEFAULT(SPI3_4_IRQHandler);
DEFAULT(GPIO0_0_IRQHandler);
DEFAULT(GPIO0_1_IRQHandler);
DEFAULT(GPIO0_2_IRQHandler);
DEFAULT(GPIO0_3_IRQHandler);
DEFAULT(GPIO0_4_IRQHandler);
DEFAULT(GPIO0_5_IRQHandler);
DEFAULT(GPIO0_6_IRQHandler);
DEFAULT(GPIO0_7_IRQHandler);

/* Entry 0 is the initial stack pointer, the rest are handlers: a union keeps
 * that in ISO C (no object-to-function pointer cast). */
typedef union {
    void (*handler)(void);
    const void *stack;
} rtb_vector_t;

#define SYSTEM_VECTORS 16
__attribute__((section(".vectors"), used))
const rtb_vector_t rtb_board_vectors[SYSTEM_VECTORS + AN385_IRQ_COUNT] = {
    { .stack = __stack_top },
    { Reset_Handler },
    { NMI_Handler },
    { HardFault_Handler },
    { MemManage_Handler },
    { BusFault_Handler },
    { UsageFault_Handler },
    { 0 }, { 0 }, { 0 }, { 0 }, /* 7-10 reserved */
    { SVC_Handler },
    { DebugMon_Handler },
    { 0 }, /* 13 reserved */
    { PendSV_Handler },
    { SysTick_Handler },
    [SYSTEM_VECTORS + AN385_IRQ_UART0_RX] = { UART0RX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART0_TX] = { UART0TX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART1_RX] = { UART1RX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART1_TX] = { UART1TX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART2_RX] = { UART2RX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART2_TX] = { UART2TX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO0] = { GPIO0ALL_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO1] = { GPIO1ALL_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_TIMER0] = { TIMER0_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_TIMER1] = { TIMER1_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_DUALTIMER] = { DUALTIMER_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_SPI] = { SPI_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART_OVF] = { UARTOVF_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_ETHERNET] = { ETHERNET_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_I2S] = { I2S_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_TOUCHSCREEN] = { TSC_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO2] = { GPIO2_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO3] = { GPIO3_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART3_RX] = { UART3RX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART3_TX] = { UART3TX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART4_RX] = { UART4RX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART4_TX] = { UART4TX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_SPI2] = { SPI2_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_SPI3_4] = { SPI3_4_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO0_0 + 0] = { GPIO0_0_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO0_0 + 1] = { GPIO0_1_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO0_0 + 2] = { GPIO0_2_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO0_0 + 3] = { GPIO0_3_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO0_0 + 4] = { GPIO0_4_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO0_0 + 5] = { GPIO0_5_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO0_0 + 6] = { GPIO0_6_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO0_0 + 7] = { GPIO0_7_IRQHandler },
};

/* Copy .data from its load address, zero .bss, run main. main normally ends
 * the program through rtb_board_exit(); if it returns, its value is the exit
 * status. Word loops: the linker script aligns both sections to 4. (GCC may
 * turn them into memcpy/memset calls; libc.c's use no .data or .bss.) */
void Reset_Handler(void)
{
#if defined(__ARM_FP)
    /* A hard-float build (the AN386's Cortex-M4F): full access to the FPU
     * (CPACR CP10, CP11) before any code may use it. */
    AN385_SCB_CPACR |= 0xFu << 20;
    __asm volatile("dsb\n\tisb" ::: "memory");
#endif
    const uint32_t *src = __data_load;
    for (uint32_t *dst = __data_start; dst < __data_end;)
        *dst++ = *src++;
    for (uint32_t *dst = __bss_start; dst < __bss_end;)
        *dst++ = 0;
    /* The table is linked at 0, where VTOR points after reset; set it anyway
     * so a boot loader that left VTOR elsewhere does not matter. */
    AN385_SCB_VTOR = (uint32_t)(uintptr_t)rtb_board_vectors;
    rtb_board_exit(main());
}
