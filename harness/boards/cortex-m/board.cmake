# What every Cortex-M board's board.cmake shares: include()d by it after it
# set RTB_BOARD_DIR and RTB_BOARD_LD (its linker script) and made
# rtb_board_headers. Defines
#   rtb_cm_board_objects(SOURCES...)  the rtb_board OBJECT library: the
#                      board's sources and the shared ones below
#   rtb_board_image(target)  links an image: the board's objects, start-up
#                      (-nostartfiles), its linker script, newlib-nano (the
#                      mem* and str* the kernel and the compiler call), libgcc
#                      (64-bit division), and the link map beside the image
#                      (for the window audit: kernel, port, harness)
set(RTB_CM_DIR ${CMAKE_CURRENT_LIST_DIR})
target_include_directories(rtb_board_headers INTERFACE ${RTB_CM_DIR}/include)

function(rtb_cm_board_objects)
  add_library(rtb_board OBJECT ${ARGN}
    ${RTB_CM_DIR}/reset.c ${RTB_CM_DIR}/fault.c ${RTB_CM_DIR}/semihost.c
    ${RTB_CM_DIR}/ramvec.c ${RTB_CM_DIR}/console_text.c ${RTB_CM_DIR}/hostargs.c
    ${RTB_CM_DIR}/kcall.S)
  target_link_libraries(rtb_board PUBLIC rtb_board_headers)
  target_include_directories(rtb_board PRIVATE ${RTB_CM_DIR}) # board_internal.h
  target_compile_options(rtb_board PRIVATE -ffunction-sections -fdata-sections)
endfunction()

function(rtb_board_image target)
  target_sources(${target} PRIVATE $<TARGET_OBJECTS:rtb_board>)
  target_link_libraries(${target} PRIVATE rtb_board_headers)
  target_link_options(${target} PRIVATE -nostartfiles --specs=nano.specs
                      -T${RTB_BOARD_LD} -Wl,--gc-sections
                      -Wl,-Map=$<TARGET_FILE:${target}>.map)
  target_link_libraries(${target} PRIVATE c_nano gcc)
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${RTB_BOARD_LD})
endfunction()
