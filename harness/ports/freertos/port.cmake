# FreeRTOS port: the kernel compiled in place from the user's checkout
# (FREERTOS_KERNEL_PATH: a FreeRTOS-Kernel V11 tree; never copied into
# rtbench), this port's configuration and glue, the board's code, and the
# harness core, linked into one image: rtbench-freertos-<board>.elf.
#
#   cmake -S harness -B build -DRTB_PORT=freertos -DFREERTOS_KERNEL_PATH=DIR
#         [-DRTB_KERNEL_PROFILE=defaults|speed] [-DRTB_BOARD=mps2-an385]
#         [-DRTB_FREERTOS_ASSERT=ON] [-DRTB_ICOUNT_SHIFT=7]
#
# Options:
#   RTB_KERNEL_PROFILE     the kernel's profile (profiles.toml; the harness's
#                          CMakeLists.txt applies it: docs/profiles.md)
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
# the board's share of the port: output, the shared arena, the counter's facts
target_sources(rtb_port PRIVATE ${RTB_CM_DIR}/port_board.c)

set(RTB_PORT_EXECUTABLE rtbench-freertos-${RTB_BOARD}.elf)
add_executable(${RTB_PORT_EXECUTABLE} ${RTB_FREERTOS_DIR}/main.c)
target_compile_definitions(${RTB_PORT_EXECUTABLE} PRIVATE ${RTB_BUILD_DEFS}
                           RTB_FREERTOS_ARGS="${RTB_FREERTOS_ARGS}")
target_link_libraries(${RTB_PORT_EXECUTABLE} PRIVATE rtb_port rtb_core rtb_freertos_kernel)
rtb_board_image(${RTB_PORT_EXECUTABLE})

# Thread-Metric beside the harness (rtbench run --with-peers), when the
# Thread-Metric sources are given (THREAD_METRIC_PATH: utility/benchmarks/
# thread_metric of a ThreadX checkout): its tests on rtbench's FreeRTOS
# porting layer for Thread-Metric (peers/thread-metric/tm_freertos.c), with
# the kernel at the 100 Hz tick Thread-Metric's porting rules ask for. Not
# the two interrupt tests: their trap is an SVC, which FreeRTOS's port
# owns, and their handler calls the ordinary kernel calls, which FreeRTOS
# forbids in a handler (its ...FromISR calls are separate).
set(THREAD_METRIC_PATH "" CACHE PATH "Thread-Metric sources (a ThreadX checkout's)")
if(THREAD_METRIC_PATH)
  if(NOT EXISTS ${THREAD_METRIC_PATH}/tm_api.h)
    message(FATAL_ERROR "THREAD_METRIC_PATH='${THREAD_METRIC_PATH}': no tm_api.h")
  endif()
  include(${CMAKE_CURRENT_SOURCE_DIR}/peers/thread-metric/thread_metric.cmake)
  rtb_freertos_kernel(rtb_freertos_kernel_tm 100)
  set(_tm_tests ${RTB_TM_ALL_TESTS})
  list(REMOVE_ITEM _tm_tests interrupt_processing interrupt_preemption_processing)
  rtb_thread_metric_images(freertos ${THREAD_METRIC_PATH} TESTS ${_tm_tests}
    SOURCES ${RTB_TM_DIR}/tm_freertos.c ${RTB_FREERTOS_DIR}/hooks.c
    LIBRARIES rtb_freertos_kernel_tm)
  unset(_tm_tests)
endif()
