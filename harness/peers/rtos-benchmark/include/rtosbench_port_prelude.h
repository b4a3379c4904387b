/*
 * rtosbench_port_prelude.h — force-included (-include) before rtos-benchmark's
 * src/freertos/bench_porting_layer_freertos.c, and only there.
 *
 * That file #includes "board.h", "pin_mux.h" and "clock_config.h" in quotes,
 * so the compiler takes the FRDM-K64F versions beside it before any include
 * path (GPIO, I2C and clock-tree declarations of the NXP SDK). Their include
 * guards are marked as taken here, so those files are opened and skipped,
 * and the three board calls the porting layer makes are declared instead;
 * board.c implements them for the AN385. Nothing of rtos-benchmark is edited.
 */
#ifndef RTOSBENCH_PORT_PRELUDE_H
#define RTOSBENCH_PORT_PRELUDE_H

#define _BOARD_H_        /* src/freertos/board.h */
#define _PIN_MUX_H_      /* src/freertos/pin_mux.h */
#define _CLOCK_CONFIG_H_ /* src/freertos/clock_config.h */

void BOARD_InitBootPins(void);
void BOARD_InitBootClocks(void);
void BOARD_InitDebugConsole(void);

#endif /* RTOSBENCH_PORT_PRELUDE_H */
