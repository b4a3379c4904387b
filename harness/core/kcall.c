/*
 * Prepared kernel calls (rtb/kcall.h): the timing primitives in C, and the
 * weak default preparation of every timed service, which calls the port's
 * plain function (rtb/port.h section C).
 *
 * The C primitives load the call into locals before the first stamp, so
 * the window holds the argument moves, the call and the function; a board
 * replaces all three with assembly (boards/mps2-an385/kcall.S) whose
 * window holds only the call instruction.
 */
#include <rtb/port.h>

#define WEAK __attribute__((weak))
#define W(x) ((rtb_word)(x))
#define UNUSED8 RTB_KAPI_UNUSED

WEAK void rtb_kcall_timed(struct rtb_kcall *c, rtb_stamp_t *t0, rtb_stamp_t *t1)
{
    rtb_kfn fn = c->fn;
    rtb_word a0 = c->a[0], a1 = c->a[1], a2 = c->a[2], a3 = c->a[3], a4 = c->a[4], a5 = c->a[5];
    rtb_word a6 = c->a[6], a7 = c->a[7];
    rtb_stamp_t s0 = rtb_port_stamp_start();
    rtb_word r = fn(a0, a1, a2, a3, a4, a5, a6, a7);
    rtb_stamp_t s1 = rtb_port_stamp_end();
    c->ret = r;
    *t0 = s0;
    *t1 = s1;
}

WEAK void rtb_kcall_after_stamp(struct rtb_kcall *c, volatile rtb_stamp_t *t0)
{
    rtb_kfn fn = c->fn;
    rtb_word a0 = c->a[0], a1 = c->a[1], a2 = c->a[2], a3 = c->a[3], a4 = c->a[4], a5 = c->a[5];
    rtb_word a6 = c->a[6], a7 = c->a[7];
    *t0 = rtb_port_stamp_start();
    c->ret = fn(a0, a1, a2, a3, a4, a5, a6, a7);
}

WEAK void rtb_kcall_shared_timed(struct rtb_kcall *c, volatile rtb_stamp_t *t0, rtb_stamp_t *t1)
{
    rtb_kfn fn = c->fn;
    rtb_word a0 = c->a[0], a1 = c->a[1], a2 = c->a[2], a3 = c->a[3], a4 = c->a[4], a5 = c->a[5];
    rtb_word a6 = c->a[6], a7 = c->a[7];
    *t0 = rtb_port_stamp_start();
    rtb_word r = fn(a0, a1, a2, a3, a4, a5, a6, a7);
    *t1 = rtb_port_stamp_end();
    c->ret = r;
}

WEAK void rtb_kcall_then_stamp(struct rtb_kcall *c, rtb_stamp_t *t1)
{
    rtb_word r = c->fn(c->a[0], c->a[1], c->a[2], c->a[3], c->a[4], c->a[5], c->a[6], c->a[7]);
    *t1 = rtb_port_stamp_end();
    c->ret = r;
}

int rtb_kcall_run(struct rtb_kcall *c)
{
    c->ret = c->fn(c->a[0], c->a[1], c->a[2], c->a[3], c->a[4], c->a[5], c->a[6], c->a[7]);
    return rtb_kcall_rc(c);
}

int rtb_kcall_done_rc(const struct rtb_kcall *c)
{
    return (int)(intptr_t)c->ret;
}

/* ---- the weak default preparations: a call of the plain function ------- */
/* ADAPT(op, expr) defines adapt_<op>(a0..a7), which evaluates expr (the
 * plain call, its arguments read from a0..a5) and returns its RTB_* code;
 * PREP(op, params, a0..a4) defines the weak rtb_port_<op>_kcall. */
#define ADAPT(op, expr)                                                                    \
    static rtb_word adapt_##op(rtb_word a0, rtb_word a1, rtb_word a2, rtb_word a3,        \
                               rtb_word a4, rtb_word a5, rtb_word a6, rtb_word a7)        \
    {                                                                                      \
        UNUSED8;                                                                           \
        return (rtb_word)(intptr_t)(expr);                                                 \
    }
