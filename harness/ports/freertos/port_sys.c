/* FreeRTOS port: identity, capabilities, the target's facts for the sheet,
 * output, shared memory, errors, clocks and the port's policies. */
#include <rtb/runner.h>

#include "rtb_board_port.h"

#include "rtb_freertos.h"
#include "strutil.h"
#include "timers.h"

#include "rtb_profile_facts.h" /* the kernel profile's settings, as compiled (generated) */

/* ---- errors --------------------------------------------------------------- */
static char last_error[160];

static void set_error(const char *a, const char *b)
{
    last_error[0] = '\0';
    rtb_strlcat(last_error, a, sizeof last_error); /* a cut one ends in "…" */
    if (b && *b) {
        rtb_strlcat(last_error, ": ", sizeof last_error);
        rtb_strlcat(last_error, b, sizeof last_error);
    }
}

int rtb_freertos_fail(const char *what, const char *why)
{
    set_error(what, why);
    return RTB_ERR;
}

int rtb_freertos_unsupported(const char *what)
{
    set_error(what, 0);
    return RTB_ENOTSUP;
}

/* rtb_port_alloc's choice (rtb_freertos.h): FreeRTOS has both kinds of create. */
bool rtb_freertos_from_heap;

int rtb_port_alloc(unsigned how)
{
    if (how != RTB_ALLOC_STATIC && how != RTB_ALLOC_HEAP)
        return rtb_freertos_fail("alloc", "no such allocation");
    rtb_freertos_from_heap = how == RTB_ALLOC_HEAP;
    return RTB_OK;
}

int rtb_freertos_not_created(const char *what)
{
    return rtb_freertos_fail(what, rtb_freertos_from_heap ? "heap_4 exhausted"
                                                          : "the static create refused the port's memory");
}

const char *rtb_port_last_error(void)
{
    return last_error;
}

TickType_t rtb_freertos_ticks(int32_t timeout_us)
{
    if (timeout_us == RTB_NO_WAIT)
        return 0;
    if (timeout_us < 0)
        return portMAX_DELAY;
    uint64_t ticks = ((uint64_t)timeout_us * configTICK_RATE_HZ + 999999u) / 1000000u;
    return ticks >= portMAX_DELAY ? portMAX_DELAY - 1 : (TickType_t)ticks;
}

/* ---- identity ---------------------------------------------------------------- */
uint32_t rtb_port_caps(void)
{
    return RTB_CAP_TASK_DELETE | RTB_CAP_TASK_SUSPEND | RTB_CAP_SCHED_LOCK | RTB_CAP_TASK_START |
           RTB_CAP_SEM | RTB_CAP_MUTEX | RTB_CAP_MSGQ | RTB_CAP_EVENTS | RTB_CAP_TIMER |
           RTB_CAP_QUEUE | RTB_CAP_PIPE | RTB_CAP_HEAP | RTB_CAP_IRQ | RTB_BOARD_IRQ_CAPS |
           RTB_CAP_IRQ_MASK | RTB_CAP_CRITICAL;
}

