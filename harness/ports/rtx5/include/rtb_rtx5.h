/*
 * rtb_rtx5.h — what the RTX5 port's files share: the priority map,
 * timeouts, errors, static memory and the exit statuses of the port's
 * failure paths.
 *
 * Every object is static: its control block (cb_mem), a thread's stack
 * (stack_mem) and a queue's storage (mq_mem) are the port's arrays, given
 * to osXxxNew in its attributes, so no create call allocates.
 *
 * Every call from a thread is RTX5's own function (osSemaphoreRelease ...),
 * which enters the kernel with SVC. Never call it with interrupts masked:
 * RTX5 then takes its interrupt path silently (EMBEDDED.md, RTX5).
 */
#ifndef RTB_RTX5_H
#define RTB_RTX5_H

#include <rtb/port.h>
#include <stdint.h>

#include "cmsis_os2.h"
#include "rtx_os.h"
#include "RTX_Config.h" /* OS_TICK_FREQ and the other settings, as compiled */
#include "rtb_board.h"

/* Exit statuses of the port's failure paths; the board uses 0, 1 and
 * 64 + exception number, rtb_main 0, 1 and 2. */
#define RTB_RTX5_EXIT_INIT 3          /* a kernel object of the start-up failed */
#define RTB_RTX5_EXIT_KERNEL_RETURNED 6
#define RTB_RTX5_EXIT_ERROR_NOTIFY 7  /* osRtxErrorNotify: RTX5 reported a fatal error */

/* rtbench priority p (1..31, higher more urgent) runs at RTX5 priority
 * 8 + p (9..39: above osPriorityLow, below the timer thread's shipped
 * OS_TIMER_THREAD_PRIO 40, which stays above every benchmark thread as
 * ThreadX's and FreeRTOS's timer tasks do). 1 is idle, 56 reserved. */
static inline osPriority_t rtb_rtx5_prio(int p)
{
    return (osPriority_t)(8 + (p < 1 ? 1 : p > 31 ? 31 : p));
}

/* A timeout in microseconds as kernel ticks: RTB_NO_WAIT 0,
 * RTB_WAIT_FOREVER osWaitForever, otherwise rounded up (never early). */
uint32_t rtb_rtx5_ticks(int32_t timeout_us);
#define RTB_RTX5_TICK_US (1000000u / OS_TICK_FREQ)

/* Record a failure in words (rtb_port_last_error) and return RTB_ERR, or
 * RTB_ENOTSUP for rtb_rtx5_unsupported. rtb_rtx5_status: an osStatus_t in
 * the words ("osSemaphoreRelease: osErrorResource"). */
int rtb_rtx5_fail(const char *what, const char *why);
int rtb_rtx5_unsupported(const char *what);
int rtb_rtx5_status(const char *what, int32_t status);
/* done() of a call returning osStatus_t: osOK is RTB_OK; osErrorResource
 * (nothing there, no wait) and osErrorTimeout map to the contract's. */
int rtb_rtx5_status_done(const struct rtb_kcall *c, const char *what);

/* Where created objects live (rtb_port_alloc): false, the port's static
 * memory; true, RTX5's own memory (OS_DYNAMIC_MEM_SIZE: no cb_mem). */
extern bool rtb_rtx5_from_heap;

/* Priority of the board interrupts whose handlers call the kernel (the
 * interrupt source, the one-shot): 5 << 5, as on FreeRTOS and ThreadX.
 * RTX5 on ARMv7-M never masks interrupts (exclusive access), and its SVC,
 * SysTick and PendSV are at the lowest priority, below these. */
#define RTB_RTX5_IRQ_PRIORITY ((uint8_t)(5u << 5))

/* Semaphore `id`'s handle, NULL if none (port_sync.c): for the interrupt
 * handlers, which release it with no glue of the port's. */
osSemaphoreId_t rtb_rtx5_sem(int id);

/* Start-up (main.c, after osKernelInitialize, before osKernelStart). */
void rtb_rtx5_fine_delay_init(void);
void rtb_rtx5_irq_init(void);

/* A delay of `ticks` counter ticks on the board's one-shot timer (below
 * the kernel tick). -1 if another thread's delay is running. */
int rtb_rtx5_delay_ticks(uint32_t ticks);

#endif
