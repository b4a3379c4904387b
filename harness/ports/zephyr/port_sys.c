/* Zephyr port: identity, capabilities, the target's facts for the sheet,
 * errors, timeouts, clocks, policies and the fault hooks. */
#include <rtb/runner.h>

#include <errno.h>
#include <version.h>
#include <zephyr/fatal.h>

#include "rtb_zephyr.h"
#include "rtb_profile_facts.h" /* the kernel profile's settings, as its .config has them */
#if defined(RTB_BOARD_MPS2)
#include "rtb_board.h"
#include "rtb_board_port.h"
#endif

/* ---- errors --------------------------------------------------------------- */
static char last_error[160];

static void set_error(const char *a, const char *b)
{
    size_t n = 0;
    for (const char *p = a; p && *p && n + 1 < sizeof last_error; p++)
        last_error[n++] = *p;
    if (b && *b) {
        for (const char *p = ": "; *p && n + 1 < sizeof last_error; p++)
            last_error[n++] = *p;
        for (const char *p = b; *p && n + 1 < sizeof last_error; p++)
            last_error[n++] = *p;
    }
    last_error[n] = '\0';
}

int rtb_zephyr_fail(const char *what, const char *why)
{
    set_error(what, why);
    return RTB_ERR;
}

int rtb_zephyr_unsupported(const char *what)
{
    set_error(what, 0);
    return RTB_ENOTSUP;
}

const char *rtb_port_last_error(void)
{
    return last_error;
}

int rtb_zephyr_errno_done(const struct rtb_kcall *c)
{
    int rc = (int)(intptr_t)c->ret;
    if (rc == 0)
        return RTB_OK;
    if (rc == -EBUSY || rc == -ENOMSG)
        return RTB_EWOULDBLOCK;
    if (rc == -EAGAIN)
        return (int32_t)c->aux[0] == RTB_NO_WAIT ? RTB_EWOULDBLOCK : RTB_ETIMEOUT;
    return rtb_zephyr_fail(c->aux[2] ? (const char *)c->aux[2] : "kernel call",
                           rc == -EINVAL ? "EINVAL" : rc == -EPERM ? "EPERM" : "error");
}

int32_t rtb_zephyr_ticks(int32_t timeout_us)
{
    if (timeout_us == RTB_NO_WAIT)
        return 0;
    if (timeout_us < 0)
        return -1; /* K_FOREVER */
    uint64_t t = k_us_to_ticks_ceil64((uint64_t)timeout_us);
    return t > INT32_MAX ? INT32_MAX : (int32_t)t;
}

/* ---- identity ---------------------------------------------------------------- */
uint32_t rtb_port_caps(void)
{
    uint32_t caps = RTB_CAP_TASK_DELETE | RTB_CAP_TASK_SUSPEND | RTB_CAP_SCHED_LOCK |
                    RTB_CAP_TASK_START | RTB_CAP_SEM | RTB_CAP_MUTEX | RTB_CAP_MSGQ |
                    RTB_CAP_EVENTS | RTB_CAP_TIMER | RTB_CAP_QUEUE | RTB_CAP_PIPE | RTB_CAP_HEAP |
                    RTB_CAP_COND | RTB_CAP_IRQ_MASK | RTB_CAP_CRITICAL;
#if defined(RTB_BOARD_MPS2)
    caps |= RTB_CAP_IRQ | RTB_CAP_IRQ_TIMED | RTB_CAP_IRQ_BARE;
#endif
#if defined(CONFIG_USERSPACE)
    caps |= RTB_CAP_NULL_SYSCALL | RTB_CAP_PROCESS | RTB_CAP_USER_KERNEL;
#endif
    return caps;
}

