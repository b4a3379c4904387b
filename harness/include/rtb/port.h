/*
 * rtb/port.h — the porting layer: everything the portable core and the
 * scenarios need from a kernel, and nothing else.
 *
 * A port is one folder under ports/ (docs/porting.md is the guide; the
 * FreeRTOS port is its worked example). It has two parts:
 *
 *  1. REQUIRED (section A below): the timestamp, the output, memory, the
 *     port's identity and capabilities, and tasks. Every port implements
 *     these; nothing links without them. About fifteen functions.
 *  2. OPTIONAL (section B): every other kernel service. The core supplies a
 *     weak default for each (core/port_defaults.c) that answers RTB_ENOTSUP,
 *     so a new port starts with only section A and adds services one by one:
 *     implement the functions, set the RTB_CAP_* bit. A metric whose service
 *     the port lacks is recorded "unsupported" with the reason, never faked.
 *
 * The port also owns its start-up (it initialises its kernel and calls
 * rtb_main() from a task at priority RTB_PRIO_RUNNER, see rtb/runner.h), its
 * build (ports/<port>/port.cmake, plus a board's toolchain file for a cross
 * build) and its policies (rtb_port_policy(), rtb_port_emulation()).
 *
 * Conventions (after ThreadX Thread-Metric's tm_api.h):
 *  - Kernel objects are named by small integer ids (0 .. RTB_MAX_<OBJ>-1) and
 *    live in static pools inside the port: the core never allocates.
 *  - Every call that can fail returns an int: RTB_OK, or a negative RTB_E*
 *    code. After a failure rtb_port_last_error() says why in words
 *    (e.g. "mq_open: Too many open files"); the scenario puts that in the record.
 *  - Priorities are 1 .. RTB_PRIO_MAX, a higher number is more urgent. Ports
 *    map them onto the kernel's range.
 *  - Interrupt context: only the functions marked [ISR] below may be called
 *    from an interrupt handler (the function given to rtb_port_irq_hook()).
 *    Everything else is task context only. A kernel with separate
 *    interrupt-safe calls (FreeRTOS's ...FromISR) uses them in the [ISR]
 *    functions and nowhere else, so task-context figures carry no
 *    "am I in an interrupt?" test.
 */
#ifndef RTB_PORT_H
#define RTB_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Counter ticks: the unit of every raw timestamp. */
typedef uint64_t rtb_ticks_t;

/* <rtb_port_arch.h> provides, inline because their cost is in every sample:
 *   static inline rtb_ticks_t rtb_port_ts(void);   [ISR]
 *       the counter, monotonic, 64 bits (a 32-bit hardware counter is
 *       extended: rtb/ts32.h);
 * and may define
 *   RTB_PORT_UNITS(delta)
 *       the reported unit of an interval of `delta` counter ticks (default:
 *       the ticks themselves). Under QEMU -icount the AN385 board turns
 *       timer ticks into guest instructions here, per interval, so rounding
 *       never accumulates.
 *   RTB_PORT_KNOWN_WORK() and RTB_PORT_KNOWN_WORK_COST
 *       a statement whose cost in the reported unit is known exactly (a
 *       loop of K instructions in inline assembly, under an
 *       instruction-counting emulator), and that cost: method.busywait
 *       times it on a port without a reference clock. */
#include <rtb_port_arch.h>
#ifndef RTB_PORT_UNITS
#define RTB_PORT_UNITS(delta) (delta)
#endif

/* The stamps that open and close a timing window. <rtb_port_arch.h> may
 * define RTB_PORT_STAMP and provide them itself:
 *   typedef ... rtb_stamp_t;  typedef ... rtb_stamp_diff_t (its signed twin)
 *   static inline rtb_stamp_t rtb_port_stamp_start(void);   [ISR]
 *   static inline rtb_stamp_t rtb_port_stamp_end(void);     [ISR]
 * Two names for one read, so that the window audit can tell from the
 * image which read opens a window and which closes it (the AN385 board
 * lists each read's address in the ELF section .rtb_stamps). A stamp may
 * be narrower than rtb_port_ts() (a board's raw 32-bit counter: three
 * instructions, nothing masked); intervals are taken modulo its width
 * (rtb_stamp_delta), so a window must be shorter than one wrap. Default:
 * rtb_port_ts() itself.
 * It may also define RTB_PORT_KCALL_ASM and provide the three timing
 * primitives of rtb/kcall.h in assembly (a board's kcall.S). */
#ifndef RTB_PORT_STAMP
typedef rtb_ticks_t rtb_stamp_t;
typedef int64_t rtb_stamp_diff_t;
static inline rtb_stamp_t rtb_port_stamp_start(void) { return rtb_port_ts(); }
static inline rtb_stamp_t rtb_port_stamp_end(void) { return rtb_port_ts(); }
#endif
/* A stamp stored into `slot` that another task or interrupt reads: a board
 * builds the slot's address and stores by instructions the window audit
 * counts as rtbench's wherever they sit (a routine or handler written in a
 * kernel's convention); elsewhere a plain assignment. */
#ifndef RTB_PORT_STAMP_OPEN_TO
#define RTB_PORT_STAMP_OPEN_TO(slot) ((slot) = rtb_port_stamp_start())
#define RTB_PORT_STAMP_CLOSE_TO(slot) ((slot) = rtb_port_stamp_end())
#endif
/* t1 - t0 in counter ticks, signed: negative only across unsynchronised
 * counters (never a sample). */
