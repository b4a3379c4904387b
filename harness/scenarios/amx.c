/* Placeholder: this service's scenarios are being written. */
#include <rtb/bench.h>

const struct rtb_metric rtb_amx_metrics[] = {
    {0, 0, 0, 0},
};
