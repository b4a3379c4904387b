/*
 * rtb/kcall.h — a kernel call prepared outside a timing window, and the
 * three ways the core times it, so that nothing of rtbench's runs between
 * the two timestamps but the call instruction itself.
 *
 * Why: a port function such as rtb_port_sem_give(id) checks the id, looks
 * up the kernel's handle, calls the kernel and maps its return code. Timed
 * as a whole, that glue was 40-79 % of the cheapest rows on a board (an
 * instruction trace showed it). So a scenario no longer times the port
 * function: it asks the port to PREPARE the call (rtb_port_<op>_kcall(),
 * rtb/port.h) — which kernel function, which arguments, how to read its
 * return — before the window, and times only the prepared call:
 *
 *   rtb_kcall_timed()       stamp, call, stamp         (one task)
 *   rtb_kcall_after_stamp() stamp, store it, call      (the window ends in another task)
 *   rtb_kcall_then_stamp()  call, stamp                (the window began in another task)
 *   rtb_kcall_shared_timed() stamp, store it, call, stamp  (both: a call that blocks,
 *                           whose first stamp another task reads meanwhile)
 *
 * A board supplies them in assembly (RTB_PORT_KCALL_ASM), so the window
 * holds exactly: the call instruction, the function called, and (after
 * stamp) the store of the first stamp into memory another task reads. The
 * generic C versions (core/kcall.c) are for ports whose counter is coarse
 * against a few instructions (Linux: ~10 ns steps), where the compiler's
 * moves of the arguments are below the clock's resolution.
 *
 * The function called is the kernel's own function, its arguments already in
 * their registers, or a SHIM where the kernel's API is a macro or inline
 * code (below). The window audit (rtbench audit) counts shim instructions
 * as the kernel's API ("call"), apart from the kernel's functions and from
 * rtbench's own. Anything else a port points a call at (an emulation built
 * of several kernel calls) is the port's code, and the audit counts it as
 * such.
 *
 * Included by rtb/port.h (it needs rtb_stamp_t).
 */
#ifndef RTB_KCALL_H
#define RTB_KCALL_H

#include <stdint.h>

typedef uintptr_t rtb_word;
#define RTB_KCALL_ARGS 8
typedef rtb_word (*rtb_kfn)(rtb_word, rtb_word, rtb_word, rtb_word, rtb_word, rtb_word, rtb_word,
                            rtb_word);

/* Field order is fixed: board assembly reads fn, a[] and writes ret. */
struct rtb_kcall {
    rtb_kfn fn;                  /* the kernel's function, or an rtb_kapi_* shim */
    rtb_word a[RTB_KCALL_ARGS];  /* its arguments: a[4]..a[7] go on the stack (AAPCS) */
    rtb_word ret;                /* its return value, stored after the window */
    /* The return in RTB_* terms, computed after the window (NULL: RTB_OK
     * whatever it returned); may read a[] and aux[]. */
    int (*done)(const struct rtb_kcall *c);
    rtb_word aux[3];             /* for done(): e.g. the timeout asked, an output pointer;
                                    or scratch the call writes (an output argument) */
};

/* What a call points at, by the kernel's API:
 *  - a function: the function itself, RTB_KFN(f). It is called through
 *    rtb_kfn's type (eight words in, one out: FreeRTOS's xTaskCreateStatic
 *    takes seven): on the ABIs rtbench runs on
 *    (AAPCS, SysV x86-64) integer and pointer arguments travel in the same
 *    registers whatever the prototype, a callee ignores registers it does
 *    not read, and an unused return register is harmless. ISO C leaves such
 *    a call undefined; it is what makes the window hold nothing but the
 *    call instruction and the kernel.
 *  - a macro or an inline function (FreeRTOS xSemaphoreGive(), taskYIELD();
 *    Zephyr's system-call wrappers): a shim, RTB_KAPI(name, expression),
 *    a function of rtb_kfn's type named rtb_kapi_<name> whose body is that
 *    one use of the API, written as an application writes it. */
