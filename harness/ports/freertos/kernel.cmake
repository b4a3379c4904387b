# The FreeRTOS kernel for a board, compiled in place from the user's checkout
# (FREERTOS_KERNEL_PATH: a FreeRTOS-Kernel V11 tree; never copied into
# rtbench) with this port's FreeRTOSConfig.h and the kernel profile's
# settings (rtb_profile.h, generated from profiles.toml by the project's
# rtb_profile_apply: harness/profiles/profile.cmake): the static library
# rtb_freertos_kernel. include()d by port.cmake (the harness image) and by
# peers/rtos-benchmark (the peer built beside it), after the board's
# board.cmake, so both images link the same kernel built the same way.
#
# Options:
#   RTB_FREERTOS_ASSERT    configASSERT + stack-overflow checks (OFF: figures
#                          as vendors publish them; the sheet says which)
#   RTB_FREERTOS_IDLE_WFI  idle task sleeps in WFI (OFF: under QEMU a WFI
#                          moves virtual time; see ports/freertos/hooks.c)
set(RTB_FREERTOS_DIR ${CMAKE_CURRENT_LIST_DIR})

if(NOT FREERTOS_KERNEL_PATH AND DEFINED ENV{FREERTOS_KERNEL_PATH})
  set(FREERTOS_KERNEL_PATH $ENV{FREERTOS_KERNEL_PATH})
endif()
set(FREERTOS_KERNEL_PATH "${FREERTOS_KERNEL_PATH}" CACHE PATH "FreeRTOS-Kernel checkout")
# FreeRTOS's port for the board's core (RTB_BOARD_CORE, from its board.cmake),
# as FreeRTOS's tree names it: portable/GCC/<port>.
set(_fr_core_Cortex-M3 ARM_CM3)
set(_fr_core_Cortex-M4F ARM_CM4F)
if(NOT DEFINED _fr_core_${RTB_BOARD_CORE})
  message(FATAL_ERROR "FreeRTOS: no port for the core '${RTB_BOARD_CORE}' (RTB_BOARD_CORE of "
                      "boards/${RTB_BOARD}); add it to ports/freertos/kernel.cmake")
endif()
set(RTB_FREERTOS_CORE_PORT ${_fr_core_${RTB_BOARD_CORE}})
if(NOT EXISTS "${FREERTOS_KERNEL_PATH}/tasks.c"
   OR NOT EXISTS "${FREERTOS_KERNEL_PATH}/portable/GCC/${RTB_FREERTOS_CORE_PORT}/port.c")
  message(FATAL_ERROR "FREERTOS_KERNEL_PATH='${FREERTOS_KERNEL_PATH}' is not a FreeRTOS-Kernel "
                      "checkout (no tasks.c or portable/GCC/${RTB_FREERTOS_CORE_PORT}/port.c): "
                      "pass -DFREERTOS_KERNEL_PATH=/path/to/FreeRTOS-Kernel")
endif()
if(NOT RTB_PROFILE_DIR)
  message(FATAL_ERROR "kernel.cmake: the project applies the kernel profile first "
                      "(harness/profiles/profile.cmake: rtb_profile_apply)")
endif()
option(RTB_FREERTOS_ASSERT "configASSERT and stack-overflow checks" OFF)
option(RTB_FREERTOS_IDLE_WFI "the idle task sleeps in WFI" OFF)

# The kernel: third-party code, compiled as the user's checkout has it, for
# the board's core (RTB_FREERTOS_CORE_PORT, above).
# rtb_freertos_kernel(NAME [TICK_HZ]): one library per tick rate (the
# profile's for the harness and rtos-benchmark; TICK_HZ for Thread-Metric's
# images, 100 Hz).
set(_fr_port ${FREERTOS_KERNEL_PATH}/portable/GCC/${RTB_FREERTOS_CORE_PORT})
function(rtb_freertos_kernel name)
  set(_k ${FREERTOS_KERNEL_PATH})
  add_library(${name} STATIC
    ${_k}/tasks.c ${_k}/queue.c ${_k}/list.c ${_k}/timers.c
    ${_k}/event_groups.c ${_k}/stream_buffer.c
    ${_fr_port}/port.c
    ${_k}/portable/MemMang/heap_4.c)
  target_include_directories(${name} PUBLIC
    ${RTB_FREERTOS_DIR}/include ${RTB_PROFILE_DIR} ${_k}/include ${_fr_port})
  target_compile_definitions(${name} PUBLIC
    RTB_FREERTOS_ASSERT=$<BOOL:${RTB_FREERTOS_ASSERT}>
    RTB_FREERTOS_IDLE_WFI=$<BOOL:${RTB_FREERTOS_IDLE_WFI}>
    RTB_KERNEL_PORT="GCC/${RTB_FREERTOS_CORE_PORT}")
  if(ARGC GREATER 1)
    target_compile_definitions(${name} PUBLIC RTB_FREERTOS_TICK_HZ=${ARGV1})
  endif()
  target_link_libraries(${name} PUBLIC rtb_board_headers)
  target_compile_options(${name} PRIVATE -w -ffunction-sections -fdata-sections)
  rtb_profile_kernel(${name})  # the kernel's code at its profile's -O level
endfunction()
rtb_freertos_kernel(rtb_freertos_kernel)
