/*
 * The optional half of the porting layer (rtb/port.h, section B): a weak
 * default for every service, answering "not provided by this port". A port
 * overrides a function by defining it; the linker takes the port's strong
 * definition. (Port sources are linked as objects, not from an archive, so
 * a default already pulled in cannot hide the port's definition.)
 *
 * The defaults never set rtb_port_last_error(): the core words the reason
 * from the capability bit the metric needs (runner.c) before a scenario
 * runs, and rtb_ok() says "not provided by this port" for an RTB_ENOTSUP
 * that came without the port's words.
 */
#include <rtb/port.h>

#define WEAK __attribute__((weak))
#define NOTSUP return RTB_ENOTSUP

WEAK void rtb_port_policy(struct rtb_port_policy *out)
{
    out->rest_every_us = 0;
    out->rest_us = 0;
    out->between_metrics_us = 0;
}

WEAK const char *rtb_port_emulation(enum rtb_emulation what, unsigned task_flags)
{
    (void)what, (void)task_flags;
    return "";
}

WEAK unsigned rtb_port_emulation_calls(enum rtb_emulation what, unsigned task_flags)
{
    (void)what, (void)task_flags;
    return 0;
}

WEAK const char *rtb_port_window_holds(const char *id) { (void)id; return 0; }
WEAK const char *rtb_port_unsupported_why(uint32_t cap) { (void)cap; return 0; }
WEAK int rtb_port_option(const char *name, const char *value) { (void)name, (void)value; return 0; }
WEAK int rtb_port_setup(bool list_only) { (void)list_only; return RTB_OK; }
WEAK void rtb_port_metric_begin(const char *id) { (void)id; }
WEAK int rtb_port_log_open(const char *path) { (void)path; NOTSUP; }
WEAK int rtb_port_log_write(const void *buf, size_t n) { (void)buf, (void)n; NOTSUP; }

WEAK bool rtb_port_ref_ns(uint64_t *ns) { (void)ns; return false; }
WEAK int rtb_port_tick_stamps(bool on) { (void)on; NOTSUP; }
WEAK rtb_stamp_t rtb_port_tick_stamp(void) { return 0; }
WEAK void rtb_port_stamp_run(rtb_stamp_t *buf, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        buf[i] = rtb_port_stamp_end();
}
WEAK const char *rtb_port_clock_name(int which) { (void)which; return 0; }
WEAK int rtb_port_clock_read(int which, uint64_t *v) { (void)which, (void)v; NOTSUP; }
WEAK int rtb_port_add_chain(uint32_t loops) { (void)loops; NOTSUP; }
WEAK int rtb_port_null_syscall(void) { NOTSUP; }
WEAK int rtb_port_cache_evict(void) { NOTSUP; }
WEAK int rtb_port_canary(void) { NOTSUP; }

