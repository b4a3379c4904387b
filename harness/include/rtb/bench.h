/*
 * rtb/bench.h — the scenario API.
 *
 * A scenario measures; the core reports. A metric function gets a context,
 * asks rtb_want() whether more samples are wanted, takes its two timestamps
 * with rtb_port_ts() around exactly the operation the catalogue defines, and
 * hands them to rtb_add(). It never prints. A failure is a status with a
 * reason (rtb_fail / rtb_unsupported), never a number.
 *
 * Only one task of a scenario may call rtb_want()/rtb_add() at a time: the
 * context is not locked, and a scenario must not depend on the scheduler to
 * serialise it (without real-time priorities it would not). The context
 * lives in rtb_port_shared() memory, so that task may be a process.
 */
#ifndef RTB_BENCH_H
#define RTB_BENCH_H

#include <rtb/port.h>

/* Task priorities scenarios use: all below the runner's, so a scenario's
 * tasks start running only when the runner blocks in rtb_port_task_join(). */
#define RTB_PRIO_LOW 10
#define RTB_PRIO_HIGH 20
#define RTB_PRIO_RUNNER 30

struct rtb_ctx;

typedef void (*rtb_metric_fn)(struct rtb_ctx *ctx);

struct rtb_metric {
    const char *id;        /* stable dotted id, the key in the catalogue */
    rtb_metric_fn fn;      /* the scenario */
    uint32_t caps;         /* RTB_CAP_* bits it needs; missing ones make it unsupported */
    unsigned task_flags;   /* RTB_TASK_* every task of the scenario gets (the id's mode:
                              .process -> RTB_TASK_PROCESS, .xcpu -> RTB_TASK_OTHER_CPU) */
};

/* A metric whose tasks are threads, and its twin whose tasks are processes. */
#define RTB_THREAD_AND_PROCESS(id, fn, caps)        \
    {id ".thread", fn, caps, 0},                    \
    {id ".process", fn, (caps) | RTB_CAP_PROCESS, RTB_TASK_PROCESS}

/* The mixed pairs of a switch between two tasks (Zephyr latency_measure's
 * k_to_u and u_to_k): .k_to_u, the switch's outgoing task in kernel mode and
 * the incoming one in user mode; .u_to_k, the other way round. Only a port
 * with both kinds of task measures them (RTB_CAP_USER_KERNEL). The scenario
 * creates each task with rtb_task_flags_as(ctx, its role). */
#define RTB_TASK_USER_IN (1u << 3)  /* .k_to_u: the incoming task is the user-mode one */
#define RTB_TASK_USER_OUT (1u << 4) /* .u_to_k: the outgoing task is the user-mode one */
#define RTB_THREAD_PROCESS_AND_MIXED(id, fn, caps)                                \
    RTB_THREAD_AND_PROCESS(id, fn, caps),                                         \
    {id ".k_to_u", fn, (caps) | RTB_CAP_USER_KERNEL, RTB_TASK_USER_IN},           \
    {id ".u_to_k", fn, (caps) | RTB_CAP_USER_KERNEL, RTB_TASK_USER_OUT}

/* A twin of a create or delete row whose objects come from the kernel's
 * heap (FreeRTOS's xSemaphoreCreateBinary against ...Static): the core
 * sets rtb_port_alloc(RTB_ALLOC_HEAP) around it, and the row is
 * unsupported, with the port's words, where the kernel has no such call.
 * Every other row creates its objects in memory the port owns. */
#define RTB_FROM_HEAP (1u << 5)

/* True while the scenario should take another sample (warm-up included). */
bool rtb_want(struct rtb_ctx *ctx);
/* The time budget starts now: for a scenario whose set-up (starting a
 * load, say) is no part of what it measures, so that a short budget (one
 * block of an interleaved run) is not spent before the first sample. */
void rtb_budget_from_now(struct rtb_ctx *ctx);
/* One sample: the interval between two window stamps (rtb_port_stamp_start
 * / _end, or a primitive of rtb/kcall.h that takes them). */
