"""A board emulated by QEMU: the harness image of an RTOS port, booted under
qemu-system-arm, its records read from the board's UART.

Under `-icount shift=N` QEMU's virtual clock advances 2^N ns per guest
instruction, so the board's timer counts instructions exactly and a run
repeats bit for bit; the figures are guest instructions (the image is
built for the same shift and says so in its records). The harness command
line reaches the image as its semihosting command line (`arg=`), or, on
a board rtbench also loads through a GDB server (the STM32F4), in its RAM
as the GDB loader puts it there (boardargs.py), so that both start-ups run
the same instructions; the image ends QEMU with semihosting
SYS_EXIT_EXTENDED carrying its exit status. A hung image is killed by the
runner's watchdog; the next instance is a fresh boot.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import platform
import re
import socket
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, Callable

import rtbench
from rtbench.errors import HarnessError, RtbenchError
from rtbench.process import lifetime
from rtbench.store import records
from rtbench.targets import boardargs, harness, sysinfo
from rtbench.targets.base import Instance, Target
from rtbench.kernels import Kernel

ICOUNT_SHIFT = 7  # the smallest shift at which every interval converts exactly (EMBEDDED.md)
# The MPS2 boards' counter (TIMER0, 25 MHz: 40 ns a tick) in ticks per
# guest instruction at that shift: a counter value names an instruction.
TICKS_PER_INSTRUCTION = 2 ** ICOUNT_SHIFT / 40
# QEMU's STM32F4 counts with TIM2 prescaled by 2^shift: one tick an instruction.
STM32_TICKS_PER_INSTRUCTION = 1.0
QEMU = "qemu-system-arm"
STAMP_LOG = "stamps.log"  # every measuring boot's stamp log, in QEMU's working directory
CC = "arm-none-eabi-gcc"

# What each emulated board is (QEMU machine, CPU, how its console reaches
# stdout, its counter's ticks per guest instruction) and what a missing
# tool is called in Debian. The STM32F4's console is USART2, QEMU's second
# serial port (the first is USART1; `-nographic` fails to start there).
# "args_in_ram": the image takes its command line from RAM (boardargs.py)
# and keeps its stamp log on the first -serial (boards/stm32f4/stamplog_usart.c).
MPS2_CONSOLE = ("-nographic",)
BOARDS = {
    "mps2-an385": {"machine": "mps2-an385", "cpu": "Cortex-M3",
                   "title": "Arm MPS2 AN385 (Cortex-M3, 25 MHz), emulated by QEMU",
                   "console": MPS2_CONSOLE, "ticks_per_instruction": TICKS_PER_INSTRUCTION},
    "mps2-an386": {"machine": "mps2-an386", "cpu": "Cortex-M4F",
                   "title": "Arm MPS2 AN386 (Cortex-M4F, 25 MHz), emulated by QEMU",
                   "console": MPS2_CONSOLE, "ticks_per_instruction": TICKS_PER_INSTRUCTION},
    "stm32f4": {"machine": "netduinoplus2", "cpu": "Cortex-M4F",
                "title": "STM32F4 (Cortex-M4F, 16 MHz HSI, 0 flash wait states), emulated by "
                         "QEMU's netduinoplus2 (an STM32F405)",
                "console": ("-display", "none", "-serial", "null", "-serial", "stdio"),
                "ticks_per_instruction": STM32_TICKS_PER_INSTRUCTION, "args_in_ram": True},
}
PACKAGES = {QEMU: "qemu-system-arm", CC: "gcc-arm-none-eabi libnewlib-arm-none-eabi"}


class QemuTarget(Target):
    def __init__(self, board: str, kernel: Kernel, cycles: Callable[..., Any] | None = None):
        self.name = board
        self.board = BOARDS[board]
        self.kernel = kernel
        self.image: Path | None = None
        # The cycle model (cycles.BoardCycles, docs/cycles.md), made by
        # prepare() and loaded into every measuring boot: targets.make
        # gives it unless --no-cycles (this module knows no plugin).
        self.cycles = cycles
        self._model: Any = None
        self._scratch: Path | None = None  # QEMU's working directory (its stamp log)

    @property
    def ticks_per_instruction(self) -> float:
        return float(self.board["ticks_per_instruction"])

    @property
    def slowdown(self) -> float:
        """QEMU runs the cycle model's plugin on every instruction: about
        1.4x its CPU time (docs/cycles.md); the watchdog allows twice."""
        return 2.0 if self.cycles is not None else 1.0

    # ---- Target ----

    def prepare(self) -> None:
        for tool in (QEMU, CC):
            if shutil.which(tool) is None:
                raise RtbenchError(f"{tool} not found: install {PACKAGES[tool]} "
                                   "(as root: RTBENCH_EMBEDDED=1 ./scripts/setup.sh)")
        if self.kernel.descriptor.own_project:  # the kernel's own CMake project
            self.image = harness.build_own_image(
                self.kernel, self.kernel.descriptor.board_name(self.kernel, self.name),
                {"RTB_ICOUNT_SHIFT": str(ICOUNT_SHIFT)})
        else:
            self.image = harness.build_image(self.kernel.name, self.name, self.image_defs(),
                                             f"rtbench-{self.kernel.name}-{self.name}.elf")
        if self.cycles is not None and self._model is None:
            self._model = self.cycles(self.name, self.image, self._workdir(), ICOUNT_SHIFT)

    def _workdir(self) -> Path:
        if self._scratch is None:
            import tempfile

            self._scratch = Path(tempfile.mkdtemp(prefix="rtbench-qemu-"))
            lifetime.track_dir(self._scratch)  # the guard removes it if rtbench is killed
        return self._scratch

    def image_defs(self) -> dict[str, str]:
        """The CMake options of this kernel's images on this board."""
        return {**dict(self.kernel.cmake_defs), "RTB_ICOUNT_SHIFT": str(ICOUNT_SHIFT)}

    def registry(self) -> dict[str, tuple[bool, str]]:
        inst = self.start(["--list"])
        try:
            out, err = inst.proc.communicate(timeout=60)
        except subprocess.TimeoutExpired as exc:
            inst.kill()
            raise HarnessError(f"the {self.name} image did not list its metrics within 60 s") from exc
        if inst.proc.returncode != 0:
            tail = (err.strip() or out.strip()).splitlines()[-1:] or [
                f"exit code {inst.proc.returncode}"]
            raise HarnessError(f"the {self.name} image failed to list its metrics: {tail[0]}")
        got: dict[str, tuple[bool, str]] = {}
        for line in out.splitlines():
            rec = records.parse_line(line)
            if rec and rec["type"] == "registry":
                got[rec["id"]] = records.registry_entry(rec)
        return got

    def start(self, args: list[str]) -> Instance:
        if self.image is None:
            self.prepare()
        cmd, cwd = self.command(args), None
        if "--list" not in args:
            # Every measuring boot logs its stamps, the cycle model loaded or
            # not: the harness's own work (and so where the kernel's tick
            # falls in each window) is the same either way, and the log's
            # name is the same words in every run (QEMU's working directory).
            cwd = self._workdir()
            cmd = with_args(cmd, ["--stamp-log", STAMP_LOG])
            if self._model is not None:
                cmd = self._model.command(cmd, cwd / STAMP_LOG)
        try:
            proc = lifetime.popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, bufsize=1, errors="replace")
        except OSError as exc:
            raise HarnessError(f"cannot start {QEMU}: {exc.strerror}") from exc
        return QemuInstance(proc)

    def command(self, args: list[str]) -> list[str]:
        # a board whose line goes into RAM gets it from a file (boot_command)
        work = self._workdir() if self.board.get("args_in_ram") else None
        return boot_command(self.name, self.image, args, work)

    def annotate(self, rec: dict[str, Any]) -> None:
        if self._model is not None:
            self._model.annotate(rec)

    def close(self) -> None:
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            lifetime.untrack_dir(self._scratch)
            self._scratch = None

    def describe(self) -> dict[str, Any]:
        image = self.image
        return {
            "target": self.name,
            "target_kind": "emulator",
            "board": self.board["title"],
            "cpu_model": self.board["cpu"],
            "os": self.kernel.os_name,
            "kernel_version": self.kernel.version,
            "kernel_profile": self.kernel.profile,
            "kernel_src": str(self.kernel.src),
            **self.kernel.descriptor.facts(self.kernel),
            "emulator": first_line([QEMU, "--version"]),
            "icount": f"shift={ICOUNT_SHIFT} ({2 ** ICOUNT_SHIFT} ns of virtual time per "
                      "guest instruction)",
            "cross_compiler": first_line([CC, "--version"]),
            "image": str(image) if image else "",
            "image_size": image_size(image) if image else {},
            # the image's identity: a run of the same file on a chip calibrates this one's model
            "image_sha256": hashlib.sha256(image.read_bytes()).hexdigest() if image else "",
            "cycle_model": (self._model.describe() if self._model is not None else
                            "not loaded (--no-cycles)"),
            "runner_host": f"{sysinfo.cpu_model()}, {platform.system()} "
                          f"{platform.release()} (runs QEMU; does not affect the figures)",
            "hostname": socket.gethostname(),
            "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "rtbench_version": rtbench.__version__,
            "git_revision": sysinfo.git_revision(),
        }

    def source_hash(self) -> str:
        return harness.source_hash(harness.source_dir())


