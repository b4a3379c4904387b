/*
 * Stub port: compiles and links the portable core and every scenario with
 * no C library at all, to prove they need none. Every kernel service answers
 * RTB_ENOTSUP, as a new port does before its services are filled in: copy
 * this file, replace each stub with the kernel's call, and set the matching
 * RTB_CAP_* bit in rtb_port_caps(). Each stub's comment is its contract.
 */
#include <rtb/runner.h>

/* Freestanding C still needs these four from the environment (GCC may emit
 * calls to them for struct copies and initialisations). */
void *memcpy(void *d, const void *s, size_t n)
{
    unsigned char *dp = d;
    const unsigned char *sp = s;
    while (n--)
        *dp++ = *sp++;
    return d;
}
void *memmove(void *d, const void *s, size_t n)
{
    unsigned char *dp = d;
    const unsigned char *sp = s;
    if (dp < sp)
        return memcpy(d, s, n);
    while (n--)
        dp[n] = sp[n];
    return d;
}
void *memset(void *d, int c, size_t n)
{
    unsigned char *dp = d;
    while (n--)
        *dp++ = (unsigned char)c;
    return d;
}
int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (; n; n--, x++, y++)
        if (*x != *y)
            return *x - *y;
    return 0;
}

#define STUB return RTB_ENOTSUP

/* Records go to a RAM buffer a debugger reads; a real port writes a UART. */
static char out[4096];
static size_t out_len;
void rtb_port_write(const char *s, size_t n)
{
    while (n-- && out_len < sizeof out)
        out[out_len++] = *s++;
}

uint32_t rtb_port_caps(void) { return 0; }                 /* no service yet */
const char *rtb_port_last_error(void) { return "stub port: service not provided"; }
void rtb_port_metric_begin(const char *id) { (void)id; }   /* e.g. flush caches */
bool rtb_port_ref_ns(uint64_t *ns) { (void)ns; return false; } /* e.g. SysTick-based ms clock */
/* Clocks: e.g. 0 = the tick counter, 1 = the high-resolution timer. */
const char *rtb_port_clock_name(int which) { (void)which; return 0; }
int rtb_port_clock_read(int which, uint64_t *v) { (void)which, (void)v; STUB; }
/* e.g. an SVC that returns at once, on a kernel with an MPU user mode. */
int rtb_port_null_syscall(void) { STUB; }
/* e.g. SCB_CleanInvalidateDCache + SCB_InvalidateICache on a Cortex-M7. */
int rtb_port_cache_evict(void) { STUB; }

/* Shared memory: one address space, so a static arena. */
static unsigned char arena[48u * 1024u] __attribute__((aligned(16)));
static size_t arena_used;
void *rtb_port_shared(size_t size)
{
    size = (size + 15u) & ~(size_t)15u;
    if (size > sizeof arena - arena_used)
        return 0;
    arena_used += size;
    return arena + arena_used - size;
}

void rtb_port_info(struct rtb_port_info *o)
{
    o->port = "stub";
    o->ts_source = "DWT CYCCNT";
    o->ref_clock = "";
    o->ts_hz_nominal = 168000000u; /* SystemCoreClock on a real board */
    o->realtime = true;            /* a bare-metal kernel's priorities are real */
    o->policy = "fixed-priority preemptive";
    o->rt_reason = "";
    o->mlock = true;
    o->cpu = 0;
    o->cpus_online = 1;
}

/* Tasks: create ready at prio (higher = more urgent), join waits for return.
 * RTB_TASK_PROCESS needs an MPU-separated kernel: ENOTSUP on most boards. */