void rtb_add(struct rtb_ctx *ctx, rtb_stamp_t t0, rtb_stamp_t t1);
/* The same for a window that holds `extra` stamps besides its own two (an
 * event whose every instant is stamped once, several rows reading it: the
 * POSIX port's xsig.c): each extra read's calibrated cost is subtracted. */
void rtb_add_extra(struct rtb_ctx *ctx, rtb_stamp_t t0, rtb_stamp_t t1, unsigned extra);
/* The samples were observed over `ticks` counter ticks, not over the time
 * this metric ran: a row that replays events another row recorded (xsig.c)
 * states the window the events happened in (the record's elapsed_ticks). */
void rtb_observed_over(struct rtb_ctx *ctx, uint64_t ticks);
/* One sample of one prepared call (rtb/kcall.h): stamp, call, stamp; the
 * call's RTB_* result, read after the window. The sample is added when the
 * result is `expect` (RTB_OK; RTB_EWOULDBLOCK for a call timed failing). */
int rtb_time_kcall(struct rtb_ctx *ctx, struct rtb_kcall *c, int expect);
/* One sample of `n` prepared calls in a loop (rtb_batch), walking
 * calls[0..ncalls-1] round (ncalls <= n <= 64). The loop's own cost is
 * measured with empty calls through the same code before the metric's
 * first batch and subtracted from every sample, as the stamps' cost is
 * (the record's batch_overhead). n == 1 is rtb_time_kcall. */
int rtb_time_kcalls(struct rtb_ctx *ctx, const struct rtb_kcall *calls, unsigned ncalls, unsigned n,
                    int expect);
/* Samples of a call that must fail with RTB_EWOULDBLOCK (a no-wait take of
 * an empty object), `n` a sample (rtb_batch), while rtb_want(): a call that
 * succeeds or fails otherwise fails the metric with `what`. */
void rtb_time_failing(struct rtb_ctx *ctx, struct rtb_kcall *c, unsigned n, const char *what);
/* One sample computed from other intervals, in the reported unit and
 * already net of the timestamp overhead (e.g. an interrupt's delay beyond
 * its unloaded response: both intervals carried the same read cost).
 * Warm-up applies; the time budget is rtb_want()'s. */
void rtb_add_net(struct rtb_ctx *ctx, int64_t net);
/* End the metric as failed: `what` and the port's last error become the reason. */
void rtb_fail(struct rtb_ctx *ctx, const char *what);
/* End the metric as unsupported on this port, with the reason. */
void rtb_unsupported(struct rtb_ctx *ctx, const char *why);
/* A remark carried in the record. */
void rtb_note(struct rtb_ctx *ctx, const char *note);
/* The measured service is built from other primitives: how (into the record). */
void rtb_emulated(struct rtb_ctx *ctx, const char *how);
/* The same, in the port's words for a service it may emulate
 * (rtb_port_emulation); nothing when the kernel has it natively. An
 * emulation the port builds from several kernel calls
 * (rtb_port_emulation_calls) keeps the row out of every ranking. */
void rtb_port_emulates(struct rtb_ctx *ctx, enum rtb_emulation what);
/* The row's figure is rtbench's own code as much as a kernel's, or checks
 * the method: it is measured and shown, and kept out of every ranking and
 * verdict (the record's `unranked`: why). */
void rtb_unranked(struct rtb_ctx *ctx, const char *why);
/* Call at a point where a pause breaks no sample: the port's rest policy
 * (rtb_port_policy) decides whether to pause. The POSIX port, after 100 ms
 * of running since the metric began or the last rest, sleeps 10 ms: Linux
 * stops a CPU's real-time tasks for the rest of a second once they used
 * 95 % of it (sched_rt_runtime_us), and a scenario that keeps the
 * benchmark CPU busy must rest, or 50 ms stalls land in its samples. An
 * RTOS port never rests. */
void rtb_rest(struct rtb_ctx *ctx);
/* Each sample times `ops` repetitions of the operation (ops >= 1; e.g. a
 * chain of 1000 dependent loads, a token passed round N processes) moving
 * `bytes` bytes in all (0: not a transfer). The record carries both;
 * statistics stay per sample and the reader divides (docs/records.md). */