def boot_command(board: str, image: Path, args: list[str] | None = None,
                 workdir: Path | None = None) -> list[str]:
    """The QEMU command line that boots `image` on `board`: headless, the
    board's console UART on stdout, semihosting for the command line (`args`) and the exit
    status, no reboot on a guest reset (a fault that resets the board ends
    QEMU instead), -icount at the shift every image is built for.

    The words reach the image as `-semihosting-config arg=`, never
    `-append`: with -append QEMU puts the image's path first, and the
    guest copies and parses every byte of it before the first metric, so
    the path's length moved where the kernel tick fell in each window (a
    checkout in another directory measured other figures).

    On an "args_in_ram" board they reach it as the GDB loader's block in
    the image's RAM buffer, loaded by `-device loader` (a file in
    `workdir`): QEMU writes such blobs at reset, after the image's own
    sections (the buffer is .noinit, which the ELF does not load)."""
    semi = "enable=on,target=native"
    loader: list[str] = []
    if args is not None and BOARDS[board].get("args_in_ram"):
        if workdir is None:
            raise ValueError(f"{board}: the command line goes in a file: a workdir is needed")
        loader = ["-device", _args_loader(image, [PROGRAM_NAME, *args], workdir)]
    elif args is not None:
        semi += "".join(f",arg={_opt(w)}" for w in [PROGRAM_NAME, *args])
    return [QEMU, "-M", BOARDS[board]["machine"], *BOARDS[board]["console"], "-monitor", "none",
            "-no-reboot", "-semihosting-config", semi, *loader,
            "-icount", f"shift={ICOUNT_SHIFT},align=off,sleep=off", "-kernel", str(image)]


