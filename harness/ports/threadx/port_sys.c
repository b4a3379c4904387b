/* ThreadX port: identity, capabilities, the target's facts for the sheet,
 * output, shared memory, errors, clocks and the port's policies. */
#include <rtb/runner.h>

#include "rtb_board_port.h"

#include "rtb_threadx.h"
#include "strutil.h"

#include "rtb_profile_facts.h" /* the kernel profile's settings, as compiled (generated) */

/* ---- errors --------------------------------------------------------------- */
static char last_error[160];

int rtb_threadx_fail(const char *what, const char *why)
{
    last_error[0] = '\0';
    rtb_strlcat(last_error, what, sizeof last_error); /* a cut one ends in "…" */
    if (why && *why) {
        rtb_strlcat(last_error, ": ", sizeof last_error);
        rtb_strlcat(last_error, why, sizeof last_error);
    }
    return RTB_ERR;
}

int rtb_threadx_unsupported(const char *what)
{
    rtb_threadx_fail(what, 0);
    return RTB_ENOTSUP;
}

/* The ThreadX status in hex, as tx_api.h defines it (TX_NO_MEMORY 0x10). */
int rtb_threadx_status(const char *what, UINT status)
{
    char hex[] = "status 0x00";
    hex[9] = "0123456789abcdef"[(status >> 4) & 0xFu];
    hex[10] = "0123456789abcdef"[status & 0xFu];
    return rtb_threadx_fail(what, hex);
}

const char *rtb_port_last_error(void)
{
    return last_error;
}

ULONG rtb_threadx_ticks(int32_t timeout_us)
{
    if (timeout_us == RTB_NO_WAIT)
        return TX_NO_WAIT;
    if (timeout_us < 0)
        return TX_WAIT_FOREVER;
    uint64_t ticks = ((uint64_t)timeout_us * RTB_THREADX_TICK_HZ + 999999u) / 1000000u;
    return ticks >= TX_WAIT_FOREVER ? TX_WAIT_FOREVER - 1 : (ULONG)ticks;
}

/* ---- identity ---------------------------------------------------------------- */
uint32_t rtb_port_caps(void)
{
    return RTB_CAP_TASK_DELETE | RTB_CAP_TASK_SUSPEND | RTB_CAP_TASK_START |
#ifndef TX_DISABLE_PREEMPTION_THRESHOLD /* the preemption lock is preemption-threshold 0 */
           RTB_CAP_SCHED_LOCK |
#endif
           RTB_CAP_SEM | RTB_CAP_MUTEX | RTB_CAP_MSGQ | RTB_CAP_EVENTS | RTB_CAP_TIMER |
           RTB_CAP_QUEUE | RTB_CAP_HEAP | RTB_CAP_IRQ | RTB_BOARD_IRQ_CAPS |
           RTB_CAP_IRQ_MASK | RTB_CAP_CRITICAL;
}

const char *rtb_port_unsupported_why(uint32_t cap)
{
    switch (cap) {
#ifdef TX_DISABLE_PREEMPTION_THRESHOLD
    case RTB_CAP_SCHED_LOCK:
        return "ThreadX's only preemption lock is preemption-threshold, which this profile compiles "
               "out (TX_DISABLE_PREEMPTION_THRESHOLD, on ThreadX's list for maximum speed)";
#endif
    case RTB_CAP_PROCESS:
        return "ThreadX threads share one address space (no ThreadX Modules in this build)";
    case RTB_CAP_USER_KERNEL:
        return "ThreadX threads all run in one mode: no user-mode thread to switch with (ThreadX "
               "Modules, which run unprivileged, are not built)";
    case RTB_CAP_SMP:
        return "one CPU: the board is a single " RTB_BOARD_CPU;
    case RTB_CAP_RWLOCK:
        return "ThreadX has no reader-writer lock";
    case RTB_CAP_COND:
        return "ThreadX has no condition variable";
    case RTB_CAP_PIPE:
        return "ThreadX has no byte pipe or stream buffer (its queues carry messages of 1 to 16 words)";
    case RTB_CAP_NULL_SYSCALL:
        return "ThreadX threads run privileged: there is no system call (no ThreadX Modules)";
    case RTB_CAP_SWI:
        return "ThreadX has no software-interrupt objects (deferred work runs in a thread)";
    case RTB_CAP_RTA_LOG:
        return "ThreadX has no target-side log/statistics objects";
    case RTB_CAP_FRAME_PIPE:
        return "ThreadX has no frame pipes (DSP/BIOS PIP)";
    case RTB_CAP_FIRST_FIT_HEAP:
        return "the byte pool is first-fit, but the porting layer cannot arrange its free list";
    case RTB_CAP_CACHE_DISABLE:
        return "the " RTB_BOARD_CPU " has no caches";
    case RTB_CAP_REF_CLOCK:
        return "the board has no clock independent of its counter";
#ifdef RTB_BOARD_NO_IRQ_TIMER_WHY
    case RTB_CAP_IRQ_TIMED:
    case RTB_CAP_IRQ_BARE:
        return RTB_BOARD_NO_IRQ_TIMER_WHY;
#endif
    default:
        return 0;
    }
}