const char *rtb_port_unsupported_why(uint32_t cap)
{
    switch (cap) {
    case RTB_CAP_PROCESS:
        return "a kernel-only build: Zephyr has no processes, and its user-mode threads need "
               "CONFIG_USERSPACE (rtbench run --kernel zephyr --userspace)";
    case RTB_CAP_NULL_SYSCALL:
        return "without CONFIG_USERSPACE every Zephyr thread runs in kernel mode: no system call "
               "(rtbench run --kernel zephyr --userspace)";
    case RTB_CAP_USER_KERNEL:
        return "without CONFIG_USERSPACE every Zephyr thread runs in kernel mode: no user-mode "
               "thread to switch with (rtbench run --kernel zephyr --userspace)";
    case RTB_CAP_SMP:
        return "one CPU: the board is a single core";
    case RTB_CAP_RWLOCK:
        return "Zephyr has no reader-writer lock (k_rwlock does not exist)";
    case RTB_CAP_SWI:
        return "Zephyr has no software-interrupt objects (deferred work is a work queue thread)";
    case RTB_CAP_RTA_LOG:
        return "Zephyr has no target-side log/statistics objects of the DSP/BIOS kind";
    case RTB_CAP_FRAME_PIPE:
        return "Zephyr's k_pipe moves bytes; it has no in-place frames";
    case RTB_CAP_FIRST_FIT_HEAP:
        return "Zephyr's heaps do not expose their free list to arrange";
    case RTB_CAP_CACHE_DISABLE:
        return "the Cortex-M3 has no caches to switch off";
    case RTB_CAP_IRQ:
    case RTB_CAP_IRQ_TIMED:
    case RTB_CAP_IRQ_BARE:
        return "no interrupt source rtbench knows on this board (the MPS2 boards' CMSDK timer)";
    default:
        return 0;
    }
}

/* Kernel calls in a timed window: the clearing wait is two. */
unsigned rtb_port_emulation_calls(enum rtb_emulation what, unsigned task_flags)
{
    (void)task_flags;
    switch (what) {
    case RTB_EMU_EVENT_CLEAR:
        return 2;
    case RTB_EMU_QUEUE:
        return 1;
    default:
        return 0;
    }
}

const char *rtb_port_emulation(enum rtb_emulation what, unsigned task_flags)
{
    switch (what) {
    case RTB_EMU_MUTEX_NO_INHERIT:
        return "every Zephyr k_mutex inherits priority: the same object as with inheritance";
    case RTB_EMU_QUEUE:
        return "k_fifo/k_lifo link a node the caller provides (the port's pool, taken when the call "
               "is prepared); k_stack holds words";
    case RTB_EMU_TASK_SELF_SUSPEND:
        return "";
    case RTB_EMU_EVENT_CLEAR:
        return "Zephyr 4.0 has no event wait that consumes what it received: a wait that clears "
               "(event.receive.*, the switch rows' waiter) is k_event_wait then k_event_clear, the "
               "port's two calls; every other event call is k_event's own";
    default:
        (void)task_flags;
        return "";
    }
}

/* Where created objects live: always the application's memory. */
int rtb_port_alloc(unsigned how)
{
    if (how == RTB_ALLOC_STATIC)
        return RTB_OK;
    return rtb_zephyr_unsupported("Zephyr has no create call that allocates: every object is the "
                                  "application's (K_SEM_DEFINE); k_object_alloc needs "
                                  "CONFIG_DYNAMIC_OBJECTS (userspace only)");
}

#define STR2(x) #x
#define STR(x) STR2(x)

