/*
 * fine_delay.c — delays shorter than the kernel tick: the thread blocks on
 * a semaphore and the board's one-shot interrupt puts it.
 *
 * tx_thread_sleep() counts whole ticks (1 ms here) and its first tick is
 * partial, so a 50 us wait becomes anything from 0 to 1 ms. The one-shot
 * timer counts PCLK ticks (40 ns), so the thread is made ready exactly when
 * asked and runs after the interrupt's and the switch's instructions.
 */
#include "rtb_threadx.h"

static TX_SEMAPHORE expired_sem;
static TX_THREAD *volatile waiter;

static void delay_expired(void *arg)
{
    (void)arg;
    if (waiter)
        tx_semaphore_put(&expired_sem); /* ISR-legal in ThreadX */
}

void rtb_threadx_fine_delay_init(void)
{
    if (tx_semaphore_create(&expired_sem, "fine delay", 0) != TX_SUCCESS)
        rtb_board_exit(RTB_THREADX_EXIT_INIT);
    rtb_board_oneshot_init(delay_expired, NULL, RTB_THREADX_IRQ_PRIORITY);
}

int rtb_threadx_delay_ticks(uint32_t ticks)
{
    TX_THREAD *self = tx_thread_identify();
    UINT posture = tx_interrupt_control(TX_INT_DISABLE);
    if (waiter) {
        tx_interrupt_control(posture);
        return -1;
    }
    waiter = self;
    tx_interrupt_control(posture);

    /* A put left over from a cancelled delay would end this one at once. */
    while (tx_semaphore_get(&expired_sem, TX_NO_WAIT) == TX_SUCCESS)
        ;
    rtb_board_oneshot_start(ticks ? ticks : 1u);
    /* If the interrupt comes before we block, the count is 1 and the get
     * returns at once: no lost wake-up. */
    (void)tx_semaphore_get(&expired_sem, TX_WAIT_FOREVER);
    waiter = TX_NULL;
    return 0;
}
