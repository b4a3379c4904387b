# Stub port: the freestanding template. Built for a Cortex-M with no C
# library (the arm-none-eabi toolchain file is chosen in the top-level
# CMakeLists before project()); RTB_CPU picks the core (cortex-m4 default,
# cortex-m0 for the ARMv6-M check: no atomics instructions, no libatomic).
set(RTB_CPU cortex-m4 CACHE STRING "Cortex-M core the stub port is built for")
set(RTB_STUB_FLAGS -mcpu=${RTB_CPU} -mthumb -ffreestanding -ffunction-sections -fdata-sections -Werror)
target_compile_options(rtb_core PRIVATE ${RTB_STUB_FLAGS})
target_compile_options(rtb_port PRIVATE ${RTB_STUB_FLAGS})
add_executable(rtbench-stub.elf $<TARGET_OBJECTS:rtb_port>)
target_compile_options(rtbench-stub.elf PRIVATE ${RTB_STUB_FLAGS})
target_link_libraries(rtbench-stub.elf PRIVATE rtb_core)
# Fail on any undefined symbol: the core needs nothing but libgcc.
target_link_options(rtbench-stub.elf PRIVATE -mcpu=${RTB_CPU} -mthumb -nostdlib
                    -Wl,--gc-sections -Wl,-e,rtb_stub_main -Wl,--no-undefined)
target_link_libraries(rtbench-stub.elf PRIVATE gcc)
set(RTB_PORT_EXECUTABLE rtbench-stub.elf)