static const char *const facts[] = {
    "kernel", "Zephyr " KERNEL_VERSION_STRING,
    "kernel_port", "arch/arm (Cortex-M)",
    "tick_hz", STR(CONFIG_SYS_CLOCK_TICKS_PER_SEC),
    "tickless", IS_ENABLED(CONFIG_TICKLESS_KERNEL) ? "on" : "off (a periodic tick, as the other kernels)",
    "asserts", IS_ENABLED(CONFIG_ASSERT) ? "on (CONFIG_ASSERT)" : "off (CONFIG_ASSERT=n)",
    "stack_checking", IS_ENABLED(CONFIG_HW_STACK_PROTECTION) || IS_ENABLED(CONFIG_STACK_SENTINEL)
                          ? "on" : "off (no hardware stack protection, no stack sentinel)",
#if defined(CONFIG_TIMESLICING) && CONFIG_TIMESLICE_SIZE > 0
    "time_slicing", "on (CONFIG_TIMESLICE_SIZE " STR(CONFIG_TIMESLICE_SIZE) " ms)",
#elif defined(CONFIG_TIMESLICING)
    "time_slicing", "off (compiled in, CONFIG_TIMESLICE_SIZE 0: no thread is ever sliced)",
#else
    "time_slicing", "off (CONFIG_TIMESLICING=n)",
#endif
    "userspace", IS_ENABLED(CONFIG_USERSPACE)
                     ? "on (MPU; .process rows between user-mode threads, .k_to_u and .u_to_k "
                       "between a kernel-mode and a user-mode thread, .thread rows between "
                       "kernel-mode threads)"
                     : "off",
    "scheduler", IS_ENABLED(CONFIG_SCHED_DUMB) ? "dumb (a list)" : "scaled or multiq",
    "smp", IS_ENABLED(CONFIG_SMP) ? "on" : "off (uniprocessor: no spinlocks taken)",
    "heap", "k_malloc (system heap, CONFIG_HEAP_MEM_POOL_SIZE " STR(CONFIG_HEAP_MEM_POOL_SIZE) ")",
    "libc", IS_ENABLED(CONFIG_MINIMAL_LIBC) ? "minimal" : "picolibc or newlib",
    "idle", "a busy thread below every task (the idle thread's WFI never runs)",
    /* "on" exactly: the sheets read it as a flag; the detail is its own fact. */
    "preemption", "on",
    "preempt_priorities", "every benchmark thread preemptible (CONFIG_NUM_PREEMPT_PRIORITIES=" STR(CONFIG_NUM_PREEMPT_PRIORITIES) ")",
    "timer_task_priority", "none (a k_timer's expiry function runs in the system clock interrupt)",
    "interrupt_masking", "BASEPRI (irq_lock): kernel sections mask every interrupt but "
                         "zero-latency ones (none here)",
    "task_allocation", "k_thread_create on a k_thread and a 2 KiB stack defined at build time per id",
    "stack_filling", IS_ENABLED(CONFIG_INIT_STACKS) ? "on (CONFIG_INIT_STACKS: a new stack is filled with 0xaa)" : "off (CONFIG_INIT_STACKS=n)",
    "mutex_inheritance", "always (every k_mutex inherits priority)",
    "notify_callbacks", "none",
    "differs:irq.*.dispatched",
    "the handler is connected with IRQ_CONNECT: the interrupt enters through Zephyr's common "
    "entry (_isr_wrapper: the ISR table lookup, then z_arm_int_exit), which is in the window",
    "evidence:irq.*.dispatched", "_isr_wrapper",
    "differs:irq.task_response.resched,irq.return.different,irq.handler_to_*",
    "a direct interrupt's handler returns whether to reschedule, and its footer calls "
    "z_arm_int_exit when it does (ISR_DIRECT_FOOTER): in the window",
#if defined(CONFIG_USERSPACE) && defined(RTB_BOARD_MPS2)
    /* main.c: the counter partition, and what it costs, measured by a build
     * without it (sched.yield.ctx.thread 268 -> 227 while kernel threads
     * still had it) */
    "differs:*.process,*.k_to_u",
    "a user-mode thread's memory domain holds one partition more than the default domain: the "
    "board's counter, read-only, for its own stamps; Zephyr reprograms one MPU region per "
    "partition on every switch into that thread, 41 instructions in each window that ends in "
    "a user-mode thread",
#endif
#if defined(RTB_BOARD_MPS2)
    "board", RTB_BOARD_NAME,
    "cpu", RTB_BOARD_CPU,
    "icount_shift", STR(RTB_BOARD_ICOUNT_SHIFT),
#endif
    RTB_PROFILE_FACTS
    NULL,
};

void rtb_port_info(struct rtb_port_info *o)
{
#if defined(RTB_BOARD_MPS2)
    rtb_board_port_info(o); /* the counter, its unit, the CPU */
#else
    o->ts_source = "Zephyr timing_counter_get()";
    o->ref_clock = "";
    o->ts_hz_nominal = timing_freq_get();
    o->unit = "cycles";
    o->unit_detail = "cycles of the board's timing counter (Zephyr's timing API)";
    o->resolution = 1;
    o->realtime = true;
    o->rt_reason = "";
    o->mlock = true;
    o->cpu = 0;
    o->cpus_online = 1;
#endif
    o->port = "zephyr";
    o->policy = "Zephyr preemptive priorities";
    o->irq_switch_at_exit = true; /* a thread readied by a handler runs when it returns */
    o->facts = facts;
}

/* ---- clocks ------------------------------------------------------------------- */
static const char *const clock_names[] = {
    "k_cycle_get_32 (the system timer's hardware cycles)",
    "k_uptime_ticks (kernel ticks)",
};

const char *rtb_port_clock_name(int which)
{
    return which >= 0 && which < (int)ARRAY_SIZE(clock_names) ? clock_names[which] : NULL;
}

RTB_KAPI(k_cycle_get_32, k_cycle_get_32())
RTB_KAPI(k_uptime_ticks_low, (uint32_t)k_uptime_ticks())

