/*
 * rtb_threadx.h — what the ThreadX port's files share: the priority map,
 * time conversions, errors, the byte pool, sub-tick delays and the exit
 * statuses of the port's failure paths.
 */
#ifndef RTB_THREADX_H
#define RTB_THREADX_H

#include <rtb/port.h>
#include <stdint.h>

#include "tx_api.h"
#include "rtb_board.h"

/* Exit statuses of the port's failure paths; the board uses 0, 1 and
 * 64 + exception number, rtb_main 0, 1 and 2. */
#define RTB_THREADX_EXIT_INIT 3           /* a kernel object of the start-up failed */
#define RTB_THREADX_EXIT_KERNEL_RETURNED 6

/* rtbench priority p (1..31, higher more urgent) runs at ThreadX priority
 * 32 - p (31..1; 0 is the most urgent): the timer thread keeps 0, above
 * every benchmark task (tx_user.h). */
static inline UINT rtb_threadx_prio(int p)
{
    return (UINT)(32 - (p < 1 ? 1 : p > 31 ? 31 : p));
}

/* A timeout in microseconds as kernel ticks: RTB_NO_WAIT TX_NO_WAIT,
 * RTB_WAIT_FOREVER TX_WAIT_FOREVER, otherwise rounded up to whole ticks
 * (a timed wait never ends early). */
ULONG rtb_threadx_ticks(int32_t timeout_us);

/* Record a failure in words (rtb_port_last_error) and return RTB_ERR, or
 * RTB_ENOTSUP for rtb_threadx_unsupported. rtb_threadx_status: the
 * ThreadX status code in the words (e.g. "tx_queue_create: status 0x10"). */
int rtb_threadx_fail(const char *what, const char *why);
int rtb_threadx_unsupported(const char *what);
int rtb_threadx_status(const char *what, UINT status);

/* The byte pool every kernel object's memory comes from (stacks, queue
 * storage) and the heap of the heap rows: tx_byte_allocate / release. */
extern TX_BYTE_POOL rtb_threadx_pool;
#define RTB_THREADX_POOL_BYTES RTB_BOARD_HEAP_BYTES /* the board's, as the FreeRTOS port's heap_4 */
void *rtb_threadx_alloc(ULONG size); /* NULL when the pool is exhausted */
void rtb_threadx_free(void *p);

/* Priority of the board interrupts whose handlers call the kernel (the
 * interrupt source, the one-shot): 5 << 5, as on FreeRTOS. ThreadX masks
 * every interrupt in its critical sections (PRIMASK), so any level works;
 * the same one keeps the two kernels' interrupt rows comparable. */
#define RTB_THREADX_IRQ_PRIORITY ((uint8_t)(5u << 5))

/* Semaphore `id`'s control block and its ceiling (0: none), NULL if no
 * such semaphore (port_sync.c): for the interrupt handlers, which put it
 * with no glue of the port's. */
TX_SEMAPHORE *rtb_threadx_sem(int id, ULONG *ceiling);

/* Start-up (main.c calls them from tx_application_define, before the
 * scheduler runs): the pool, the task slots, sub-tick delays and the
 * interrupt source. */
void rtb_threadx_pool_init(void *first_unused);
void rtb_threadx_tasks_init(void);
void rtb_threadx_fine_delay_init(void);
void rtb_threadx_irq_init(void);

/* A delay of `ticks` counter ticks on the board's one-shot timer (below
 * the kernel tick): the thread blocks on a semaphore the one-shot's
 * interrupt puts. One thread at a time: -1 if another's delay is running. */
int rtb_threadx_delay_ticks(uint32_t ticks);

#endif /* RTB_THREADX_H */
