# A kernel's profile in a CMake build (docs/profiles.md). include() this,
# then call rtb_profile_apply(PORT_DIR) before the targets that need it:
#
#   RTB_KERNEL_PROFILE   (cache) defaults or speed; empty: rules.toml's default
#   RTB_KERNEL_CONFIG    (cache) the engineer's own configuration fragment,
#                        applied on top of the profile (rtbench run
#                        --kernel-config); RTB_KERNEL_CONFIG_NAME, what the
#                        sheets call it
#
# It runs rtb_profile.py on the port's profiles.toml into the build
# directory (again whenever the data or the generator changes: they are
# configure dependencies) and sets, in the caller's scope:
#
#   RTB_PROFILE          the profile's name
#   RTB_PROFILE_DIR      where rtb_profile.h (or rtb_profile.conf) and
#                        rtb_profile_facts.h are: an include directory
#   RTB_PROFILE_OPT      the kernel's -O level in this profile
#   RTB_HARNESS_OPT      rtbench's own code's -O level (every profile)
#   RTB_PROFILE_CFLAGS   the code-generation flags every image is built with
#   RTB_PROFILE_CFLAGS_WORDS  all of them in words, for the image's record
#                        (rules.toml)
#
# Needs Python 3.11 (tomllib): Python3_EXECUTABLE if given (rtbench and
# Zephyr's build pass it), else the one CMake finds.
set(RTB_PROFILES_DIR ${CMAKE_CURRENT_LIST_DIR})

macro(rtb_profile_apply port_dir)
  set(RTB_KERNEL_PROFILE "" CACHE STRING "kernel profile: defaults or speed (empty: the default)")
  if(NOT Python3_EXECUTABLE)
    find_package(Python3 3.11 REQUIRED COMPONENTS Interpreter)
  endif()
  set(RTB_PROFILE_DIR ${CMAKE_BINARY_DIR}/rtb_profile)
  set(_rtb_profile_name ${RTB_KERNEL_PROFILE})
  if(NOT _rtb_profile_name)
    file(STRINGS ${RTB_PROFILES_DIR}/rules.toml _rtb_profile_name REGEX "^default *= *\"")
    string(REGEX REPLACE "^default *= *\"([a-z]+)\".*" "\\1" _rtb_profile_name "${_rtb_profile_name}")
  endif()
  set(RTB_KERNEL_CONFIG "" CACHE FILEPATH "the engineer's kernel configuration fragment")
  set(RTB_KERNEL_CONFIG_NAME "" CACHE STRING "what the sheets call RTB_KERNEL_CONFIG")
  set(_rtb_profile_user)
  if(RTB_KERNEL_CONFIG)
    set(_rtb_profile_user ${RTB_KERNEL_CONFIG} ${RTB_KERNEL_CONFIG_NAME})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${RTB_KERNEL_CONFIG})
  endif()
  execute_process(
    COMMAND ${Python3_EXECUTABLE} ${RTB_PROFILES_DIR}/rtb_profile.py ${port_dir}
            ${_rtb_profile_name} ${RTB_PROFILE_DIR} ${_rtb_profile_user}
    RESULT_VARIABLE _rtb_profile_rc ERROR_VARIABLE _rtb_profile_err)
  if(NOT _rtb_profile_rc EQUAL 0)
    string(STRIP "${_rtb_profile_err}" _rtb_profile_err)
    message(FATAL_ERROR "${_rtb_profile_err}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    ${RTB_PROFILES_DIR}/rules.toml ${RTB_PROFILES_DIR}/rtb_profile.py ${port_dir}/profiles.toml)
  include(${RTB_PROFILE_DIR}/rtb_profile.cmake)  # RTB_PROFILE, RTB_PROFILE_CFLAGS
  unset(_rtb_profile_name)
  unset(_rtb_profile_user)
  unset(_rtb_profile_rc)
  unset(_rtb_profile_err)
endmacro()

# rtb_profile_compile_options(): every C target created after this call in
# this directory gets the common flags and rtbench's -O level (the build
# type's -O is dropped, so the levels given here are the only ones); the
# kernel's library then gets its profile's level (rtb_profile_kernel). For
# the kernels rtbench's CMake builds; Zephyr's build sets the same itself.
macro(rtb_profile_compile_options)
  string(TOUPPER "${CMAKE_BUILD_TYPE}" _rtb_bt)
  if(_rtb_bt)
    string(REGEX REPLACE "(^| )-O[0-3sgz]?( |$)" " " CMAKE_C_FLAGS_${_rtb_bt}
           "${CMAKE_C_FLAGS_${_rtb_bt}}")
  endif()
  unset(_rtb_bt)
  foreach(_rtb_flag IN LISTS RTB_PROFILE_CFLAGS RTB_HARNESS_OPT)
    add_compile_options($<$<COMPILE_LANGUAGE:C>:${_rtb_flag}>)
  endforeach()
  unset(_rtb_flag)
endmacro()

# rtb_profile_kernel(TARGET): the kernel's own code at its profile's level
# (after rtbench's level on the command line: the last -O wins).
function(rtb_profile_kernel target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:${RTB_PROFILE_OPT}>)
endfunction()
