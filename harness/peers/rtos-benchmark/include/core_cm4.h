/*
 * core_cm4.h — the CMSIS names rtos-benchmark's SysTick timer
 * (src/freertos/timer/bench_cortex_m_systick.c) uses, for the AN385's
 * Cortex-M3: SysTick and SCB->VTOR sit at the same addresses with the same
 * layout on the M3 and the M4. Written for this peer (not ARM's CMSIS file):
 * only those registers, their bit masks and two barriers.
 */
#ifndef RTOSBENCH_CORE_CM4_H
#define RTOSBENCH_CORE_CM4_H

#include <stdint.h>

typedef struct {
    volatile uint32_t CTRL;  /* 0xE000E010 SYST_CSR */
    volatile uint32_t LOAD;  /* 0xE000E014 SYST_RVR */
    volatile uint32_t VAL;   /* 0xE000E018 SYST_CVR: counts down */
    volatile const uint32_t CALIB;
} SysTick_Type;

typedef struct {
    volatile const uint32_t CPUID; /* 0xE000ED00 */
    volatile uint32_t ICSR;
    volatile uint32_t VTOR;        /* 0xE000ED08 */
} SCB_Type;

#define SysTick ((SysTick_Type *)0xE000E010UL)
#define SCB ((SCB_Type *)0xE000ED00UL)

#define SysTick_CTRL_ENABLE_Msk (1UL << 0)
#define SysTick_CTRL_TICKINT_Msk (1UL << 1)
#define SysTick_CTRL_CLKSOURCE_Msk (1UL << 2) /* the core clock (25 MHz here) */
#define SCB_VTOR_TBLOFF_Msk (0x1FFFFFFUL << 7) /* ARMv7-M: TBLOFF is bits 29:7 */

#define __aligned(x) __attribute__((aligned(x)))

static inline void __DSB(void)
{
    __asm volatile("dsb 0xF" ::: "memory");
}

static inline void __ISB(void)
{
    __asm volatile("isb 0xF" ::: "memory");
}

#endif /* RTOSBENCH_CORE_CM4_H */
