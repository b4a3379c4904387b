/*
 * irqsrc.c — an asynchronous interrupt source with a known expiry instant:
 * CMSDK TIMER1 (0x40001000, IRQ 9).
 *
 * Why a hardware timer: an interrupt a task pends in the NVIC is taken
 * synchronously, right after the pending store, which measures nothing a
 * device interrupt would meet. TIMER1 expires while the task runs on, and the
 * interrupt lands on whatever instruction is executing then.
 *
 * How the expiry instant is found: TIMER1 is armed with RELOAD 0xFFFFFFFF
 * and VALUE = ticks. It raises the interrupt on its 1 -> 0 step (the expiry),
 * holds 0 for one tick, then reloads 0xFFFFFFFF and counts on down, so k
 * ticks after expiry VALUE reads (0 - k) mod 2^32: "ticks since expiry" from
 * one read, with no assumption about when it was armed. rtb_board_irqsrc_
 * expiry() reads TIMER1 and the counter with two adjacent loads and
 * subtracts; both timers count PCLK, so the result is in rtb_board_ts()
 * ticks. It is called from the hook, after the hook took its own first
 * timestamp: the handler below calls the hook before anything else, so an
 * interrupt's response holds only the handler's entry and dispatch, not
 * the instrumentation that finds the expiry.
 *
 * The reported instant is the expiry in the timestamp convention: the value
 * an rtb_board_ts() whose sampling load ran at the expiry would return,
 * minus the read's fixed tail (RTB_BOARD_TS_POST instructions; see
 * rtb_board_ts.h), so that subtracting the calibrated read cost from
 * "expiry -> a timestamp" leaves the interval itself.
 *
 * Bare handlers (rtb_board_irq_bare): the same expiry taken by a handler
 * the kernel never sees, installed for the measurement through a copy of
 * the vector table in RAM (VTOR: cortex-m/ramvec.c), for the ISR prolog
 * and epilog rows.
 */
#include "an385.h"
#include "an385_vectors.h"
#include "rtb_board.h"

/* The second of two adjacent loads happens one instruction after the first. */
#define PAIR_GAP_TICKS RTB_BOARD_INSTR_TICKS(1)
#define TS_TAIL_TICKS RTB_BOARD_INSTR_TICKS(RTB_BOARD_TS_POST)

static struct {
    rtb_board_isr_fn fn;
    void *arg;
    volatile uint32_t count;
    volatile uint32_t armed; /* arms so far: the handler sees whether its hook re-armed */
} src;

void rtb_board_irqsrc_init(rtb_board_isr_fn fn, void *arg, uint8_t prio)
{
    /* stops the timer too: an armed or free-running TIMER1 is over */
    cm_irq_disable(AN385_IRQ_TIMER1);
    AN385_TIMER1->ctrl = 0;
    AN385_TIMER1->intstat = 1u;
    src.fn = fn;
    src.arg = arg;
    src.count = 0;
    cm_irq_clear_pending(AN385_IRQ_TIMER1);
    cm_irq_set_priority(AN385_IRQ_TIMER1, prio);
    cm_irq_enable(AN385_IRQ_TIMER1);
}

void rtb_board_irqsrc_arm(uint32_t ticks)
{
    struct an385_timer *t = AN385_TIMER1;

    t->ctrl = 0;
    t->intstat = 1u; /* an expiry not yet acknowledged is over */
    t->reload = 0xFFFFFFFFu; /* also loads VALUE: write it before VALUE */
    t->value = ticks;
    src.armed++;
    t->ctrl = AN385_TIMER_CTRL_EN | AN385_TIMER_CTRL_IRQEN; /* counting from here */
}

uint32_t rtb_board_irqsrc_count(void) { return src.count; }

/* The counter and TIMER1's count since expiry, in two adjacent loads: the
 * expiry as a 32-bit counter value. */
static uint32_t expiry32(void)
{
    uint32_t counter, timer1;
#if defined(RTB_BOARD_COUNTER_DWT)
    volatile uint32_t *counter_reg = &CM_DWT_CYCCNT;
#else
    volatile uint32_t *counter_reg = &AN385_TIMER0->value;
#endif
    __asm volatile("ldr %0, [%2]\n\t"
                   "ldr %1, [%3]"
                   : "=&r"(counter), "=r"(timer1)
                   : "r"(counter_reg), "r"(&AN385_TIMER1->value)
                   : "memory");
#if !defined(RTB_BOARD_COUNTER_DWT)
    counter = ~counter; /* TIMER0 counts down */
#endif
    uint32_t since_expiry = 0u - timer1;
    return counter + PAIR_GAP_TICKS - since_expiry;
}

/* After an expiry TIMER1 runs on from 0xFFFFFFFF (its interrupt is only
 * acknowledged, the next one would come 171 s later), so its count since
 * expiry stays readable, from the hook or later, until the next arm. */
uint64_t rtb_board_irqsrc_expiry(void)
{
    uint32_t e = expiry32() - TS_TAIL_TICKS;
    uint64_t now = rtb_board_ts(); /* the 64-bit epoch: within 2^32 ticks of the expiry */
    return now - (uint32_t)((uint32_t)now - e);
}

