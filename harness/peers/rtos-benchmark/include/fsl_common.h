/* fsl_common.h — the NXP SDK's common header, named by rtos-benchmark's
 * FreeRTOS port; nothing of it is used on the AN385 but the C basics. */
#ifndef RTOSBENCH_FSL_COMMON_H
#define RTOSBENCH_FSL_COMMON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif
