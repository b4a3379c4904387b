/*
 * vtor_prelude.h — force-included (-include) before rtos-benchmark's
 * src/zephyr/arch/arm/cortex_m/arch_util.c, and only there.
 *
 * bench_timer_isr_set() copies the 16 system vectors to a RAM table and
 * writes its address to VTOR masked with CMSIS's SCB_VTOR_TBLOFF_Msk.
 * Zephyr's device header for this SoC says core revision 0
 * (cmsis_core_m_defaults.h: __CM3_REV 0), for which CMSIS's core_cm3.h
 * gives TBLOFF as bits 28:7 and the table's region (code or SRAM) as
 * TBLBASE, bit 29, apart. The mask drops bit 29, so a table at 0x20000200
 * (SRAM) becomes 0x200 (code): the next PendSV fetches its vector from the
 * middle of the program and the core locks up. The register itself takes
 * bits 29:7 on that revision (and 31:7 on later ones; QEMU stores 31:7):
 * this file includes CMSIS first (its include guard makes arch_util.c's
 * own #include a no-op) and gives the mask bits 29:7, TBLOFF and TBLBASE
 * together, so the address written is the table's. Nothing of
 * rtos-benchmark is edited.
 */
#ifndef RTOSBENCH_VTOR_PRELUDE_H
#define RTOSBENCH_VTOR_PRELUDE_H

#include <cmsis_core.h>

#undef SCB_VTOR_TBLOFF_Msk
#define SCB_VTOR_TBLOFF_Msk (0x7FFFFFUL << SCB_VTOR_TBLOFF_Pos) /* bits 29:7 */

#endif
