# FreeRTOS port: the kernel compiled in place from the user's checkout
# (FREERTOS_KERNEL_PATH: a FreeRTOS-Kernel V11 tree; never copied into
# rtbench), this port's configuration and glue, the board's code, and the
# harness core, linked into one image: rtbench-freertos-<board>.elf.
#
#   cmake -S harness -B build -DRTB_PORT=freertos -DFREERTOS_KERNEL_PATH=DIR
#         [-DRTB_BOARD=mps2-an385] [-DRTB_FREERTOS_ASSERT=ON] [-DRTB_ICOUNT_SHIFT=7]
#
# Options:
#   RTB_FREERTOS_ASSERT    configASSERT + stack-overflow checks (OFF: figures
#                          as vendors publish them; the sheet says which)
#   RTB_FREERTOS_IDLE_WFI  idle task sleeps in WFI (OFF: under QEMU a WFI
#                          moves virtual time; see ports/freertos/hooks.c)
#   RTB_FREERTOS_ARGS      command line of an image started without a host
set(RTB_FREERTOS_DIR ${CMAKE_CURRENT_LIST_DIR})
if(NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/boards/${RTB_BOARD}/board.cmake)
  message(FATAL_ERROR "RTB_BOARD=${RTB_BOARD}: no boards/${RTB_BOARD}/board.cmake")
endif()
include(${CMAKE_CURRENT_SOURCE_DIR}/boards/${RTB_BOARD}/board.cmake)

if(NOT FREERTOS_KERNEL_PATH AND DEFINED ENV{FREERTOS_KERNEL_PATH})
  set(FREERTOS_KERNEL_PATH $ENV{FREERTOS_KERNEL_PATH})
endif()
set(FREERTOS_KERNEL_PATH "${FREERTOS_KERNEL_PATH}" CACHE PATH "FreeRTOS-Kernel checkout")
if(NOT EXISTS "${FREERTOS_KERNEL_PATH}/tasks.c"
   OR NOT EXISTS "${FREERTOS_KERNEL_PATH}/portable/GCC/${RTB_BOARD_FREERTOS_PORT}/port.c")
  message(FATAL_ERROR "FREERTOS_KERNEL_PATH='${FREERTOS_KERNEL_PATH}' is not a FreeRTOS-Kernel "
                      "checkout (no tasks.c or portable/GCC/${RTB_BOARD_FREERTOS_PORT}/port.c): "
                      "pass -DFREERTOS_KERNEL_PATH=/path/to/FreeRTOS-Kernel")
endif()
option(RTB_FREERTOS_ASSERT "configASSERT and stack-overflow checks" OFF)
option(RTB_FREERTOS_IDLE_WFI "the idle task sleeps in WFI" OFF)
set(RTB_FREERTOS_ARGS "rtbench-harness" CACHE STRING "command line without a host")

# The kernel: third-party code, compiled as the user's checkout has it.
# rtb_freertos_kernel(NAME TICK_HZ): one library per tick rate (the
# harness's 1 kHz; Thread-Metric's images 100 Hz).
set(_fr_port ${FREERTOS_KERNEL_PATH}/portable/GCC/${RTB_BOARD_FREERTOS_PORT})
function(rtb_freertos_kernel name tick_hz)
  set(_k ${FREERTOS_KERNEL_PATH})
  add_library(${name} STATIC
    ${_k}/tasks.c ${_k}/queue.c ${_k}/list.c ${_k}/timers.c
    ${_k}/event_groups.c ${_k}/stream_buffer.c
    ${_fr_port}/port.c
    ${_k}/portable/MemMang/heap_4.c)
  target_include_directories(${name} PUBLIC
    ${RTB_FREERTOS_DIR}/include ${_k}/include ${_fr_port})
  target_compile_definitions(${name} PUBLIC
    RTB_FREERTOS_ASSERT=$<BOOL:${RTB_FREERTOS_ASSERT}>
    RTB_FREERTOS_IDLE_WFI=$<BOOL:${RTB_FREERTOS_IDLE_WFI}>
    RTB_FREERTOS_TICK_HZ=${tick_hz} RTB_KERNEL_PORT="GCC/${RTB_BOARD_FREERTOS_PORT}")
  target_link_libraries(${name} PUBLIC rtb_board_headers)
  target_compile_options(${name} PRIVATE -w -ffunction-sections -fdata-sections)
endfunction()
rtb_freertos_kernel(rtb_freertos_kernel 1000)

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