static int read_done(const struct rtb_kcall *c)
{
    *(uint64_t *)c->aux[0] = (uint64_t)c->ret;
    return RTB_OK;
}

int rtb_port_clock_read_kcall(int which, uint64_t *value, struct rtb_kcall *c)
{
    if (!rtb_port_clock_name(which))
        return rtb_zephyr_unsupported("clock_read: no such clock");
    rtb_kcall_set(c, which == 0 ? rtb_kapi_k_cycle_get_32 : rtb_kapi_k_uptime_ticks_low, read_done, 0, 0, 0,
                  0);
    c->aux[0] = (rtb_word)value;
    return RTB_OK;
}

RTB_KCALL_PLAIN(clock_read, (int which, uint64_t *value), which, value)

/* ---- the cheapest system call (VxWorks "system call overhead") ---------------- */
#if defined(CONFIG_USERSPACE)
static K_SEM_DEFINE(null_sem, 0, 1);
RTB_KAPI(k_sem_count_get, k_sem_count_get(&null_sem))

/* The user-mode task that calls it may name it (every thread may). */
static int null_sem_public(void)
{
    k_object_access_all_grant(&null_sem);
    return 0;
}
SYS_INIT(null_sem_public, APPLICATION, 0);

int rtb_port_null_syscall_kcall(struct rtb_kcall *c)
{
    if (!k_is_user_context())
        return rtb_zephyr_unsupported("null_syscall: the caller runs in kernel mode");
    rtb_kcall_set(c, rtb_kapi_k_sem_count_get, 0, 0, 0, 0, 0);
    return RTB_OK;
}

RTB_KCALL_PLAIN0(null_syscall)
#endif

/* ---- options, diagnostics, faults --------------------------------------------- */
void rtb_port_diag(const char *line)
{
#if defined(RTB_BOARD_MPS2)
    rtb_board_puts(line);
    rtb_board_puts("\n");
#else
    printk("%s\n", line);
#endif
}

#if defined(RTB_BOARD_MPS2)
int rtb_port_option(const char *name, const char *value)
{
    return rtb_board_fault_option(name, value);
}

void rtb_port_metric_begin(const char *id)
{
    last_error[0] = '\0'; /* an unsupported call's words belong to this metric */
    rtb_board_fault_point(id);
}

/* A fatal error (a fault, a kernel oops, the injected crash) ends the run
 * the way the other kernels' do: exit status 64 + the reason, on the
 * console a line that is not a record. */
static void put_hex(uint32_t v)
{
    char s[11] = "0x";
    for (int i = 0; i < 8; i++)
        s[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15u];
    s[10] = '\0';
    rtb_board_puts(s);
}

/* The fault in the words the other kernels' images use (the board's
 * HardFault handler there; Zephyr takes UsageFault, BusFault and MemManage
 * itself). */
static const char *fault_name(unsigned int reason)
{
    if (reason >= K_ERR_ARM_MEM_GENERIC && reason < K_ERR_ARM_BUS_GENERIC)
        return "MemManage fault";
    if (reason >= K_ERR_ARM_BUS_GENERIC && reason < K_ERR_ARM_USAGE_GENERIC)
        return "BusFault";
    if (reason >= K_ERR_ARM_USAGE_GENERIC && reason < K_ERR_ARM_SECURE_GENERIC)
        return "UsageFault";
    switch (reason) {
    case K_ERR_CPU_EXCEPTION:
        return "CPU exception (HardFault)";
    case K_ERR_KERNEL_OOPS:
        return "kernel oops";
    case K_ERR_KERNEL_PANIC:
        return "kernel panic";
    case K_ERR_STACK_CHK_FAIL:
        return "stack check failure";
    case K_ERR_SPURIOUS_IRQ:
        return "spurious interrupt";
    default:
        return "fatal error";
    }
}

void k_sys_fatal_error_handler(unsigned int reason, const struct arch_esf *esf)
{
    rtb_board_puts("rtbench-harness: Zephyr ");
    rtb_board_puts(fault_name(reason));
    rtb_board_puts(", reason ");
    put_hex(reason);
    if (esf) {
        rtb_board_puts(" at pc ");
        put_hex(esf->basic.pc);
    }
    rtb_board_puts("\n");
    rtb_board_exit(64 + (int)reason);
    CODE_UNREACHABLE;
}
#endif