#define STR2(x) #x
#define STR(x) STR2(x)

/* The facts the data sheet and the kernel comparison sheet print: the keys
 * the FreeRTOS port uses where the two kernels have the same setting. */
static const char *const facts[] = {
    "kernel", "ThreadX " STR(THREADX_MAJOR_VERSION) "." STR(THREADX_MINOR_VERSION) "."
              STR(THREADX_PATCH_VERSION),
    "kernel_port", RTB_KERNEL_PORT,
    "tick_hz", STR(RTB_THREADX_TICK_HZ),
    "preemption", "on",
    "time_slicing", "off (TX_NO_TIME_SLICE)",
#ifdef TX_DISABLE_ERROR_CHECKING
    "asserts", "off (TX_DISABLE_ERROR_CHECKING: no _txe_ parameter checks)",
#else
    "asserts", "on (_txe_ parameter and caller checks)",
#endif
    "heap", "byte pool, " STR(RTB_THREADX_POOL_BYTES) " bytes (tx_byte_allocate)",
    "task_allocation", "TX_THREAD static per id, 2 KiB stack from the byte pool taken before the "
                       "create's window (ThreadX's creates allocate nothing)",
#ifdef TX_TIMER_PROCESS_IN_ISR
    "timer_task_priority", "none (TX_TIMER_PROCESS_IN_ISR: expirations run in the tick interrupt)",
#else
    "timer_task_priority", STR(TX_TIMER_THREAD_PRIORITY) " (the timer thread, above every "
                           "benchmark task)",
#endif
#ifdef TX_PORT_USE_BASEPRI
    "interrupt_masking", "BASEPRI (TX_PORT_USE_BASEPRI): kernel sections mask the interrupts at "
                         "or below TX_PORT_BASEPRI; more urgent ones stay live",
#else
    "interrupt_masking", "PRIMASK: kernel sections mask every interrupt (none stays live)",
#endif
#ifdef TX_DISABLE_PREEMPTION_THRESHOLD
    "preemption_threshold", "compiled out (TX_DISABLE_PREEMPTION_THRESHOLD): no preemption lock",
#else
    "preemption_threshold", "compiled in, unused (threshold = priority); the preemption lock "
                            "raises it to 0",
#endif
#ifdef TX_DISABLE_STACK_FILLING
    "stack_filling", "off (TX_DISABLE_STACK_FILLING)",
#else
    "stack_filling", "on (ThreadX's default: a new stack is filled with 0xef)",
#endif
    "mutex_inheritance", "as the row asks: TX_INHERIT (pimutex.*) or TX_NO_INHERIT (mutex.*, rmutex.*)",
#ifdef TX_DISABLE_NOTIFY_CALLBACKS
    "notify_callbacks", "off (TX_DISABLE_NOTIFY_CALLBACKS)",
#else
    "notify_callbacks", "compiled in (ThreadX's default: TX_DISABLE_NOTIFY_CALLBACKS unset)",
    "differs:sem.give.*,csem.give.*,msgq.send.*,event.set.*",
    "ThreadX's notify callbacks are compiled in (its default): the call also tests for a "
    "registered callback",
#endif
    "differs:mutex.*,rmutex.*",
    "TX_NO_INHERIT: a mutex without priority inheritance, as the row asks (FreeRTOS and Zephyr "
    "have none without it)",
    "board", RTB_BOARD_NAME,
    "cpu", RTB_BOARD_CPU,
    "icount_shift", STR(RTB_BOARD_ICOUNT_SHIFT),
    RTB_PROFILE_FACTS
    0, 0,
};