#define PREP(op, params, w0, w1, w2, w3, w4)                                               \
    WEAK int rtb_port_##op##_kcall params                                                  \
    {                                                                                      \
        rtb_kcall_set(c, adapt_##op, rtb_kcall_done_rc, W(w0), W(w1), W(w2), W(w3));       \
        c->a[4] = W(w4);                                                                   \
        return RTB_OK;                                                                     \
    }
#define I(a) ((int)(intptr_t)(a))
#define U(a) ((unsigned)(a))
#define S32(a) ((int32_t)(intptr_t)(a))
#define P(t, a) ((t)(a))

ADAPT(task_create, rtb_port_task_create(I(a0), I(a1), U(a2), P(rtb_task_fn, a3), P(void *, a4)))
PREP(task_create, (int id, int prio, unsigned flags, rtb_task_fn fn, void *arg, struct rtb_kcall *c),
     id, prio, flags, fn, arg)
ADAPT(task_start, rtb_port_task_start(I(a0)))
PREP(task_start, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(task_delete, rtb_port_task_delete(I(a0)))
PREP(task_delete, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(task_suspend, rtb_port_task_suspend(I(a0)))
PREP(task_suspend, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(task_resume, rtb_port_task_resume(I(a0)))
PREP(task_resume, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(task_set_prio, rtb_port_task_set_prio(I(a0), I(a1)))
PREP(task_set_prio, (int id, int prio, struct rtb_kcall *c), id, prio, 0, 0, 0)
ADAPT(task_yield, (rtb_port_task_yield(), RTB_OK))
PREP(task_yield, (struct rtb_kcall *c), 0, 0, 0, 0, 0)
ADAPT(task_delay, rtb_port_task_delay((uint32_t)a0))
PREP(task_delay, (uint32_t us, struct rtb_kcall *c), us, 0, 0, 0, 0)
ADAPT(sched_lock, rtb_port_sched_lock())
PREP(sched_lock, (struct rtb_kcall *c), 0, 0, 0, 0, 0)
ADAPT(sched_unlock, rtb_port_sched_unlock())
PREP(sched_unlock, (struct rtb_kcall *c), 0, 0, 0, 0, 0)

ADAPT(sem_create, rtb_port_sem_create(I(a0), U(a1), U(a2)))
PREP(sem_create, (int id, unsigned initial, unsigned max, struct rtb_kcall *c), id, initial, max, 0, 0)
ADAPT(sem_delete, rtb_port_sem_delete(I(a0)))
PREP(sem_delete, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(sem_give, rtb_port_sem_give(I(a0)))
PREP(sem_give, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(sem_take, rtb_port_sem_take(I(a0), S32(a1)))
PREP(sem_take, (int id, int32_t timeout_us, struct rtb_kcall *c), id, (intptr_t)timeout_us, 0, 0, 0)

ADAPT(mutex_create, rtb_port_mutex_create(I(a0), U(a1)))
PREP(mutex_create, (int id, unsigned flags, struct rtb_kcall *c), id, flags, 0, 0, 0)
ADAPT(mutex_delete, rtb_port_mutex_delete(I(a0)))
PREP(mutex_delete, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(mutex_lock, rtb_port_mutex_lock(I(a0)))
PREP(mutex_lock, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(mutex_trylock, rtb_port_mutex_trylock(I(a0)))
PREP(mutex_trylock, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(mutex_unlock, rtb_port_mutex_unlock(I(a0)))
PREP(mutex_unlock, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)

ADAPT(msgq_create, rtb_port_msgq_create(I(a0), (size_t)a1, U(a2)))
PREP(msgq_create, (int id, size_t msg_size, unsigned depth, struct rtb_kcall *c), id, msg_size, depth, 0, 0)
ADAPT(msgq_delete, rtb_port_msgq_delete(I(a0)))
PREP(msgq_delete, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(msgq_send, rtb_port_msgq_send(I(a0), P(const void *, a1), S32(a2)))
PREP(msgq_send, (int id, const void *msg, int32_t timeout_us, struct rtb_kcall *c), id, msg,
     (intptr_t)timeout_us, 0, 0)
ADAPT(msgq_receive, rtb_port_msgq_receive(I(a0), P(void *, a1), S32(a2)))
PREP(msgq_receive, (int id, void *msg, int32_t timeout_us, struct rtb_kcall *c), id, msg,
     (intptr_t)timeout_us, 0, 0)

ADAPT(event_create, rtb_port_event_create(I(a0)))
PREP(event_create, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(event_delete, rtb_port_event_delete(I(a0)))
PREP(event_delete, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(event_set, rtb_port_event_set(I(a0), (uint32_t)a1))
PREP(event_set, (int id, uint32_t bits, struct rtb_kcall *c), id, bits, 0, 0, 0)
ADAPT(event_wait, rtb_port_event_wait(I(a0), (uint32_t)a1, U(a2), S32(a3), P(uint32_t *, a4)))
PREP(event_wait, (int id, uint32_t bits, unsigned mode, int32_t timeout_us, uint32_t *got,
                  struct rtb_kcall *c), id, bits, mode, (intptr_t)timeout_us, got)

ADAPT(rwlock_create, rtb_port_rwlock_create(I(a0)))
PREP(rwlock_create, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(rwlock_delete, rtb_port_rwlock_delete(I(a0)))
PREP(rwlock_delete, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(rwlock_rdlock, rtb_port_rwlock_rdlock(I(a0), S32(a1)))
PREP(rwlock_rdlock, (int id, int32_t timeout_us, struct rtb_kcall *c), id, (intptr_t)timeout_us, 0, 0, 0)
ADAPT(rwlock_wrlock, rtb_port_rwlock_wrlock(I(a0), S32(a1)))
PREP(rwlock_wrlock, (int id, int32_t timeout_us, struct rtb_kcall *c), id, (intptr_t)timeout_us, 0, 0, 0)
ADAPT(rwlock_unlock, rtb_port_rwlock_unlock(I(a0)))
PREP(rwlock_unlock, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)

ADAPT(cond_create, rtb_port_cond_create(I(a0)))
PREP(cond_create, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(cond_delete, rtb_port_cond_delete(I(a0)))
PREP(cond_delete, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(cond_wait, rtb_port_cond_wait(I(a0), I(a1), S32(a2)))
PREP(cond_wait, (int id, int mutex_id, int32_t timeout_us, struct rtb_kcall *c), id, mutex_id,
     (intptr_t)timeout_us, 0, 0)
ADAPT(cond_signal, rtb_port_cond_signal(I(a0)))
PREP(cond_signal, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(cond_broadcast, rtb_port_cond_broadcast(I(a0)))
PREP(cond_broadcast, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)

ADAPT(queue_create, rtb_port_queue_create(I(a0), U(a1), U(a2)))
PREP(queue_create, (int id, unsigned kind, unsigned depth, struct rtb_kcall *c), id, kind, depth, 0, 0)
ADAPT(queue_delete, rtb_port_queue_delete(I(a0)))
PREP(queue_delete, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(queue_put, rtb_port_queue_put(I(a0), (uintptr_t)a1, a2 != 0))
PREP(queue_put, (int id, uintptr_t item, bool alloc, struct rtb_kcall *c), id, item, alloc, 0, 0)
ADAPT(queue_get, rtb_port_queue_get(I(a0), P(uintptr_t *, a1), S32(a2)))
PREP(queue_get, (int id, uintptr_t *item, int32_t timeout_us, struct rtb_kcall *c), id, item,
     (intptr_t)timeout_us, 0, 0)

ADAPT(pipe_create, rtb_port_pipe_create(I(a0)))
PREP(pipe_create, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(pipe_delete, rtb_port_pipe_delete(I(a0)))
PREP(pipe_delete, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(pipe_write, rtb_port_pipe_write(I(a0), P(const void *, a1), (size_t)a2, S32(a3)))
PREP(pipe_write, (int id, const void *buf, size_t n, int32_t timeout_us, struct rtb_kcall *c), id, buf, n,
     (intptr_t)timeout_us, 0)
ADAPT(pipe_read, rtb_port_pipe_read(I(a0), P(void *, a1), (size_t)a2, S32(a3)))
PREP(pipe_read, (int id, void *buf, size_t n, int32_t timeout_us, struct rtb_kcall *c), id, buf, n,
     (intptr_t)timeout_us, 0)

ADAPT(timer_create, rtb_port_timer_create(I(a0), P(rtb_timer_fn, a1), P(void *, a2)))
PREP(timer_create, (int id, rtb_timer_fn fn, void *arg, struct rtb_kcall *c), id, fn, arg, 0, 0)
ADAPT(timer_start, rtb_port_timer_start(I(a0), (uint32_t)a1, (uint32_t)a2))
PREP(timer_start, (int id, uint32_t first_us, uint32_t period_us, struct rtb_kcall *c), id, first_us,
     period_us, 0, 0)
ADAPT(timer_cancel, rtb_port_timer_cancel(I(a0)))
PREP(timer_cancel, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)
ADAPT(timer_delete, rtb_port_timer_delete(I(a0)))
PREP(timer_delete, (int id, struct rtb_kcall *c), id, 0, 0, 0, 0)

ADAPT(irq_mask, rtb_port_irq_mask())
PREP(irq_mask, (struct rtb_kcall *c), 0, 0, 0, 0, 0)
ADAPT(irq_unmask, rtb_port_irq_unmask())
PREP(irq_unmask, (struct rtb_kcall *c), 0, 0, 0, 0, 0)
ADAPT(critical_enter, rtb_port_critical_enter())
PREP(critical_enter, (struct rtb_kcall *c), 0, 0, 0, 0, 0)
ADAPT(critical_exit, rtb_port_critical_exit())
PREP(critical_exit, (struct rtb_kcall *c), 0, 0, 0, 0, 0)
ADAPT(null_syscall, rtb_port_null_syscall())
PREP(null_syscall, (struct rtb_kcall *c), 0, 0, 0, 0, 0)
ADAPT(clock_read, rtb_port_clock_read(I(a0), P(uint64_t *, a1)))
PREP(clock_read, (int which, uint64_t *value, struct rtb_kcall *c), which, value, 0, 0, 0)

/* The heap's plain calls return a block, not a code. */
static rtb_word adapt_heap_alloc(rtb_word a0, rtb_word a1, rtb_word a2, rtb_word a3, rtb_word a4,
                                 rtb_word a5, rtb_word a6, rtb_word a7)
{
    UNUSED8;
    return W(rtb_port_heap_alloc((size_t)a0));
}

static int heap_alloc_done(const struct rtb_kcall *c)
{
    return c->ret ? RTB_OK : RTB_ERR;
}

WEAK int rtb_port_heap_alloc_kcall(size_t size, struct rtb_kcall *c)
{
    rtb_kcall_set(c, adapt_heap_alloc, heap_alloc_done, W(size), 0, 0, 0);
    return RTB_OK;
}

static rtb_word adapt_heap_free(rtb_word a0, rtb_word a1, rtb_word a2, rtb_word a3, rtb_word a4,
                                rtb_word a5, rtb_word a6, rtb_word a7)
{
    UNUSED8;
    rtb_port_heap_free((void *)a0);
    return 0;
}

WEAK int rtb_port_heap_free_kcall(void *p, struct rtb_kcall *c)
{
    rtb_kcall_set(c, adapt_heap_free, 0, W(p), 0, 0, 0);
    return RTB_OK;
}