static inline int64_t rtb_stamp_delta(rtb_stamp_t t0, rtb_stamp_t t1)
{
    return (int64_t)(rtb_stamp_diff_t)(t1 - t0);
}

#include <rtb/kcall.h>

/* Return codes. */
#define RTB_OK 0
#define RTB_ENOTSUP (-1)     /* the port does not provide this service */
#define RTB_EWOULDBLOCK (-2) /* no-wait call found the object unavailable */
#define RTB_ETIMEOUT (-3)    /* a timed wait expired */
#define RTB_ERR (-4)         /* any other failure: see rtb_port_last_error() */

/* Timeouts for take/receive/send/wait, in microseconds. */
#define RTB_NO_WAIT 0
#define RTB_WAIT_FOREVER (-1)

/* Pool sizes every port must support at least. */
#define RTB_MAX_TASKS 8
#define RTB_MAX_SEMS 8
#define RTB_MAX_MUTEXES 4
#define RTB_MAX_MSGQS 4
#define RTB_MAX_EVENTS 4
#define RTB_MAX_TIMERS 2
#define RTB_MAX_RWLOCKS 2
#define RTB_MAX_CONDS 2
#define RTB_MAX_QUEUES 4
#define RTB_MAX_PIPES 2
#define RTB_PRIO_MAX 31

/* Capability bits: which services this port really has. */
#define RTB_CAP_REF_CLOCK (1u << 0)     /* rtb_port_ref_ns() works */
#define RTB_CAP_TASK_DELETE (1u << 1)   /* rtb_port_task_delete() */
#define RTB_CAP_TASK_SUSPEND (1u << 2)  /* suspend/resume */
#define RTB_CAP_SCHED_LOCK (1u << 3)    /* preemption lock/unlock */
#define RTB_CAP_SEM (1u << 4)           /* binary and counting semaphores */
#define RTB_CAP_MUTEX (1u << 5)         /* mutexes */
#define RTB_CAP_MSGQ (1u << 6)          /* message queues */
#define RTB_CAP_EVENTS (1u << 7)        /* event flags */
#define RTB_CAP_TIMER (1u << 8)         /* callback timers */
#define RTB_CAP_IRQ (1u << 9)           /* an asynchronous interrupt source (rtb_port_irq_*) */
#define RTB_CAP_RWLOCK (1u << 10)       /* reader-writer locks */
#define RTB_CAP_COND (1u << 11)         /* condition variables */
#define RTB_CAP_QUEUE (1u << 12)        /* FIFO/LIFO/stack queues of words */
#define RTB_CAP_PIPE (1u << 13)         /* byte pipes */
#define RTB_CAP_HEAP (1u << 14)         /* a general-purpose heap */
#define RTB_CAP_PROCESS (1u << 15)      /* tasks in separate address spaces */
#define RTB_CAP_SMP (1u << 16)          /* a second CPU tasks can be placed on */
#define RTB_CAP_IRQ_MASK (1u << 17)     /* the benchmark may mask interrupts */
#define RTB_CAP_TASK_START (1u << 18)   /* create a task without starting it */
#define RTB_CAP_SWI (1u << 19)          /* software-interrupt objects (DSP/BIOS SWI) */
#define RTB_CAP_RTA_LOG (1u << 20)      /* target-side log/statistics objects (DSP/BIOS LOG, STS) */
#define RTB_CAP_FRAME_PIPE (1u << 21)   /* pipes of in-place frames (DSP/BIOS PIP alloc/put/get/free) */
#define RTB_CAP_FIRST_FIT_HEAP (1u << 22) /* a heap whose free list the benchmark can arrange */
#define RTB_CAP_CACHE_DISABLE (1u << 23) /* the benchmark may switch the caches off */
#define RTB_CAP_IRQ_TIMED (1u << 24)    /* the interrupt source is a timer whose expiry can be
                                           placed (rtb_port_irq_trigger_after) */
