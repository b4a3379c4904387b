/* RTX5 port: identity, capabilities, the target's facts for the sheet,
 * errors, RTX5's error callback, clocks and the port's policies. */
#include <rtb/runner.h>

#include "rtb_board_port.h"

#include "rtb_rtx5.h"
#include "strutil.h"

/* rtx_core_cm.h's choice, which the facts below report: it needs the
 * device header, which the port's files leave to the kernel (its CMSIS
 * names would meet the board's), so the same test on the same macros. */
#ifndef EXCLUSIVE_ACCESS
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__)
#define EXCLUSIVE_ACCESS 1
#else
#define EXCLUSIVE_ACCESS 0
#endif
#endif
#include "rtb_profile_facts.h" /* the kernel profile's settings, as compiled (generated) */

/* ---- errors --------------------------------------------------------------- */
static char last_error[160];

int rtb_rtx5_fail(const char *what, const char *why)
{
    last_error[0] = '\0';
    rtb_strlcat(last_error, what, sizeof last_error); /* a cut one ends in "…" */
    if (why && *why) {
        rtb_strlcat(last_error, ": ", sizeof last_error);
        rtb_strlcat(last_error, why, sizeof last_error);
    }
    return RTB_ERR;
}

int rtb_rtx5_unsupported(const char *what)
{
    rtb_rtx5_fail(what, 0);
    return RTB_ENOTSUP;
}

/* osStatus_t by its name in cmsis_os2.h. */
int rtb_rtx5_status(const char *what, int32_t status)
{
    static const char *const names[] = {"osOK", "osError", "osErrorTimeout", "osErrorResource",
                                        "osErrorParameter", "osErrorNoMemory", "osErrorISR",
                                        "osErrorSafetyClass"};
    int32_t k = -status;
    return rtb_rtx5_fail(what, k >= 0 && k < (int32_t)(sizeof names / sizeof *names) ? names[k]
                                                                                    : "osStatus_t unknown");
}

int rtb_rtx5_status_done(const struct rtb_kcall *c, const char *what)
{
    int32_t rc = (int32_t)c->ret;
    if (rc == osOK)
        return RTB_OK;
    if (rc == osErrorTimeout || (rc == osErrorResource && (int32_t)c->aux[0] == RTB_NO_WAIT))
        return (int32_t)c->aux[0] == RTB_NO_WAIT ? RTB_EWOULDBLOCK : RTB_ETIMEOUT;
    return rtb_rtx5_status(what, rc);
}

const char *rtb_port_last_error(void)
{
    return last_error;
}

uint32_t rtb_rtx5_ticks(int32_t timeout_us)
{
    if (timeout_us == RTB_NO_WAIT)
        return 0;
    if (timeout_us < 0)
        return osWaitForever;
    uint64_t ticks = ((uint64_t)timeout_us + RTB_RTX5_TICK_US - 1) / RTB_RTX5_TICK_US;
    return ticks >= osWaitForever ? osWaitForever - 1 : (uint32_t)ticks;
}

/* RTX5's error callback (Config/RTX_Config.c's default loops for ever):
 * report and end the run, so no error hangs silently until the watchdog.
 * Called in the kernel's context (SVC, PendSV or the tick). */
uint32_t osRtxErrorNotify(uint32_t code, void *object_id)
{
    static const char *const what[] = {
        [osRtxErrorStackOverflow] = "a thread's stack overflowed",
        [osRtxErrorISRQueueOverflow] = "the ISR queue overflowed (OS_ISR_FIFO_QUEUE)",
        [osRtxErrorTimerQueueOverflow] = "the timer callback queue overflowed (OS_TIMER_CB_QUEUE)",
        [osRtxErrorClibSpace] = "no C library space",
        [osRtxErrorClibMutex] = "no C library mutex",
        [osRtxErrorSVC] = "an invalid SVC function",
    };
    (void)object_id;
    rtb_board_puts("rtbench-harness: RTX5 osRtxErrorNotify: ");
    rtb_board_puts(code < sizeof what / sizeof *what && what[code] ? what[code] : "unknown error");
    rtb_board_puts("\n");
    rtb_board_exit(RTB_RTX5_EXIT_ERROR_NOTIFY);
    return 0;
}