void rtb_port_info(struct rtb_port_info *o)
{
    o->port = "threadx";
    rtb_board_port_info(o); /* the counter, its unit, the CPU */
    o->policy = "ThreadX fixed-priority preemptive";
    o->irq_switch_at_exit = true; /* the kernel pends PendSV: the switch follows the handler */
    o->facts = facts;
}

/* The output and the shared region are the board's (port_board.c). */

/* ---- clocks (DSP/BIOS CLK_getltime) ------------------------------------------ */
/* ThreadX keeps one clock, the tick count (tx_time_get); it has no
 * high-resolution time call (DSP/BIOS CLK_gethtime), so clock 1 and on
 * are unsupported: "the port has fewer kernel clocks". (A read of the
 * board's counter would time rtbench's code, not the kernel's.) */
const char *rtb_port_clock_name(int which)
{
    return which == 0 ? "tx_time_get (the kernel tick)" : 0;
}

/* tx_time_get itself; done() widens its ULONG into the caller's value. */
static int time_read(const struct rtb_kcall *c)
{
    *(uint64_t *)c->aux[0] = (ULONG)c->ret;
    return RTB_OK;
}

int rtb_port_clock_read_kcall(int which, uint64_t *value, struct rtb_kcall *c)
{
    if (which != 0)
        return rtb_threadx_unsupported("clock_read: ThreadX has one clock, the tick count (tx_time_get)");
    rtb_kcall_set(c, RTB_KFN(tx_time_get), time_read, 0, 0, 0, 0);
    c->aux[0] = (rtb_word)value;
    return RTB_OK;
}

RTB_KCALL_PLAIN(clock_read, (int which, uint64_t *value), which, value)

/* ---- where created objects live: always the application's memory ------------ */
int rtb_port_alloc(unsigned how)
{
    if (how == RTB_ALLOC_STATIC)
        return RTB_OK;
    return rtb_threadx_unsupported("ThreadX has no create call that allocates: every control block, "
                                   "stack and queue buffer is the application's, given to tx_*_create");
}

/* ---- policies: none (ThreadX never throttles a thread) ----------------------- */
const char *rtb_port_emulation(enum rtb_emulation what, unsigned flags)
{
    (void)flags;
    switch (what) {
    case RTB_EMU_TASK_DELETE:
        return "tx_thread_terminate then tx_thread_delete: ThreadX deletes only a terminated or "
               "completed thread";
    case RTB_EMU_SCHED_LOCK:
        return "ThreadX has no scheduler lock call: the caller's preemption-threshold is raised "
               "to 0 (tx_thread_preemption_change), so no thread preempts it; interrupts still run";
    case RTB_EMU_QUEUE:
        return "a ThreadX queue of one-word messages: FIFO puts with tx_queue_send, LIFO and stack "
               "with tx_queue_front_send; items are copied, so there is no link node to provide or "
               "allocate (the alloc variants are the same calls)";
    default:
        return "";
    }
}

/* Kernel calls in a timed window: the delete is two (terminate, delete),
 * the preemption lock and the queues one call of another service. */
unsigned rtb_port_emulation_calls(enum rtb_emulation what, unsigned flags)
{
    (void)flags;
    switch (what) {
    case RTB_EMU_TASK_DELETE:
        return 2;
    case RTB_EMU_SCHED_LOCK:
    case RTB_EMU_QUEUE:
        return 1;
    default:
        return 0;
    }
}

/* ---- diagnostics: the console, outside any record line ---------------------- */
void rtb_port_diag(const char *line)
{
    rtb_board_puts(line);
    rtb_board_puts("\n");
}

/* ---- the watchdog's test hook (--fault hang:ID | crash:ID): the board's ---- */
int rtb_port_option(const char *name, const char *value)
{
    return rtb_board_fault_option(name, value);
}

void rtb_port_metric_begin(const char *id)
{
    last_error[0] = '\0'; /* an unsupported call's words belong to this metric */
    rtb_board_fault_point(id);
}
