# The RTX5 port is cross-built for a board (RTB_BOARD, default the one
# QEMU emulates here); the board's toolchain file sets the CPU flags.
set(RTB_BOARD mps2-an385 CACHE STRING "board under boards/ the RTX5 image is built for")
set(CMAKE_TOOLCHAIN_FILE ${CMAKE_CURRENT_LIST_DIR}/../../boards/${RTB_BOARD}/toolchain.cmake)