/* ---- identity ---------------------------------------------------------------- */
uint32_t rtb_port_caps(void)
{
    return RTB_CAP_TASK_DELETE | RTB_CAP_TASK_SUSPEND | RTB_CAP_SCHED_LOCK | RTB_CAP_SEM |
           RTB_CAP_MUTEX | RTB_CAP_MSGQ | RTB_CAP_EVENTS | RTB_CAP_TIMER | RTB_CAP_QUEUE |
           RTB_CAP_IRQ | RTB_BOARD_IRQ_CAPS;
}

const char *rtb_port_unsupported_why(uint32_t cap)
{
    switch (cap) {
    case RTB_CAP_TASK_START:
        return "CMSIS-RTOS2 has no create-without-starting: osThreadNew makes the thread ready";
    case RTB_CAP_PROCESS:
        return "RTX5 threads share one address space";
    case RTB_CAP_USER_KERNEL:
        return "RTX5 threads all run in one mode here (OS_PRIVILEGE_MODE 1, shipped): no "
               "unprivileged thread to switch with";
    case RTB_CAP_SMP:
        return "one CPU: the board is a single " RTB_BOARD_CPU;
    case RTB_CAP_RWLOCK:
        return "CMSIS-RTOS2 has no reader-writer lock";
    case RTB_CAP_COND:
        return "CMSIS-RTOS2 has no condition variable";
    case RTB_CAP_PIPE:
        return "CMSIS-RTOS2 has no byte pipe or stream buffer (its message queues carry "
               "fixed-size messages)";
    case RTB_CAP_HEAP:
        return "CMSIS-RTOS2 has no general-purpose heap call (osMemoryPool hands out "
               "fixed-size blocks; RTX5's osRtxMemoryAlloc is internal)";
    case RTB_CAP_NULL_SYSCALL:
        return "RTX5 threads run privileged (OS_PRIVILEGE_MODE 1, shipped): every call is an "
               "SVC, but there is no user-to-kernel crossing to time";
    case RTB_CAP_IRQ_MASK:
    case RTB_CAP_CRITICAL:
        return "CMSIS-RTOS2 has no interrupt-masking or critical-section call, and RTX5 "
               "takes its interrupt path for any call made with interrupts masked";
    case RTB_CAP_SWI:
        return "RTX5 has no software-interrupt objects";
    case RTB_CAP_RTA_LOG:
        return "RTX5 has no target-side log/statistics objects (its Event Recorder is a "
               "host tool, off in this build)";
    case RTB_CAP_FRAME_PIPE:
        return "RTX5 has no frame pipes (DSP/BIOS PIP)";
    case RTB_CAP_FIRST_FIT_HEAP:
        return "CMSIS-RTOS2 has no heap whose free list the benchmark can arrange";
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

static const char *const facts[] = {
    "kernel", osRtxKernelId, /* "RTX V5.9.1" */
    "kernel_port", RTB_KERNEL_PORT,
    "tick_hz", STR(OS_TICK_FREQ),
    "preemption", "on",
#if OS_ROBIN_ENABLE
    "time_slicing", "on (OS_ROBIN_ENABLE, every " STR(OS_ROBIN_TIMEOUT) " ticks)",
#else
    "time_slicing", "off (OS_ROBIN_ENABLE 0)",
#endif
    "asserts", "RTX5's parameter and context checks (always compiled in: no option turns them off)",
#if OS_STACK_CHECK
    "stack_check", "on (OS_STACK_CHECK 1, shipped: the stack pointer checked at every switch)",
#else
    "stack_check", "off (OS_STACK_CHECK 0)",
#endif
    "heap", "none used: every object static; RTX5's own " STR(OS_DYNAMIC_MEM_SIZE)
            " bytes (OS_DYNAMIC_MEM_SIZE, the board's heap size) hold its idle and timer "
            "threads and the *_heap rows' objects",
    "task_allocation", "osRtxThread_t and a 2 KiB stack static per id (cb_mem, stack_mem): "
                       "osThreadNew allocates nothing",
    "timer_task_priority", STR(OS_TIMER_THREAD_PRIO) " (RTX5's timer thread, above every "
                           "benchmark thread: 9..39)",
    "interrupt_masking", "none: RTX5 on ARMv7-M never masks interrupts (exclusive access); its "
                         "SVC, PendSV and SysTick run at the lowest priority",
    "event_recorder", "off (EVR_RTX_DISABLE: no Event Recorder attached)",
    "mutex_inheritance", "as the row asks: osMutexPrioInherit (pimutex.*) or not (mutex.*, rmutex.*)",
    /* RTX5's own conventions (docs/porting.md, "differs:"): every row with a
     * kernel call from a thread, and the interrupt rows whose handler gives */
    "differs:sched.*,task.*,sem.*,csem.*,mutex.*,rmutex.*,pimutex.*,msgq.*,event.*,timer.*,"
    "queue.*,clock.*,amx.*",
    "RTX5 enters the kernel with a supervisor call (SVC) on every call from a thread: the "
    "exception entry and return are in the window (free under QEMU -icount, about 22 cycles "
    "on silicon)"
#if OS_STACK_CHECK
    "; and, as RTX5 ships (OS_STACK_CHECK 1), a switch checks the outgoing thread's stack"
#endif
    ,
    "differs:irq.handler_to_task,irq.task_response.resched,irq.return.different",
    "RTX5 queues a kernel call made in an interrupt handler (OS_ISR_FIFO_QUEUE) and carries it "
    "out in PendSV after the handler: the window holds the handler, then that PendSV",
    "evidence:irq.handler_to_task,irq.task_response.resched,irq.return.different", "PendSV_Handler",
    "board", RTB_BOARD_NAME,
    "cpu", RTB_BOARD_CPU,
    "icount_shift", STR(RTB_BOARD_ICOUNT_SHIFT),
    RTB_PROFILE_FACTS
    0, 0,
};

void rtb_port_info(struct rtb_port_info *o)
{
    o->port = "rtx5";
    rtb_board_port_info(o); /* the counter, its unit, the CPU */
    o->policy = "RTX5 fixed-priority preemptive";
    o->irq_switch_at_exit = true; /* PendSV runs after the handler: the switch follows it */
    o->facts = facts;
}

/* ---- clocks (DSP/BIOS CLK_getltime, CLK_gethtime) ------------------------------ */
const char *rtb_port_clock_name(int which)
{
    return which == 0 ? "osKernelGetTickCount (the kernel tick)"
           : which == 1 ? "osKernelGetSysTimerCount (the kernel's SysTick-based timer)"
                        : 0;
}

static int time_read(const struct rtb_kcall *c)
{
    *(uint64_t *)c->aux[0] = (uint32_t)c->ret;
    return RTB_OK;
}

int rtb_port_clock_read_kcall(int which, uint64_t *value, struct rtb_kcall *c)
{
    if (which != 0 && which != 1)
        return rtb_rtx5_unsupported("clock_read: RTX5 has two clocks (tick count, system timer)");
    rtb_kcall_set(c, which == 0 ? RTB_KFN(osKernelGetTickCount) : RTB_KFN(osKernelGetSysTimerCount),
                  time_read, 0, 0, 0, 0);
    c->aux[0] = (rtb_word)value;
    return RTB_OK;
}

RTB_KCALL_PLAIN(clock_read, (int which, uint64_t *value), which, value)

/* ---- where created objects live ----------------------------------------------- */
bool rtb_rtx5_from_heap;

/* Static: the port's memory in the attributes. Heap: no cb_mem, so RTX5
 * takes the object from its own memory (OS_DYNAMIC_MEM_SIZE), as an
 * application passing NULL attributes has it. */
int rtb_port_alloc(unsigned how)
{
    rtb_rtx5_from_heap = how == RTB_ALLOC_HEAP;
    return RTB_OK;
}

/* ---- policies ------------------------------------------------------------------ */
const char *rtb_port_emulation(enum rtb_emulation what, unsigned flags)
{
    (void)flags;
    switch (what) {
    case RTB_EMU_QUEUE:
        return "an RTX5 message queue of one-word messages (osMessageQueuePut/Get): FIFO only; "
               "items are copied, so there is no link node to provide or allocate";
    default:
        return "";
    }
}

unsigned rtb_port_emulation_calls(enum rtb_emulation what, unsigned flags)
{
    (void)flags;
    return what == RTB_EMU_QUEUE ? 1u : 0u;
}

void rtb_port_diag(const char *line)
{
    rtb_board_puts(line);
    rtb_board_puts("\n");
}

int rtb_port_option(const char *name, const char *value)
{
    return rtb_board_fault_option(name, value);
}

void rtb_port_metric_begin(const char *id)
{
    last_error[0] = '\0';
    rtb_board_fault_point(id);
}
