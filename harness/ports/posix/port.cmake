# POSIX port (Linux): the harness executable and the C unit tests.
# The inline timestamp read (rtb_port_arch.h) needs CLOCK_MONOTONIC_RAW and the
# port needs CPU affinity calls: both are GNU/Linux extensions to POSIX.
target_compile_definitions(rtb_core PUBLIC _GNU_SOURCE)
find_package(Threads REQUIRED)
target_link_libraries(rtb_port PUBLIC Threads::Threads rt)

# The System section (issue 6): metrics only an OS with processes, files and
# sockets has. They use the C library and Linux directly, so they live in the
# port, not among the portable scenarios (system/system.c lists the tables).
file(GLOB RTB_POSIX_SYSTEM_SRC CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/ports/posix/system/*.c)
target_sources(rtb_port PRIVATE ${RTB_POSIX_SYSTEM_SRC})
target_include_directories(rtb_port PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/ports/posix
                                            ${CMAKE_CURRENT_SOURCE_DIR}/ports/posix/system)

add_executable(rtbench-harness ports/posix/main.c)
target_link_libraries(rtbench-harness PRIVATE rtb_port rtb_core)
target_compile_definitions(rtbench-harness PRIVATE ${RTB_BUILD_DEFS})
set(RTB_PORT_EXECUTABLE rtbench-harness)

include(CTest)
if(BUILD_TESTING)
  foreach(t hist stats calib jsonw ts32 args strutil port_services port_queues port_sync)
    add_executable(test_${t} tests/test_${t}.c)
    target_link_libraries(test_${t} PRIVATE rtb_port rtb_core m)
    add_test(NAME ${t} COMMAND test_${t})
  endforeach()
  # The STM32F4 board's counter decision, the half QEMU cannot show (DWT
  # counting) included: plain C, no register touched.
  add_executable(test_stm32f4_counter tests/test_stm32f4_counter.c
                 boards/stm32f4/counter_pick.c)
  target_include_directories(test_stm32f4_counter PRIVATE tests boards/stm32f4/include)
  add_test(NAME stm32f4_counter COMMAND test_stm32f4_counter)
endif()
