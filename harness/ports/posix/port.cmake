# POSIX port build settings, included by the harness CMakeLists.
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
