/* irq.kernel_latency: the kernel's interrupts-off regions (irq_kernel.c). */
#ifndef RTB_IRQ_KERNEL_H
#define RTB_IRQ_KERNEL_H

#include <rtb/bench.h>

void rtb_irq_kernel_latency(struct rtb_ctx *ctx);

#endif
