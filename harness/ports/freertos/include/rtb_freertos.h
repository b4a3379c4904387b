/*
 * rtb_freertos.h — what the FreeRTOS port's files share: the priority map,
 * time conversions, errors, the interrupt-context bookkeeping, sub-tick
 * delays and the exit statuses of the kernel's failure hooks.
 */
#ifndef RTB_FREERTOS_H
#define RTB_FREERTOS_H

#include <rtb/port.h>
#include <stdint.h>

#include "FreeRTOS.h"
#include "task.h"
#include "rtb_board.h"

/* Exit statuses of the kernel's failure hooks (hooks.c); the board uses 0,
 * 1 and 64 + exception number; rtb_main 0, 1 and 2. */
#define RTB_FREERTOS_EXIT_ASSERT 3
#define RTB_FREERTOS_EXIT_STACK_OVERFLOW 4
#define RTB_FREERTOS_EXIT_MALLOC_FAILED 5
#define RTB_FREERTOS_EXIT_SCHEDULER_RETURNED 6

/* rtbench priority p (1..31, higher more urgent) runs at FreeRTOS priority
 * p - 1 (1 for p = 1): 0 is the idle task's, and the timer daemon's
 * configMAX_PRIORITIES - 1 = 31 stays above every benchmark task, as
 * FreeRTOS applications usually place it. */
static inline UBaseType_t rtb_freertos_prio(int p)
{
    return p <= 1 ? 1u : (UBaseType_t)(p - 1);
}

/* A timeout in microseconds as kernel ticks: RTB_NO_WAIT 0, RTB_WAIT_FOREVER
 * portMAX_DELAY, otherwise rounded up to whole ticks (a timed wait never
 * ends early). */
TickType_t rtb_freertos_ticks(int32_t timeout_us);

/* Record a failure in words (rtb_port_last_error) and return RTB_ERR, or
 * RTB_ENOTSUP for rtb_freertos_unsupported. */
int rtb_freertos_fail(const char *what, const char *why);
int rtb_freertos_unsupported(const char *what);

/* Where the creates that follow put their objects (rtb_port_alloc): false
 * (the default), memory the port owns, through the kernel's ...CreateStatic
 * calls; true, heap_4, through the calls that allocate (the *_heap rows). */
extern bool rtb_freertos_from_heap;

/* done()'s failure of a create that returned no object, in words that say
 * why for the allocation in force: RTB_ERR. */
int rtb_freertos_not_created(const char *what);

/* done() of a take, receive or wait (port_sync.c): pdTRUE is RTB_OK, else
 * RTB_EWOULDBLOCK for a no-wait call and RTB_ETIMEOUT for a timed one
 * (c->aux[0]: the timeout asked, in microseconds). */
int rtb_freertos_taken(const struct rtb_kcall *c);

/* The handle of semaphore `id` (port_sync.c), NULL if none: for the
 * interrupt handlers, which give it with no glue of the port's. */
struct QueueDefinition;
struct QueueDefinition *rtb_freertos_sem(int id);

/* Interrupt context: the port's [ISR] calls (rtb_port_sem_give_isr...) add
 * to this flag, and the interrupt wrapper (port_irq.c) ends the handler
 * with portYIELD_FROM_ISR(flag), FreeRTOS's deferred switch. */
extern BaseType_t rtb_freertos_isr_woken;

/* Priority of the board interrupts whose handlers call ...FromISR(): the
 * most urgent the kernel allows, so only the kernel's critical sections
 * mask them. */
#define RTB_FREERTOS_IRQ_PRIORITY ((uint8_t)configMAX_SYSCALL_INTERRUPT_PRIORITY)

/* Index of the task notification the fine delay uses (the others are free). */
#define RTB_FREERTOS_NOTIFY_DELAY (configTASK_NOTIFICATION_ARRAY_ENTRIES - 1)

/* Sub-tick delays on the board's one-shot timer (fine_delay.c): call init
 * once before the scheduler starts. A delay blocks the calling task until
 * the one-shot interrupt notifies it, `ticks` counter ticks later plus the
 * interrupt and the switch, not rounded up to the kernel tick. One task at
 * a time: -1 if another task's delay is running, 0 when done. */
void rtb_freertos_fine_delay_init(void);
int rtb_freertos_delay_ticks(uint32_t ticks);

/* Set up the task pool (port_task.c) and the interrupt source (port_irq.c). */
void rtb_freertos_tasks_init(void);
void rtb_freertos_irq_init(void);

#endif /* RTB_FREERTOS_H */
