# FreeRTOS port: the kernel compiled in place from the user's checkout
# (FREERTOS_KERNEL_PATH: a FreeRTOS-Kernel V11 tree; never copied into
# rtbench), this port's configuration and glue, the board's code, and the
# harness core, linked into one image: rtbench-freertos-<board>.elf.
#
#   cmake -S harness -B build -DRTB_PORT=freertos -DFREERTOS_KERNEL_PATH=DIR
#         [-DRTB_BOARD=mps2-an385] [-DRTB_FREERTOS_ASSERT=ON] [-DRTB_ICOUNT_SHIFT=7]
#
# Options:
#   RTB_FREERTOS_ASSERT, RTB_FREERTOS_IDLE_WFI: see kernel.cmake
#   RTB_FREERTOS_ARGS      command line of an image started without a host, or
#                          by one that passes no arguments ("rtbench-harness --only ...")
set(RTB_FREERTOS_DIR ${CMAKE_CURRENT_LIST_DIR})
if(NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/boards/${RTB_BOARD}/board.cmake)
  message(FATAL_ERROR "RTB_BOARD=${RTB_BOARD}: no boards/${RTB_BOARD}/board.cmake")
endif()
include(${CMAKE_CURRENT_SOURCE_DIR}/boards/${RTB_BOARD}/board.cmake)

include(${RTB_FREERTOS_DIR}/kernel.cmake)
set(RTB_FREERTOS_ARGS "rtbench-harness" CACHE STRING "command line without a host")

# The harness core reads the board's counter (rtb_port_arch.h).
target_link_libraries(rtb_core PUBLIC rtb_board_headers)
target_compile_options(rtb_core PRIVATE -ffreestanding -ffunction-sections -fdata-sections)
target_link_libraries(rtb_port PUBLIC rtb_freertos_kernel)
target_compile_options(rtb_port PRIVATE -ffunction-sections -fdata-sections)

set(RTB_PORT_EXECUTABLE rtbench-freertos-${RTB_BOARD}.elf)
add_executable(${RTB_PORT_EXECUTABLE} ${RTB_FREERTOS_DIR}/main.c)
target_compile_definitions(${RTB_PORT_EXECUTABLE} PRIVATE ${RTB_BUILD_DEFS}
                           RTB_FREERTOS_ARGS="${RTB_FREERTOS_ARGS}")
target_link_libraries(${RTB_PORT_EXECUTABLE} PRIVATE rtb_port rtb_core rtb_freertos_kernel)
rtb_board_image(${RTB_PORT_EXECUTABLE})
