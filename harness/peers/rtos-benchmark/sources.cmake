# What both of rtbench's builds of rtos-benchmark share (CMakeLists.txt:
# its FreeRTOS port; zephyr/CMakeLists.txt: its Zephyr port), include()d by
# each after its project():
#
#   RTOS_BENCHMARK_PATH     the checkout, checked (else $RTOS_BENCHMARK_PATH,
#                           else $RTBENCH_RTOS_BENCHMARK_SRC)
#   RTOSBENCH_ITERATIONS    its ITERATIONS, checked against RTOSBENCH_MAX_ITERATIONS
#                           (set by the includer: how long a run can last)
#   RTOSBENCH_COMMON_SOURCES  its common tests: the eight of its CMakeLists'
#                           AVAILABLE_TESTS, bench_utils.c, bench_all.c
#   RTOSBENCH_SHIM_SOURCES  rtbench's lines around its output (shim.c)
#
# rtosbench_require_port(PORT): stop unless the checkout has src/PORT's
# porting layer (bench_porting_layer_PORT.c).
set(RTOSBENCH_DIR ${CMAKE_CURRENT_LIST_DIR})

foreach(_env RTOS_BENCHMARK_PATH RTBENCH_RTOS_BENCHMARK_SRC)
  if(NOT RTOS_BENCHMARK_PATH AND DEFINED ENV{${_env}})
    set(RTOS_BENCHMARK_PATH $ENV{${_env}})
  endif()
endforeach()
set(RTOS_BENCHMARK_PATH "${RTOS_BENCHMARK_PATH}" CACHE PATH "rtos-benchmark checkout")

function(rtosbench_require_port port)
  set(layer src/${port}/bench_porting_layer_${port}.c)
  if(NOT EXISTS "${RTOS_BENCHMARK_PATH}/h/bench_api.h"
     OR NOT EXISTS "${RTOS_BENCHMARK_PATH}/${layer}")
    message(FATAL_ERROR "RTOS_BENCHMARK_PATH='${RTOS_BENCHMARK_PATH}' is not an rtos-benchmark "
                        "checkout (no h/bench_api.h or ${layer}): "
                        "pass -DRTOS_BENCHMARK_PATH=/path/to/rtos-benchmark")
  endif()
endfunction()

set(RTOSBENCH_ITERATIONS 10000 CACHE STRING "rtos-benchmark's ITERATIONS (samples per figure)")
if(NOT RTOSBENCH_ITERATIONS MATCHES "^[1-9][0-9]*$"
   OR RTOSBENCH_ITERATIONS GREATER RTOSBENCH_MAX_ITERATIONS)
  message(FATAL_ERROR "RTOSBENCH_ITERATIONS=${RTOSBENCH_ITERATIONS}: 1 to "
                      "${RTOSBENCH_MAX_ITERATIONS} (${RTOSBENCH_MAX_WHY})")
endif()

set(_rb ${RTOS_BENCHMARK_PATH}/src/common)
set(RTOSBENCH_COMMON_SOURCES
  ${_rb}/bench_interrupt_latency_test.c
  ${_rb}/bench_malloc_free_test.c
  ${_rb}/bench_message_queue_test.c
  ${_rb}/bench_mutex_lock_unlock_test.c
  ${_rb}/bench_sem_context_switch_test.c
  ${_rb}/bench_sem_signal_release_test.c
  ${_rb}/bench_thread_switch_yield_test.c
  ${_rb}/bench_thread_test.c
  ${_rb}/bench_utils.c
  ${_rb}/bench_all.c)
set(RTOSBENCH_SHIM_SOURCES ${RTOSBENCH_DIR}/shim.c)
unset(_rb)
