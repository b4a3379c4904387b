"""Keil RTX5 (CMSIS-RTOS2): built by the harness's CMake (harness/ports/rtx5,
its profiles in ports/rtx5/profiles.toml) against CMSIS 6, one image per board."""

from rtbench.kernels.base import Descriptor, Tree

DESCRIPTOR = Descriptor(
    name="rtx5", title="RTX5", env="RTBENCH_RTX5_SRC",
    marker="Include/rtx_os.h", version_file="Include/rtx_os.h",
    version_re=r"osRtxVersionKernel\s+\d+\s+///<\s*Kernel version \((\d+)\.(\d+)\.(\d+)\)",
    cmake_var="RTX5_PATH", args_var="RTB_RTX5_ARGS",
    config_form="#define lines (RTX_Config.h)", repository="rtx5",
    # CMSIS 6, which RTX5 builds against: passed to port.cmake as CMSIS6_PATH,
    # found by test.sh and the tests like the kernel
    more_sources=(Tree("RTBENCH_CMSIS6_SRC", "cmsis6", cmake_var="CMSIS6_PATH",
                       marker="CMSIS/RTOS2/Include/cmsis_os2.h"),),
    peers=(),  # no peer has an RTX5 port yet
)
