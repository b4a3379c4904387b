"""A board in a lab, through labgrid: `rtbench run --target labgrid --env
ENV.yaml [--place NAME]`.

The environment file is labgrid's own. Its target for the place names the
drivers rtbench uses, and rtbench uses nothing else:

* a console (ConsoleProtocol: a SerialDriver on the place's serial port,
  usually a NetworkSerialPort that the lab's exporter publishes from ser2net),
* power (PowerProtocol: ExternalPowerDriver, NetworkPowerDriver, ...),
* a way in for the image (BootstrapProtocol: OpenOCDDriver on a debug probe,
  or any flasher driver of the lab),

or a QEMUDriver, which is all three for an emulated board run by labgrid on
this machine. A target with a RemotePlace is a place of the coordinator:
rtbench acquires it first and releases it at the end, whatever happens.

The image is built for the place's board and kernel (the place's tags
`board` and `kernel`, else the target's options `rtbench_board` and
`rtbench_kernel`, else `--kernel`) and handed over the labgrid way: set as the
environment's image `rtbench` and loaded through the BootstrapProtocol
driver (or booted by QEMUDriver as its `kernel`). The harness command line
reaches it in one of two ways. Under QEMUDriver it goes through semihosting
(`-append`, QEMUDriver's `boot_args`), as for `--target mps2-an385`. A
flashed board has no host to ask, so the line is built into the image
(`RTB_FREERTOS_ARGS`): every start of the harness (the listing, the run,
each restart after the watchdog) builds the image again with its own line
(a fraction of a second: one file recompiles) and flashes it. A start is a
power cycle: off, load, on. The console is read from before power-on; an
instance ends at the harness's `end` record, at the board's fault report,
or when the console closes.

A place of a board rtbench loads through a GDB server (the STM32F4) that
publishes one (a NetworkService) and the board's serial port needs no
driver: it runs as `--target stm32f4 --gdb HOST:PORT --serial DEVICE`
(gdbboard.py, labgdb.py), the place acquired and released as above.
"""

from __future__ import annotations

import datetime as dt
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import rtbench
from rtbench.errors import HarnessError, RtbenchError
from rtbench.process import lifetime
from rtbench import kernels
from rtbench.targets import harness, labgdb, labplace, profiles, sysinfo
from rtbench.targets.base import Instance, Target
from rtbench.targets.console import CLOSED, ENDED, FAULT, STOPPED, Lines, LinesInstance
from rtbench.targets.qemu import BOARDS, CC, ICOUNT_SHIFT, PACKAGES, first_line, image_size

IMAGE_KEY = "rtbench"          # the environment's images: entry rtbench fills in
CONSOLE_TIMEOUT = 30.0         # s: power-on to the listing's first byte (rtbench_console_timeout)
READ_SLICE = 0.2               # s: one console read, so a stop is seen quickly
CHUNK = 4096                   # bytes: one console read returns at most this, sooner at READ_SLICE
_WORDS = {FAULT: "the board reported a fault on its console",
          CLOSED: "the board's console closed", STOPPED: "stopped by rtbench"}
_QEMU_FLAGS = ("-no-reboot", "-semihosting-config enable=on,target=native",
               f"-icount shift={ICOUNT_SHIFT},align=off,sleep=off")


