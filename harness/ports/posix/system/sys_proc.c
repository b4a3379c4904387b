/* System section: to be filled (see system.h). */
#include "system.h"

const struct rtb_metric rtb_sys_proc_metrics[] = {
    {0, 0, 0, 0},
};
