/*
 * tm_threadx.c — Thread-Metric on ThreadX: start-up and the trap the
 * interrupt tests use. The porting layer itself is ThreadX's own
 * (utility/benchmarks/thread_metric/threadx_example/
 * tm_porting_layer_threadx.c), compiled in place from the user's checkout;
 * the low-level init and the tick are the rtbench port's (ports/threadx/
 * lowlevel.c, built here with the 100 Hz tick Thread-Metric's porting rules
 * ask for: its ThreadX layer sleeps 100 ticks per second).
 */
#include "tx_api.h"

#include "rtb_board.h"

void tm_main(void); /* each test's entry (tm_*_test.c) */

/* Thread-Metric's two interrupt tests trap with SVC #0 (TM_CAUSE_INTERRUPT,
 * tm_porting_layer.h) and expect the SVC handler to call their handler; an
 * image links one of the two tests, or neither. ThreadX's cortex_m3 port
 * does not use SVC, and its kernel calls are legal in a handler. */
void tm_interrupt_handler(void) __attribute__((weak));
void tm_interrupt_preemption_handler(void) __attribute__((weak));

void SVC_Handler(void)
{
    if (tm_interrupt_handler)
        tm_interrupt_handler();
    else if (tm_interrupt_preemption_handler)
        tm_interrupt_preemption_handler();
}

VOID tx_application_define(VOID *first_unused)
{
    (void)first_unused;
    tm_main();
}

int main(void)
{
    rtb_board_init();
    tx_kernel_enter();
    rtb_board_exit(1);
}