#define RTB_CAP_IRQ_BARE (1u << 25)     /* bare interrupt handlers: rtb_port_irq_bare() */
#define RTB_CAP_CRITICAL (1u << 26)     /* the kernel's nesting critical section */
#define RTB_CAP_NULL_SYSCALL (1u << 27) /* rtb_port_null_syscall(): tasks run in user mode */
#define RTB_CAP_USER_KERNEL (1u << 28)  /* tasks of both modes side by side: RTB_TASK_PROCESS makes
                                           a user-mode task, any other task runs in kernel mode
                                           (the .k_to_u / .u_to_k rows; Zephyr's CONFIG_USERSPACE) */

/* ======================================================================== */
/* A. REQUIRED: every port implements these.                                */
/* ======================================================================== */

/* ---- Identity, capabilities, errors ------------------------------------- */
uint32_t rtb_port_caps(void);            /* RTB_CAP_* bits of what works */
/* Words for the last failure, or for the last RTB_ENOTSUP ("" if none; a port
 * empties them in rtb_port_metric_begin, so a metric never shows another's). */
const char *rtb_port_last_error(void);

/* Facts for the session record, filled by the port. */
struct rtb_port_info {
    const char *port;        /* port name, e.g. "posix", "freertos" */
    const char *ts_source;   /* what rtb_port_ts() reads, e.g. "rdtsc+lfence" */
    const char *ref_clock;   /* what rtb_port_ref_ns() reads, or "" */
    uint64_t ts_hz_nominal;  /* counter frequency the port believes, 0 if unknown */
    /* The unit of every reported figure (after RTB_PORT_UNITS):
     *   "ticks"        ticks of a clock at the calibrated frequency (a time)
     *   "cycles"       CPU core cycles at the calibrated frequency (a time)
     *   "instructions" instructions executed (not a time: no frequency)
     * and what that unit includes and leaves out, in words. */
    const char *unit;
    const char *unit_detail;
    uint64_t resolution;     /* the smallest step of the reported unit, if the port
                                knows it (1 instruction); 0: measured at start-up */
    bool realtime;           /* tasks run with real-time priorities */
    const char *policy;      /* scheduling policy granted, e.g. "SCHED_FIFO" */
    const char *rt_reason;   /* why not real-time ("" when realtime) */
    bool mlock;              /* memory locked and prefaulted */
    int cpu;                 /* CPU all benchmark tasks are pinned to, -1 if none */
    int cpus_online;         /* CPUs the kernel runs on */
    /* On this kernel, a task readied by an interrupt handler runs only when
     * the handler returns (an RTOS); false: as soon as the handler's give
     * call returns to it (a Linux signal handler runs in task context). */
    bool irq_switch_at_exit;
    /* The target, for the data sheet: pairs of strings {key, value, ...,
     * NULL} (kernel version, tick rate, asserts, heap scheme, board...).
     * NULL: none. A key "differs:PATTERN[,PATTERN...]" states where this
     * kernel's own convention makes the rows whose ids match a pattern
     * (fnmatch) hold something the catalogue's definition does not; the
     * kernel comparison and the data sheet print it on those rows, the most
     * specific (longest) matching pattern's text, and list it among the
     * fairness notes (docs/porting.md). */
    const char *const *facts;
};
void rtb_port_info(struct rtb_port_info *out);

/* ---- Output --------------------------------------------------------------- */
void rtb_port_write(const char *s, size_t n);   /* append record text to the output */

/* ---- Memory shared by every task ---------------------------------------- */
/* `size` bytes, zeroed, 16-byte aligned, that every task sees at the same
 * address, including tasks that are processes (RTB_TASK_PROCESS). Scenario
 * state that more than one task touches lives here. Call before creating
 * the tasks that use it; never freed; NULL when the port's region is used up
 * (at least 48 KiB; the core itself takes ~22 KiB). */
void *rtb_port_shared(size_t size);

/* ---- Tasks ------------------------------------------------------------- */
typedef void (*rtb_task_fn)(void *arg);
#define RTB_TASK_PROCESS (1u << 0)   /* own address space (needs RTB_CAP_PROCESS) */
#define RTB_TASK_OTHER_CPU (1u << 1) /* pinned to another CPU than the benchmark's (RTB_CAP_SMP) */
#define RTB_TASK_SUSPENDED (1u << 2) /* created, not started: rtb_port_task_start() (RTB_CAP_TASK_START) */
/* Bits 3 and 4 are the metric's .k_to_u / .u_to_k mode (rtb/bench.h): the
 * core turns them into RTB_TASK_PROCESS on one task of the pair, and a port
 * never sees them. */
/* Create task `id` at priority `prio`, ready to run (it preempts the caller
 * if more urgent), pinned like every benchmark task unless flags say
 * otherwise. `arg` must point into rtb_port_shared() memory (or be a plain
 * value) when RTB_TASK_PROCESS is set. */
int rtb_port_task_create(int id, int prio, unsigned flags, rtb_task_fn fn, void *arg);
int rtb_port_task_join(int id);           /* wait until fn returned; frees id */
void rtb_port_task_yield(void);           /* give the CPU to an equal-priority ready task */
int rtb_port_task_set_prio(int id, int prio); /* id -1: the calling task */
/* Block the caller for at least `us` microseconds. A kernel with a coarse
 * tick must not turn a short delay (scenarios settle for 50 us) into a
 * whole tick where it can avoid it: the FreeRTOS port serves delays
 * shorter than a tick from a board timer. */
int rtb_port_task_delay(uint32_t us);

/* ======================================================================== */
/* B. OPTIONAL: weak defaults answer RTB_ENOTSUP (core/port_defaults.c).    */
/*    Implement a group and set its capability bit.                         */
/* ======================================================================== */

/* ---- Port policies -------------------------------------------------------- */
struct rtb_port_policy {
    /* rtb_rest(): after rest_every_us of running since the last rest (the
     * harness's clock, across metrics), the scenario sleeps rest_us between
     * samples, and the runner between metrics. Linux stops a CPU's
     * real-time tasks for the rest of a second once they used 95 % of it
     * (RT throttling): the POSIX port rests 10 ms in every 100 ms while
     * throttling is on and its tasks are real-time. 0: never rest (default). */
    uint32_t rest_every_us, rest_us;
    uint32_t between_metrics_us; /* the runner sleeps this long between metrics (default 0) */
};
void rtb_port_policy(struct rtb_port_policy *out);

/* How the port builds a service its kernel lacks, in words for the record
 * ("" or NULL: the kernel has it natively, the default). `task_flags` are the
 * metric's RTB_TASK_* flags (an emulation may differ for processes). */
enum rtb_emulation {
    RTB_EMU_TASK_CREATE_UNSTARTED, /* create without starting */
    RTB_EMU_TASK_START,            /* start a task created unstarted */
    RTB_EMU_TASK_DELETE,           /* delete a task that has not returned */
    RTB_EMU_TASK_SUSPEND,          /* suspend/resume another task */
    RTB_EMU_TASK_SELF_SUSPEND,     /* a task suspending itself */
    RTB_EMU_SCHED_LOCK,            /* preemption lock */
    RTB_EMU_EVENTS,                /* event flags */
    RTB_EMU_EVENT_CLEAR,           /* an event wait that clears what it received */
    RTB_EMU_QUEUE,                 /* FIFO/LIFO/stack queues of words */
    RTB_EMU_PIPE,                  /* byte pipes */
    RTB_EMU_COND,                  /* condition variables */
    RTB_EMU_RWLOCK,                /* reader-writer locks */
    RTB_EMU_MUTEX_NO_INHERIT,      /* a mutex without priority inheritance */
};
const char *rtb_port_emulation(enum rtb_emulation what, unsigned task_flags);
/* How many kernel calls the emulation makes in a timed window: 0 when the
 * kernel has the service itself (the default), 1 when one call of another
 * service of the kernel does it (a queue of words as a FIFO), 2 or more
 * when the port builds the service from several calls (ThreadX: terminate,
 * then delete): that row is rtbench's code as much as the kernel's, and
 * stays out of every ranking (the record's `unranked`). The window audit
 * checks each port's answer against the trace. */
unsigned rtb_port_emulation_calls(enum rtb_emulation what, unsigned task_flags);

/* Where this port's timed window for metric `id` does not hold the service
 * the row's name implies but something else: what it holds, in words for
 * the record ("a sem_post of a start gate no task waits on yet: a counter
 * in user memory, no kernel call", where Linux has no task start). NULL or
 * "": the window holds the named service (the default). The core writes it
 * into the row's registry line and metric record (`window_holds`); the row
 * is measured and shown, and every comparison with another kernel or a
 * vendor's sheet shows it as not comparable, in these words, out of every
 * verdict. Only the port knows what its calls do: nothing else keeps a list. */
const char *rtb_port_window_holds(const char *id);

/* Why the port lacks the service behind capability bit `cap` (one bit), in
 * words for the record ("FreeRTOS has no reader-writer lock"). NULL: the
 * core says "port has no <service>" (the default). */
const char *rtb_port_unsupported_why(uint32_t cap);

/* ---- Start-up and metric hooks ------------------------------------------- */
/* A port-specific command-line option, offered by rtb_main() for every
 * option the core does not know: return 0 if `name` is not the port's,
 * 1 if it is a flag (value unused), 2 if it consumed `value` (NULL when
 * there is none), or -1 after rtb_port_last_error() says what is wrong. */
int rtb_port_option(const char *name, const char *value);
/* Called by rtb_main() after the options, before listing or running:
 * the port applies what they asked (pin, real-time policy, lock memory).
 * RTB_OK, or a failure whose words end the harness as a usage error. */
int rtb_port_setup(bool list_only);
void rtb_port_metric_begin(const char *id);     /* called before each metric runs */
/* A host file the harness writes to (--stamp-log: core/stamplog.h, the
 * stamps of every recorded sample for the window audit and the cycle
 * model): a board under an emulator opens it through its host link (Arm
 * semihosting), created or emptied, and appends `n` bytes at a time.
 * Called outside every window, from the runner's task. RTB_ENOTSUP (the
 * default): the port has no host to write to. */
int rtb_port_log_open(const char *path);
int rtb_port_log_write(const void *buf, size_t n);

/* ---- Time -------------------------------------------------------------- */
bool rtb_port_ref_ns(uint64_t *ns);      /* an independent clock in ns; false if none */
/* The kernel's clock services, for the "Clocks" section (DSP/BIOS CLK_*):
 * clock `which` = 0, 1, ... Its name, or NULL past the last clock. */
const char *rtb_port_clock_name(int which);
int rtb_port_clock_read(int which, uint64_t *value);
/* A chain of `loops` x RTB_ADD_CHAIN_UNROLL dependent register adds (each
 * add needs the last one's result), for the core clock: the benchmark
 * counter may tick at a constant rate that is not the core's (an x86 TSC:
 * 2.6 GHz on a core running at 3.5), and vendors state costs in core
 * cycles. An add that waits on the previous one retires one per core cycle,
 * so the core (calib.c) times the chain by rtb_port_ref_ns() and reads the
 * core clock off it. RTB_ENOTSUP (the default) where the port has no chain
 * for its architecture, or no reference clock to time it by. */
#define RTB_ADD_CHAIN_UNROLL 1000u
int rtb_port_add_chain(uint32_t loops);

/* The kernel's tick as an instant (a timer's expiry or a delay's end on a
 * tick-driven kernel starts there: AMX's T1): while on, every tick
 * interrupt stamps as it is entered, before the kernel's own handler runs,
 * and rtb_port_tick_stamp() [ISR] is the stamp of the latest (an opening
 * stamp). RTB_ENOTSUP (the default): the port cannot stamp its kernel's
 * tick (Linux's timers are not tick-driven). */
int rtb_port_tick_stamps(bool on);
rtb_stamp_t rtb_port_tick_stamp(void);
/* `n` closing stamps (n <= 4096) into buf[0..n-1], one after the other, as
 * tight as the port can: a task that something interrupts or switches away
 * from in the middle reads the counter again within a few instructions of
 * resuming (the board's: one, a straight line of stamps), so the first of
 * them after an instant is that task's resumption. The default is a C
 * loop. An entry may be stored as the counter reads it (a down-counter
 * uninverted): RTB_PORT_STAMP_RUN_VALUE(entry) is the stamp it stands for. */
void rtb_port_stamp_run(rtb_stamp_t *buf, uint32_t n);
#ifndef RTB_PORT_STAMP_RUN_VALUE
#define RTB_PORT_STAMP_RUN_VALUE(entry) (entry)
#endif

/* ---- Kernel entry and caches ------------------------------------------- */
/* The cheapest call into the kernel that returns to the caller (VxWorks
 * "System call overhead"), RTB_CAP_NULL_SYSCALL; a port whose tasks run in
 * the kernel's own mode leaves it unsupported. */
int rtb_port_null_syscall(void);
/* Evict the caches the port can evict (the "cold" profile: DSP/BIOS
 * invalidates L1 before every call); RTB_ENOTSUP if it cannot. */
int rtb_port_cache_evict(void);
/* The canary: a fixed piece of work the core times before and after every
 * metric (a block of it: rtbench runs a metric as many short blocks), so
 * that a block measured while something outside the kernel slowed the CPU
 * (a hypervisor's other guest on the core's sibling thread, sharing its
 * caches) shows, and can be reported apart. POSIX: a pointer chase through
 * an L2-resident buffer and a null system call. RTB_ENOTSUP (the default):
 * none, as on a deterministic board. */
int rtb_port_canary(void);

/* ---- More task services --------------------------------------------------- */
int rtb_port_task_start(int id);          /* start a task created RTB_TASK_SUSPENDED */
int rtb_port_task_delete(int id);         /* end a task that has not returned; frees id */
int rtb_port_task_suspend(int id);        /* stop it from running until resumed */
int rtb_port_task_resume(int id);         /* undo suspend */
int rtb_port_sched_lock(void);            /* disable preemption of the caller */
int rtb_port_sched_unlock(void);          /* enable it again */

/* ---- Where created kernel objects live ------------------------------------ */
/* RTB_ALLOC_STATIC (the default): every create call the port makes puts
 * the object in memory the port owns (FreeRTOS ...CreateStatic, ThreadX
 * and Zephyr always): the call allocates nothing, so create rows compare
 * the kernels' own work. RTB_ALLOC_HEAP: the kernel's create call that
 * takes the object's memory from its heap, for the rows whose metric has
 * RTB_FROM_HEAP (rtb/bench.h). The core sets it around each metric.
 * RTB_ENOTSUP, with the reason in rtb_port_last_error() (the default for
 * RTB_ALLOC_HEAP): the kernel has no create call that allocates. */
#define RTB_ALLOC_STATIC 0u
#define RTB_ALLOC_HEAP 1u
int rtb_port_alloc(unsigned how);

/* ---- Semaphores (max 1: binary; give on a full semaphore is a no-op) ---- */
int rtb_port_sem_create(int id, unsigned initial, unsigned max);
int rtb_port_sem_delete(int id);
int rtb_port_sem_give(int id);
int rtb_port_sem_give_isr(int id);        /* [ISR] give from an interrupt handler */
int rtb_port_sem_take(int id, int32_t timeout_us);

/* ---- Mutexes ------------------------------------------------------------ */
#define RTB_MUTEX_RECURSIVE (1u << 0)
#define RTB_MUTEX_INHERIT (1u << 1)       /* priority inheritance */
int rtb_port_mutex_create(int id, unsigned flags);
int rtb_port_mutex_delete(int id);
int rtb_port_mutex_lock(int id);
int rtb_port_mutex_trylock(int id);       /* no wait: RTB_EWOULDBLOCK if another task owns it */
int rtb_port_mutex_unlock(int id);

/* ---- Message queues: fixed-size messages copied in and out ------------- */
int rtb_port_msgq_create(int id, size_t msg_size, unsigned depth);
int rtb_port_msgq_delete(int id);
int rtb_port_msgq_send(int id, const void *msg, int32_t timeout_us);
int rtb_port_msgq_receive(int id, void *msg, int32_t timeout_us);

/* ---- Event flags -------------------------------------------------------- */
#define RTB_EV_ANY 0u
#define RTB_EV_ALL (1u << 0)
#define RTB_EV_CLEAR (1u << 1)            /* clear the bits that satisfied the wait */
/* *got: the bits of `bits` that were set when the wait was satisfied. */
int rtb_port_event_create(int id);
int rtb_port_event_delete(int id);
int rtb_port_event_set(int id, uint32_t bits);
int rtb_port_event_wait(int id, uint32_t bits, unsigned mode, int32_t timeout_us,
                        uint32_t *got);

/* ---- Reader-writer locks ------------------------------------------------ */
int rtb_port_rwlock_create(int id);
int rtb_port_rwlock_delete(int id);
int rtb_port_rwlock_rdlock(int id, int32_t timeout_us);
int rtb_port_rwlock_wrlock(int id, int32_t timeout_us);
int rtb_port_rwlock_unlock(int id);

/* ---- Condition variables (used with a mutex of this layer) -------------- */
int rtb_port_cond_create(int id);
int rtb_port_cond_delete(int id);
/* Atomically unlock `mutex_id` and wait; the mutex is held again on return. */
int rtb_port_cond_wait(int id, int mutex_id, int32_t timeout_us);
int rtb_port_cond_signal(int id);         /* wake one waiter, if any */
int rtb_port_cond_broadcast(int id);      /* wake all waiters */

/* ---- Queues of words: Zephyr k_fifo / k_lifo / k_stack, DSP/BIOS QUE ---- */
#define RTB_QUEUE_FIFO 0u
#define RTB_QUEUE_LIFO 1u
#define RTB_QUEUE_STACK 2u /* bounded array of words (k_stack) */
int rtb_port_queue_create(int id, unsigned kind, unsigned depth);
int rtb_port_queue_delete(int id);
/* Put a word. alloc: the kernel allocates the link node itself (Zephyr's
 * *_alloc_put) instead of using one the caller provides. */
int rtb_port_queue_put(int id, uintptr_t item, bool alloc);
int rtb_port_queue_get(int id, uintptr_t *item, int32_t timeout_us);

/* ---- Byte pipes --------------------------------------------------------- */
int rtb_port_pipe_create(int id);
int rtb_port_pipe_delete(int id);
int rtb_port_pipe_write(int id, const void *buf, size_t n, int32_t timeout_us);
int rtb_port_pipe_read(int id, void *buf, size_t n, int32_t timeout_us);

/* ---- Heap ---------------------------------------------------------------- */
void *rtb_port_heap_alloc(size_t size);   /* NULL on failure or without RTB_CAP_HEAP */
void rtb_port_heap_free(void *p);

/* ---- Timers: callback runs in the kernel's timer context --------------- */
typedef void (*rtb_timer_fn)(void *arg);
/* fn(arg) runs at each expiry. A routine that takes no argument (arg
 * NULL) is the kernel's own callback: the kernel calls it directly, with
 * its own argument, which it ignores, so nothing of the port runs between
 * the kernel and the routine (the expiry rows start their routine with a
 * stamp). */
int rtb_port_timer_create(int id, rtb_timer_fn fn, void *arg);
int rtb_port_timer_start(int id, uint32_t first_us, uint32_t period_us); /* period 0: one-shot */
int rtb_port_timer_cancel(int id);
int rtb_port_timer_delete(int id);
/* A kernel whose timer calls are commands to a timer task (FreeRTOS's
 * daemon, which runs them at once when it is more urgent than the caller):
 * set that task's priority (1 .. RTB_PRIO_MAX; 0: back to the kernel's
 * own), for the rows that time the caller alone. RTB_ENOTSUP (the
 * default): no timer task, the call does its work itself. */
int rtb_port_timer_service_prio(int prio);

/* ---- Interrupts ------------------------------------------------------------ */
/* Two sources. The interrupt rows time the kernel's path from an
 * interrupt to a handler, a task, a return: that path is the same whatever
 * instruction the interrupt lands on, so they raise it from software at a
 * stamp (rtb_port_irq_raise_timed, below) and no device work of rtbench's
 * sits in a window. Where the arrival matters (the kernel's interrupts-off
 * regions: irq.kernel_latency; the bare handlers) the source is
 * asynchronous: it raises the interrupt from outside the benchmark CPU's
 * instruction stream (a hardware timer, another CPU), interrupting whatever
 * runs there, and the port knows the instant (a timer's expiry) and reports
 * it through rtb_port_irq_raised_at(), in rtb_port_ts() ticks, to a
 * function hooked with rtb_port_irq_hook. */
typedef void (*rtb_irq_fn)(void *arg);
int rtb_port_irq_hook(rtb_irq_fn fn, void *arg); /* fn runs in interrupt context */

/* The interrupt rows (RTB_CAP_IRQ on a board): each interval is timed with
 * a handler of its own that takes only the stamps that interval needs, and
 * the interrupt is raised from software (the NVIC's software trigger, on a
 * line no device drives), so no device acknowledgement of rtbench's is in
 * any window. rtb_port_irq_hook_plan() connects, for the plan's `path`, a
 * handler that does in this order: [stamp `in`] [give `sem` with the
 * kernel's interrupt-context call, or submit deferred work] [stamp `out`],
 * written in the kernel's own handler convention (rtb/irq_isr.h: FreeRTOS's
 * xHigherPriorityTaskWoken and portYIELD_FROM_ISR; Zephyr's
 * ISR_DIRECT_DECLARE). Stamps go to rtb_irq_slots. Then
 * rtb_port_irq_raise_timed() raises it. */
#define RTB_IRQ_STAMP_IN (1u << 0)  /* first: stamp the handler's start into rtb_irq_slots.in */
#define RTB_IRQ_IN_OPENS (1u << 1)  /* ...a stamp that opens a window (else it closes one) */
#define RTB_IRQ_GIVE (1u << 2)      /* give semaphore `sem` (the interrupt-context call) */
#define RTB_IRQ_STAMP_OUT (1u << 3) /* last: stamp the handler's end into rtb_irq_slots.out */
#define RTB_IRQ_DEFER (1u << 4)     /* submit deferred work (the kernel's service: FreeRTOS
                                       xTimerPendFunctionCallFromISR, Zephyr k_work_submit)
                                       whose function stamps rtb_irq_slots.deferred first */
