/*
 * irq.kernel_latency: the longest interval the kernel keeps interrupts
 * masked (DSP/BIOS "Interrupt latency", AMX "longest interval AMX disables
 * interrupts"), observed from outside the kernel:
 *
 *  1. Baseline. The runner spins in plain code (no kernel call) while a
 *     timer interrupt expires at pseudo-random moments; the smallest
 *     expiry-to-handler interval is the response with interrupts enabled.
 *  2. Load. Two tasks run a workload of kernel calls (semaphore hand-offs
 *     with a switch each way, a message queue, a mutex, yields, short
 *     delays, the kernel's tick) while the interrupt keeps arriving at
 *     pseudo-random moments (a fixed-seed generator: a run repeats). Each
 *     interrupt's sample is its response minus the baseline: 0 when it
 *     arrived with interrupts enabled, else how long the kernel kept it
 *     waiting. The maximum is the longest interrupts-off region the
 *     workload exposed: an observation over the samples taken, not a bound
 *     proven over every path of the kernel.
 *
 * The handler re-arms the timer itself (rtb_port_irq_trigger_after, an
 * [ISR] call) and is the only writer of the sample context.
 */
#include "irq_kernel.h"

enum { TASK_H = 0, TASK_L = 1, SEM = 0, MSGQ = 0, MUTEX = 0 };
#define BASELINE_IRQS 64u
#define DELAY_MIN_TICKS 64u
#define DELAY_SPAN_TICKS 2048u /* the next expiry: 64 .. 2111 counter ticks ahead */

struct klat {
    struct rtb_ctx *ctx;
    uint32_t lcg;
    volatile unsigned baseline_left; /* > 0: still measuring the baseline */
    volatile uint64_t baseline;      /* smallest unloaded response (reported unit) */
    volatile bool stop;
    volatile int rc;
};
static struct klat *shared;

static uint32_t next_delay(struct klat *k)
{
    k->lcg = k->lcg * 1664525u + 1013904223u; /* Numerical Recipes' LCG */
    return DELAY_MIN_TICKS + (k->lcg >> 8) % DELAY_SPAN_TICKS;
}

static void handler(void *arg)
{
    struct klat *k = arg;
    rtb_ticks_t in = rtb_port_ts();
    uint64_t response = RTB_PORT_UNITS(in - rtb_port_irq_raised_at());
    if (k->baseline_left) {
        if (response < k->baseline)
            k->baseline = response;
        k->baseline_left--;
    } else if (!k->stop) {
        rtb_add_net(k->ctx, (int64_t)(response - k->baseline));
        if (!rtb_want(k->ctx))
            k->stop = true;
    }
    if (!k->stop && rtb_port_irq_trigger_after(next_delay(k)) != RTB_OK) {
        k->rc = RTB_ERR;
        k->stop = true;
    }
}

/* The workload: H pends on the semaphore and the queue, L feeds them; each
 * hand-off switches to H and back. */
static void load_high(void *arg)
{
    struct klat *k = arg;
    uint32_t msg;
    for (unsigned n = 0;; n++) {
        int rc = rtb_port_sem_take(SEM, RTB_WAIT_FOREVER);
        if (rc == RTB_OK && !k->stop)
            rc = rtb_port_msgq_receive(MSGQ, &msg, RTB_WAIT_FOREVER);
        if (rc == RTB_OK && !k->stop)
            rc = rtb_port_mutex_lock(MUTEX);
        if (rc == RTB_OK && !k->stop)
            rc = rtb_port_mutex_unlock(MUTEX);
        if (rc == RTB_OK && !k->stop && n % 16 == 0)
            rc = rtb_port_task_delay(20); /* the kernel's delay list, and the idle task */
        if (rc != RTB_OK)
            k->rc = rc;
        if (rc != RTB_OK || k->stop)
            break;
    }
}

static void load_low(void *arg)
{
    struct klat *k = arg;
    uint32_t msg = 0;
    while (!k->stop) {
        int rc = rtb_port_sem_give(SEM);
        /* No wait: H empties the queue before L runs again (it is more
         * urgent), except once it has seen stop and left, when a send that
         * waited would wait for ever. */
        if (rc == RTB_OK)
            while ((rc = rtb_port_msgq_send(MSGQ, &msg, RTB_NO_WAIT)) == RTB_EWOULDBLOCK && !k->stop)
                rtb_port_task_yield();
        if (rc == RTB_EWOULDBLOCK)
            rc = RTB_OK;
        if (rc == RTB_OK)
            rtb_port_task_yield();
        if (rc != RTB_OK) {
            k->rc = rc;
            k->stop = true;
        }
        msg++;
    }
    /* release H wherever it waits: the queue keeps one message */
    rtb_port_sem_give(SEM);
    rtb_port_msgq_send(MSGQ, &msg, RTB_NO_WAIT);
}

static bool objects(struct rtb_ctx *ctx)
{
    if (!rtb_ok(ctx, rtb_port_sem_create(SEM, 0, 1), "sem_create"))
        return false;
    if (!rtb_ok(ctx, rtb_port_msgq_create(MSGQ, sizeof(uint32_t), 1), "msgq_create")) {
        rtb_port_sem_delete(SEM);
        return false;
    }
    if (!rtb_ok(ctx, rtb_port_mutex_create(MUTEX, 0), "mutex_create")) {
        rtb_port_msgq_delete(MSGQ);
        rtb_port_sem_delete(SEM);
        return false;
    }
    return true;
}

static void run_load(struct rtb_ctx *ctx, struct klat *k)
{
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_H, RTB_PRIO_HIGH, 0, load_high, k), "create task H"))
        return;
    if (!rtb_ok(ctx, rtb_port_task_create(TASK_L, RTB_PRIO_LOW, 0, load_low, k), "create task L")) {
        k->stop = true;
        rtb_port_sem_give(SEM);
        rtb_port_task_join(TASK_H);
        return;
    }
    rtb_port_task_join(TASK_L);
    rtb_port_task_join(TASK_H);
}

void rtb_irq_kernel_latency(struct rtb_ctx *ctx)
{
    struct klat *k = rtb_shared_state(ctx, (void **)&shared, sizeof *shared);
    if (!k || !objects(ctx))
        return;
    k->ctx = ctx;
    k->lcg = 12345u;
    k->baseline = UINT64_MAX;
    k->baseline_left = BASELINE_IRQS;
    rtb_note(ctx, "interrupt response under a kernel workload minus the unloaded response; "
                  "max = the longest interrupts-off region observed");
    if (rtb_ok(ctx, rtb_port_irq_hook(handler, k), "irq_hook")) {
        if (rtb_ok(ctx, rtb_port_irq_trigger_after(next_delay(k)), "irq_trigger_after")) {
            while (k->baseline_left && !k->stop)
                ; /* plain code: every interrupt finds them enabled */
            run_load(ctx, k);
        }
        k->stop = true;
        rtb_port_irq_unhook();
    }
    rtb_ok(ctx, k->rc, "kernel workload");
    rtb_port_mutex_delete(MUTEX);
    rtb_port_msgq_delete(MSGQ);
    rtb_port_sem_delete(SEM);
}
