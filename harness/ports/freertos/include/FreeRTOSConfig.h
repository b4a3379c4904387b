/*
 * FreeRTOSConfig.h — FreeRTOS V11 for rtbench on the MPS2 boards (port
 * GCC/ARM_CM3 or ARM_CM4F, heap_4).
 *
 * The kernel's settings are data: ports/freertos/profiles.toml holds, for
 * each profile (defaults: FreeRTOS as shipped; speed: FreeRTOS's own advice
 * for speed), every setting rtbench changes from FreeRTOS.h's defaults with
 * its reason and source. The build generates rtb_profile.h from it into the
 * build directory (harness/profiles, docs/profiles.md) and the image reports
 * each setting's compiled value (port_sys.c). Here only what an image
 * variant or rtbench's build sets before them: each generated define is
 * under #ifndef, so a value given here wins, and the image reports it.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

/* Thread-Metric's images (peers/thread-metric) run the kernel at 100 Hz,
 * as its porting rules ask (kernel.cmake passes RTB_FREERTOS_TICK_HZ for
 * them only); every other image has the profile's 1000 Hz. */
#ifdef RTB_FREERTOS_TICK_HZ
#define configTICK_RATE_HZ RTB_FREERTOS_TICK_HZ
#endif

/* RTB_FREERTOS_IDLE_WFI (CMake option, default OFF): the idle hook sleeps
 * in WFI (ports/freertos/hooks.c; boards/mps2-an385/README.md, "Sleep and
 * virtual time"). */
#if defined(RTB_FREERTOS_IDLE_WFI) && RTB_FREERTOS_IDLE_WFI
#define configUSE_IDLE_HOOK 1
#endif

/* RTB_FREERTOS_ASSERT (CMake option, default OFF): configASSERT and
 * stack-overflow checking (method 2, on every switch), to debug a port.
 * Both add instructions to the kernel paths measured (asserts 4-45 per
 * call) and method 2 fills every new stack: the image reports both
 * (configASSERT, configCHECK_FOR_STACK_OVERFLOW in its facts). */
#if defined(RTB_FREERTOS_ASSERT) && RTB_FREERTOS_ASSERT
void rtb_freertos_assert_failed(const char *file, int line);
#define configASSERT(x)                                                            \
    do {                                                                           \
        if ((x) == 0)                                                              \
            rtb_freertos_assert_failed(__FILE_NAME__, __LINE__);                   \
    } while (0)
#define configCHECK_FOR_STACK_OVERFLOW 2
#endif

/* The port's handlers under the names the vector table (startup.c) uses, so
 * the port's check of the installed handlers passes (V11,
 * configCHECK_HANDLER_INSTALLATION) and no trampoline costs instructions. */
#define vPortSVCHandler SVC_Handler
#define xPortPendSVHandler PendSV_Handler
#define xPortSysTickHandler SysTick_Handler

#include "rtb_board_config.h" /* the board's heap size and SysTick clock */
#include "rtb_profile.h"      /* the profile's settings (generated) */

#endif /* FREERTOS_CONFIG_H */
