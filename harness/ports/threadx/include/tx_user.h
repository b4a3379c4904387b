/*
 * tx_user.h — ThreadX 6.4 for rtbench on the MPS2 boards (port
 * cortex_m3/gnu or cortex_m4/gnu). ThreadX reads it when the kernel and
 * every file including tx_api.h are built with TX_INCLUDE_USER_DEFINE_FILE
 * (port.cmake does that); the port's assembly reads it too.
 *
 * The kernel's settings are data: ports/threadx/profiles.toml holds, for
 * each profile (defaults: ThreadX as shipped, no option defined; speed: the
 * options its own tx_user_sample.h lists "for maximum speed", and its
 * readme's TX_DISABLE_ERROR_CHECKING), every setting rtbench changes with
 * its reason and source. The build generates rtb_profile.h from it into the
 * build directory (harness/profiles, docs/profiles.md) and the image
 * reports each setting's compiled value (port_sys.c). Only preprocessor
 * lines here: the assembly includes this file.
 */
#ifndef TX_USER_H
#define TX_USER_H

/* Thread-Metric's images (peers/thread-metric) run the tick at 100 Hz, as
 * its porting rules ask (port.cmake defines RTB_THREADX_TICK_HZ for them
 * only); every other image has the profile's 1000 Hz. */
#ifdef RTB_THREADX_TICK_HZ
#define TX_TIMER_TICKS_PER_SECOND RTB_THREADX_TICK_HZ
#endif

#include "rtb_profile.h" /* the profile's settings (generated) */

/* The tick the port's low-level init programs (lowlevel.c) and its
 * timeouts count: ThreadX's kernel never reads it. */
#ifndef RTB_THREADX_TICK_HZ
#define RTB_THREADX_TICK_HZ TX_TIMER_TICKS_PER_SECOND
#endif

#endif /* TX_USER_H */
