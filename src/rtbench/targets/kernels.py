"""RTOS kernels a board target can carry: where the user's sources are, what
version they are, and what the harness's CMake needs to build them.

The sources are the user's own checkout (`--kernel-src DIR`, else the
kernel's environment variable); rtbench never carries or downloads a
kernel. A wrong or missing checkout is one line and exit 2.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from rtbench.errors import RtbenchError


@dataclass(frozen=True)
class Kernel:
    name: str            # "freertos": the harness port of the same name
    title: str           # "FreeRTOS"
    src: Path
    version: str
    cmake_defs: tuple[tuple[str, str], ...]
    args_var: str = ""   # the CMake option of the command line built into the image


@dataclass(frozen=True)
class _Spec:
    name: str
    title: str
    env: str
    marker: str           # a file a checkout must have, relative to its root
    version_file: str
    version_re: str       # its groups, joined by ".", are the version
    cmake_var: str
    args_var: str


SPECS = {
    "freertos": _Spec("freertos", "FreeRTOS", "RTBENCH_FREERTOS_SRC", "include/FreeRTOS.h",
                      "include/task.h", r'#define\s+tskKERNEL_VERSION_NUMBER\s+"([^"]+)"',
                      "FREERTOS_KERNEL_PATH", "RTB_FREERTOS_ARGS"),
    "threadx": _Spec("threadx", "ThreadX", "RTBENCH_THREADX_SRC", "common/inc/tx_api.h",
                     "common/inc/tx_api.h",
                     r"#define\s+THREADX_MAJOR_VERSION\s+(\d+)\s+#define\s+THREADX_MINOR_VERSION"
                     r"\s+(\d+)\s+#define\s+THREADX_PATCH_VERSION\s+(\d+)",
                     "THREADX_PATH", "RTB_THREADX_ARGS"),
}


def get(name: str | None, src: Path | None) -> Kernel:
    if name is None and src is not None:  # --kernel-src alone: the checkout says which
        name = of_checkout(src)
    if name is None:
        raise RtbenchError(f"--kernel is required on a board target (one of: {', '.join(SPECS)})")
    spec = SPECS.get(name)
    if spec is None:
        raise RtbenchError(f"unknown --kernel {name!r} (one of: {', '.join(SPECS)})")
    if src is None:
        env = os.environ.get(spec.env)
        if not env:
            raise RtbenchError(f"{spec.title} sources not given: pass --kernel-src DIR (your "
                               f"checkout of the {spec.title} kernel) or set {spec.env}")
        src = Path(env)
    src = src.expanduser()
    if not (src / spec.marker).is_file():
        raise RtbenchError(f"{src} is not a {spec.title} kernel checkout ({spec.marker} not "
                           f"found): pass --kernel-src DIR or set {spec.env}")
    return Kernel(spec.name, spec.title, src.resolve(), _version(src, spec),
                  ((spec.cmake_var, str(src.resolve())),), spec.args_var)


def of_checkout(src: Path) -> str:
    """The kernel whose checkout `src` is, told by its marker file."""
    found = [name for name in SPECS if is_checkout(name, src)]
    if len(found) != 1:
        looked = ", ".join(f"{s.marker} ({s.title})" for s in SPECS.values())
        raise RtbenchError(f"--kernel-src {src}: " + (
            f"not a kernel checkout rtbench knows (looked for {looked}); pass --kernel too"
            if not found else f"holds {' and '.join(found)}: pass --kernel"))
    return found[0]


def is_checkout(name: str, src: Path) -> bool:
    """Whether `src` looks like a checkout of kernel `name` (its marker file)."""
    return (Path(src).expanduser() / SPECS[name].marker).is_file()


def _version(src: Path, spec: _Spec) -> str:
    try:
        text = (src / spec.version_file).read_text(errors="replace")
    except OSError:
        return "unknown"
    m = re.search(spec.version_re, text)
    return ".".join(m.groups()) if m else "unknown"
