/*
 * fsl_debug_console.h — the NXP SDK's debug console, as much of it as
 * rtos-benchmark's FreeRTOS port uses: PRINTF, to the AN385's UART0
 * (console.c). The SDK's header also brings in the C basics its users rely
 * on (bool in bench_interrupt_latency_test.c), so this one does too.
 */
#ifndef RTOSBENCH_FSL_DEBUG_CONSOLE_H
#define RTOSBENCH_FSL_DEBUG_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* printf to UART0: %[-0][width][l|ll]{d,i,u,x,c,s,%}; newlib-nano's printf
 * has no long long, which bench_stats_report_line prints. */
int rtosbench_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define PRINTF rtosbench_printf

#endif