def _args_loader(image: Path, words: list[str], workdir: Path) -> str:
    """`-device` loader of the words into the image's buffer (boardargs.py),
    with the tag that has the image end QEMU through semihosting. The file is
    named by its bytes, so a command made earlier keeps its own."""
    at, size = boardargs.symbol(image)
    data = boardargs.with_exit_tag(boardargs.block(words, size), size)
    path = Path(workdir) / f"args-{hashlib.sha256(data).hexdigest()[:16]}.bin"
    path.write_bytes(data)
    return f"loader,file={_opt(str(path.resolve()))},addr={at:#x},force-raw=on"


# The first word of the image's command line, in place of its path.
PROGRAM_NAME = "rtbench"


def _opt(word: str) -> str:
    """A word as the value of a QEMU option (its commas doubled)."""
    if not word or any(c.isspace() for c in word):
        raise ValueError(f"a harness argument must be one word: {word!r}")
    return word.replace(",", ",,")


def with_args(command: list[str], extra: list[str]) -> list[str]:
    """A boot_command with `extra` words after the harness's arguments. On
    an "args_in_ram" board a --stamp-log PATH among them also names the
    file QEMU saves the log's USART to (its first -serial)."""
    cmd = list(command)
    loaders = [i for i, w in enumerate(cmd) if w.startswith("loader,file=")]
    if not loaders:
        k = cmd.index("-semihosting-config") + 1
        cmd[k] += "".join(f",arg={_opt(w)}" for w in extra)
        return cmd
    k = loaders[0]
    opts = dict(o.split("=", 1) for o in cmd[k].replace(",,", "\0").split(",")[1:])
    path = Path(opts["file"].replace("\0", ","))
    image = Path(cmd[cmd.index("-kernel") + 1])
    cmd[k] = _args_loader(image, boardargs.words(path.read_bytes()) + list(extra), path.parent)
    if "--stamp-log" in extra:
        log = extra[extra.index("--stamp-log") + 1]
        cmd[cmd.index("-serial") + 1] = f"file:{log}"
    return cmd


class QemuInstance(Instance):
    """QEMU's exit status is the image's (semihosting SYS_EXIT_EXTENDED)."""

    # Wall time counts at this fraction of its rate beside QEMU's CPU time: a
    # QEMU that waits on nothing (a guest idle for ever, a stopped process)
    # burns no CPU and is still stopped, after WALL_FRACTION⁻¹ × --timeout.
    WALL_FRACTION = 0.125

    def __init__(self, proc: subprocess.Popen):
        super().__init__(proc)
        self._t0 = time.monotonic()

    def progress_s(self) -> float:
        """QEMU's CPU time (user + system, /proc/PID/stat): under -icount the
        guest's progress, whatever else the host runs (a metric that takes 20
        s of QEMU alone took over 60 s of a host loaded three times over, and
        the wall-clock watchdog killed it in one run of two); or wall time at
        WALL_FRACTION of its rate, if more."""
        wall = (time.monotonic() - self._t0) * self.WALL_FRACTION
        try:
            with open(f"/proc/{self.proc.pid}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            return time.monotonic()  # gone or unreadable: plain wall time
        cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return max(cpu, wall)

    def describe_exit(self, rc: int) -> str:
        if rc >= 0:
            return f"the image exited with status {rc}"
        return super().describe_exit(rc)


def first_line(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return (out.strip().splitlines() or ["unknown"])[0]


def image_size(image: Path) -> dict[str, int]:
    """text, data and bss of the image (arm-none-eabi-size, Berkeley format)."""
    try:
        out = subprocess.run(["arm-none-eabi-size", str(image)], capture_output=True,
                             text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    m = re.search(r"^\s*(\d+)\s+(\d+)\s+(\d+)", out, re.MULTILINE)
    return {"text": int(m[1]), "data": int(m[2]), "bss": int(m[3])} if m else {}
