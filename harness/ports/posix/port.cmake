# POSIX port build settings, included by the harness CMakeLists.
# The inline timestamp read (rtb_port_arch.h) needs CLOCK_MONOTONIC_RAW and the
# port needs CPU affinity calls: both are GNU/Linux extensions to POSIX.
target_compile_definitions(rtb_core PUBLIC _GNU_SOURCE)
find_package(Threads REQUIRED)
target_link_libraries(rtb_port PUBLIC Threads::Threads rt)
