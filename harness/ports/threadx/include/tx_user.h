/*
 * tx_user.h — ThreadX 6.4 for rtbench on the MPS2 AN385 (Cortex-M3,
 * 25 MHz, port cortex_m3/gnu). ThreadX reads it when the kernel and every
 * file including tx_api.h are built with TX_INCLUDE_USER_DEFINE_FILE
 * (port.cmake does that).
 *
 * ThreadX as shipped, with its parameter checks off, as the FreeRTOS port
 * builds FreeRTOS with configASSERT off. Every choice that
 * changes a measured figure is said here with its reason; the ones marked
 * [sheet] are in the session record's target facts (port_sys.c), which the
 * data sheet and the kernel comparison sheet print.
 */
#ifndef TX_USER_H
#define TX_USER_H

/* ---- Checks --------------------------------------------------------------
 * RTB_THREADX_ERROR_CHECKING (CMake option, default OFF) [sheet]. Off:
 * TX_DISABLE_ERROR_CHECKING maps every tx_* call to the kernel's _tx_*
 * function; on: to its _txe_* wrapper, which checks the parameters and the
 * caller's context first. Vendors publish with the checks off (Thread-
 * Metric's own ThreadX port defines TX_DISABLE_ERROR_CHECKING), as FreeRTOS
 * figures are published with configASSERT off. */
#if !defined(RTB_THREADX_ERROR_CHECKING) || !RTB_THREADX_ERROR_CHECKING
#define TX_DISABLE_ERROR_CHECKING
#endif

/* A new thread's stack is filled with a pattern (ThreadX's default;
 * TX_DISABLE_STACK_FILLING would turn it off) [sheet]: the FreeRTOS port
 * fills its stacks too (INCLUDE_uxTaskGetStackHighWaterMark), so the
 * create rows of both kernels include a 2 KiB fill. */

/* ---- Scheduling ----------------------------------------------------------
 * 32 priorities (0 most urgent). rtbench's 1..31 map to 31..1, so the
 * timer thread keeps 0, above every benchmark task, as the FreeRTOS timer
 * daemon is above them there [sheet]. Threads are created without a time
 * slice (TX_NO_TIME_SLICE) [sheet: time slicing off], so equal-priority
 * threads switch only when the running one blocks or relinquishes.
 * Preemption-threshold stays compiled in (ThreadX's default): each thread's
 * threshold is its priority, and the preemption lock raises it to 0 [sheet]. */
#define TX_MAX_PRIORITIES 32
#define TX_TIMER_THREAD_PRIORITY 0
#define TX_TIMER_THREAD_STACK_SIZE 1024

/* The kernel tick, for applications (ThreadX's kernel never reads it: the
 * port's low-level init programs SysTick, lowlevel.c) [sheet]. */
#ifndef RTB_THREADX_TICK_HZ
#define RTB_THREADX_TICK_HZ 1000
#endif
#define TX_TIMER_TICKS_PER_SECOND ((ULONG)RTB_THREADX_TICK_HZ)

/* Left at ThreadX's defaults, named so the sheet can say so: timer
 * expirations are processed in the timer thread (TX_TIMER_PROCESS_IN_ISR
 * not defined), notify callbacks are compiled in, interrupts are masked
 * with PRIMASK (TX_PORT_USE_BASEPRI not defined), the kernel is
 * interruptable (TX_NOT_INTERRUPTABLE not defined), no WFI in the idle
 * loop (TX_ENABLE_WFI not defined: under QEMU a WFI moves virtual time,
 * boards/mps2-an385/README.md), no event trace, no performance info. */

#endif /* TX_USER_H */
