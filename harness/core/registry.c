/* The registry: every scenario file's table, in data-sheet order. */
#include <rtb/runner.h>
#include "strutil.h"

static const struct rtb_metric *const tables[] = {
    rtb_method_metrics, rtb_irq_metrics,   rtb_sched_metrics, rtb_task_metrics,
    rtb_sem_metrics,    rtb_mutex_metrics, rtb_rwlock_metrics, rtb_event_metrics,
    rtb_msgq_metrics,   rtb_pipe_metrics,  rtb_queue_metrics,
    rtb_cond_metrics,   rtb_timer_metrics, rtb_mem_metrics,   rtb_clock_metrics,
    rtb_syscall_metrics, rtb_amx_metrics,
};

const struct rtb_metric *rtb_registry_at(unsigned i)
{
    for (unsigned t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        for (const struct rtb_metric *m = tables[t]; m->id; m++) {
            if (i-- == 0)
                return m;
        }
    }
    /* then the port's own sections */
    for (unsigned t = 0; rtb_port_metric_tables[t]; t++) {
        for (const struct rtb_metric *m = rtb_port_metric_tables[t]; m->id; m++) {
            if (i-- == 0)
                return m;
        }
    }
    return 0;
}

const struct rtb_metric *rtb_registry_find(const char *id)
{
    const struct rtb_metric *m;
    for (unsigned i = 0; (m = rtb_registry_at(i)); i++) {
        if (rtb_streq(m->id, id))
            return m;
    }
    return 0;
}
