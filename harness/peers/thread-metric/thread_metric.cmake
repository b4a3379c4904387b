# Thread-Metric (ThreadX's vendor-neutral throughput benchmark) as a peer
# of rtbench on a board: one image per test and kernel, built from the
# user's ThreadX checkout in place (utility/benchmarks/thread_metric; never
# copied into rtbench), with this folder's board glue (tm_board.c: printf on
# the console, the run bounded to RTB_TM_PERIODS reports) and the kernel's
# start-up and porting layer. include()d by a kernel port's port.cmake,
# which calls rtb_thread_metric_images(); the images are built only when
# asked for by name (rtbench.peers_threadmetric):
#
#   cmake --build BUILD --target tm-<test>-<kernel>-<board>.elf
#
# Options:
#   RTB_TM_DURATION  seconds per report period (TM_TEST_DURATION; Thread-
#                    Metric recommends 30 on hardware: here virtual seconds,
#                    with nothing else running, so 1 repeats exactly)
#   RTB_TM_PERIODS   reports before the image ends itself
set(RTB_TM_DIR ${CMAKE_CURRENT_LIST_DIR})
set(RTB_TM_DURATION 1 CACHE STRING "Thread-Metric report period in seconds (TM_TEST_DURATION)")
set(RTB_TM_PERIODS 3 CACHE STRING "Thread-Metric reports before the image ends")
set(RTB_TM_ALL_TESTS basic_processing cooperative_scheduling preemptive_scheduling
    interrupt_processing interrupt_preemption_processing message_processing
    synchronization_processing memory_allocation)

# rtb_thread_metric_source(TM_PATH TEST OUT): the test's file in the user's
# checkout, in OUT, with the options it is compiled with (also used by the
# Zephyr application, zephyr/CMakeLists.txt).
function(rtb_thread_metric_source tm_path test out)
  set(src ${tm_path}/tm_${test}_test.c)
  if(NOT EXISTS ${src})
    message(FATAL_ERROR "Thread-Metric test ${test}: no ${src}")
  endif()
  # Third-party code, compiled as the checkout has it. Its basic test's
  # counter is not volatile: at -O2 GCC keeps it in a register and the
  # report says the thread died, so that file is built without loop-
  # invariant motion (the fix that needs no copy of the file).
  set_property(SOURCE ${src} APPEND PROPERTY COMPILE_OPTIONS -w)
  if(test STREQUAL "basic_processing")
    set_property(SOURCE ${src} APPEND PROPERTY COMPILE_OPTIONS -fno-tree-loop-im)
  endif()
  set(${out} ${src} PARENT_SCOPE)
endfunction()

# rtb_thread_metric_images(KERNEL TM_PATH TESTS t... SOURCES s... LIBRARIES l...
#                          [DEFINITIONS d...])
function(rtb_thread_metric_images kernel tm_path)
  cmake_parse_arguments(TM "" "" "TESTS;SOURCES;LIBRARIES;DEFINITIONS" ${ARGN})
  foreach(test ${TM_TESTS})
    rtb_thread_metric_source(${tm_path} ${test} src)
    set(image tm-${test}-${kernel}-${RTB_BOARD}.elf)
    add_executable(${image} EXCLUDE_FROM_ALL ${src} ${RTB_TM_DIR}/tm_board.c ${TM_SOURCES})
    # GNU C: the interrupt tests' trap is written asm("SVC #0")
    set_target_properties(${image} PROPERTIES C_EXTENSIONS ON)
    target_include_directories(${image} PRIVATE ${tm_path} ${CMAKE_CURRENT_SOURCE_DIR}/include)
    target_compile_definitions(${image} PRIVATE TM_TEST_DURATION=${RTB_TM_DURATION}
                               RTB_TM_PERIODS=${RTB_TM_PERIODS} ${TM_DEFINITIONS})
    target_compile_options(${image} PRIVATE -ffunction-sections -fdata-sections)
    target_link_libraries(${image} PRIVATE ${TM_LIBRARIES})
    target_link_options(${image} PRIVATE -Wl,--wrap=tm_thread_sleep)
    rtb_board_image(${image})
  endforeach()
endfunction()