/* How the handler is connected: the kernel's low-latency path (the handler
 * is the vector itself: FreeRTOS, ThreadX; Zephyr's IRQ_DIRECT_CONNECT), or
 * the kernel's general interrupt dispatch where it has one besides (Zephyr's
 * IRQ_CONNECT: its common entry _isr_wrapper calls the handler). */
#define RTB_IRQ_DIRECT 0u
#define RTB_IRQ_DISPATCHED 1u
struct rtb_irq_plan {
    unsigned does; /* RTB_IRQ_* bits */
    int sem;       /* the semaphore RTB_IRQ_GIVE gives */
    unsigned path; /* RTB_IRQ_DIRECT or RTB_IRQ_DISPATCHED */
};
struct rtb_irq_slots {
    volatile rtb_stamp_t in, out, deferred;
};
extern struct rtb_irq_slots rtb_irq_slots;
/* RTB_ENOTSUP with the port's words for a path or a service the kernel
 * lacks ("FreeRTOS has no interrupt dispatcher: a handler is the vector"). */
int rtb_port_irq_hook_plan(const struct rtb_irq_plan *plan);
/* Where the kernel runs code of its own around a handler connected by
 * `path` that neither gives nor defers: RTB_IRQ_KERNEL_ENTRY, between the
 * exception entry and the handler's first instruction (a common entry such
 * as Zephyr's _isr_wrapper); RTB_IRQ_KERNEL_EXIT, between the handler's
 * last instruction and the exception return. 0 where the handler is the
 * vector and returns straight to the interrupted code: the rows that hold
 * only those parts then measure the core, not the kernel, and their records
 * say "the kernel adds nothing" (kept out of every ranking). The window
 * audit holds a port to its answer (tests/test_window_audit.py). */
