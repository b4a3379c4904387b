/*
 * RTE_Components.h — what Keil's Run-Time Environment would generate for an
 * RTX5 project: the device header RTX5 and CMSIS's os_systick.c include.
 * RTX5 reads it when built with -D_RTE_ (port.cmake); without it
 * os_systick.c stops at an #error. No device pack exists for the MPS2 or
 * QEMU's boards, so the device header is the port's (rtb_rtx5_device.h).
 * No RTE_CMSIS_View_EventRecorder: rtbench attaches no Event Recorder.
 */
#ifndef RTE_COMPONENTS_H
#define RTE_COMPONENTS_H

#define CMSIS_device_header "rtb_rtx5_device.h"

#endif