#define RTB_KFN(f) ((rtb_kfn)(void (*)(void))(f))
#define RTB_KAPI(name, expr)                                                             \
    static rtb_word rtb_kapi_##name(rtb_word a0, rtb_word a1, rtb_word a2, rtb_word a3, \
                                    rtb_word a4, rtb_word a5, rtb_word a6, rtb_word a7)  \
    {                                                                                    \
        RTB_KAPI_UNUSED;                                                                 \
        return (rtb_word)(expr);                                                         \
    }
/* The same for a macro that is a statement (taskYIELD(), vSemaphoreDelete()):
 * a shim returning nothing, called as RTB_KFN(rtb_kapi_<name>) so that it
 * ends in the kernel function's own return (a tail call), as a void
 * function of the kernel would. */
#define RTB_KAPI_STMT(name, stmt)                                                      \
    static void rtb_kapi_##name(rtb_word a0, rtb_word a1, rtb_word a2, rtb_word a3,   \
                                rtb_word a4, rtb_word a5, rtb_word a6, rtb_word a7)    \
    {                                                                                  \
        RTB_KAPI_UNUSED;                                                               \
        stmt;                                                                          \
    }
#define RTB_KAPI_UNUSED \
    (void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5, (void)a6, (void)a7

/* The call's result in RTB_* terms (after any of the three below). */
static inline int rtb_kcall_rc(const struct rtb_kcall *c)
{
    return c->done ? c->done(c) : 0;
}

/* The three timing primitives; each stores fn's return in c->ret. The
 * core has them in C (core/kcall.c, weak); a board replaces them with
 * assembly whose windows hold only the call instruction (the AN385's
 * kcall.S), plus in rtb_kcall_after_stamp the store of the stamp. */
void rtb_kcall_timed(struct rtb_kcall *c, rtb_stamp_t *t0, rtb_stamp_t *t1);
void rtb_kcall_after_stamp(struct rtb_kcall *c, volatile rtb_stamp_t *t0);
void rtb_kcall_then_stamp(struct rtb_kcall *c, rtb_stamp_t *t1);
void rtb_kcall_shared_timed(struct rtb_kcall *c, volatile rtb_stamp_t *t0, rtb_stamp_t *t1);

/* Make the call now, untimed; its RTB_* result. */
int rtb_kcall_run(struct rtb_kcall *c);

/* done() for a function that returns an RTB_* code itself (a port's own
 * function, an emulation): the return as it is. */
int rtb_kcall_done_rc(const struct rtb_kcall *c);

/* A port whose calls are all prepared derives the plain call
 * (rtb_port_<op>) from its preparation (rtb_port_<op>_kcall), e.g.
 *   RTB_KCALL_PLAIN(sem_give, (int id), id)
 * defines int rtb_port_sem_give(int id); RTB_KCALL_PLAIN0 for no arguments. */
#define RTB_KCALL_PLAIN(op, params, ...)                          \
    int rtb_port_##op params                                      \
    {                                                             \
        struct rtb_kcall c_;                                      \
        int rc_ = rtb_port_##op##_kcall(__VA_ARGS__, &c_);        \
        return rc_ != 0 ? rc_ : rtb_kcall_run(&c_);               \
    }
#define RTB_KCALL_PLAIN0(op)                                      \
    int rtb_port_##op(void)                                       \
    {                                                             \
        struct rtb_kcall c_;                                      \
        int rc_ = rtb_port_##op##_kcall(&c_);                     \
        return rc_ != 0 ? rc_ : rtb_kcall_run(&c_);               \
    }

/* Prepare `c` to call fn(a0..) with done() reading its return. */
static inline void rtb_kcall_set(struct rtb_kcall *c, rtb_kfn fn, int (*done)(const struct rtb_kcall *),
                                 rtb_word a0, rtb_word a1, rtb_word a2, rtb_word a3)
{
    c->fn = fn;
    c->a[0] = a0, c->a[1] = a1, c->a[2] = a2, c->a[3] = a3;
    c->a[4] = 0, c->a[5] = 0, c->a[6] = 0, c->a[7] = 0;
    c->ret = 0;
    c->done = done;
    c->aux[0] = 0, c->aux[1] = 0, c->aux[2] = 0;
}

#endif /* RTB_KCALL_H */