#define RTB_IRQ_KERNEL_ENTRY (1u << 0)
#define RTB_IRQ_KERNEL_EXIT (1u << 1)
unsigned rtb_port_irq_kernel_code(unsigned path);
/* The hooked plan's interrupt, raised by the calling task: stamp (into *t0,
 * which other tasks read), the raise (one store, and the barriers that make
 * it taken before the next instruction), the handler and whatever it
 * readies run, then stamp (into *t1) when the caller runs again. A board
 * provides it in assembly (kcall.S); the window holds the stamp's store and
 * the raise of rtbench's, nothing else. Task context, interrupts enabled. */
void rtb_port_irq_raise_timed(volatile rtb_stamp_t *t0, rtb_stamp_t *t1);

/* The interrupt source of irq.kernel_latency (RTB_CAP_IRQ_TIMED) and the
 * bare handlers: a hardware timer whose expiry lands at an arbitrary
 * instruction (and waits for a region with interrupts masked), with the
 * function hook above. */
int rtb_port_irq_trigger(void);                  /* request one interrupt; returns at once */
/* RTB_CAP_IRQ_TIMED: request one interrupt `ticks` counter ticks from now
 * (the caller places it, e.g. at pseudo-random points of a workload). [ISR] */
int rtb_port_irq_trigger_after(uint32_t ticks);
rtb_ticks_t rtb_port_irq_raised_at(void);        /* [ISR] stamp of the last raise, 0 before */
int rtb_port_irq_unhook(void);

