# Board: MPS2 AN386 (Cortex-M4F, 25 MHz) as QEMU's -M mps2-an386 models it.
# The AN386 is the AN385's FPGA image with a Cortex-M4 with FPU: the same
# peripherals, interrupt map and memory (QEMU's hw/arm/mps2.c builds both
# the same way). So this board is the AN385's code (boards/mps2-an385/),
# built for this core (toolchain.cmake: hard-float, the FPU enabled at
# reset), with its own name and core (each kernel's port for it: port.cmake).
set(RTB_BOARD_TITLE "MPS2 AN386 (Cortex-M4F, 25 MHz)")
set(RTB_BOARD_CORE "Cortex-M4F")
include(${CMAKE_CURRENT_LIST_DIR}/../mps2-an385/board.cmake)