const char *rtb_port_unsupported_why(uint32_t cap)
{
    switch (cap) {
    case RTB_CAP_PROCESS:
        return "FreeRTOS tasks share one address space (no MPU port in this build)";
    case RTB_CAP_SMP:
        return "one CPU: the board is a single " RTB_BOARD_CPU;
    case RTB_CAP_RWLOCK:
        return "FreeRTOS has no reader-writer lock";
    case RTB_CAP_COND:
        return "FreeRTOS has no condition variable";
    case RTB_CAP_NULL_SYSCALL:
        return "FreeRTOS tasks run privileged: there is no system call (no MPU port)";
    case RTB_CAP_USER_KERNEL:
        return "FreeRTOS tasks all run privileged: no unprivileged task to switch with (the MPU "
               "port, which has them, is not built)";
    case RTB_CAP_SWI:
        return "FreeRTOS has no software-interrupt objects (the deferred handler is a task)";
    case RTB_CAP_RTA_LOG:
        return "FreeRTOS has no target-side log/statistics objects";
    case RTB_CAP_FRAME_PIPE:
        return "FreeRTOS has no frame pipes (DSP/BIOS PIP)";
    case RTB_CAP_FIRST_FIT_HEAP:
        return "heap_4 is first-fit, but the porting layer cannot arrange its free list";
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

/* tasks.c fills every new stack (tskSET_NEW_STACKS_TO_KNOWN_VALUE) when
 * one of these is on: the same test, read from the same settings. */
#if (configCHECK_FOR_STACK_OVERFLOW > 1) || (configUSE_TRACE_FACILITY == 1) ||                  \
    (INCLUDE_uxTaskGetStackHighWaterMark == 1) || (INCLUDE_uxTaskGetStackHighWaterMark2 == 1)
#define STACK_FILLING "on (a new stack is filled with 0xa5: tskSET_NEW_STACKS_TO_KNOWN_VALUE)"
#else
#define STACK_FILLING "off (no setting turns tasks.c's fill on)"
#endif

static const char *const facts[] = {
    "kernel", "FreeRTOS " tskKERNEL_VERSION_NUMBER,
    "kernel_port", RTB_KERNEL_PORT,
    "tick_hz", STR(configTICK_RATE_HZ),
    "preemption", configUSE_PREEMPTION ? "on" : "off",
    "time_slicing", configUSE_TIME_SLICING ? "on" : "off",
    "asserts", configASSERT_DEFINED ? "on (configASSERT)" : "off (configASSERT not defined)",
    "heap", "heap_4, " STR(configTOTAL_HEAP_SIZE) " bytes",
    "task_allocation", "xTaskCreateStatic on a TCB and a 2 KiB stack the port owns per id (the "
    "*_heap rows: xTaskCreate, TCB and stack from heap_4)",
    "object_allocation", "...CreateStatic on memory the port owns per id (the *_heap rows: the "
    "creates that allocate from heap_4; delete frees what they took)",
    "timer_task_priority", STR(configTIMER_TASK_PRIORITY) " (above every benchmark task)",
    "max_syscall_interrupt_priority", "5 << 5 (BASEPRI 0xA0)",
    "interrupt_masking", "BASEPRI " STR(configMAX_SYSCALL_INTERRUPT_PRIORITY) ": kernel sections "
                         "mask the interrupts at or below it; more urgent ones stay live",
    "stack_filling", STACK_FILLING,
    "mutex_inheritance", "always (every FreeRTOS mutex inherits priority)",
    "notify_callbacks", "none (FreeRTOS objects have no notify callbacks)",
    /* where FreeRTOS's conventions put more in a window than the definition */
    "differs:timer.start.*,timer.cancel,timer.delete*",
    "a FreeRTOS timer call sends a command to the timer daemon task (priority "
    STR(configTIMER_TASK_PRIORITY) ", above the caller), which runs it at once: the figure holds "
    "the daemon's round trip (two switches and its work); the .caller row runs the daemon below "
    "the caller",
    "evidence:timer.start.*,timer.cancel,timer.delete*", "prvTimerTask",
    "differs:timer.*.caller",
    "the command is queued to the timer daemon, run below the caller: the figure is the call "
    "alone, the daemon's work comes after the window",
    "differs:irq.task_response.resched,irq.return.different,irq.handler_to_*",
    "the handler collects xHigherPriorityTaskWoken and ends with portYIELD_FROM_ISR, which "
    "pends PendSV (FreeRTOS's rule for a handler that calls the kernel): in the window",
    "task_selection", configUSE_PORT_OPTIMISED_TASK_SELECTION ? "port-optimised (CLZ)" : "generic",
    "board", RTB_BOARD_NAME,
    "cpu", RTB_BOARD_CPU,
    "icount_shift", STR(RTB_BOARD_ICOUNT_SHIFT),
    RTB_PROFILE_FACTS
    0, 0,
};

void rtb_port_info(struct rtb_port_info *o)
{
    o->port = "freertos";
    rtb_board_port_info(o); /* the counter, its unit, the CPU */
    o->policy = "FreeRTOS fixed-priority preemptive";
    o->irq_switch_at_exit = true; /* portYIELD_FROM_ISR pends PendSV: the switch follows the handler */
    o->facts = facts;
}

/* The output and the shared region are the board's (port_board.c). */

/* ---- clocks (DSP/BIOS CLK_getltime / CLK_gethtime) -------------------------- */
/* FreeRTOS keeps one time, the tick count. Clock 1 is the high-resolution
 * read DSP/BIOS has beside it (CLK_gethtime): FreeRTOS has no such
 * service, and the board's TIMER0 is rtbench's own counter (the stamps'),
 * read without the kernel, so that row is unsupported with this reason. */
const char *rtb_port_clock_name(int which)
{
    static const char *const names[] = {
        "xTaskGetTickCount (the kernel tick)",
        "high-resolution time (DSP/BIOS CLK_gethtime)",
    };
    return which >= 0 && which < 2 ? names[which] : 0;
}

static int clock_done(const struct rtb_kcall *c)
{
    *(uint64_t *)c->aux[0] = (TickType_t)c->ret;
    return RTB_OK;
}

int rtb_port_clock_read_kcall(int which, uint64_t *value, struct rtb_kcall *c)
{
    if (which == 1)
        return rtb_freertos_unsupported("clock_read: FreeRTOS has no high-resolution time service, only "
                                        "the tick count (clock 0); the board's timer is rtbench's "
                                        "counter, not the kernel's");
    if (which != 0)
        return rtb_freertos_fail("clock_read", "no such clock");
    rtb_kcall_set(c, RTB_KFN(xTaskGetTickCount), clock_done, 0, 0, 0, 0);
    c->aux[0] = (rtb_word)value;
    return RTB_OK;
}

RTB_KCALL_PLAIN(clock_read, (int which, uint64_t *value), which, value)

/* ---- policies ---------------------------------------------------------------- */
/* No rests: FreeRTOS never throttles a task (the default policy). */

/* Kernel calls in a timed window: create-without-start is four (suspend
 * the scheduler, create, suspend the task, resume the scheduler); the
 * start, the queues of words and the pipes one call of another service. */
unsigned rtb_port_emulation_calls(enum rtb_emulation what, unsigned task_flags)
{
    (void)task_flags;
    switch (what) {
    case RTB_EMU_TASK_CREATE_UNSTARTED:
        return 4;
    case RTB_EMU_TASK_START:
    case RTB_EMU_QUEUE:
    case RTB_EMU_PIPE:
        return 1;
    default:
        return 0;
    }
}

const char *rtb_port_emulation(enum rtb_emulation what, unsigned flags)
{
    (void)flags;
    switch (what) {
    case RTB_EMU_TASK_CREATE_UNSTARTED:
        return "FreeRTOS creates tasks ready: xTaskCreateStatic (xTaskCreate from the heap) then "
               "vTaskSuspend, both between vTaskSuspendAll and xTaskResumeAll so the task never runs "
               "before its start";
    case RTB_EMU_TASK_START:
        return "start = vTaskResume of a task created suspended";
    case RTB_EMU_QUEUE:
        return "a FreeRTOS queue of words: FIFO puts with xQueueSendToBack, LIFO and stack with "
               "xQueueSendToFront; items are copied, so there is no link node to provide or "
               "allocate (the alloc variants are the same calls)";
    case RTB_EMU_PIPE:
        return "a FreeRTOS stream buffer (one writer, one reader)";
    case RTB_EMU_MUTEX_NO_INHERIT:
        return "every FreeRTOS mutex inherits priority: a mutex without inheritance does not "
               "exist, so this row measures the inheriting one";
    default:
        return "";
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
