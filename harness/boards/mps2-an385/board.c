/*
 * board.c — rtb_board_init(): what every program on this board needs before
 * it measures anything.
 */
#include "an385.h"
#include "board_internal.h"
#include "rtb_board.h"

void rtb_board_init(void)
{
    rtb_board_console_init(); /* first: everything after may want to print */
    rtb_board_ts_init();
}

/* SysTick counts the core clock, 25 MHz on the FPGA and in QEMU's model. */
uint32_t rtb_board_systick_hz(void)
{
    return AN385_SYSCLK_HZ;
}
