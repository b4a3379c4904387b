"""How Zephyr's image is built: as its own CMake project (rtbench's port
harness/ports/zephyr is an application outside the Zephyr tree) against the
user's tree and modules with Debian's cross compiler (no Zephyr SDK, no
west). The harness's builder (targets/harness.py `build_project`) runs
CMake in the cache; this module says what Zephyr's build needs and gets."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from typing import Callable

from rtbench.errors import RtbenchError
from rtbench.kernels.zephyr import mpu_window

IMAGE = "zephyr/zephyr.elf"  # and zephyr/zephyr.map beside it (the window audit)
# What Zephyr's build needs besides CMake and the cross compiler, by what a
# missing one is called in Debian (docs: EMBEDDED.md's measured list).
TOOLS = {"ninja": "ninja-build", "dtc": "device-tree-compiler"}
USERSPACE_TOOLS = {"gperf": "gperf"}  # the kernel-object hash tables
PYTHON = {"elftools": "pyelftools", "yaml": "PyYAML", "pykwalify": "pykwalify",
          "packaging": "packaging"}
GENERATOR = "Ninja"


def check_tools(userspace: bool) -> None:
    """What Zephyr's build needs besides CMake and the compiler (its tools,
    its Python packages): one line naming the fix for a missing one, before
    anything is built (a shoot-out asks before any kernel runs)."""
    tools = {**TOOLS, **(USERSPACE_TOOLS if userspace else {})}
    missing = [pkg for tool, pkg in tools.items() if shutil.which(tool) is None]
    if missing:
        raise RtbenchError(f"Zephyr's build needs {', '.join(missing)}: install "
                           f"{' '.join(missing)} (as root: apt-get install {' '.join(missing)})")
    absent = [pkg for mod, pkg in PYTHON.items() if importlib.util.find_spec(mod) is None]
    if absent:
        raise RtbenchError(f"Zephyr's build needs the Python packages {', '.join(absent)} in "
                           f"rtbench's environment: pip install 'rtbench[zephyr]' (or "
                           f"{' '.join(absent)})")


def project(kernel, board: str, cc: str, cache: Path, python: str
            ) -> tuple[dict[str, str], dict[str, str]]:
    """The CMake options and the environment of a Zephyr application's build."""
    opts = {"BOARD": board, "ZEPHYR_MODULES": ";".join(str(m) for m in kernel.modules),
            "BUILD_VERSION": f"v{kernel.version}", "Python3_EXECUTABLE": python,
            "USER_CACHE_DIR": str(cache / "zephyr-cache"),
            "RTB_KERNEL_PROFILE": kernel.profile}
    env = {"ZEPHYR_BASE": str(kernel.src), "ZEPHYR_TOOLCHAIN_VARIANT": "cross-compile",
           "CROSS_COMPILE": cc[:-len("gcc")]}
    return opts, env


def image(kernel, board: str, defs: dict[str, str], ports: Path,
          build_app: Callable[..., Path]) -> Path:
    """rtbench's Zephyr image for `board` (Zephyr's name): `build_app(kernel,
    board, app, name, defs, what)` is the harness's builder; return zephyr.elf."""
    defs = {"RTB_ZEPHYR_USERSPACE": "ON" if kernel.userspace else "OFF", **defs}
    app = ports / "zephyr"
    elf = build_app(kernel, board, app, "zephyr", defs, "Zephyr image")
    # A userspace image reprograms the MPU on every switch: keep its MPU
    # driver off QEMU's TLB collision (mpu_window.py), by one rebuild with a
    # pad, cached like the first.
    pad = mpu_window.pad_for(mpu_window.mpu_code(elf)) if kernel.userspace else 0
    if pad:
        elf = build_app(kernel, board, app, "zephyr", {**defs, "RTB_ZEPHYR_TEXT_PAD": str(pad)},
                        "Zephyr image (its MPU driver moved off QEMU's TLB collision)")
    return elf
