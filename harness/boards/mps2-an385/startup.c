/*
 * startup.c — the vector table of the MPS2 AN385 (Cortex-M3) and the AN386
 * (the same interrupts with a Cortex-M4F); the reset entry is every
 * Cortex-M board's (boards/cortex-m/reset.c).
 *
 * The table has the 16 system entries and the AN385's 32 external
 * interrupts. Every handler (an385_vectors.h) is a weak alias of
 * rtb_board_unexpected() (cortex-m/include/cm_vectors.h), which reports the
 * exception on the console (fault.c) and ends QEMU with a non-zero status;
 * code that owns an exception defines the name (the FreeRTOS port's
 * handlers are mapped to SVC_Handler, PendSV_Handler and SysTick_Handler
 * in FreeRTOSConfig.h).
 */
#include <stdint.h>

#include "an385.h"
#include "an385_vectors.h"
#include "cm_vectors.h" /* rtb_board_unexpected, DEFAULT, rtb_vector_t */

CM_SYSTEM_HANDLERS;
DEFAULT(UART0RX_IRQHandler);
DEFAULT(UART0TX_IRQHandler);
DEFAULT(UART1RX_IRQHandler);
DEFAULT(UART1TX_IRQHandler);
DEFAULT(UART2RX_IRQHandler);
DEFAULT(UART2TX_IRQHandler);
DEFAULT(GPIO0ALL_IRQHandler);
DEFAULT(GPIO1ALL_IRQHandler);
DEFAULT(TIMER0_IRQHandler);
DEFAULT(TIMER1_IRQHandler);
DEFAULT(DUALTIMER_IRQHandler);
DEFAULT(SPI_IRQHandler);
DEFAULT(UARTOVF_IRQHandler);
DEFAULT(ETHERNET_IRQHandler);
DEFAULT(I2S_IRQHandler);
DEFAULT(TSC_IRQHandler);
DEFAULT(GPIO2_IRQHandler);
DEFAULT(GPIO3_IRQHandler);
DEFAULT(UART3RX_IRQHandler);
DEFAULT(UART3TX_IRQHandler);
DEFAULT(UART4RX_IRQHandler);
DEFAULT(UART4TX_IRQHandler);
DEFAULT(SPI2_IRQHandler);
DEFAULT(SPI3_4_IRQHandler);
DEFAULT(GPIO0_0_IRQHandler);
DEFAULT(GPIO0_1_IRQHandler);
DEFAULT(GPIO0_2_IRQHandler);
DEFAULT(GPIO0_3_IRQHandler);
DEFAULT(GPIO0_4_IRQHandler);
DEFAULT(GPIO0_5_IRQHandler);
DEFAULT(GPIO0_6_IRQHandler);
DEFAULT(GPIO0_7_IRQHandler);

__attribute__((section(".vectors"), used))
const rtb_vector_t rtb_board_vectors[SYSTEM_VECTORS + AN385_IRQ_COUNT] = {
    CM_SYSTEM_VECTORS,
    [SYSTEM_VECTORS + AN385_IRQ_UART0_RX] = { UART0RX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART0_TX] = { UART0TX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART1_RX] = { UART1RX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART1_TX] = { UART1TX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART2_RX] = { UART2RX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART2_TX] = { UART2TX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO0] = { GPIO0ALL_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO1] = { GPIO1ALL_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_TIMER0] = { TIMER0_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_TIMER1] = { TIMER1_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_DUALTIMER] = { DUALTIMER_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_SPI] = { SPI_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART_OVF] = { UARTOVF_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_ETHERNET] = { ETHERNET_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_I2S] = { I2S_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_TOUCHSCREEN] = { TSC_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO2] = { GPIO2_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO3] = { GPIO3_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART3_RX] = { UART3RX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART3_TX] = { UART3TX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART4_RX] = { UART4RX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_UART4_TX] = { UART4TX_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_SPI2] = { SPI2_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_SPI3_4] = { SPI3_4_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO0_0 + 0] = { GPIO0_0_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO0_0 + 1] = { GPIO0_1_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO0_0 + 2] = { GPIO0_2_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO0_0 + 3] = { GPIO0_3_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO0_0 + 4] = { GPIO0_4_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO0_0 + 5] = { GPIO0_5_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO0_0 + 6] = { GPIO0_6_IRQHandler },
    [SYSTEM_VECTORS + AN385_IRQ_GPIO0_0 + 7] = { GPIO0_7_IRQHandler },
};
