# ThreadX port: the kernel compiled in place from the user's checkout
# (THREADX_PATH: an eclipse-threadx/threadx v6.4 tree; never copied into
# rtbench) with this port's tx_user.h, its glue, the board's code and the
# harness core, linked into one image: rtbench-threadx-<board>.elf.
#
#   cmake -S harness -B build -DRTB_PORT=threadx -DTHREADX_PATH=DIR
#         [-DRTB_KERNEL_PROFILE=defaults|speed] [-DRTB_BOARD=mps2-an385] [-DRTB_ICOUNT_SHIFT=7]
#
# Options:
#   RTB_KERNEL_PROFILE          the kernel's profile (profiles.toml; the harness's
#                               CMakeLists.txt applies it: docs/profiles.md). Its
#                               _txe_ parameter checks are on in defaults (as ThreadX
#                               ships), off in speed
#   RTB_THREADX_ARGS            command line of an image started without a host
set(RTB_THREADX_DIR ${CMAKE_CURRENT_LIST_DIR})
if(NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/boards/${RTB_BOARD}/board.cmake)
  message(FATAL_ERROR "RTB_BOARD=${RTB_BOARD}: no boards/${RTB_BOARD}/board.cmake")
endif()
include(${CMAKE_CURRENT_SOURCE_DIR}/boards/${RTB_BOARD}/board.cmake)

if(NOT THREADX_PATH AND DEFINED ENV{THREADX_PATH})
  set(THREADX_PATH $ENV{THREADX_PATH})
endif()
set(THREADX_PATH "${THREADX_PATH}" CACHE PATH "ThreadX checkout")
# ThreadX's port for the board's core (RTB_BOARD_CORE, from its board.cmake),
# as ThreadX's tree names it: ports/<port>/gnu.
set(_tx_core_Cortex-M3 cortex_m3)
set(_tx_core_Cortex-M4F cortex_m4)
if(NOT DEFINED _tx_core_${RTB_BOARD_CORE})
  message(FATAL_ERROR "ThreadX: no port for the core '${RTB_BOARD_CORE}' (RTB_BOARD_CORE of "
                      "boards/${RTB_BOARD}); add it to ports/threadx/port.cmake")
endif()
set(RTB_THREADX_CORE_PORT ${_tx_core_${RTB_BOARD_CORE}})
set(_tx_port ${THREADX_PATH}/ports/${RTB_THREADX_CORE_PORT}/gnu)
if(NOT EXISTS "${THREADX_PATH}/common/inc/tx_api.h" OR NOT EXISTS "${_tx_port}/inc/tx_port.h")
  message(FATAL_ERROR "THREADX_PATH='${THREADX_PATH}' is not a ThreadX checkout (no "
                      "common/inc/tx_api.h or ports/${RTB_THREADX_CORE_PORT}/gnu/inc/tx_port.h): "
                      "pass -DTHREADX_PATH=/path/to/threadx")
endif()
set(RTB_THREADX_ARGS "rtbench-harness" CACHE STRING "command line without a host")

# The kernel: third-party code, compiled as the user's checkout has it:
# every common source and the port's assembly (the list of the port's own
# CMakeLists.txt; tx_misra.S is for MISRA builds only), with tx_user.h and
# the profile's rtb_profile.h.
file(GLOB _tx_common ${THREADX_PATH}/common/src/*.c)
add_library(rtb_threadx_kernel STATIC ${_tx_common}
  ${_tx_port}/src/tx_thread_context_restore.S
  ${_tx_port}/src/tx_thread_context_save.S
  ${_tx_port}/src/tx_thread_interrupt_control.S
  ${_tx_port}/src/tx_thread_schedule.S
  ${_tx_port}/src/tx_thread_stack_build.S
  ${_tx_port}/src/tx_thread_system_return.S
  ${_tx_port}/src/tx_timer_interrupt.S)
target_include_directories(rtb_threadx_kernel PUBLIC
  ${RTB_THREADX_DIR}/include ${RTB_PROFILE_DIR} ${THREADX_PATH}/common/inc ${_tx_port}/inc)
target_compile_definitions(rtb_threadx_kernel PUBLIC TX_INCLUDE_USER_DEFINE_FILE
  RTB_KERNEL_PORT="${RTB_THREADX_CORE_PORT}/gnu")
target_link_libraries(rtb_threadx_kernel PUBLIC rtb_board_headers)
target_compile_options(rtb_threadx_kernel PRIVATE -w -ffunction-sections -fdata-sections)
rtb_profile_kernel(rtb_threadx_kernel)  # the kernel's code at its profile's -O level
# The tick's vector is the kernel's _tx_timer_interrupt itself, so nothing
# of rtbench's runs in the tick (lowlevel.c says why it can be a vector):
# the board's table names SysTick_Handler, defined here as that symbol.
target_link_options(rtb_threadx_kernel INTERFACE "LINKER:--defsym=SysTick_Handler=_tx_timer_interrupt")
unset(_tx_common)
unset(_tx_port)

# The harness core reads the board's counter (rtb_port_arch.h).
target_link_libraries(rtb_core PUBLIC rtb_board_headers)
target_compile_options(rtb_core PRIVATE -ffreestanding -ffunction-sections -fdata-sections)
target_link_libraries(rtb_port PUBLIC rtb_threadx_kernel)
target_compile_options(rtb_port PRIVATE -ffunction-sections -fdata-sections)
# the board's share of the port: output, the shared arena, the counter's facts
target_sources(rtb_port PRIVATE ${RTB_CM_DIR}/port_board.c)

set(RTB_PORT_EXECUTABLE rtbench-threadx-${RTB_BOARD}.elf)
add_executable(${RTB_PORT_EXECUTABLE} ${RTB_THREADX_DIR}/main.c)
target_compile_definitions(${RTB_PORT_EXECUTABLE} PRIVATE ${RTB_BUILD_DEFS}
                           RTB_THREADX_ARGS="${RTB_THREADX_ARGS}")
target_link_libraries(${RTB_PORT_EXECUTABLE} PRIVATE rtb_port rtb_core rtb_threadx_kernel)
rtb_board_image(${RTB_PORT_EXECUTABLE})

# Thread-Metric beside the harness (rtbench run --with-peers): its tests
# built in place from the same checkout, on ThreadX's own Thread-Metric
# porting layer, with this port's low-level init at the 100 Hz tick
# Thread-Metric's porting rules ask for (its ThreadX layer sleeps 100 ticks
# per second). Every test: the cortex_m3 port leaves SVC to the application.
set(THREAD_METRIC_PATH ${THREADX_PATH}/utility/benchmarks/thread_metric)
if(EXISTS ${THREAD_METRIC_PATH}/tm_api.h)
  include(${CMAKE_CURRENT_SOURCE_DIR}/peers/thread-metric/thread_metric.cmake)
  rtb_thread_metric_images(threadx ${THREAD_METRIC_PATH} TESTS ${RTB_TM_ALL_TESTS}
    SOURCES ${RTB_TM_DIR}/tm_threadx.c ${RTB_THREADX_DIR}/lowlevel.c
            ${THREAD_METRIC_PATH}/threadx_example/tm_porting_layer_threadx.c
    LIBRARIES rtb_threadx_kernel
    DEFINITIONS RTB_THREADX_TICK_HZ=100)
  set_property(SOURCE ${THREAD_METRIC_PATH}/threadx_example/tm_porting_layer_threadx.c
               APPEND PROPERTY COMPILE_OPTIONS -w)
endif()
