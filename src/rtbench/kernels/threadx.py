"""ThreadX: built by the harness's CMake (harness/ports/threadx, its
profiles in ports/threadx/profiles.toml), one image per board;
Thread-Metric, its own benchmark, is a peer built from the same checkout."""

from rtbench.kernels.base import Descriptor

DESCRIPTOR = Descriptor(
    name="threadx", title="ThreadX", env="RTBENCH_THREADX_SRC",
    marker="common/inc/tx_api.h", version_file="common/inc/tx_api.h",
    version_re=(r"#define\s+THREADX_MAJOR_VERSION\s+(\d+)\s+#define\s+THREADX_MINOR_VERSION"
                r"\s+(\d+)\s+#define\s+THREADX_PATCH_VERSION\s+(\d+)"),
    cmake_var="THREADX_PATH", args_var="RTB_THREADX_ARGS",
    config_form="#define lines (tx_user.h)", repository="threadx",
    peers=("thread-metric",),
)