int rtb_port_task_create(int id, int prio, unsigned flags, rtb_task_fn fn, void *arg) { (void)id, (void)prio, (void)flags, (void)fn, (void)arg; STUB; }
int rtb_port_task_start(int id) { (void)id; STUB; }
int rtb_port_task_join(int id) { (void)id; STUB; }
int rtb_port_task_delete(int id) { (void)id; STUB; }
int rtb_port_task_suspend(int id) { (void)id; STUB; }
int rtb_port_task_resume(int id) { (void)id; STUB; }
void rtb_port_task_yield(void) {}
int rtb_port_task_set_prio(int id, int prio) { (void)id, (void)prio; STUB; }
int rtb_port_task_delay(uint32_t us) { (void)us; STUB; }
int rtb_port_sched_lock(void) { STUB; }
int rtb_port_sched_unlock(void) { STUB; }
/* Semaphores: give on a full one (count == max) is a no-op. */
int rtb_port_sem_create(int id, unsigned initial, unsigned max) { (void)id, (void)initial, (void)max; STUB; }
int rtb_port_sem_delete(int id) { (void)id; STUB; }
int rtb_port_sem_give(int id) { (void)id; STUB; }
int rtb_port_sem_take(int id, int32_t timeout_us) { (void)id, (void)timeout_us; STUB; }
/* Mutexes: flags RTB_MUTEX_RECURSIVE / RTB_MUTEX_INHERIT. */
int rtb_port_mutex_create(int id, unsigned flags) { (void)id, (void)flags; STUB; }
int rtb_port_mutex_delete(int id) { (void)id; STUB; }
int rtb_port_mutex_lock(int id) { (void)id; STUB; }
int rtb_port_mutex_trylock(int id) { (void)id; STUB; }
int rtb_port_mutex_unlock(int id) { (void)id; STUB; }
/* Message queues: messages of msg_size bytes, copied in and out. */
int rtb_port_msgq_create(int id, size_t msg_size, unsigned depth) { (void)id, (void)msg_size, (void)depth; STUB; }
int rtb_port_msgq_delete(int id) { (void)id; STUB; }
int rtb_port_msgq_send(int id, const void *msg, int32_t t) { (void)id, (void)msg, (void)t; STUB; }
int rtb_port_msgq_receive(int id, void *msg, int32_t t) { (void)id, (void)msg, (void)t; STUB; }
/* Event flags: wait for ANY or ALL of bits, optionally clearing them. */
int rtb_port_event_create(int id) { (void)id; STUB; }
int rtb_port_event_delete(int id) { (void)id; STUB; }
int rtb_port_event_set(int id, uint32_t bits) { (void)id, (void)bits; STUB; }
int rtb_port_event_wait(int id, uint32_t bits, unsigned mode, int32_t t, uint32_t *got) { (void)id, (void)bits, (void)mode, (void)t, (void)got; STUB; }
/* Reader-writer locks. */
int rtb_port_rwlock_create(int id) { (void)id; STUB; }
int rtb_port_rwlock_delete(int id) { (void)id; STUB; }
int rtb_port_rwlock_rdlock(int id, int32_t t) { (void)id, (void)t; STUB; }
int rtb_port_rwlock_wrlock(int id, int32_t t) { (void)id, (void)t; STUB; }
int rtb_port_rwlock_unlock(int id) { (void)id; STUB; }
/* Condition variables, used with a mutex of this layer. */
int rtb_port_cond_create(int id) { (void)id; STUB; }
int rtb_port_cond_delete(int id) { (void)id; STUB; }
int rtb_port_cond_wait(int id, int m, int32_t t) { (void)id, (void)m, (void)t; STUB; }
int rtb_port_cond_signal(int id) { (void)id; STUB; }
int rtb_port_cond_broadcast(int id) { (void)id; STUB; }
/* Queues of words: FIFO, LIFO, or a bounded stack. */
int rtb_port_queue_create(int id, unsigned kind, unsigned depth) { (void)id, (void)kind, (void)depth; STUB; }
int rtb_port_queue_delete(int id) { (void)id; STUB; }
int rtb_port_queue_put(int id, uintptr_t item, bool alloc) { (void)id, (void)item, (void)alloc; STUB; }
int rtb_port_queue_get(int id, uintptr_t *item, int32_t t) { (void)id, (void)item, (void)t; STUB; }
/* Byte pipes. */
int rtb_port_pipe_create(int id) { (void)id; STUB; }
int rtb_port_pipe_delete(int id) { (void)id; STUB; }
int rtb_port_pipe_write(int id, const void *b, size_t n, int32_t t) { (void)id, (void)b, (void)n, (void)t; STUB; }
int rtb_port_pipe_read(int id, void *b, size_t n, int32_t t) { (void)id, (void)b, (void)n, (void)t; STUB; }
/* Heap: e.g. pvPortMalloc / k_malloc. */
void *rtb_port_heap_alloc(size_t size) { (void)size; return 0; }
void rtb_port_heap_free(void *p) { (void)p; }
/* Timers: fn runs in timer context; period 0 is one-shot. */
int rtb_port_timer_create(int id, rtb_timer_fn fn, void *arg) { (void)id, (void)fn, (void)arg; STUB; }
int rtb_port_timer_start(int id, uint32_t first_us, uint32_t period_us) { (void)id, (void)first_us, (void)period_us; STUB; }
int rtb_port_timer_cancel(int id) { (void)id; STUB; }
int rtb_port_timer_delete(int id) { (void)id; STUB; }
/* Interrupt: fn runs in interrupt context when triggered (e.g. NVIC_SetPendingIRQ). */
int rtb_port_irq_hook(rtb_irq_fn fn, void *arg) { (void)fn, (void)arg; STUB; }
int rtb_port_irq_trigger(void) { STUB; }
rtb_ticks_t rtb_port_irq_raised_at(void) { return 0; }
int rtb_port_irq_unhook(void) { STUB; }

/* The port's own metric sections (bench.h): none. */
const struct rtb_metric *const rtb_port_metric_tables[] = { 0 };

/* The entry point a board's reset handler calls. */
void rtb_stub_main(void)
{
    struct rtb_config cfg = {.samples = 1000, .warmup = 10, .budget_ms = 1000,
                             .compiler = "arm-none-eabi-gcc", .cflags = "", .build_type = "MinSizeRel",
                             .profile = "rt"};
    rtb_run(&cfg);
    for (;;)
        ;
}
