# RTX5 port: Keil RTX5 (CMSIS-RTOS2) compiled in place from the user's
# checkout (RTX5_PATH: an ARM-software/CMSIS-RTX v5.9 tree) against CMSIS 6
# (CMSIS6_PATH: an ARM-software/CMSIS_6 tree: the core headers, cmsis_os2.h
# and os_systick.c), never copied into rtbench, with this port's
# RTX_Config.h (the profile's settings, then the checkout's own
# Config/RTX_Config.h), RTE_Components.h and device header, its glue, the
# board's code and the harness core, linked into one image:
# rtbench-rtx5-<board>.elf.
#
#   cmake -S harness -B build -DRTB_PORT=rtx5 -DRTX5_PATH=DIR -DCMSIS6_PATH=DIR
#         [-DRTB_KERNEL_PROFILE=defaults|speed] [-DRTB_BOARD=mps2-an385] [-DRTB_ICOUNT_SHIFT=7]
#
# Options:
#   RTB_KERNEL_PROFILE   the kernel's profile (profiles.toml, docs/profiles.md):
#                        OS_STACK_CHECK as shipped (1) in defaults, 0 in speed
#   RTB_RTX5_ARGS        command line of an image started without a host
set(RTB_RTX5_DIR ${CMAKE_CURRENT_LIST_DIR})
if(NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/boards/${RTB_BOARD}/board.cmake)
  message(FATAL_ERROR "RTB_BOARD=${RTB_BOARD}: no boards/${RTB_BOARD}/board.cmake")
endif()
include(${CMAKE_CURRENT_SOURCE_DIR}/boards/${RTB_BOARD}/board.cmake)

foreach(_var RTX5_PATH CMSIS6_PATH)
  if(NOT ${_var} AND DEFINED ENV{${_var}})
    set(${_var} $ENV{${_var}})
  endif()
endforeach()
set(RTX5_PATH "${RTX5_PATH}" CACHE PATH "RTX5 (CMSIS-RTX) checkout")
set(CMSIS6_PATH "${CMSIS6_PATH}" CACHE PATH "CMSIS 6 checkout")
if(NOT EXISTS "${RTX5_PATH}/Include/rtx_os.h" OR NOT EXISTS "${RTX5_PATH}/Config/RTX_Config.h")
  message(FATAL_ERROR "RTX5_PATH='${RTX5_PATH}' is not an RTX5 checkout (no Include/rtx_os.h or "
                      "Config/RTX_Config.h): pass -DRTX5_PATH=/path/to/CMSIS-RTX")
endif()
if(NOT EXISTS "${CMSIS6_PATH}/CMSIS/RTOS2/Include/cmsis_os2.h")
  message(FATAL_ERROR "CMSIS6_PATH='${CMSIS6_PATH}' is not a CMSIS 6 checkout (no "
                      "CMSIS/RTOS2/Include/cmsis_os2.h): pass -DCMSIS6_PATH=/path/to/CMSIS_6")
endif()
set(RTB_RTX5_ARGS "rtbench-harness" CACHE STRING "command line without a host")

# The board's core (RTB_BOARD_CORE) picks RTX5's exception code and the
# CMSIS core header: both the M3 and the M4F are ARMv7-M (irq_armv7m.S
# saves the FPU context itself when the image is built hard-float).
if(RTB_BOARD_CORE STREQUAL "Cortex-M3")
  set(_rtx_core_def "")
elseif(RTB_BOARD_CORE STREQUAL "Cortex-M4F")
  set(_rtx_core_def RTB_RTX5_CORE_CM4)
else()
  message(FATAL_ERROR "RTB_BOARD=${RTB_BOARD}: the RTX5 port knows Cortex-M3 and Cortex-M4F, "
                      "not '${RTB_BOARD_CORE}' (RTB_BOARD_CORE)")
endif()

# The kernel: third-party code, compiled as the user's checkout has it,
# every source, the ARMv7-M exception handlers (SVC_Handler, PendSV_Handler,
# SysTick_Handler: they replace the board's weak ones, so an OBJECT library,
# all linked) and CMSIS's SysTick tick. -D_RTE_: RTE_Components.h names the
# device header. EVR_RTX_DISABLE: no Event Recorder, so no event hook is
# left as a call to an empty function (profiles.toml).
file(GLOB _rtx_src ${RTX5_PATH}/Source/*.c)
add_library(rtb_rtx5_kernel OBJECT ${_rtx_src} ${RTX5_PATH}/Source/GCC/irq_armv7m.S
  ${RTX5_PATH}/Config/RTX_Config.c ${CMSIS6_PATH}/CMSIS/RTOS2/Source/os_systick.c)
target_include_directories(rtb_rtx5_kernel PUBLIC
  ${RTB_RTX5_DIR}/include ${RTB_PROFILE_DIR} ${RTX5_PATH}/Config ${RTX5_PATH}/Include
  ${CMSIS6_PATH}/CMSIS/RTOS2/Include ${CMSIS6_PATH}/CMSIS/Core/Include)
target_compile_definitions(rtb_rtx5_kernel PUBLIC _RTE_ EVR_RTX_DISABLE ${_rtx_core_def}
  RTB_KERNEL_PORT="GCC/irq_armv7m.S")
target_link_libraries(rtb_rtx5_kernel PUBLIC rtb_board_headers)
target_compile_options(rtb_rtx5_kernel PRIVATE -w -ffunction-sections -fdata-sections)
rtb_profile_kernel(rtb_rtx5_kernel)  # the kernel's code at its profile's -O level
unset(_rtx_src)
unset(_rtx_core_def)

# The harness core reads the board's counter (rtb_port_arch.h).
target_link_libraries(rtb_core PUBLIC rtb_board_headers)
target_compile_options(rtb_core PRIVATE -ffreestanding -ffunction-sections -fdata-sections)
# (an OBJECT library linked to another gives it its include paths and
# definitions only; the executable links the kernel's objects itself)
target_link_libraries(rtb_port PUBLIC rtb_rtx5_kernel)
target_compile_options(rtb_port PRIVATE -ffunction-sections -fdata-sections)
target_sources(rtb_port PRIVATE ${RTB_CM_DIR}/port_board.c)

set(RTB_PORT_EXECUTABLE rtbench-rtx5-${RTB_BOARD}.elf)
add_executable(${RTB_PORT_EXECUTABLE} ${RTB_RTX5_DIR}/main.c)
target_compile_definitions(${RTB_PORT_EXECUTABLE} PRIVATE ${RTB_BUILD_DEFS} RTB_RTX5_ARGS="${RTB_RTX5_ARGS}")
target_link_libraries(${RTB_PORT_EXECUTABLE} PRIVATE rtb_port rtb_core rtb_rtx5_kernel)
rtb_board_image(${RTB_PORT_EXECUTABLE})
