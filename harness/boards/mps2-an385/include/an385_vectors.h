/*
 * an385_vectors.h — the names of the vector table's handlers (startup.c).
 * Each is a weak alias of the board's default handler: define one of these
 * names to own that exception or interrupt.
 */
#ifndef AN385_VECTORS_H
#define AN385_VECTORS_H

void Reset_Handler(void);
void NMI_Handler(void);
void HardFault_Handler(void);
void MemManage_Handler(void);
void BusFault_Handler(void);
void UsageFault_Handler(void);
void SVC_Handler(void);
void DebugMon_Handler(void);
void PendSV_Handler(void);
void SysTick_Handler(void);
void UART0RX_IRQHandler(void);
void UART0TX_IRQHandler(void);
void UART1RX_IRQHandler(void);
void UART1TX_IRQHandler(void);
void UART2RX_IRQHandler(void);
void UART2TX_IRQHandler(void);
void GPIO0ALL_IRQHandler(void);
void GPIO1ALL_IRQHandler(void);
void TIMER0_IRQHandler(void);
void TIMER1_IRQHandler(void);
void DUALTIMER_IRQHandler(void);
void SPI_IRQHandler(void);
void UARTOVF_IRQHandler(void);
void ETHERNET_IRQHandler(void);
void I2S_IRQHandler(void);
void TSC_IRQHandler(void);
void GPIO2_IRQHandler(void);
void GPIO3_IRQHandler(void);
void UART3RX_IRQHandler(void);
void UART3TX_IRQHandler(void);
void UART4RX_IRQHandler(void);
void UART4TX_IRQHandler(void);
void SPI2_IRQHandler(void);
void SPI3_4_IRQHandler(void);
void GPIO0_0_IRQHandler(void);
void GPIO0_1_IRQHandler(void);
void GPIO0_2_IRQHandler(void);
void GPIO0_3_IRQHandler(void);
void GPIO0_4_IRQHandler(void);
void GPIO0_5_IRQHandler(void);
void GPIO0_6_IRQHandler(void);
void GPIO0_7_IRQHandler(void);

#endif /* AN385_VECTORS_H */
