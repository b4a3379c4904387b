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

/* The t-th table: the scenarios' in order, then the port's own sections
 * (NULL at the end of those). */
static const struct rtb_metric *table_at(unsigned t)
{
    const unsigned core = sizeof tables / sizeof tables[0];
    if (t < core)
        return tables[t];
    for (unsigned p = 0; rtb_port_metric_tables[p]; p++)
        if (p == t - core)
            return rtb_port_metric_tables[p];
    return 0;
}

/* One step, not a count from the start: an index lookup per metric made the
 * registry's walks quadratic, and on an emulated board (a figure is
 * instructions) validating a long --only list ran 14 million instructions
 * before the first metric, each traced by the window audit. */
const struct rtb_metric *rtb_registry_next(struct rtb_registry_walk *w)
{
    const struct rtb_metric *m = w->at ? w->at + 1 : table_at(w->table);
    while (m && !m->id) /* a table's end: the next table's first */
        m = table_at(++w->table);
    w->at = m;
    return m;
}

const struct rtb_metric *rtb_registry_find(const char *id)
{
    struct rtb_registry_walk w = {0};
    const struct rtb_metric *m;
    while ((m = rtb_registry_next(&w))) {
        if (rtb_streq(m->id, id))
            return m;
    }
    return 0;
}
