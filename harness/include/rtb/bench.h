/*
 * rtb/bench.h — the scenario API.
 *
 * A scenario measures; the core reports. A metric function gets a context,
 * asks rtb_want() whether more samples are wanted, takes its two timestamps
 * with rtb_port_ts() around exactly the operation the catalogue defines, and
 * hands them to rtb_add(). It never prints. A failure is a status with a
 * reason (rtb_fail / rtb_unsupported), never a number.
 *
 * Only one task of a scenario may call rtb_want()/rtb_add(): the context is
 * not shared-memory safe, and a scenario must not depend on the scheduler to
 * serialise it (without real-time priorities it would not).
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
};

/* True while the scenario should take another sample (warm-up included). */
bool rtb_want(struct rtb_ctx *ctx);
/* One sample: the interval from t0 to t1 in raw counter ticks. */
void rtb_add(struct rtb_ctx *ctx, rtb_ticks_t t0, rtb_ticks_t t1);
/* End the metric as failed: `what` and the port's last error become the reason. */
void rtb_fail(struct rtb_ctx *ctx, const char *what);
/* End the metric as unsupported on this port, with the reason. */
void rtb_unsupported(struct rtb_ctx *ctx, const char *why);
/* A remark carried in the record (e.g. how a primitive is emulated). */
void rtb_note(struct rtb_ctx *ctx, const char *note);
/* rc != RTB_OK: fail with `what` (unsupported if RTB_ENOTSUP); returns rc == RTB_OK. */
bool rtb_ok(struct rtb_ctx *ctx, int rc, const char *what);
/* True once the metric has failed or been declared unsupported. */
bool rtb_stopped(const struct rtb_ctx *ctx);

/* Registry tables, one per scenario file, each ended by {0}. */
extern const struct rtb_metric rtb_method_metrics[];
extern const struct rtb_metric rtb_sched_metrics[];
extern const struct rtb_metric rtb_sem_metrics[];
extern const struct rtb_metric rtb_mutex_metrics[];
extern const struct rtb_metric rtb_msgq_metrics[];

#endif /* RTB_BENCH_H */
