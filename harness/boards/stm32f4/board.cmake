# Board: STM32F4 (Cortex-M4F at the 16 MHz HSI, zero flash wait states),
# linked for the STM32F401RE (96 KiB SRAM, 512 KiB flash); tested on QEMU's
# netduinoplus2 (an STM32F405). include()d by a kernel port's port.cmake.
# Defines what boards/mps2-an385/board.cmake defines (rtb_board_headers,
# rtb_board, rtb_board_image(), the kernels' ports for its core, its name).
#
# Options:
#   RTB_ICOUNT_SHIFT        the -icount shift the image is run with under QEMU
#                           (7): TIM2's prescaler there. On silicon the image
#                           finds the DWT cycle counter and prints cycles; the
#                           same image serves both (counter.c)
#   RTB_STM32F4_CONSOLE     USART2 (default: PA2/PA3, the ST-LINK virtual COM
#                           port of a Nucleo-64) or USART1 (PA9/PA10)
set(RTB_BOARD_DIR ${CMAKE_CURRENT_LIST_DIR})
set(RTB_BOARD_LD ${RTB_BOARD_DIR}/stm32f4.ld)
set(RTB_BOARD_TITLE "STM32F4 (Cortex-M4F, 16 MHz HSI, 0 flash wait states)")
set(RTB_BOARD_CORE "Cortex-M4F")

set(RTB_ICOUNT_SHIFT 7 CACHE STRING "QEMU -icount shift the image assumes when DWT does not count")
set(RTB_STM32F4_CONSOLE USART2 CACHE STRING "console: USART2 or USART1")
set_property(CACHE RTB_STM32F4_CONSOLE PROPERTY STRINGS USART2 USART1)
if(NOT RTB_STM32F4_CONSOLE MATCHES "^USART[12]$")
  message(FATAL_ERROR "RTB_STM32F4_CONSOLE must be USART2 or USART1, not '${RTB_STM32F4_CONSOLE}'")
endif()

add_library(rtb_board_headers INTERFACE)
target_include_directories(rtb_board_headers INTERFACE ${RTB_BOARD_DIR}/include)
# RTB_HIST_MAX_LOG2=32: the histogram's range, a window of at most 2^32
# counts (a 32-bit stamp), in 13 KiB instead of 21 of the 96.
target_compile_definitions(rtb_board_headers INTERFACE
  RTB_BOARD_NAME="${RTB_BOARD_TITLE}" RTB_BOARD_CPU="${RTB_BOARD_CORE}"
  RTB_BOARD_ICOUNT_SHIFT=${RTB_ICOUNT_SHIFT} RTB_HIST_MAX_LOG2=32
  $<$<STREQUAL:${RTB_STM32F4_CONSOLE},USART1>:RTB_STM32F4_CONSOLE_USART1>)

# Every Cortex-M board's shared code (reset, fault report, semihosting, the
# RAM vector table, the timing primitives in assembly) and the image's link.
include(${RTB_BOARD_DIR}/../cortex-m/board.cmake)
rtb_cm_board_objects(
  ${RTB_BOARD_DIR}/startup.c
  ${RTB_BOARD_DIR}/board.c
  ${RTB_BOARD_DIR}/console.c
  ${RTB_BOARD_DIR}/counter.c
  ${RTB_BOARD_DIR}/counter_pick.c
  ${RTB_BOARD_DIR}/irqsrc.c
  ${RTB_BOARD_DIR}/stamplog_usart.c)
