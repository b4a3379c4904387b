/* The POSIX port's own metric sections, in sheet order (see system.h). */
#include "system.h"

const struct rtb_metric *const rtb_port_metric_tables[] = {
    rtb_posix_xsig_metrics, /* ../xsig.c: a signal between CPUs, where a kernel has interrupts */
    rtb_sys_call_metrics, rtb_sys_proc_metrics, rtb_sys_ipc_metrics, rtb_sys_ctx_metrics,
    rtb_sys_bw_metrics,   rtb_sys_memlat_metrics, rtb_sys_ops_metrics, rtb_sys_timer_metrics,
    0,
};
