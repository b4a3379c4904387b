# Toolchain for the STM32F4 (Cortex-M4F): the AN386's flags, a Cortex-M4
# with its single-precision FPU and the hard-float ABI (FreeRTOS's ARM_CM4F
# and ThreadX's cortex_m4 ports); -O2 as on every board.
include(${CMAKE_CURRENT_LIST_DIR}/../arm-none-eabi.cmake)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(CMAKE_ASM_FLAGS_INIT "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(CMAKE_C_FLAGS_RELEASE "-O2")