class LabgridTarget(Target):
    name = "labgrid"

    def __init__(self, env_file: Path, place: str | None, kernel: str | None,
                 kernel_src: Path | None, kernel_profile: str | None = None):
        labplace.require_labgrid()
        self.env_file, self.asked_place = Path(env_file), place
        self.kernel_name, self.kernel_src = kernel, kernel_src
        self.kernel_profile = kernel_profile
        self.env = self.lg = self.coordinator = None
        self.place: str | None = None
        self.role = ""
        self.tags: dict[str, str] = {}
        self.console = self.power = self.loader = self.qemu = None
        self.gdb = None  # a gdbboard.GdbBoardTarget: a place loaded through its GDB server
        self.powered = False
        self.work: Path | None = None
        self.base_image: Path | None = None
        self.image_size: dict[str, int] = {}
        self.exit_status: int | None = None
        self._registry: dict[str, tuple[bool, str]] = {}
        self._on_death: list[str] = []  # lifetime.at_death tokens: the place given back

    # ---- Target ----

    def prepare(self) -> None:
        """Load the environment, acquire the place, set up its drivers, build
        the image and list the metrics on the board (one power cycle)."""
        if self.env is not None:
            return
        self.env = labplace.load_environment(self.env_file, self.asked_place)
        self.role, self.place = labplace.pick_role(self.env, self.env_file, self.asked_place)
        if self.place is not None:
            self.coordinator = labplace.Coordinator(
                labplace.coordinator_address(self.env.config), self.env)
            self.tags = dict(self.coordinator.place(self.place).tags)
        self.board_name = self._setting("board", None)
        if self.board_name not in BOARDS:
            raise RtbenchError(f"{self._where()}: board {self.board_name!r} is not one rtbench "
                               f"builds for ({', '.join(BOARDS)}); set the place's tag board=... "
                               "or the target's option rtbench_board")
        self.board = BOARDS[self.board_name]
        name = self._setting("kernel", self.kernel_name)
        d = kernels.get(name) if name is not None else None
        if d is not None and not d.lab:  # its image is its own project's build
            carried = " or ".join(k.title for k in kernels.all() if k.lab)
            raise RtbenchError(f"{self._where()}: {d.title} runs on the emulated boards (--target "
                               "mps2-an385) and on a board of its own through --board; a "
                               f"labgrid place carries {carried}")
        self.kernel = kernels.resolve(name, self.kernel_src, profiles.check(self.kernel_profile))
        if shutil.which(CC) is None:
            raise RtbenchError(f"{CC} not found: install {PACKAGES[CC]} "
                               "(as root: RTBENCH_EMBEDDED=1 ./scripts/setup.sh)")
        if self.place is not None:  # everything that can be checked without it was
            self.tags = dict(self.coordinator.acquire(self.place).tags)
            self._on_death = self._give_back_commands()
            self.coordinator.attach()
        self._setup_drivers()
        if self.gdb is not None:  # it builds the image, lists and loads it (gdbboard.py)
            self._registry = self.gdb.registry()
            return
        self._build_base()
        self._registry = self._list()

    def registry(self) -> dict[str, tuple[bool, str]]:
        self.prepare()
        return self._registry

    def start(self, args: list[str]) -> Instance:
        self.prepare()
        if self.gdb is not None:
            return self.gdb.start(args)
        image = self._image_for(args)
        self.env.config.data.setdefault("images", {})[IMAGE_KEY] = str(image)
        self.exit_status = None
        if self.qemu is not None:
            self._qemu_on(args)
        else:
            self._boot(image)
        return LabgridInstance(self)

    def _boot(self, image: Path) -> None:
        """Load the image, then power the board on with the console already
        open, so its first line is read. A board whose flasher needs it
        powered (a debug probe: the target option rtbench_flash_powered) is
        switched on to be flashed, then power-cycled to boot from reset."""
        if _true(self._setting("flash_powered", False)):
            if not self.powered:
                self._call(self.power.on, what="power on")
                self.powered = True
            self._call(self.loader.load, str(image), what="load the image")
        else:
            self._power_off()
            self._call(self.loader.load, str(image), what="load the image")
        self._power_off()
        _drain(self.console)
        self._call(self.power.on, what="power on")
        self.powered = True

    def describe(self) -> dict[str, Any]:
        from labgrid import __version__ as labgrid_version

        lab = {"place": self.place or "", "role": self.role, "env": str(self.env_file.resolve()),
               "coordinator": self.coordinator.address if self.coordinator else "",
               "acquired_by": self.coordinator.me if self.coordinator else "",
               "tags": self.tags, "labgrid": labgrid_version,
               "console": _driver_words(self.console), "power": _driver_words(self.power),
               "loader": _driver_words(self.loader),
               "command_line": "semihosting (QEMUDriver boot_args, -append)" if self.qemu
               else f"built into the image ({self.kernel.args_var})"}
        return {
            "target": f"labgrid:{self.place or self.role}",
            "target_kind": "emulator",  # every board rtbench builds for is emulated today
            "board": self.board["title"], "cpu_model": self.board["cpu"],
            "place": self.place or self.role, "labgrid": lab,
            "os": self.kernel.title, "kernel_version": self.kernel.version,
            "kernel_profile": self.kernel.profile,
            "kernel_src": str(self.kernel.src),
            "emulator": self._emulator(),
            "icount": f"shift={ICOUNT_SHIFT} ({2 ** ICOUNT_SHIFT} ns of virtual time per guest "
                      "instruction; the image is built for it)",
            "cross_compiler": first_line([CC, "--version"]),
            "image": str(self.base_image) if self.qemu else
            f"{self.elf}, built per start with its command line (image size: the listing's)",
            "image_size": self.image_size,
            "runner_host": f"{sysinfo.cpu_model()}, {platform.system()} {platform.release()} "
                           "(drives the place through labgrid; does not affect the figures)",
            "hostname": socket.gethostname(),
            "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "rtbench_version": rtbench.__version__,
            "git_revision": sysinfo.git_revision(),
        } if self.gdb is None else {
            **self.gdb.describe(), "target": f"labgrid:{self.place or self.role}",
            "place": self.place or self.role,
            "labgrid": {**lab, "console": self.gdb.serial_url, "power": "",
                        "loader": f"GDB server at {self.gdb.host}:{self.gdb.port} "
                                  "(NetworkService)",
                        "command_line": "written into the image's RAM by the GDB loader"}}

    def source_hash(self) -> str:
        return harness.source_hash(harness.source_dir())

    def close(self) -> None:
        """Power off, let go of every driver, release the place. Never raises."""
        problems = []
        if self.gdb is not None:
            self.gdb.close()
        for step in (self._power_off, self._cleanup_target):
            try:
                step()
            except Exception as exc:  # keep going: the place must be released
                problems.append(str(exc))
        if self.coordinator is not None:
            problems.append(self.coordinator.release())
            self.coordinator.close(self.lg)
            self.coordinator = None
        for token in self._on_death:  # given back: the guard need not
            lifetime.cancel(token)
        self._on_death = []
        if self.work is not None:
            shutil.rmtree(self.work, ignore_errors=True)
            lifetime.untrack_dir(self.work)
            self.work = None
        for text in filter(None, problems):
            print(f"rtbench: warning: {text}", file=sys.stderr, flush=True)

    def _give_back_commands(self) -> list[str]:
        """What rtbench's guard runs if rtbench dies holding the place
        (SIGKILL: no `close`): the board switched off through the place's
        power driver, then the place released, each with labgrid-client as
        this user on this host, the way a user would by hand."""
        client = shutil.which("labgrid-client") or str(Path(sys.executable).parent /
                                                       "labgrid-client")
        base = [client, "-x", self.coordinator.address, "-p", self.place]
        env = {"LG_PLACE": self.place}
        return [lifetime.at_death([*base[:3], "-c", str(self.env_file.resolve()), *base[3:],
                                   "power", "off"], env),
                lifetime.at_death([*base, "release"], env)]

    # ---- drivers ----

    def _setup_drivers(self) -> None:
        from labgrid.exceptions import NoDriverFoundError

        try:
            self.lg = self.env.get_target(self.role)
        except Exception as exc:
            raise RtbenchError(f"{self._where()}: labgrid could not set up its target: "
                               f"{labplace.one_line(exc)}") from exc
        if BOARDS[self.board_name].get("args_in_ram"):
            address = labgdb.gdb_address(self.lg)
            if address is not None:
                from rtbench.targets.gdbboard import GdbBoardTarget

                self.gdb = GdbBoardTarget(self.board_name, self.kernel, address,
                                          labgdb.serial_url(self.lg))
                return
        try:
            self.qemu = self.lg.get_driver("QEMUDriver", activate=False)
        except NoDriverFoundError:
            self.qemu = None
        if self.qemu is not None:
            self.console = self.power = self.loader = self.qemu
            self._check_qemu()
            _guard_qemu_driver()
            return
        found = {}
        for proto, what in (("ConsoleProtocol", "a console (SerialDriver)"),
                            ("PowerProtocol", "power (ExternalPowerDriver, NetworkPowerDriver…)"),
                            ("BootstrapProtocol", "a way to load the image (OpenOCDDriver…)")):
            try:
                found[proto] = self.lg.get_driver(proto, activate=False)
            except NoDriverFoundError as exc:
                raise RtbenchError(f"{self._where()}: its labgrid target has no driver for "
                                   f"{what}, nor a QEMUDriver") from exc
        self.console, self.power, self.loader = found.values()
        for drv in found.values():
            self._call(self.lg.activate, drv, what=f"activate {type(drv).__name__}")

    def _check_qemu(self) -> None:
        q = self.qemu
        if q.machine != self.board["machine"]:
            raise RtbenchError(f"{self._where()}: QEMUDriver machine {q.machine!r} is not "
                               f"{self.board['machine']!r}, the board {self.board_name}")
        extra = q.extra_args or ""
        if "-icount" in extra and f"shift={ICOUNT_SHIFT}," not in extra:
            raise RtbenchError(f"{self._where()}: QEMUDriver extra_args has another -icount; "
                               f"the image is built for {_QEMU_FLAGS[-1]}")
        for flag in _QEMU_FLAGS:  # what the image needs: its clock, its exit, its command line
            if flag.split()[0] not in extra:
                extra = f"{extra} {flag}".strip()
        q.extra_args, q.kernel = extra, IMAGE_KEY

    def _qemu_on(self, args: list[str]) -> None:
        self.qemu.boot_args = " ".join(args)
        self._call(self.lg.activate, self.qemu, what="start QEMU")
        if getattr(self.qemu, "_tempdir", None):  # its console's socket, made by labgrid
            lifetime.track_dir(Path(self.qemu._tempdir))
        sock = getattr(self.qemu, "_socket", None)
        if sock is not None:  # labgrid waits for QEMU's console for ever; a QEMU that fails
            sock.settimeout(30)  # to start (a bad option) would hang rtbench with it
        self.powered = True  # from here on a QEMU may run: _power_off reaps it
        self._call(self.qemu.on, what="start QEMU")

    def _power_off(self) -> None:
        if not self.powered:
            return
        self.powered = False
        if self.qemu is None:
            self._call(self.power.off, what="power off")
            return
        # The image ends QEMU itself (semihosting exit), often while labgrid's
        # off() asks it to quit over QMP: that race is not an error. QEMU's
        # exit status is the image's.
        child = getattr(self.qemu, "_child", None)
        try:
            if child is None or child.poll() is None:
                self.qemu.off()
        except Exception:
            if child is None:
                raise
        if child is not None:
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                lifetime.end(child)  # QEMU's group: it has its own (_guard_qemu_driver)
            lifetime.forget(child)
            self.exit_status = child.returncode
        self.qemu.status = 0  # labgrid's own record that QEMU is off
        tempdir = getattr(self.qemu, "_tempdir", None)
        self.lg.deactivate(self.qemu)
        if tempdir:
            lifetime.untrack_dir(Path(tempdir))

    def _cleanup_target(self) -> None:
        if self.lg is not None:
            self.lg.cleanup()

    def _call(self, fn, *args, what: str):
        """A labgrid call; its failure is one line: before the run exists a
        usage error (exit 2), during it a harness error (the run is kept, failed)."""
        try:
            return fn(*args)
        except RtbenchError:
            raise
        except Exception as exc:
            cls = HarnessError if self._registry else RtbenchError
            raise cls(f"{self._where()}: could not {what}: {labplace.one_line(exc)}") from exc

    # ---- image and listing ----

    def _build_base(self) -> None:
        """QEMUDriver boots one image for every start; a flashed board gets
        its own per start (_image_for), the first one at the listing."""
        self.work = Path(tempfile.mkdtemp(prefix="rtbench-labgrid-"))
        lifetime.track_dir(self.work)  # removed by the guard if rtbench is killed
        self.defs = {**dict(self.kernel.cmake_defs), "RTB_ICOUNT_SHIFT": str(ICOUNT_SHIFT)}
        self.elf = f"rtbench-{self.kernel.name}-{self.board_name}.elf"
        if self.qemu is not None:
            self.base_image = harness.build_image(self.kernel.name, self.board_name, self.defs,
                                                  self.elf)
            self.image_size = image_size(self.base_image)

    def _image_for(self, args: list[str]) -> Path:
        if self.qemu is not None:
            return self.base_image
        line = " ".join(["rtbench-harness", *args])
        if any(c in line for c in '"\\;\n'):
            raise HarnessError(f"a harness command line built into an image cannot hold "
                               f"quotes, backslashes or semicolons: {line}")
        image = harness.build_image(self.kernel.name, self.board_name, self.defs, self.elf,
                                    variable={self.kernel.args_var: line},
                                    copy_to=self.work / self.elf)
        if self.base_image is None:
            self.base_image, self.image_size = image, image_size(image)
        return image

    def _list(self) -> dict[str, tuple[bool, str]]:
        """`--list` on the board: its registry. A console that stays silent
        after power-on is a one-line error."""
        from rtbench.store import records

        limit = float(self._setting("console_timeout", CONSOLE_TIMEOUT))
        inst = self.start(["--list"])
        inst.lines.silence = limit
        got: dict[str, tuple[bool, str]] = {}
        heard: list[str] = []
        try:
            for line in inst.stdout:
                heard.append(line.strip())
                rec = records.parse_line(line)
                if rec and rec["type"] == "registry":
                    got[rec["id"]] = records.registry_entry(rec)
        finally:
            inst.kill()
        if inst.lines.ended == ENDED and got:
            return got
        if not any(heard):
            raise RtbenchError(f"{self._where()}: the console said nothing within {limit:g} s of "
                               "power-on (is the board flashed, powered and on that serial port?)")
        last = next((h for h in reversed(heard) if h), "")
        raise RtbenchError(f"{self._where()}: the board did not finish listing its metrics "
                           f"({self._ended_words(inst.lines.ended)}); last line: {last[:160]}")

    # ---- helpers ----

    def _setting(self, name: str, default):
        """A place's tag, else the environment target's option rtbench_<name>."""
        if name in self.tags:
            return self.tags[name]
        cfg = self.env.config.get_targets().get(self.role) or {}
        return (cfg.get("options") or {}).get(f"rtbench_{name}", default)

    def _where(self) -> str:
        return f"place {self.place}" if self.place else f"labgrid target {self.role}"

    def _emulator(self) -> str:
        if self.qemu is not None:
            return first_line([self.env.config.get_tool(self.qemu.qemu_bin), "--version"])
        return f"QEMU run by the lab for {self._where()} (its version is not reported here)"

    def _ended_words(self, ended: int | None) -> str:
        return {None: "silent", ENDED: "ended"}.get(ended, _WORDS.get(ended, f"status {ended}"))


