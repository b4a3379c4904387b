/*
 * board.c — rtb_board_init(): what every program on this board needs before
 * it measures anything.
 */
#include "board_internal.h"
#include "rtb_board.h"

void rtb_board_init(void)
{
    rtb_board_console_init(); /* first: everything after may want to print */
    rtb_board_ts_init();
}