WEAK int rtb_port_task_start(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_task_delete(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_task_suspend(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_task_resume(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_sched_lock(void) { NOTSUP; }
WEAK int rtb_port_sched_unlock(void) { NOTSUP; }

WEAK int rtb_port_alloc(unsigned how) { return how == RTB_ALLOC_STATIC ? RTB_OK : RTB_ENOTSUP; }
WEAK int rtb_port_sem_create(int id, unsigned initial, unsigned max) { (void)id, (void)initial, (void)max; NOTSUP; }
WEAK int rtb_port_sem_delete(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_sem_give(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_sem_give_isr(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_timer_service_prio(int prio) { (void)prio; NOTSUP; }
WEAK int rtb_port_irq_hook_plan(const struct rtb_irq_plan *plan) { (void)plan; NOTSUP; }
/* No claim: a port that does not say is ranked as if its kernel ran code. */
WEAK unsigned rtb_port_irq_kernel_code(unsigned path) { (void)path; return RTB_IRQ_KERNEL_ENTRY | RTB_IRQ_KERNEL_EXIT; }
/* Never called without RTB_CAP_IRQ: a board provides it (kcall.S). */
WEAK void rtb_port_irq_raise_timed(volatile rtb_stamp_t *t0, rtb_stamp_t *t1)
{
    *t0 = rtb_port_stamp_start();
    *t1 = rtb_port_stamp_end();
}
WEAK int rtb_port_sem_take(int id, int32_t t) { (void)id, (void)t; NOTSUP; }

WEAK int rtb_port_mutex_create(int id, unsigned flags) { (void)id, (void)flags; NOTSUP; }
WEAK int rtb_port_mutex_delete(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_mutex_lock(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_mutex_trylock(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_mutex_unlock(int id) { (void)id; NOTSUP; }

WEAK int rtb_port_msgq_create(int id, size_t msg_size, unsigned depth) { (void)id, (void)msg_size, (void)depth; NOTSUP; }
WEAK int rtb_port_msgq_delete(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_msgq_send(int id, const void *m, int32_t t) { (void)id, (void)m, (void)t; NOTSUP; }
WEAK int rtb_port_msgq_receive(int id, void *m, int32_t t) { (void)id, (void)m, (void)t; NOTSUP; }

WEAK int rtb_port_event_create(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_event_delete(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_event_set(int id, uint32_t bits) { (void)id, (void)bits; NOTSUP; }
WEAK int rtb_port_event_wait(int id, uint32_t bits, unsigned mode, int32_t t, uint32_t *got)
{
    (void)id, (void)bits, (void)mode, (void)t, (void)got;
    NOTSUP;
}

WEAK int rtb_port_rwlock_create(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_rwlock_delete(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_rwlock_rdlock(int id, int32_t t) { (void)id, (void)t; NOTSUP; }
WEAK int rtb_port_rwlock_wrlock(int id, int32_t t) { (void)id, (void)t; NOTSUP; }
WEAK int rtb_port_rwlock_unlock(int id) { (void)id; NOTSUP; }

WEAK int rtb_port_cond_create(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_cond_delete(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_cond_wait(int id, int m, int32_t t) { (void)id, (void)m, (void)t; NOTSUP; }
WEAK int rtb_port_cond_signal(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_cond_broadcast(int id) { (void)id; NOTSUP; }

WEAK int rtb_port_queue_create(int id, unsigned kind, unsigned depth) { (void)id, (void)kind, (void)depth; NOTSUP; }
WEAK int rtb_port_queue_delete(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_queue_put(int id, uintptr_t item, bool alloc) { (void)id, (void)item, (void)alloc; NOTSUP; }
WEAK int rtb_port_queue_get(int id, uintptr_t *item, int32_t t) { (void)id, (void)item, (void)t; NOTSUP; }

WEAK int rtb_port_pipe_create(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_pipe_delete(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_pipe_write(int id, const void *b, size_t n, int32_t t) { (void)id, (void)b, (void)n, (void)t; NOTSUP; }
WEAK int rtb_port_pipe_read(int id, void *b, size_t n, int32_t t) { (void)id, (void)b, (void)n, (void)t; NOTSUP; }

WEAK void *rtb_port_heap_alloc(size_t size) { (void)size; return 0; }
WEAK void rtb_port_heap_free(void *p) { (void)p; }

WEAK int rtb_port_timer_create(int id, rtb_timer_fn fn, void *arg) { (void)id, (void)fn, (void)arg; NOTSUP; }
WEAK int rtb_port_timer_start(int id, uint32_t first_us, uint32_t period_us) { (void)id, (void)first_us, (void)period_us; NOTSUP; }
WEAK int rtb_port_timer_cancel(int id) { (void)id; NOTSUP; }
WEAK int rtb_port_timer_delete(int id) { (void)id; NOTSUP; }

WEAK int rtb_port_irq_hook(rtb_irq_fn fn, void *arg) { (void)fn, (void)arg; NOTSUP; }
WEAK int rtb_port_irq_trigger(void) { NOTSUP; }
WEAK int rtb_port_irq_trigger_after(uint32_t ticks) { (void)ticks; NOTSUP; }
WEAK rtb_ticks_t rtb_port_irq_raised_at(void) { return 0; }
WEAK int rtb_port_irq_unhook(void) { NOTSUP; }
WEAK int rtb_port_irq_bare(bool c_call, int32_t *prolog, int32_t *epilog) { (void)c_call, (void)prolog, (void)epilog; NOTSUP; }
WEAK int rtb_port_irq_mask(void) { NOTSUP; }
WEAK int rtb_port_irq_unmask(void) { NOTSUP; }
WEAK int rtb_port_critical_enter(void) { NOTSUP; }
WEAK int rtb_port_critical_exit(void) { NOTSUP; }

/* The port's own metric sections (bench.h): none by default. */
struct rtb_metric;
WEAK const struct rtb_metric *const rtb_port_metric_tables[] = {0};
