# The stub port is freestanding Cortex-M code: the generic arm-none-eabi toolchain.
set(CMAKE_TOOLCHAIN_FILE ${CMAKE_CURRENT_LIST_DIR}/../../boards/arm-none-eabi.cmake)
