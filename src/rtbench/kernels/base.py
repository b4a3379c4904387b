"""What every kernel descriptor is (Descriptor, its defaults) and what a
resolved kernel is (Kernel: the user's checkout of it, its version, its
CMake options, its build variant and profile).

A descriptor is data with behaviour: the rest of rtbench asks it (its
attributes and hooks) and never compares a kernel's name. A descriptor's
defaults are those of a kernel built by the harness's own CMake
(harness/ports/<name>, one image per board); a kernel that differs
overrides what differs, in its own module.

What the port itself says stays in the port, not here: its profiles'
settings with their sources (ports/<name>/profiles.toml), its fairness
notes (the "differs:" facts of its records) and the reason of every row it
cannot measure (its `unsupported` records).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from rtbench.errors import RtbenchError
from rtbench.store.text import read_input

# The CMake option that picks the kernel profile (harness/profiles/profile.cmake).
PROFILE_VAR = "RTB_KERNEL_PROFILE"
KERNEL_FILE_LIMIT = 8 << 20  # bytes: a version header is tens of KB (FreeRTOS's task.h ~150)


@dataclass(frozen=True)
class Kernel:
    """A kernel as a run builds it: the descriptor's name, the user's checkout."""

    name: str            # the descriptor's name: the harness port of the same name
    title: str           # as a sheet writes it
    src: Path
    version: str
    cmake_defs: tuple[tuple[str, str], ...]
    args_var: str = ""   # the CMake option of the command line built into the image
    modules: tuple[Path, ...] = ()  # further source trees its build needs (Kernel options)
    userspace: bool = False  # its user-mode build variant (.process rows in user mode)
    profile: str = ""  # the kernel profile its image is built in (targets/profiles.py)

    @property
    def os_name(self) -> str:
        """The kernel as a run names it: the userspace build is another
        configuration of the kernel, a column of its own in the kernel sheet."""
        return f"{self.title} (userspace)" if self.userspace else self.title

    # the kernel's descriptor (rtbench.kernels), which every caller asks
    descriptor: "Descriptor | None" = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Option:
    """A command-line option a kernel brings (registered by cli/ from the
    descriptor). `dest` is the generic field it fills on a request."""

    flag: str
    dest: str
    help: str
    is_flag: bool = False
    path: bool = False   # a folder (click.Path) rather than a word
    commands: tuple[str, ...] = ("run",)  # the commands that take it
    default: object = None
    metavar: str | None = None


@dataclass(frozen=True)
class Tree:
    """A further source tree a kernel's build needs besides its checkout
    (Zephyr's modules, RTX5's CMSIS 6): its environment variable, the
    upstream repository's folder name, and, for a harness-built kernel, the
    CMake option that names it to the port (with a file it must have)."""

    env: str
    repository: str
    cmake_var: str = ""
    marker: str = ""

    def find(self, title: str) -> Path:
        """The tree the environment variable names; one line for a wrong one."""
        given = os.environ.get(self.env)
        if not given:
            raise RtbenchError(f"{title}'s build needs {self.repository}: set {self.env} to "
                               "your checkout of it")
        path = Path(given).expanduser()
        if self.marker and not (path / self.marker).is_file():
            raise RtbenchError(f"{self.env}={path}: not a checkout of {self.repository} "
                               f"({self.marker} not found)")
        return path.resolve()


@dataclass(frozen=True)
class Descriptor:
    """One kernel: everything rtbench knows of it, and the one place it is known."""

    name: str             # "freertos": --kernel's word and the harness port's folder
    title: str            # "FreeRTOS"
    env: str              # the environment variable naming the user's checkout
    marker: str           # a file a checkout must have, relative to its root
    version_file: str
    version_re: str       # its groups, joined by ".", are the version
    cmake_var: str        # the CMake option (or environment) naming the checkout
    args_var: str         # the CMake option of the command line built into an image
    repository: str       # the upstream repository's folder name (where a clone lands)
    config_form: str = "#define lines"  # what --kernel-config takes for it
    # Further source trees besides the checkout (test.sh and the tests find
    # them too); those with a cmake_var are passed to the port's build.
    more_sources: tuple[Tree, ...] = ()
    options: tuple[Option, ...] = ()
    # Its own build: the harness CMake (one image per board, RTB_PORT=name)
    # unless the kernel builds as its own CMake project (own_project).
    own_project: bool = False
    variants: tuple[str, ...] = ()   # build variants beside the plain one ("userspace")
    lab: bool = True                 # a labgrid place can carry it (an image rtbench builds
                                     # for the place's board, flashed by labgrid)
    gdb: bool = True                 # a board loaded through a GDB server can carry it
    peers: tuple[str, ...] = ()      # the peers that run beside it (names; peers/beside.py)
    own_boards: bool = False         # builds for any board of its own tree (--board NAME)
    elsewhere: str = ""              # where it runs instead, when not on a lab place or GDB board
    # An own project's build: the image it leaves, relative to its build folder,
    # CMake's generator, and the images an own board's build leaves to flash.
    project_image: str = ""
    project_generator: str | None = None
    own_board_images: tuple[str, ...] = ()

    @property
    def option_dests(self) -> set[str]:
        """The request fields its options fill."""
        return {o.dest for o in self.options}

    # ---- the user's checkout ----

    def is_checkout(self, src: Path) -> bool:
        """Whether `src` looks like a checkout of this kernel (its marker file)."""
        return (Path(src).expanduser() / self.marker).is_file()

    def checkout(self, src: Path | None) -> Path:
        """The checkout: `src`, else the environment variable's; one line for a wrong one."""
        if src is None:
            env = os.environ.get(self.env)
            if not env:
                raise RtbenchError(f"{self.title} sources not given: pass --kernel-src DIR (your "
                                   f"checkout of the {self.title} kernel) or set {self.env}")
            src = Path(env)
        src = src.expanduser()
        if not self.is_checkout(src):
            raise RtbenchError(f"{src} is not a {self.title} kernel checkout ({self.marker} not "
                               f"found): pass --kernel-src DIR or set {self.env}")
        return src.resolve()

    def version(self, src: Path) -> str:
        """The version the tree's file says; "unknown" when it has none. That
        file is read bounded and only if regular (text.read_input): a FIFO or
        /dev/zero under its name is one line, never a hang."""
        path = src / self.version_file
        if not os.path.lexists(path):
            return "unknown"
        text = read_input(path, f"the {self.title} tree's file", KERNEL_FILE_LIMIT).decode(
            "utf-8", errors="replace")
        m = re.search(self.version_re, text)
        return ".".join(m.groups()) if m else "unknown"

    def resolve(self, src: Path | None, profile: str, modules: Path | None = None,
                userspace: bool = False) -> Kernel:
        """This kernel from the user's checkout, in kernel profile `profile`
        (already checked), with the options it takes (the registry's resolve
        refuses one it does not)."""
        src = self.checkout(src)
        trees = tuple((t.cmake_var, str(t.find(self.title))) for t in self.more_sources
                      if t.cmake_var)
        return Kernel(self.name, self.title, src, self.version(src),
                      ((self.cmake_var, str(src)), *trees, (PROFILE_VAR, profile)),
                      self.args_var, profile=profile, descriptor=self)

    # ---- hooks a kernel overrides where it differs ----

    def board_name(self, kernel: Kernel, board: str) -> str:
        """The name its build gives `board` (an emulated board rtbench knows);
        one line when it cannot run there. The harness's boards by default."""
        return board

    def facts(self, kernel: Kernel) -> dict:
        """What a run stores of this kernel beyond its name, version,
        profile and checkout (the host record's fields; store/contract.py)."""
        return {}

    def check_build_tools(self, userspace: bool) -> None:
        """What its build needs besides CMake and the cross compiler: one line
        for a missing one, before anything is built. Nothing by default."""

    def columns(self) -> tuple[bool, ...]:
        """The userspace flags of its `list --coverage` columns: each variant a column."""
        return (False, True) if "userspace" in self.variants else (False,)

    def project(self, kernel: Kernel, board: str, cc: str, cache: Path, python: str
                ) -> tuple[dict[str, str], dict[str, str]]:
        """An own project's CMake options and environment (own_project only)."""
        raise NotImplementedError(self.name)

    def own_image(self, kernel: Kernel, board: str, defs: dict[str, str], ports: Path,
                  build_app) -> Path:
        """An own project's image (own_project only): `build_app` is the
        harness's builder (targets/harness.py build_project)."""
        raise NotImplementedError(self.name)

    def own_board(self, kernel: Kernel, board: str) -> None:
        """Whether `board` is one of its own tree's (own_boards only): one line if not."""
        raise NotImplementedError(self.name)

    def rtbench_board(self, own: str) -> str | None:
        """The board rtbench emulates that the kernel calls `own`, if any."""
        return None

    def own_board_notes(self, board: str, build_dir: Path, out: Path, images: list[str],
                        ids: list[str], args: list[str], glue: bool, emulated: list[str]) -> str:
        """FLASH.md for an image built for a board of its own tree (own_boards only)."""
        raise NotImplementedError(self.name)
