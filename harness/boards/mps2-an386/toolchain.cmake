# Toolchain for the MPS2 AN386 (Cortex-M4F): the AN385's, for a Cortex-M4
# with its single-precision FPU and the hard-float ABI (what FreeRTOS's
# ARM_CM4F port and ThreadX's cortex_m4 port with VFP expect; newlib's
# hard-float multilib is linked). -O2 as on the AN385.
include(${CMAKE_CURRENT_LIST_DIR}/../arm-none-eabi.cmake)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(CMAKE_ASM_FLAGS_INIT "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(CMAKE_C_FLAGS_RELEASE "-O2")
