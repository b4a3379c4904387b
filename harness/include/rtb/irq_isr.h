/*
 * rtb/irq_isr.h — the interrupt handlers of the interrupt rows, one per
 * combination of what a row's interval needs (rtb/port.h
 * rtb_port_irq_hook_plan), for a port to write in its kernel's own handler
 * convention.
 *
 * Each handler does, in this order and nothing else: [stamp in] [give, or
 * submit deferred work] [stamp out], inside the convention the kernel
 * documents for an application's handler (FreeRTOS: collect
 * xHigherPriorityTaskWoken, end with portYIELD_FROM_ISR; ThreadX: a plain
 * function; Zephyr: ISR_DIRECT_DECLARE, returning whether to reschedule).
 * No device is acknowledged: the interrupt was raised from software, and
 * its pending bit cleared as it was taken. Its `does` is a constant, so the
 * compiler leaves straight-line code.
 *
 * The window audit counts a handler (its name starts rtb_kisr_) as the
 * kernel's API written as an application writes it, like a shim, except
 * the stamps' stores into rtb_irq_slots, which are rtbench's wherever they
 * sit (RTB_PORT_STAMP_*_TO: a board lists them in .rtb_stamps).
 *
 * RTB_ISR_ALL(X) expands X(name, what) once per handler.
 */
#ifndef RTB_IRQ_ISR_H
#define RTB_IRQ_ISR_H

#include <rtb/port.h>

#define RTB_ISR_STAMP_IN(what)                                                  \
    do {                                                                        \
        if (((what) & RTB_IRQ_STAMP_IN) && ((what) & RTB_IRQ_IN_OPENS))         \
            RTB_PORT_STAMP_OPEN_TO(rtb_irq_slots.in);                           \
        else if ((what) & RTB_IRQ_STAMP_IN)                                     \
            RTB_PORT_STAMP_CLOSE_TO(rtb_irq_slots.in);                          \
    } while (0)
#define RTB_ISR_STAMP_OUT(what)                                                 \
    do {                                                                        \
        if ((what) & RTB_IRQ_STAMP_OUT)                                         \
            RTB_PORT_STAMP_OPEN_TO(rtb_irq_slots.out);                          \
    } while (0)
/* The first thing the deferred work's function does (RTB_IRQ_DEFER). */
#define RTB_ISR_STAMP_DEFERRED() RTB_PORT_STAMP_CLOSE_TO(rtb_irq_slots.deferred)

/* The handlers: name, and what each does. */
#define RTB_ISR_ALL(X)                                                             \
    X(rtb_kisr_none, 0u)                                                           \
    X(rtb_kisr_in, RTB_IRQ_STAMP_IN)                                               \
    X(rtb_kisr_out, RTB_IRQ_STAMP_OUT)                                             \
    X(rtb_kisr_give, RTB_IRQ_GIVE)                                                 \
    X(rtb_kisr_give_out, RTB_IRQ_GIVE | RTB_IRQ_STAMP_OUT)                         \
    X(rtb_kisr_in_give, RTB_IRQ_STAMP_IN | RTB_IRQ_IN_OPENS | RTB_IRQ_GIVE)        \
    X(rtb_kisr_in_defer, RTB_IRQ_STAMP_IN | RTB_IRQ_IN_OPENS | RTB_IRQ_DEFER)

/* The index of the handler whose `what` a plan names, -1 for none: a port
 * keeps its handlers in a table in this order (a port whose kernel connects
 * handlers at build time gives each one a line of its own). */
#define RTB_ISR_INDEX_(name, what) \
    if (does == (what))            \
        return k;                  \
    k++;
static inline int rtb_isr_index(unsigned does)
{
    int k = 0;
    RTB_ISR_ALL(RTB_ISR_INDEX_)
    return -1;
}
#define RTB_ISR_COUNT 7

#endif /* RTB_IRQ_ISR_H */