/* RTB_CAP_IRQ_BARE: raise one interrupt (from the same source) taken by a
 * handler the kernel never sees, and report, in counter ticks from single
 * counter loads (so no read cost is in them and none is subtracted):
 * *prolog = raise -> the handler's first counter read, *epilog = its last
 * counter read -> the interrupted code's next one. c_call false: the
 * minimum handler (assembly, saves nothing the hardware did not); true: a
 * C function entered the way the kernel's handlers are. */
int rtb_port_irq_bare(bool c_call, int32_t *prolog, int32_t *epilog);

/* RTB_CAP_IRQ_MASK: mask / unmask interrupts globally, the kernel's way
 * (DSP/BIOS HWI_disable / HWI_enable). */
int rtb_port_irq_mask(void);
int rtb_port_irq_unmask(void);
/* RTB_CAP_CRITICAL: the kernel's nesting critical section (enter / exit). */
int rtb_port_critical_enter(void);
int rtb_port_critical_exit(void);

/* ======================================================================== */
/* C. PREPARED CALLS: each timed service, prepared outside the window.      */
/* ======================================================================== */
/* rtb_port_<op>_kcall(args..., c) fills `c` (rtb/kcall.h) so that calling
 * c->fn(c->a...) does what rtb_port_<op>(args...) does, and c->done reads
 * the return into the same RTB_* code; it returns RTB_OK, or the error the
 * plain call would return for these arguments (a bad id: nothing is
 * prepared). Everything the plain call does besides the kernel call (the
 * id check, the handle lookup, converting a timeout) happens here or in
 * done(), outside the window. A prepared call stays valid until its object
 * is deleted.
 *
 * The core's weak defaults (core/kcall.c) prepare a call of the plain
 * function itself: right, and the port's glue is then inside the window (the
 * POSIX port, where it is far below the clock's step). A port on a board
 * prepares the kernel's own function (or an rtb_kapi_* shim holding one
 * call of it) and may derive its plain calls from the preparations
 * (RTB_KCALL_PLAIN). The window audit counts what each window holds. */
