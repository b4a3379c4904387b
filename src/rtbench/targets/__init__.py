"""Targets: where the harness runs. The run path talks to a target that
builds, starts, restarts and yields records; the orchestrator (measure),
the store and the sheets never know which one they serve.

* `host`: this machine, the POSIX port as a local process (host.py).
* `mps2-an385`, `mps2-an386`, `stm32f4`: QEMU's Cortex-M3 and Cortex-M4F boards with an
  RTOS port (qemu.py), records read from the UART; the kernels a board
  carries are described by rtbench.kernels (one descriptor each).
* `labgrid`: a place of a labgrid lab, or a board labgrid emulates
  (labgrid.py, labplace.py, emuboard.py): powered, flashed and read
  through labgrid's drivers.

Every target's image comes from harness.py, which finds, builds (cached
by a hash of the sources) and queries the C harness, for the host, a
board, or a peer built like the harness image (peers/). sysinfo.py is
what a target says of the machine it runs on: the host's facts for its
data sheet, the runner host of a board.

May import: rtbench.kernels, rtbench.store, rtbench.process, rtbench.errors.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Sequence

from rtbench import kernels
from rtbench.errors import RtbenchError
from rtbench.targets import profiles
from rtbench.targets.base import Instance, Target

HOST = "host"
BOARDS = ("mps2-an385", "mps2-an386", "stm32f4")
LABGRID = "labgrid"
NAMES = (HOST, *BOARDS, LABGRID)
HOST_COLUMN = "Linux (host)"  # this host's column in `rtbench list --coverage`


def make(name: str, kernel: str | None = None, kernel_src: Path | None = None,
         harness: Path | None = None, env: Path | None = None,
         place: str | None = None, modules: Path | None = None,
         userspace: bool = False, kernel_profile: str | None = None,
         cycles: bool = True, kernel_config: Path | None = None, gdb: str | None = None,
         serial: str | None = None) -> Target:
    """The target `name` (checked: one line and exit 2 for what is wrong).
    `modules`, `userspace`: options a kernel brings (its descriptor, rtbench.kernels);
    `kernel_profile`: the profile a board's kernel is built in (profiles.py);
    `cycles`: False for --no-cycles (an emulated board without the cycle
    model, targets/cycles.py); `kernel_config`: the engineer's own kernel
    configuration on top of the profile (kernelconfig.py); `gdb`, `serial`: a
    real board of that kind loaded through a GDB server and read from its
    serial port (gdbboard.py)."""
    if kernel_config is not None and name not in BOARDS:
        raise RtbenchError("--kernel-config is for an RTOS built by rtbench on an emulated "
                           "board (--target " + " or ".join(BOARDS) + ")")
    if gdb is not None or serial is not None:
        return _gdb_board(name, kernel, kernel_src, kernel_profile, gdb, serial, kernel_config)
    if not cycles and name not in BOARDS:
        raise RtbenchError("--no-cycles is for an emulated board (--target mps2-an385 or "
                           "mps2-an386): only there does rtbench estimate cycles")
    if name not in BOARDS and (modules is not None or userspace):
        dest = "modules" if modules is not None else "userspace"
        raise RtbenchError(f"{kernels.flag_of(dest)} is for --kernel "
                           f"{' or '.join(kernels.taking(dest))} on an emulated board (--target "
                           "mps2-an385)")
    if name == HOST and kernel_profile is not None:
        raise RtbenchError("--kernel-profile is for an RTOS on a board target (--target "
                           "mps2-an385 or mps2-an386)")
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

        return LabgridTarget(env, place, kernel, kernel_src, kernel_profile)
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
        from rtbench.targets.qemu import QemuTarget

        if harness is not None:
            raise RtbenchError("--harness is for the host target")
        from rtbench.targets.cycles import BoardCycles

        k = kernels.resolve(kernel, kernel_src, profiles.check(kernel_profile), modules,
                            userspace)
        k.descriptor.board_name(k, name)  # before anything is built: can it run there?
        if kernel_config is not None:
            from rtbench.targets import kernelconfig

            k = kernelconfig.apply(k, kernel_config)
        return QemuTarget(name, k, BoardCycles if cycles else None)
    raise RtbenchError(f"unknown target {name!r} (one of: {', '.join(NAMES)})")


# The boards whose images a GDB server can load and start (their image
# reads its command line from RAM: boards/cortex-m/hostargs.c).
GDB_BOARDS = ("stm32f4",)


def _gdb_board(name: str, kernel: str | None, kernel_src: Path | None,
               kernel_profile: str | None, gdb: str | None, serial: str | None,
               kernel_config: Path | None = None) -> Target:
    if name not in GDB_BOARDS:
        raise RtbenchError(f"--gdb and --serial are for a board rtbench can load ({', '.join(GDB_BOARDS)}), "
                           f"not --target {name}")
    if gdb is None or serial is None:
        raise RtbenchError("--gdb HOST:PORT and --serial DEVICE go together (the server that "
                           "loads the board, the port its console is on)")
    from rtbench.targets.gdbboard import GdbBoardTarget, parse_gdb

    parse_gdb(gdb)  # before the kernel's sources are looked for: the first thing wrong
    k = kernels.resolve(kernel, kernel_src, profiles.check(kernel_profile))
    if kernel_config is not None:  # the engineer's own settings, on their own board too
        from rtbench.targets import kernelconfig

        k = kernelconfig.apply(k, kernel_config)
    return GdbBoardTarget(name, k, gdb, serial)


def supports(harness: Path | None, kernel_srcs: Sequence[Path] = (),
             say: Callable[[str], None] = lambda _text: None,
             clock: Callable[[], float] = time.monotonic
             ) -> tuple[dict[str, dict[str, tuple[bool, str]]], list[str]]:
    """What each target has code for (metric id -> (supported, why not)),
    by column of `rtbench list --coverage`: this host's harness (built if
    need be), then each board with each kernel whose checkout is given
    (or named by its environment variable); and why a column is left out
    (no sources, no emulator). Before the boards, `say` hears which columns
    build an image (unless cached) and roughly how long that takes, from a
    measured figure (buildtimes); then each column as it starts ("[2/4]")
    and ends, with its time (`clock`)."""
    from rtbench.targets import buildtimes
    from rtbench.targets import harness as harness_mod

    say(f"{HOST_COLUMN}: asking this machine's harness what it supports")
    columns = {HOST_COLUMN: harness_mod.registry_support(harness_mod.executable(harness))}
    notes: list[str] = []
    planned: list[tuple[str, Target]] = []
    for board in BOARDS:
        for spec in kernels.all():
            src = next((d for d in kernel_srcs if spec.is_checkout(d)), None)
            # A kernel with a userspace variant twice: its kernel build, and its
            # userspace build (the .process, .k_to_u and .u_to_k rows, the system call)
            for userspace in spec.columns():
                title = f"{spec.title}{' (userspace)' if userspace else ''} ({board})"
                try:
                    planned.append((title, make(board, spec.name, src, userspace=userspace)))
                except RtbenchError as exc:
                    _left_out(notes, spec.title, exc)
    times = buildtimes.load()
    guesses = [buildtimes.estimate(title, times) for title, _t in planned]
    if planned:
        hows = list(dict.fromkeys(how for _s, how in guesses))
        say(f"{len(planned)} board column(s) next: {', '.join(t for t, _x in planned)}; each "
            "builds its image with CMake unless an earlier run cached it, then boots it under "
            f"QEMU: up to about {buildtimes.duration(sum(s for s, _h in guesses))} in all "
            f"({'; '.join(hows)}); a cached image takes seconds")
    for i, ((title, target), (guess, _how)) in enumerate(zip(planned, guesses), 1):
        step = f"[{i}/{len(planned)}] {title}"
        say(f"{step}: its image (a build takes about {buildtimes.duration(guess)}), booted "
            "under QEMU for what it supports")
        built: list[str] = []
        start = clock()
        try:
            with harness_mod.announcing(lambda text: (built.append(text), say(text))[1]):
                target.prepare()
                columns[title] = target.registry()
        except RtbenchError as exc:
            _left_out(notes, title.split(" (")[0], exc)
            say(f"{step}: left out ({exc})")
            continue
        finally:
            target.close()  # its scratch folder (an STM32F4 boot's command-line file)
        took = clock() - start
        if built:
            buildtimes.save(title, took)
        say(f"{step}: done in {buildtimes.duration(took)}"
            + (" (built)" if built else " (its image was cached)"))
    return columns, notes


def _left_out(notes: list[str], kernel: str, exc: RtbenchError) -> None:
    why = f"{kernel} columns left out: {exc}"
    if why not in notes:
        notes.append(why)


__all__ = ["HOST", "BOARDS", "LABGRID", "NAMES", "HOST_COLUMN", "Instance", "Target", "make",
           "supports"]
