/*
 * rtb_rtx5_device.h — the CMSIS device header of the board's core, as a
 * device pack would give it (RTE_Components.h names it): the core's
 * exception numbers, its configuration macros and the CMSIS core header.
 * Only RTX5's kernel and os_systick.c include it; the port's own files use
 * the board's register names (cortex_m.h), so the two never meet.
 *
 * port.cmake defines RTB_RTX5_CORE_CM4 for a Cortex-M4F board
 * (RTB_BOARD_CORE), else the core is a Cortex-M3.
 */
#ifndef RTB_RTX5_DEVICE_H
#define RTB_RTX5_DEVICE_H

#include <stdint.h>

typedef enum IRQn {
    NonMaskableInt_IRQn = -14,
    HardFault_IRQn = -13,
    MemoryManagement_IRQn = -12,
    BusFault_IRQn = -11,
    UsageFault_IRQn = -10,
    SVCall_IRQn = -5,
    DebugMonitor_IRQn = -4,
    PendSV_IRQn = -2,
    SysTick_IRQn = -1,
    FIRST_DEVICE_IRQn = 0 /* the board's lines: rtb_board.h, never through CMSIS here */
} IRQn_Type;

/* 3 priority bits, as the MPS2 FPGA images have (QEMU keeps 8: RTX5 and
 * os_systick.c only ever ask for the lowest priority, which is the same
 * 0xFF/0xE0 pattern either way). */
#define __NVIC_PRIO_BITS 3U
#define __Vendor_SysTickConfig 0U
#define __VTOR_PRESENT 1U
#define __MPU_PRESENT 0U

#ifdef RTB_RTX5_CORE_CM4
#define __CM4_REV 0x0001U
#define __FPU_PRESENT 1U
#include "core_cm4.h"
#else
#define __CM3_REV 0x0201U
#include "core_cm3.h"
#endif

/* os_systick.c programs SysTick from it; main.c sets it from the board
 * before osKernelStart (QEMU's SysTick clock is the board's to say). */
extern uint32_t SystemCoreClock;

#endif
