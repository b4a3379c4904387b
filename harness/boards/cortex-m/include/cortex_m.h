/*
 * cortex_m.h — the ARMv7-M core registers every Cortex-M board here uses
 * (NVIC, SCB, SysTick, DWT), defined here so that no vendor CMSIS header is
 * needed. Source: the ARMv7-M Architecture Reference Manual, B3. The same
 * addresses on every Cortex-M3/M4, whoever made the chip: a board's own
 * header (an385.h, stm32f4.h) adds only its peripherals and IRQ numbers.
 */
#ifndef CORTEX_M_H
#define CORTEX_M_H

#include <stdint.h>

#define CM_NVIC_ISER ((volatile uint32_t *)0xE000E100u) /* set-enable */
#define CM_NVIC_ICER ((volatile uint32_t *)0xE000E180u) /* clear-enable */
#define CM_NVIC_ISPR ((volatile uint32_t *)0xE000E200u) /* set-pending */
#define CM_NVIC_ICPR ((volatile uint32_t *)0xE000E280u) /* clear-pending */
#define CM_NVIC_IPR ((volatile uint8_t *)0xE000E400u)   /* priority, a byte each */
#define CM_NVIC_STIR (*(volatile uint32_t *)0xE000EF00u) /* software trigger: write an IRQ */

#define CM_SCB_ICSR (*(volatile uint32_t *)0xE000ED04u)
#define CM_SCB_VTOR (*(volatile uint32_t *)0xE000ED08u)
#define CM_SCB_CPACR (*(volatile uint32_t *)0xE000ED88u) /* FPU access (Cortex-M4F) */
#define CM_SCB_CFSR (*(volatile uint32_t *)0xE000ED28u)
#define CM_SCB_HFSR (*(volatile uint32_t *)0xE000ED2Cu)
#define CM_SCB_MMFAR (*(volatile uint32_t *)0xE000ED34u)
#define CM_SCB_BFAR (*(volatile uint32_t *)0xE000ED38u)

#define CM_SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define CM_SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define CM_SYST_CVR (*(volatile uint32_t *)0xE000E018u)

#define CM_DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define CM_DEMCR_TRCENA (1u << 24)
#define CM_DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define CM_DWT_CTRL_CYCCNTENA (1u << 0)
#define CM_DWT_CTRL_NOCYCCNT (1u << 25)
#define CM_DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)

/* NVIC helpers, by external IRQ number. Priorities are the raw 8-bit IPR
 * value (0 most urgent); a chip implements only its top bits (the MPS2
 * FPGA 3, an STM32F4 4; QEMU all 8), so a board says which multiples to use. */
static inline void cm_irq_set_priority(unsigned irq, uint8_t prio)
{
    CM_NVIC_IPR[irq] = prio;
}
static inline void cm_irq_enable(unsigned irq)
{
    CM_NVIC_ISER[irq >> 5] = 1u << (irq & 31u);
}
static inline void cm_irq_disable(unsigned irq)
{
    CM_NVIC_ICER[irq >> 5] = 1u << (irq & 31u);
    __asm volatile("dsb\n\tisb" ::: "memory"); /* takes effect before we go on */
}
static inline void cm_irq_clear_pending(unsigned irq)
{
    CM_NVIC_ICPR[irq >> 5] = 1u << (irq & 31u);
}

/* PRIMASK critical section: masks every configurable exception, nests. */
static inline uint32_t cm_irq_save(void)
{
    uint32_t primask;
    __asm volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask) : : "memory");
    return primask;
}
static inline void cm_irq_restore(uint32_t primask)
{
    __asm volatile("msr primask, %0" : : "r"(primask) : "memory");
}

#endif /* CORTEX_M_H */