struct rtb_kcall;
int rtb_port_task_create_kcall(int id, int prio, unsigned flags, rtb_task_fn fn, void *arg,
                               struct rtb_kcall *c);
int rtb_port_task_start_kcall(int id, struct rtb_kcall *c);
int rtb_port_task_delete_kcall(int id, struct rtb_kcall *c);
int rtb_port_task_suspend_kcall(int id, struct rtb_kcall *c);
int rtb_port_task_resume_kcall(int id, struct rtb_kcall *c);
int rtb_port_task_set_prio_kcall(int id, int prio, struct rtb_kcall *c);
int rtb_port_task_yield_kcall(struct rtb_kcall *c);
int rtb_port_task_delay_kcall(uint32_t us, struct rtb_kcall *c);
int rtb_port_sched_lock_kcall(struct rtb_kcall *c);
int rtb_port_sched_unlock_kcall(struct rtb_kcall *c);

int rtb_port_sem_create_kcall(int id, unsigned initial, unsigned max, struct rtb_kcall *c);
int rtb_port_sem_delete_kcall(int id, struct rtb_kcall *c);
int rtb_port_sem_give_kcall(int id, struct rtb_kcall *c);
int rtb_port_sem_take_kcall(int id, int32_t timeout_us, struct rtb_kcall *c);