class LabgridInstance(LinesInstance):
    """One start of the harness on the place: its console's lines as stdout.
    kill() stops reading, then powers the board off (labgrid's calls are not
    thread-safe: they never overlap)."""

    def __init__(self, owner: LabgridTarget):
        self.proc = None
        self.owner = owner
        self.lines = ConsoleLines(owner.console, owner.qemu is not None)
        self._rc: int | None = None

    def kill(self) -> int:
        if self._rc is None:
            self.lines.stop()
            try:
                self.owner._power_off()
            finally:
                ended = self.lines.ended if self.lines.ended is not None else STOPPED
                status = self.owner.exit_status
                self._rc = status if ended == CLOSED and status is not None else ended
        return self._rc

    def describe_exit(self, rc: int) -> str:
        if rc in _WORDS:
            return _WORDS[rc]
        return f"the image exited with status {rc}" if rc >= 0 else super().describe_exit(rc)


class ConsoleLines(Lines):
    """A labgrid console's bytes as text lines (console.Lines); with
    `eof_on_empty` (labgrid's QEMUDriver) an empty read means QEMU exited."""

    def __init__(self, console, eof_on_empty: bool):
        super().__init__()
        self.console, self.eof_on_empty = console, eof_on_empty

    def _chunk(self) -> bytes | None:
        from pexpect import TIMEOUT

        try:
            # Whole blocks: a network serial port answers a 1-byte read
            # with one byte (pyserial's socket:// in_waiting is 0 or 1).
            data = self.console.read(size=CHUNK, timeout=READ_SLICE, max_size=CHUNK)
        except TIMEOUT:
            return b""
        if not data and self.eof_on_empty:  # QEMUDriver: QEMU has exited
            self.ended = CLOSED
            return None
        return data