/* As little as possible around the hook, which is measured from the
 * expiry to its first timestamp and back to the interrupted code: the
 * acknowledgement comes after it, and is skipped when the hook armed the
 * timer again (arming acknowledges; a new expiry must not be lost). */
void TIMER1_IRQHandler(void)
{
    uint32_t armed = src.armed;
    if (src.fn)
        src.fn(src.arg);
    if (src.armed == armed)
        AN385_TIMER1->intstat = 1u;
    src.count++;
}

/* ---- bare handlers ----------------------------------------------------------- */

/* The instants, as raw 32-bit counts (one load each: no read cost in them). */
static volatile struct {
    uint32_t first;  /* the handler's first counter load */
    uint32_t timer1; /* TIMER1 right after it: ticks since expiry */
    uint32_t last;   /* the handler's last counter load */
    uint32_t done;
} bare;

/* The minimum: the counter's address, the load, nothing saved that the
 * hardware did not stack (r0-r3 are), TIMER1 stopped and acknowledged, the
 * last load, the store that tells the interrupted code, the return. */
__attribute__((naked)) static void bare_min_handler(void)
{
    __asm volatile(
        "ldr r0, =0x40000004\n\t"   /* TIMER0 VALUE */
        "ldr r1, [r0]\n\t"          /* first */
        "ldr r2, =0x40001004\n\t"   /* TIMER1 VALUE */
        "ldr r2, [r2]\n\t"
        "ldr r3, =bare\n\t"
        "str r1, [r3, #0]\n\t"
        "str r2, [r3, #4]\n\t"
        "ldr r2, =0x40001000\n\t"   /* TIMER1: stop, clear */
        "movs r1, #0\n\t"
        "str r1, [r2, #0]\n\t"
        "movs r1, #1\n\t"
        "str r1, [r2, #12]\n\t"
        "ldr r1, [r0]\n\t"          /* last */
        "str r1, [r3, #8]\n\t"
        "str r0, [r3, #12]\n\t"     /* done (non-zero) */
        "bx lr\n\t"
        ".ltorg");
}

/* A C function entered as the kernel's handlers are (the compiler's own
 * prologue and epilogue around the body). */
static void bare_c_handler(void)
{
    uint32_t first, timer1;
    __asm volatile("ldr %0, [%2]\n\t"
                   "ldr %1, [%3]"
                   : "=&r"(first), "=r"(timer1)
                   : "r"(&AN385_TIMER0->value), "r"(&AN385_TIMER1->value)
                   : "memory");
    bare.first = first;
    bare.timer1 = timer1;
    AN385_TIMER1->ctrl = 0;
    AN385_TIMER1->intstat = 1u;
    bare.done = 1u;
    bare.last = AN385_TIMER0->value; /* raw, as the assembly handler stores it */
}

int rtb_board_irq_bare(bool c_call, int32_t *prolog, int32_t *epilog)
{
#if defined(RTB_BOARD_COUNTER_DWT)
    (void)c_call, (void)prolog, (void)epilog;
    return -1; /* the assembly handler reads TIMER0 */
#else
    bare.done = 0;
    rtb_board_vector_set(AN385_IRQ_TIMER1, c_call ? bare_c_handler : bare_min_handler);

    rtb_board_irqsrc_arm(256u); /* ~80 instructions ahead: we are in the loop by then */
    uint32_t resumed = 0;
    __asm volatile("ldr r1, =0x40000004\n\t"
                   "1: ldr r2, [%1, #12]\n\t" /* until done */
                   "cmp r2, #0\n\t"
                   "beq 1b\n\t"
                   "ldr %0, [r1]"             /* the interrupted code's next load */
                   : "=r"(resumed) : "r"(&bare) : "r1", "r2", "cc", "memory");

    rtb_board_vectors_restore();
    cm_irq_clear_pending(AN385_IRQ_TIMER1);

    /* Counts are taken at the end of their load; the instrumentation's own
     * instructions, known from the code above, are taken out: the minimum
     * handler's first two (the address and the load), the C body's load,
     * and the minimum handler's two closing stores. What remains of the
     * epilog includes the interrupted loop's pass up to its counter load. */
    uint32_t first = ~bare.first, last = ~bare.last, now = ~resumed;
    uint32_t since_expiry = 0u - bare.timer1;
    uint32_t gap = c_call ? RTB_BOARD_INSTR_TICKS(1) : RTB_BOARD_INSTR_TICKS(2);
    uint32_t expiry = first + gap - since_expiry;
    uint32_t own_first = c_call ? RTB_BOARD_INSTR_TICKS(1) : RTB_BOARD_INSTR_TICKS(2);
    uint32_t own_last = c_call ? 0u : RTB_BOARD_INSTR_TICKS(2);
    *prolog = (int32_t)(first - expiry - own_first); /* rounding may leave a tick below 0 */
    *epilog = (int32_t)(now - last - own_last);
    return 0;
#endif
}
