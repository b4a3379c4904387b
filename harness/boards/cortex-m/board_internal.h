/*
 * board_internal.h — calls between the board's own files, not part of the
 * board contract (rtb_board.h).
 */
#ifndef RTB_BOARD_INTERNAL_H
#define RTB_BOARD_INTERNAL_H

#include <stdint.h>

/* console.c: enable the console's UART (idempotent; the fault handler calls
 * it too). */
void rtb_board_console_init(void);

/* console.c: wait until the last byte written has left the holding
 * register (on silicon a byte still in it is lost when the run ends). */
void rtb_board_console_flush(void);

/* fault.c: report an unexpected exception and exit (from startup.c). */
_Noreturn void rtb_board_report_exception(const uint32_t *frame, uint32_t exc_return);

/* counter.c: start the timestamp counter and its wrap interrupt. */
void rtb_board_ts_init(void);

#endif /* RTB_BOARD_INTERNAL_H */
