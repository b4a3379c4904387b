"""Zephyr: built as its own CMake project (harness/ports/zephyr, an
application outside the user's tree: build.py), with its modules
(modules.py), its userspace variant (CONFIG_USERSPACE: the .process rows in
user mode, its MPU driver kept off QEMU's TLB collision: mpu_window.py),
its names for rtbench's emulated boards and an image for any board of its
tree (boards.py), and the options that bring all of these."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rtbench.kernels.base import PROFILE_VAR, Descriptor, Kernel, Option, Tree
from rtbench.kernels.zephyr import boards, build
from rtbench.kernels.zephyr import modules as zmodules

OPTIONS = (
    Option("--zephyr-modules", "modules",
           "--kernel zephyr: the Zephyr modules its build needs, a folder holding cmsis/ "
           "(default: $RTBENCH_ZEPHYR_MODULES).", path=True, commands=("run", "audit")),
    Option("--userspace", "userspace",
           "--kernel zephyr: the CONFIG_USERSPACE build, whose .process rows run in user-mode "
           "threads (the MPU); its own run, its own column beside the kernel-only build.",
           is_flag=True, commands=("run", "audit"), default=False),
    # An image for a board of the user's Zephyr tree (measure/own_board.py)
    Option("--board", "board",
           "--kernel zephyr: build the image for any board of your Zephyr tree (e.g. "
           "nrf52840dk/nrf52840) with the selected metrics built in, write it and FLASH.md "
           "(flash, capture the console, `rtbench import harness LOG`) to --out, and stop: "
           "nothing is measured here.", metavar="NAME"),
    Option("--board-glue/--no-board-glue", "board_glue",
           "With --board on an MPS2 board: rtbench's board support (its counter and interrupt "
           "source; default) or what any other board gets (Zephyr's timing API, no interrupt "
           "rows).", is_flag=True, default=True),
)


@dataclass(frozen=True)
class Zephyr(Descriptor):
    def resolve(self, src: Path | None, profile: str, modules: Path | None = None,
                userspace: bool = False) -> Kernel:
        src = self.checkout(src)
        return Kernel(self.name, self.title, src, self.version(src),
                      ((self.cmake_var, str(src)), (PROFILE_VAR, profile)), self.args_var,
                      zmodules.find(modules), userspace, profile, self)

    def facts(self, kernel: Kernel) -> dict:
        # the stored field's name predates the descriptors: runs already stored keep it
        return {"zephyr_modules": [str(m) for m in kernel.modules]} if kernel.modules else {}

    def board_name(self, kernel: Kernel, board: str) -> str:
        return boards.emulated_name(kernel, board)

    def check_build_tools(self, userspace: bool) -> None:
        build.check_tools(userspace)

    def project(self, kernel: Kernel, board: str, cc: str, cache: Path, python: str):
        return build.project(kernel, board, cc, cache, python)

    def own_board(self, kernel: Kernel, board: str) -> None:
        boards.check_board(kernel, board)

    def rtbench_board(self, own: str) -> str | None:
        return boards.rtbench_board(own)

    def own_board_notes(self, *args, **kw) -> str:
        return boards.flash_notes(*args, **kw)

    def own_image(self, kernel: Kernel, board: str, defs: dict[str, str], ports: Path,
                  build_app) -> Path:
        return build.image(kernel, board, defs, ports, build_app)


DESCRIPTOR = Zephyr(
    name="zephyr", title="Zephyr", env="RTBENCH_ZEPHYR_SRC",
    marker="include/zephyr/kernel.h", version_file="VERSION",
    version_re=(r"VERSION_MAJOR\s*=\s*(\d+)\s+VERSION_MINOR\s*=\s*(\d+)\s+PATCHLEVEL"
                r"\s*=\s*(\d+)"),
    # Zephyr builds as its own CMake project: ZEPHYR_BASE is its environment, not an option
    cmake_var="ZEPHYR_BASE", args_var="RTB_ZEPHYR_ARGS",
    config_form="a Kconfig fragment", repository="zephyr", more_sources=(Tree(zmodules.MODULES_ENV, "zephyr-modules"),),
    options=OPTIONS, own_project=True, variants=("userspace",), own_boards=True,
    lab=False, gdb=False,
    peers=("latency_measure", "rtos-benchmark", "thread-metric"),
    elsewhere="--board, docs/zephyr.md",
    project_image=build.IMAGE, project_generator=build.GENERATOR, own_board_images=boards.IMAGES,
)
