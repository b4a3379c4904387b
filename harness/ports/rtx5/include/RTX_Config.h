/*
 * RTX_Config.h — RTX5's configuration for rtbench: the profile's settings
 * (generated from ports/rtx5/profiles.toml into rtb_profile.h), then the
 * user's own checkout's Config/RTX_Config.h, unedited, which gives every
 * setting not defined here its shipped value (each of its settings is
 * under #ifndef). So `defaults` is exactly the shipped file, and the image
 * reports each setting as compiled (port_sys.c). Preprocessor lines only:
 * RTX5's irq_armv7m.S includes it too.
 */
#ifndef RTB_RTX_CONFIG_H
#define RTB_RTX_CONFIG_H

#include "rtb_board_config.h" /* RTB_BOARD_HEAP_BYTES: OS_DYNAMIC_MEM_SIZE (profiles.toml) */
#include "rtb_profile.h"      /* the profile's settings (generated) */

#include_next "RTX_Config.h" /* RTX5's Config/RTX_Config.h (port.cmake's include order) */

#endif
