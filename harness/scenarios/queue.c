/* Placeholder: this service's scenarios are being written. */
#include <rtb/bench.h>

const struct rtb_metric rtb_queue_metrics[] = {
    {0, 0, 0, 0},
};
