"""FreeRTOS: built by the harness's CMake (harness/ports/freertos, its
profiles in ports/freertos/profiles.toml), one image per board."""

from rtbench.kernels.base import Descriptor

DESCRIPTOR = Descriptor(
    name="freertos", title="FreeRTOS", env="RTBENCH_FREERTOS_SRC",
    marker="include/FreeRTOS.h", version_file="include/task.h",
    version_re=r'#define\s+tskKERNEL_VERSION_NUMBER\s+"([^"]+)"',
    cmake_var="FREERTOS_KERNEL_PATH", args_var="RTB_FREERTOS_ARGS",
    config_form="#define lines (FreeRTOSConfig.h)", repository="FreeRTOS-Kernel",
    peers=("rtos-benchmark", "thread-metric"),  # Thread-Metric by rtbench's layer for it
)
