"""Targets: where the harness runs. The run path talks to a target that
builds, starts, restarts and yields records; the orchestrator (runner,
runcmd), the store and the reports never know which one they serve.

* `host`: this machine, the POSIX port as a local process (targets/host.py).
* `mps2-an385`, `mps2-an386`: QEMU's Cortex-M3 and Cortex-M4F boards with an
  RTOS port (targets/qemu.py), records read from the UART.
* `labgrid`: a place of a labgrid lab, or a board labgrid emulates
  (targets/labgrid.py): powered, flashed and read through labgrid's drivers.
"""

from __future__ import annotations

from pathlib import Path

from rtbench.errors import RtbenchError
from rtbench.targets.base import Instance, Target

HOST = "host"
BOARDS = ("mps2-an385", "mps2-an386")
LABGRID = "labgrid"
NAMES = (HOST, *BOARDS, LABGRID)


def make(name: str, kernel: str | None = None, kernel_src: Path | None = None,
         harness: Path | None = None, env: Path | None = None,
         place: str | None = None) -> Target:
    """The target `name` (checked: one line and exit 2 for what is wrong)."""
    if name != LABGRID and (env is not None or place is not None):
        raise RtbenchError("--env and --place are for --target labgrid")
    if name == LABGRID:
        if env is None:
            raise RtbenchError("--target labgrid needs --env ENV.yaml (a labgrid environment file)")
        if harness is not None:
            raise RtbenchError("--harness is for the host target")
        from rtbench.targets.labplace import require_labgrid

        require_labgrid()  # before importing the target, which needs labgrid
        from rtbench.targets.labgrid import LabgridTarget

        return LabgridTarget(env, place, kernel, kernel_src)
    if name == HOST:
        if kernel not in (None, "linux"):
            raise RtbenchError(f"--kernel {kernel}: the host target measures the kernel it "
                               "runs on; use --target mps2-an385 or mps2-an386 for an RTOS")
        if kernel_src is not None:
            raise RtbenchError("--kernel-src is for an RTOS target (--target mps2-an385 or "
                               "mps2-an386)")
        from rtbench.targets.host import HostTarget

        return HostTarget(harness)
    if name in BOARDS:
        from rtbench.targets import kernels
        from rtbench.targets.qemu import QemuTarget

        if harness is not None:
            raise RtbenchError("--harness is for the host target")
        return QemuTarget(name, kernels.get(kernel, kernel_src))
    raise RtbenchError(f"unknown target {name!r} (one of: {', '.join(NAMES)})")


__all__ = ["HOST", "BOARDS", "LABGRID", "NAMES", "Instance", "Target", "make"]
