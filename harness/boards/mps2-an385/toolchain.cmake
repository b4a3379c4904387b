# Toolchain for the MPS2 AN385 (Cortex-M3): the generic arm-none-eabi GCC
# with the core's flags, set here so that CMake's compiler checks and every
# library (the kernel included) are built for the same core. -O2: what
# vendors and FreeRTOS's own demos build with; the session record says it.
include(${CMAKE_CURRENT_LIST_DIR}/../arm-none-eabi.cmake)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m3 -mthumb")
set(CMAKE_ASM_FLAGS_INIT "-mcpu=cortex-m3 -mthumb")
# A normal variable, not the _INIT one: CMake appends its own -O3 to that.
set(CMAKE_C_FLAGS_RELEASE "-O2")
