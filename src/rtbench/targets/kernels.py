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
from rtbench.store.text import read_input


@dataclass(frozen=True)
class Kernel:
    name: str            # "freertos": the harness port of the same name
    title: str           # "FreeRTOS"
    src: Path
    version: str
    cmake_defs: tuple[tuple[str, str], ...]
    args_var: str = ""   # the CMake option of the command line built into the image
    modules: tuple[Path, ...] = ()  # Zephyr: the modules its build needs (CMSIS)
    userspace: bool = False  # Zephyr: the CONFIG_USERSPACE build (.process rows in user mode)
    profile: str = ""  # the kernel profile its image is built in (get(): profiles.py)

    @property
    def os_name(self) -> str:
        """The kernel as a run names it: the userspace build is another
        configuration of Zephyr, a column of its own in the kernel sheet."""
        return f"{self.title} (userspace)" if self.userspace else self.title


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
    second: _Second | None = None  # a second checkout the build needs (RTX5: CMSIS 6)


@dataclass(frozen=True)
class _Second:
    """A second checkout a kernel builds against, passed as its own CMake
    variable (RTX5's CMSIS 6: the core headers, cmsis_os2.h, os_systick.c)."""
    title: str
    env: str
    marker: str
    cmake_var: str


SPECS = {
    "freertos": _Spec("freertos", "FreeRTOS", "RTBENCH_FREERTOS_SRC", "include/FreeRTOS.h",
                      "include/task.h", r'#define\s+tskKERNEL_VERSION_NUMBER\s+"([^"]+)"',
                      "FREERTOS_KERNEL_PATH", "RTB_FREERTOS_ARGS"),
    "threadx": _Spec("threadx", "ThreadX", "RTBENCH_THREADX_SRC", "common/inc/tx_api.h",
                     "common/inc/tx_api.h",
                     r"#define\s+THREADX_MAJOR_VERSION\s+(\d+)\s+#define\s+THREADX_MINOR_VERSION"
                     r"\s+(\d+)\s+#define\s+THREADX_PATCH_VERSION\s+(\d+)",
                     "THREADX_PATH", "RTB_THREADX_ARGS"),
    # Zephyr builds as its own CMake project (harness/ports/zephyr, an
    # out-of-tree application): ZEPHYR_BASE is its environment, not an option
    "zephyr": _Spec("zephyr", "Zephyr", "RTBENCH_ZEPHYR_SRC", "include/zephyr/kernel.h", "VERSION",
                    r"VERSION_MAJOR\s*=\s*(\d+)\s+VERSION_MINOR\s*=\s*(\d+)\s+PATCHLEVEL"
                    r"\s*=\s*(\d+)", "ZEPHYR_BASE", "RTB_ZEPHYR_ARGS"),
    "rtx5": _Spec("rtx5", "RTX5", "RTBENCH_RTX5_SRC", "Include/rtx_os.h", "Include/rtx_os.h",
                  r'osRtxKernelId\s+"RTX V(\d+)\.(\d+)\.(\d+)"', "RTX5_PATH", "RTB_RTX5_ARGS",
                  _Second("CMSIS 6", "RTBENCH_CMSIS6_SRC", "CMSIS/RTOS2/Include/cmsis_os2.h",
                          "CMSIS6_PATH")),
}

# The CMake option that picks the kernel profile (harness/profiles/profile.cmake).
PROFILE_VAR = "RTB_KERNEL_PROFILE"

# Zephyr's modules: where they are, and the ones an MPS2 (Cortex-M) build needs.
MODULES_ENV = "RTBENCH_ZEPHYR_MODULES"
NEEDED_MODULES = ("cmsis",)


def get(name: str | None, src: Path | None, modules: Path | None = None,
        userspace: bool = False, profile: str | None = None) -> Kernel:
    """The kernel `name` (or the one whose checkout `src` is) from the user's
    sources, in kernel profile `profile` (profiles.py; None: the default)."""
    from rtbench.targets import profiles

    profile = profiles.check(profile)
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
    if spec.name != "zephyr":
        if modules is not None or userspace:
            raise RtbenchError(("--zephyr-modules" if modules is not None else "--userspace")
                               + f": for --kernel zephyr (not {spec.name})")
        return Kernel(spec.name, spec.title, src.resolve(), _version(src, spec),
                      ((spec.cmake_var, str(src.resolve())), *_second(spec), (PROFILE_VAR, profile)),
                      spec.args_var, profile=profile)
    return Kernel(spec.name, spec.title, src.resolve(), _version(src, spec),
                  ((spec.cmake_var, str(src.resolve())), (PROFILE_VAR, profile)), spec.args_var,
                  zephyr_modules(modules), userspace, profile)


def _second(spec: _Spec) -> tuple[tuple[str, str], ...]:
    """The CMake variable of the second checkout `spec` builds against, from
    its environment variable; none for a kernel that needs none."""
    second = spec.second
    if second is None:
        return ()
    env = os.environ.get(second.env)
    if not env:
        raise RtbenchError(f"{second.title} sources not given: {spec.title} builds against them; "
                           f"set {second.env} to your checkout of {second.title}")
    path = Path(env).expanduser()
    if not (path / second.marker).is_file():
        raise RtbenchError(f"{path} is not a {second.title} checkout ({second.marker} not found): "
                           f"set {second.env}")
    return ((second.cmake_var, str(path.resolve())),)


def zephyr_modules(given: Path | None) -> tuple[Path, ...]:
    """The Zephyr modules a build gets (-DZEPHYR_MODULES): `given` (or
    $RTBENCH_ZEPHYR_MODULES) is one module, or a folder of modules (as west
    lays them out); each is a folder with zephyr/module.yml, named as
    Zephyr names the module (its folder's name: cmsis)."""
    if given is None:
        env = os.environ.get(MODULES_ENV)
        if not env:
            raise RtbenchError("Zephyr's modules not given: pass --zephyr-modules DIR (the "
                               "folder holding cmsis/, Zephyr's CMSIS module, which every "
                               f"Cortex-M build needs) or set {MODULES_ENV}")
        given = Path(env)
    path = given.expanduser()
    if _is_module(path):
        found = [path]
    else:
        try:
            found = sorted(d for d in path.iterdir() if _is_module(d))
        except OSError as exc:
            raise RtbenchError(f"--zephyr-modules {path}: {exc.strerror or exc}") from exc
    missing = [m for m in NEEDED_MODULES if m not in {d.name for d in found}]
    if missing:
        raise RtbenchError(f"--zephyr-modules {path}: no {', '.join(missing)} module there (a "
                           f"folder named {missing[0]} holding zephyr/module.yml: Zephyr's "
                           f"{missing[0]} module, zephyrproject-rtos/{missing[0]})")
    return tuple(d.resolve() for d in found)


def _is_module(path: Path) -> bool:
    return (path / "zephyr" / "module.yml").is_file()


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


KERNEL_FILE_LIMIT = 8 << 20  # bytes: a version header is tens of KB (FreeRTOS's task.h ~150)


def _version(src: Path, spec: _Spec) -> str:
    """The version the tree's file says; "unknown" when it has none. That
    file is read bounded and only if regular (text.read_input): a FIFO or
    /dev/zero under its name is one line, never a hang."""
    path = src / spec.version_file
    if not os.path.lexists(path):
        return "unknown"
    text = read_input(path, f"the {spec.title} tree's file", KERNEL_FILE_LIMIT).decode(
        "utf-8", errors="replace")
    m = re.search(spec.version_re, text)
    return ".".join(m.groups()) if m else "unknown"
