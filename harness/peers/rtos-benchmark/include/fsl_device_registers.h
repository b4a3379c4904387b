/* fsl_device_registers.h — the NXP SDK's K64F register map, named by
 * rtos-benchmark's FreeRTOS port and not used by it on the AN385; the
 * board's registers are in boards/mps2-an385/include/an385.h. */
#ifndef RTOSBENCH_FSL_DEVICE_REGISTERS_H
#define RTOSBENCH_FSL_DEVICE_REGISTERS_H
#include <stdint.h>
#endif
