# Board: MPS2 AN385 (Cortex-M3, 25 MHz) as QEMU's -M mps2-an385 models it.
# include()d by a kernel port's port.cmake. Defines
#   rtb_board_headers  (INTERFACE) include path and options, for code built
#                      against the board: the harness core (rtb_port_arch.h
#                      reads the board's counter) and the kernel
#   rtb_board          (OBJECT) the board's code; rtb_board_image(target)
#                      links it with the start-up, linker script and flags
#   RTB_BOARD_CORE     its core ("Cortex-M3"): each kernel's port.cmake maps it to
#                      the kernel's own port for that core (a board names no kernel)
#   RTB_BOARD_NAME, RTB_BOARD_CPU (C strings) its name and core, for the records
#
# Options:
#   RTB_BOARD_COUNTER       TIMER0 (default; works under QEMU) or DWT (CPU
#                           cycles, silicon only: QEMU does not model the DWT)
#   RTB_ICOUNT_SHIFT        the -icount shift the image is run with (7); 0 for
#                           silicon, where figures are printed in cycles
set(RTB_BOARD_DIR ${CMAKE_CURRENT_LIST_DIR})
set(RTB_BOARD_LD ${RTB_BOARD_DIR}/an385.ld)
# What a board that reuses this code (boards/mps2-an386: the same FPGA
# image with a Cortex-M4) sets before include()ing this file: its name and
# core (for the records, and for each kernel's port.cmake to pick its port).
if(NOT DEFINED RTB_BOARD_TITLE)
  set(RTB_BOARD_TITLE "MPS2 AN385 (Cortex-M3, 25 MHz)")
  set(RTB_BOARD_CORE "Cortex-M3")
endif()

set(RTB_BOARD_COUNTER TIMER0 CACHE STRING "timestamp source: TIMER0 or DWT")
set_property(CACHE RTB_BOARD_COUNTER PROPERTY STRINGS TIMER0 DWT)
if(RTB_BOARD_COUNTER STREQUAL "DWT")
  set(_rtb_default_shift 0)
elseif(RTB_BOARD_COUNTER STREQUAL "TIMER0")
  set(_rtb_default_shift 7)
else()
  message(FATAL_ERROR "RTB_BOARD_COUNTER must be TIMER0 or DWT, not '${RTB_BOARD_COUNTER}'")
endif()
set(RTB_ICOUNT_SHIFT ${_rtb_default_shift} CACHE STRING
    "QEMU -icount shift the image assumes (0: real hardware, figures in cycles)")
if(RTB_BOARD_COUNTER STREQUAL "TIMER0" AND RTB_ICOUNT_SHIFT LESS 7 AND NOT RTB_ICOUNT_SHIFT EQUAL 0)
  message(FATAL_ERROR "RTB_ICOUNT_SHIFT=${RTB_ICOUNT_SHIFT}: below 7 an interval of TIMER0 ticks "
                      "no longer converts back to an exact instruction count")
endif()

add_library(rtb_board_headers INTERFACE)
target_include_directories(rtb_board_headers INTERFACE ${RTB_BOARD_DIR}/include)
target_compile_definitions(rtb_board_headers INTERFACE
  RTB_BOARD_NAME="${RTB_BOARD_TITLE}" RTB_BOARD_CPU="${RTB_BOARD_CORE}"
  RTB_BOARD_ICOUNT_SHIFT=${RTB_ICOUNT_SHIFT}
  $<$<STREQUAL:${RTB_BOARD_COUNTER},DWT>:RTB_BOARD_COUNTER_DWT>)

# Every Cortex-M board's shared code (reset, fault report, semihosting, the
# RAM vector table, the timing primitives in assembly) and the image's link.
include(${RTB_BOARD_DIR}/../cortex-m/board.cmake)
rtb_cm_board_objects(
  ${RTB_BOARD_DIR}/startup.c
  ${RTB_BOARD_DIR}/board.c
  ${RTB_BOARD_DIR}/console.c
  ${RTB_BOARD_DIR}/counter.c
  ${RTB_BOARD_DIR}/irqsrc.c
  ${RTB_BOARD_DIR}/oneshot.c)