void rtb_per_sample(struct rtb_ctx *ctx, uint32_t ops, uint64_t bytes);
/* How many operations one sample should time, at most `most`: `most` when
 * one step of the port's clock (its resolution, or the spread of one
 * counter read, whichever is larger) is coarser than RTB_BATCH_STEP_NS, so
 * that a sample of an operation of a few ns spans many steps instead of
 * reading as 0 or 1 step; 1 on a counter fine enough, and always on a
 * count of instructions (exact, one step = one instruction). Calls
 * rtb_per_sample(ctx, n, 0) with the answer n. */
#define RTB_BATCH_STEP_NS 2.0
uint32_t rtb_batch(struct rtb_ctx *ctx, uint32_t most);
/* A method check: the value every sample should measure, in the reported
 * unit after overhead subtraction (the record's "expected"). */
void rtb_expected(struct rtb_ctx *ctx, uint64_t value);
/* `us` microseconds in counter ticks, at the calibrated counter frequency. */
rtb_ticks_t rtb_us_to_ticks(const struct rtb_ctx *ctx, uint32_t us);
/* The metric's RTB_TASK_* flags: pass them to every rtb_port_task_create()
 * (a .k_to_u / .u_to_k metric's tasks are kernel-mode ones here). */
unsigned rtb_task_flags(const struct rtb_ctx *ctx);
/* The flags of the task that plays `role` in the measured switch: the
 * metric's flags, and RTB_TASK_PROCESS (user mode) for the user-mode side of
 * a .k_to_u / .u_to_k metric. */
enum rtb_role { RTB_OUTGOING, RTB_INCOMING };
unsigned rtb_task_flags_as(const struct rtb_ctx *ctx, enum rtb_role role);
/* Scenario state shared between its tasks: `size` bytes of rtb_port_shared()
 * memory, allocated on the first call for `slot` (a static pointer owned by
 * the scenario file) and zeroed on every call. NULL: fails the metric. */
void *rtb_shared_state(struct rtb_ctx *ctx, void **slot, size_t size);
/* rc != RTB_OK: fail with `what` (unsupported if RTB_ENOTSUP); returns rc == RTB_OK. */
bool rtb_ok(struct rtb_ctx *ctx, int rc, const char *what);
/* True once the metric has failed or been declared unsupported. */
bool rtb_stopped(const struct rtb_ctx *ctx);

/* Registry tables, one per scenario file, each ended by {0}, listed in
 * core/registry.c in data-sheet order. */
extern const struct rtb_metric rtb_method_metrics[];
extern const struct rtb_metric rtb_irq_metrics[];
extern const struct rtb_metric rtb_sched_metrics[];
extern const struct rtb_metric rtb_task_metrics[];
extern const struct rtb_metric rtb_sem_metrics[];
extern const struct rtb_metric rtb_mutex_metrics[];
extern const struct rtb_metric rtb_rwlock_metrics[];
extern const struct rtb_metric rtb_event_metrics[];
extern const struct rtb_metric rtb_msgq_metrics[];
extern const struct rtb_metric rtb_pipe_metrics[];
extern const struct rtb_metric rtb_queue_metrics[];
extern const struct rtb_metric rtb_cond_metrics[];
extern const struct rtb_metric rtb_timer_metrics[];
extern const struct rtb_metric rtb_mem_metrics[];
extern const struct rtb_metric rtb_clock_metrics[];
extern const struct rtb_metric rtb_syscall_metrics[];
extern const struct rtb_metric rtb_amx_metrics[];

/* The port's own sections, after the portable ones: metrics only an OS of
 * that kind has (the POSIX port's System section: fork, files, sockets...).
 * A NULL-terminated list of tables, each ended by {0}; a port with none
 * defines it as { 0 }. */
extern const struct rtb_metric *const rtb_port_metric_tables[];

#endif /* RTB_BENCH_H */