int rtb_port_mutex_create_kcall(int id, unsigned flags, struct rtb_kcall *c);
int rtb_port_mutex_delete_kcall(int id, struct rtb_kcall *c);
int rtb_port_mutex_lock_kcall(int id, struct rtb_kcall *c);
int rtb_port_mutex_trylock_kcall(int id, struct rtb_kcall *c);
int rtb_port_mutex_unlock_kcall(int id, struct rtb_kcall *c);

int rtb_port_msgq_create_kcall(int id, size_t msg_size, unsigned depth, struct rtb_kcall *c);
int rtb_port_msgq_delete_kcall(int id, struct rtb_kcall *c);
int rtb_port_msgq_send_kcall(int id, const void *msg, int32_t timeout_us, struct rtb_kcall *c);
int rtb_port_msgq_receive_kcall(int id, void *msg, int32_t timeout_us, struct rtb_kcall *c);

int rtb_port_event_create_kcall(int id, struct rtb_kcall *c);
int rtb_port_event_delete_kcall(int id, struct rtb_kcall *c);
int rtb_port_event_set_kcall(int id, uint32_t bits, struct rtb_kcall *c);
int rtb_port_event_wait_kcall(int id, uint32_t bits, unsigned mode, int32_t timeout_us,
                              uint32_t *got, struct rtb_kcall *c);

int rtb_port_rwlock_create_kcall(int id, struct rtb_kcall *c);
int rtb_port_rwlock_delete_kcall(int id, struct rtb_kcall *c);
int rtb_port_rwlock_rdlock_kcall(int id, int32_t timeout_us, struct rtb_kcall *c);
int rtb_port_rwlock_wrlock_kcall(int id, int32_t timeout_us, struct rtb_kcall *c);
int rtb_port_rwlock_unlock_kcall(int id, struct rtb_kcall *c);

int rtb_port_cond_create_kcall(int id, struct rtb_kcall *c);
int rtb_port_cond_delete_kcall(int id, struct rtb_kcall *c);
int rtb_port_cond_wait_kcall(int id, int mutex_id, int32_t timeout_us, struct rtb_kcall *c);
int rtb_port_cond_signal_kcall(int id, struct rtb_kcall *c);
int rtb_port_cond_broadcast_kcall(int id, struct rtb_kcall *c);

int rtb_port_queue_create_kcall(int id, unsigned kind, unsigned depth, struct rtb_kcall *c);
int rtb_port_queue_delete_kcall(int id, struct rtb_kcall *c);
int rtb_port_queue_put_kcall(int id, uintptr_t item, bool alloc, struct rtb_kcall *c);
int rtb_port_queue_get_kcall(int id, uintptr_t *item, int32_t timeout_us, struct rtb_kcall *c);

int rtb_port_pipe_create_kcall(int id, struct rtb_kcall *c);
int rtb_port_pipe_delete_kcall(int id, struct rtb_kcall *c);
int rtb_port_pipe_write_kcall(int id, const void *buf, size_t n, int32_t timeout_us,
                              struct rtb_kcall *c);
int rtb_port_pipe_read_kcall(int id, void *buf, size_t n, int32_t timeout_us, struct rtb_kcall *c);

/* heap: c->ret is the block (alloc; done() says RTB_ERR for NULL) */
int rtb_port_heap_alloc_kcall(size_t size, struct rtb_kcall *c);
int rtb_port_heap_free_kcall(void *p, struct rtb_kcall *c);

int rtb_port_timer_create_kcall(int id, rtb_timer_fn fn, void *arg, struct rtb_kcall *c);
int rtb_port_timer_start_kcall(int id, uint32_t first_us, uint32_t period_us, struct rtb_kcall *c);
int rtb_port_timer_cancel_kcall(int id, struct rtb_kcall *c);
int rtb_port_timer_delete_kcall(int id, struct rtb_kcall *c);

int rtb_port_irq_mask_kcall(struct rtb_kcall *c);
int rtb_port_irq_unmask_kcall(struct rtb_kcall *c);
int rtb_port_critical_enter_kcall(struct rtb_kcall *c);
int rtb_port_critical_exit_kcall(struct rtb_kcall *c);
int rtb_port_null_syscall_kcall(struct rtb_kcall *c);
int rtb_port_clock_read_kcall(int which, uint64_t *value, struct rtb_kcall *c);

#endif /* RTB_PORT_H */