class _GuardedSubprocess:
    """labgrid's QEMUDriver starts QEMU with `subprocess.Popen`, in rtbench's
    own process group and unknown to rtbench's guard: a SIGKILL of rtbench
    left it running. Its module sees this instead of `subprocess`: Popen is
    rtbench.process.lifetime.popen (a session of its own, registered with
    the guard the moment it exists), everything else the real module."""

    Popen = staticmethod(lifetime.popen)

    def __getattr__(self, name: str):
        return getattr(subprocess, name)


def _guard_qemu_driver() -> None:
    from labgrid.driver import qemudriver

    if not isinstance(qemudriver.subprocess, _GuardedSubprocess):
        qemudriver.subprocess = _GuardedSubprocess()


def _true(value) -> bool:
    return value is True or str(value).lower() in ("1", "true", "yes", "on")


def _drain(console, quiet: float = 0.1, limit: float = 2.0) -> None:
    """Drop what the console still holds from before this start."""
    from pexpect import TIMEOUT

    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            if not console.read(size=CHUNK, timeout=quiet, max_size=CHUNK):
                return
        except TIMEOUT:
            return


def _driver_words(drv) -> str:
    if drv is None:
        return ""
    words = type(drv).__name__
    for res in getattr(drv, "get_bound_resources", lambda: [])():
        host, port = getattr(res, "host", None), getattr(res, "port", None)
        where = f" {host}:{port}" if host and port else f" {port}" if port else ""
        words += f" on {type(res).__name__}{where}"
    return words

