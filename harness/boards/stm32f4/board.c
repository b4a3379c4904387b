/*
 * board.c — rtb_board_init(): what every program on this board needs before
 * it measures anything. The clock is the reset clock (16 MHz HSI, no PLL:
 * stm32f4.h), so nothing is configured and nothing waits on RCC.
 */
#include "board_internal.h"
#include "rtb_board.h"

void rtb_board_init(void)
{
    rtb_board_console_init(); /* first: everything after may want to print */
    rtb_board_ts_init();      /* picks the counter, and so SysTick's clock */
}
