/*
 * rtb/irq_isr.h — the interrupt handlers of the interrupt rows, one per
 * combination of what a row's interval needs (rtb/port.h
 * rtb_port_irq_hook_plan), for a port to instantiate inside its kernel's
 * handler convention.
 *
 * Each handler does, in this order and nothing else: [stamp in] the
 * device's acknowledgement [give] [stamp out]. Its `does` is a constant,
 * so the compiler leaves straight-line code: no test of what to do runs
 * inside a window. The window audit counts their instructions as
 * "handler": what an application's handler does under the kernel's rules.
 *
 * RTB_ISR_ALL(X) expands X(name, what) once per handler. A port defines X
 * to write one handler in its kernel's convention, with
 *   RTB_ISR_STAMP_IN(what)   the stamp `in` (opening or closing a window)
 *   RTB_ISR_STAMP_OUT(what)  the stamp `out`
 * and the board's acknowledgement and its kernel's give between; and a
 * second X to find the handler whose `what` a plan names. The board lists
 * the handlers whose windows open at the raise (rtb_isr_none, rtb_isr_in,
 * rtb_isr_give) for the window audit.
 */
#ifndef RTB_IRQ_ISR_H
#define RTB_IRQ_ISR_H

#include <rtb/port.h>

#define RTB_ISR_STAMP_IN(what)                                                             \
    do {                                                                                   \
        if ((what) & RTB_IRQ_STAMP_IN)                                                     \
            rtb_irq_slots.in = ((what) & RTB_IRQ_IN_OPENS) ? rtb_port_stamp_start()        \
                                                           : rtb_port_stamp_end();         \
    } while (0)
#define RTB_ISR_STAMP_OUT(what)                                                            \
    do {                                                                                   \
        if ((what) & RTB_IRQ_STAMP_OUT)                                                    \
            rtb_irq_slots.out = rtb_port_stamp_start();                                    \
    } while (0)

/* The handlers: name, and what each does. */
#define RTB_ISR_ALL(X)                                                             \
    X(rtb_isr_none, 0u)                                                            \
    X(rtb_isr_in, RTB_IRQ_STAMP_IN)                                                \
    X(rtb_isr_out, RTB_IRQ_STAMP_OUT)                                              \
    X(rtb_isr_give, RTB_IRQ_GIVE)                                                  \
    X(rtb_isr_give_out, RTB_IRQ_GIVE | RTB_IRQ_STAMP_OUT)                          \
    X(rtb_isr_in_give, RTB_IRQ_STAMP_IN | RTB_IRQ_IN_OPENS | RTB_IRQ_GIVE)

/* The handlers, declared, and the one whose `what` a plan names (NULL:
 * none). Their parameters: none, for a port whose handlers are vectors
 * (FreeRTOS, ThreadX); a port whose kernel dispatches interrupts defines
 * RTB_ISR_PARAMS first (Zephyr: const void *arg). */
#ifndef RTB_ISR_PARAMS
#define RTB_ISR_PARAMS void
#endif
typedef void (*rtb_isr_fn)(RTB_ISR_PARAMS);
#define RTB_ISR_DECLARE_(name, what) void name(RTB_ISR_PARAMS);
RTB_ISR_ALL(RTB_ISR_DECLARE_)
#define RTB_ISR_PICK_(name, what) \
    if (does == (what))           \
        return name;
static inline rtb_isr_fn rtb_isr_for(unsigned does)
{
    RTB_ISR_ALL(RTB_ISR_PICK_)
    return 0;
}

/* Where the board lists them for the window audit: the handlers whose
 * windows open when the interrupt is taken (the raise), at file scope
 * after the handlers' definitions. */
#ifdef RTB_PORT_MARK_RAISE
#define RTB_ISR_MARKS()                   \
    RTB_PORT_MARK_RAISE(rtb_isr_none);    \
    RTB_PORT_MARK_RAISE(rtb_isr_in);      \
    RTB_PORT_MARK_RAISE(rtb_isr_give)
#else
#define RTB_ISR_MARKS() struct rtb_isr_marks_unused_
#endif

#endif /* RTB_IRQ_ISR_H */
