"""A real board loaded through any GDB server and read from its serial port:
`rtbench run --target stm32f4 --kernel K --gdb HOST:PORT --serial DEVICE`.

Each start of the harness (the metric list, the run, a restart after a
metric that failed) is one batch `gdb-multiarch`: connect to the server
(OpenOCD, pyOCD, J-Link's, st-util, QEMU's -gdb), `load` the image (the
server writes the flash), `restore` the harness's command line into the
image's RAM buffer `rtb_board_args` (in .noinit: start-up leaves it), set
$sp and $pc from the vector table, `continue`. Nothing server-specific
(no monitor command), so the same steps serve every probe. The board has
no semihosting host: the block tells the image so ("nohost"), and the
image then makes no semihosting call (boards/cortex-m/hostargs.c). The
block and the words are those QEMU's `-kernel` boot of the same image
writes (boardargs.py, qemu.py; the stamp log on the USART the console
leaves free: boards/stm32f4/stamplog_usart.c), so both start-ups run the
same instructions and measure the same figures.

The records are read from the serial port with pyserial
(`serial.serial_for_url`: a device path, or `socket://HOST:PORT` for a
network serial port such as QEMU's `-serial tcp:...`) until the harness's
end record; the port is opened before GDB starts so that nothing printed
is lost. GDB is rtbench's child (rtbench.process.lifetime), killed when
the end record arrives or the runner's watchdog gives up; a partial run is
kept and marked by the runner as on every target. The board is left
running its image's end loop (interrupts masked).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import platform
import re
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import rtbench
from rtbench.errors import HarnessError, RtbenchError
from rtbench.process import lifetime
from rtbench.store import records
from rtbench.targets import boardargs, harness, sysinfo
from rtbench.targets.base import Instance, Target
from rtbench.targets.console import CLOSED, ENDED, STOPPED, Lines, LinesInstance
from rtbench.kernels import Kernel
from rtbench.targets.qemu import (BOARDS, CC, PACKAGES, PROGRAM_NAME, STAMP_LOG, QemuTarget,
                                  first_line)

GDB = "gdb-multiarch"
BAUD = 115200                  # the image's console (boards/stm32f4/console.c)
READ_SLICE = 0.2               # s: one serial read, so a stop is seen quickly
CHUNK = 4096
LIST_TIMEOUT = 120.0           # s: load and the metric list (flash writes are slow)
LOADER_FAILED = 73             # the loader (GDB) ended before the harness's end record
_WORDS = {LOADER_FAILED: "the GDB loader failed (its last line is in the run's log)",
          CLOSED: "the board's serial port closed", STOPPED: "stopped by rtbench"}


def parse_gdb(address: str) -> tuple[str, int]:
    """HOST:PORT of a GDB server (one line and exit 2 for anything else)."""
    m = re.fullmatch(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]*):(\d{1,5})", address or "")
    if not m or not 0 < int(m[2]) < 65536:
        raise RtbenchError(f"--gdb {address!r}: not HOST:PORT (e.g. localhost:3333)")
    return m[1] or "localhost", int(m[2])


class GdbBoardTarget(Target):
    slowdown = 1.0

    def __init__(self, board: str, kernel: Kernel, gdb: str, serial_url: str):
        if not kernel.descriptor.gdb:
            from rtbench import kernels

            ours = " and ".join(k.title for k in kernels.all() if k.gdb)
            raise RtbenchError(f"--gdb: {ours} images ({kernel.title}: "
                               f"{kernel.descriptor.elsewhere})")
        if not serial_url:
            raise RtbenchError("--gdb needs --serial DEVICE (the board's console: /dev/ttyACM0, "
                               "or socket://HOST:PORT)")
        self.name = board
        self.board = BOARDS[board]
        self.kernel = kernel
        self.host, self.port = parse_gdb(gdb)
        self.serial_url = serial_url
        # The image is the one `--target stm32f4` boots under QEMU, built the same way.
        self._build = QemuTarget(board, kernel, None)
        self.image: Path | None = None
        self.args_at = 0
        self.args_size = 0
        self._scratch: Path | None = None

    # ---- Target ----

    def prepare(self) -> None:
        for tool, pkg in ((GDB, "gdb-multiarch"), (CC, PACKAGES[CC])):
            if shutil.which(tool) is None:
                raise RtbenchError(f"{tool} not found: install {pkg} (Debian)")
        try:
            import serial  # noqa: F401  (pyserial: a dependency of rtbench)
        except ImportError as exc:
            raise RtbenchError("pyserial is not installed: pip install pyserial") from exc
        self._build.prepare()
        self.image = self._build.image
        self.args_at, self.args_size = boardargs.symbol(self.image)

    def registry(self) -> dict[str, tuple[bool, str]]:
        inst = self.start(["--list"])
        got: dict[str, tuple[bool, str]] = {}
        deadline = time.monotonic() + LIST_TIMEOUT
        try:
            inst.lines.until = deadline
            for line in inst.stdout:
                rec = records.parse_line(line)
                if rec and rec["type"] == "registry":
                    got[rec["id"]] = (bool(rec.get("supported", True)), str(rec.get("reason", "")))
        finally:
            rc = inst.kill()
        if inst.lines.ended != ENDED:
            raise HarnessError(f"the board did not list its metrics: {inst.describe_exit(rc)}")
        return got

    def start(self, args: list[str]) -> Instance:
        import serial

        if self.image is None:
            self.prepare()
        block = self.args_block(args)
        work = self._workdir()
        (work / "args.bin").write_bytes(block)
        try:
            port = serial.serial_for_url(self.serial_url, baudrate=BAUD, timeout=READ_SLICE)
        except (serial.SerialException, ValueError, OSError) as exc:
            raise HarnessError(f"--serial {self.serial_url}: {exc}") from exc
        port.reset_input_buffer()  # what an earlier run left unread is not this one's
        log = open(work / "gdb.log", "w")
        try:
            proc = lifetime.popen(self.gdb_command(work / "args.bin"), stdin=subprocess.DEVNULL,
                                  stdout=log, stderr=subprocess.STDOUT)
        except OSError as exc:
            port.close()
            raise HarnessError(f"cannot start {GDB}: {exc.strerror}") from exc
        finally:
            log.close()
        return GdbInstance(proc, SerialLines(port, proc), work / "gdb.log")

    def args_block(self, args: list[str]) -> bytes:
        """What `restore` writes: a measuring start logs its stamps as
        QemuTarget.start's does, the same words, so the same instructions
        (the board drops the log: boards/stm32f4/stamplog_usart.c)."""
        extra = [] if "--list" in args else ["--stamp-log", STAMP_LOG]
        return boardargs.block([PROGRAM_NAME, *args, *extra], self.args_size)

    def gdb_command(self, args_file: Path) -> list[str]:
        """Load, the command line into its buffer, SP and PC from the vector
        table at the start of flash, run: what every GDB server does."""
        table = 0x08000000  # the STM32F4's flash, where the image's table is linked
        return [GDB, "-q", "-nx", "-batch",
                "-ex", "set confirm off", "-ex", "set pagination off",
                "-ex", f"target extended-remote {self.host}:{self.port}",
                "-ex", "load",
                "-ex", f"restore {args_file} binary {self.args_at:#x}",
                "-ex", f"set $sp = *(unsigned int *){table:#x}",
                "-ex", f"set $pc = *(unsigned int *){table + 4:#x}",
                "-ex", "continue", str(self.image)]

    def _workdir(self) -> Path:
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="rtbench-gdb-"))
            lifetime.track_dir(self._scratch)
        return self._scratch

    def close(self) -> None:
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            lifetime.untrack_dir(self._scratch)
            self._scratch = None

    def describe(self) -> dict[str, Any]:
        image = self.image
        return {
            "target": self.name,
            "target_kind": "board",
            "board": f"{self.board['title'].split(', emulated')[0]}, loaded through the GDB "
                     f"server at {self.host}:{self.port}, console on {self.serial_url}",
            "cpu_model": self.board["cpu"],
            "os": self.kernel.os_name,
            "kernel_version": self.kernel.version,
            "kernel_profile": self.kernel.profile,
            "kernel_src": str(self.kernel.src),
            "loader": first_line([GDB, "--version"]),
            "cross_compiler": first_line([CC, "--version"]),
            "image": str(image) if image else "",
            # the image's identity: this run calibrates the cycle model of an emulated run
            # of the same file (sheets/calibration.py)
            "image_sha256": hashlib.sha256(image.read_bytes()).hexdigest() if image else "",
            "runner_host": f"{sysinfo.cpu_model()}, {platform.system()} {platform.release()} "
                           "(loads the board and reads its console; does not affect the figures)",
            "hostname": socket.gethostname(),
            "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "rtbench_version": rtbench.__version__,
            "git_revision": sysinfo.git_revision(),
        }

    def source_hash(self) -> str:
        return harness.source_hash(harness.source_dir())


class SerialLines(Lines):
    """The serial port's bytes as lines (console.Lines), ending as well when
    the loader exits before the harness's end record, or at `until` (a
    monotonic deadline) if set."""

    def __init__(self, port, loader: subprocess.Popen):
        super().__init__()
        self.port, self.loader = port, loader
        self.until: float | None = None

    def _chunk(self) -> bytes | None:
        if self.until is not None and time.monotonic() > self.until:
            self.ended = STOPPED
            return None
        data = self.port.read(CHUNK)
        if not data and self.loader.poll() is not None:
            self.ended = LOADER_FAILED  # GDB gave up (no server, a failed load)
            return None
        return data

    def close(self) -> None:
        self.stop()
        self.port.close()


class GdbInstance(LinesInstance):
    """One start: GDB (the process the lifetime guard watches) and the
    serial port's lines as stdout."""

    def __init__(self, proc: subprocess.Popen, lines: SerialLines, log: Path):
        super().__init__(proc)
        self.lines = lines
        self.log = log
        self._rc: int | None = None

    def kill(self) -> int:
        if self._rc is None:
            self.lines.close()
            lifetime.end(self.proc)
            self._rc = self.lines.ended if self.lines.ended is not None else STOPPED
        return self._rc

    def describe_exit(self, rc: int) -> str:
        if rc == LOADER_FAILED:
            tail = [ln for ln in self.log.read_text(errors="replace").splitlines() if ln.strip()]
            return f"the GDB loader failed: {tail[-1] if tail else 'no output'}"
        return _WORDS.get(rc, super().describe_exit(rc))
