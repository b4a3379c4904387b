"""A labgrid lab on localhost for the tests: a coordinator, an exporter and
emulated boards (rtbench.targets.emuboard: QEMU behind a console port, a
power switch and a flasher), with places created and tagged the way a lab's
administrator does it (labgrid-client). Every process it starts runs in its
own session and is killed with its group by stop(), which then checks that
none of them, nor any QEMU they started, is left.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

# Before labgrid.remote loads gRPC in this process: its fork handlers off, as
# rtbench has them (see rtbench.targets.labplace); the suite's later children
# would otherwise die of SIGABRT now and then.
import rtbench.targets.labplace  # noqa: F401,E402

BIN = Path(sys.executable).parent


def free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def wait_port(port: int, proc: subprocess.Popen, what: str, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on port {port} within {timeout:g} s")


class Lab:
    def __init__(self, root: Path):
        self.root = root
        self.procs: list[subprocess.Popen] = []
        self.boards: dict[str, dict] = {}
        self.gdb_boards: dict[str, int] = {}  # name: its GDB server's port
        self.coordinator = ""

    # ---- processes ----

    def _start(self, cmd: list[str], name: str, **kw) -> subprocess.Popen:
        log = open(self.root / f"{name}.log", "wb")
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                start_new_session=True, cwd=self.root, **kw)
        self.procs.append(proc)
        return proc

    def start(self, boards: list[str], mute: list[str] = (), gdb: list[str] = ()) -> "Lab":
        """A coordinator, an emulated board and a place per name in `boards`
        and in `mute` (a place whose console never speaks: the exporter
        publishes a port that accepts and stays silent), and per name in
        `gdb` an STM32F4 on a probe: QEMU's netduinoplus2 halted with its GDB
        server, published as a NetworkService beside its USART2 as a
        NetworkSerialPort (rtbench loads and reads it: labgdb.py)."""
        (cport,) = free_ports(1)
        self.coordinator = f"127.0.0.1:{cport}"
        coord = self._start([str(BIN / "labgrid-coordinator"), "-l", self.coordinator],
                            "coordinator")
        wait_port(cport, coord, "labgrid-coordinator")
        exported = []
        for name in [*boards, *mute]:
            console, control = free_ports(2)
            proc = self._start([sys.executable, "-m", "rtbench.targets.emuboard", "serve",
                                "--console", f"127.0.0.1:{console}", "--control",
                                f"127.0.0.1:{control}", "--dir", str(self.root / name)], name)
            wait_port(control, proc, f"emulated board {name}")
            self.boards[name] = {"console": console, "control": f"127.0.0.1:{control}"}
            if name in mute:  # wired to the wrong port: one that accepts and stays silent
                silent = socket.socket()
                silent.bind(("127.0.0.1", 0))
                silent.listen()
                self.boards[name]["socket"] = silent
                console = silent.getsockname()[1]
            exported.append((name, console))
        probes = []
        for name in gdb:
            port, serial = free_ports(2)
            self._start(["qemu-system-arm", "-M", "netduinoplus2", "-display", "none",
                         "-monitor", "none", "-serial", "null", "-serial",
                         f"tcp:127.0.0.1:{serial},server=on,wait=on", "-icount",
                         "shift=7,align=off,sleep=off", "-gdb", f"tcp:127.0.0.1:{port}", "-S"],
                        name)
            self.gdb_boards[name] = port
            exported.append((name, serial))
            probes.append(name)
        config = self.root / "exporter.yaml"
        config.write_text("".join(
            f"{name}:\n  NetworkSerialPort:\n    host: 127.0.0.1\n    port: {port}\n"
            f"    protocol: raw\n    speed: 115200\n"
            + (f"  gdb:\n    cls: NetworkService\n    address: 127.0.0.1\n"
               f"    port: {self.gdb_boards[name]}\n    username: ''\n" if name in probes else "")
            for name, port in exported))
        self._start([str(BIN / "labgrid-exporter"), "-c", self.coordinator, "-n", "rack",
                     "--hostname", "127.0.0.1", str(config)], "exporter")
        self._administer({name: {"board": "stm32f4" if name in probes else "mps2-an385",
                                 "kernel": "freertos",
                                 "rack": "c" if name in probes else "b" if name in mute else "a"}
                          for name, _ in exported})
        return self

    def _administer(self, places: dict[str, dict[str, str]], timeout: float = 30.0) -> None:
        """What an administrator does with `labgrid-client create / add-match /
        set-tags` (the same requests, one session instead of a process per
        command), then wait until the exporter's resources are there."""
        import asyncio

        from labgrid.remote.client import start_session
        from labgrid.remote.generated import labgrid_coordinator_pb2 as pb2

        session = start_session(self.coordinator)
        run = session.loop.run_until_complete
        try:
            for name, tags in places.items():
                run(session.stub.AddPlace(pb2.AddPlaceRequest(name=name)))
                run(session.stub.AddPlaceMatch(pb2.AddPlaceMatchRequest(
                    placename=name, pattern=f"rack/{name}/*")))
                run(session.stub.SetPlaceTags(pb2.SetPlaceTagsRequest(placename=name,
                                                                       tags=tags)))
            end = time.monotonic() + timeout
            while set(places) - set(session.resources.get("rack", {})):
                if time.monotonic() > end:
                    raise RuntimeError("the exporter did not publish its resources")
                run(asyncio.sleep(0.1))
            run(session.sync_with_coordinator())
        finally:
            run(session.stop())
            run(session.close())

    def acquired_by(self, place: str) -> str | None:
        """Who holds the place now (None: nobody)."""
        from labgrid.remote.client import start_session

        session = start_session(self.coordinator)
        try:
            return session.places[place].acquired
        finally:
            session.loop.run_until_complete(session.stop())
            session.loop.run_until_complete(session.close())

    def client(self, *args: str, user: str | None = None) -> str:
        env = {**os.environ, "LG_COORDINATOR": self.coordinator}
        if user:
            env["LG_USERNAME"] = user
        proc = subprocess.run([str(BIN / "labgrid-client"), *args], capture_output=True,
                              text=True, env=env, timeout=60, cwd=self.root)
        if proc.returncode != 0:
            raise RuntimeError(f"labgrid-client {' '.join(args)}: {proc.stderr.strip()}")
        return proc.stdout

    def env_file(self, path: Path, options: dict[str, dict] | None = None,
                 coordinator: str | None = None, extra_places: list[str] = ()) -> Path:
        """The environment file a lab user writes for these places (with
        `options` per place: rtbench_console_timeout, rtbench_flash_powered)."""
        lines = ["options:", f"  coordinator_address: {coordinator or self.coordinator}",
                 "imports:", "  - rtbench.targets.emuboard", "targets:"]
        power = f"{sys.executable} -m rtbench.targets.emuboard power"
        boards = {**self.boards, **{n: {"control": "127.0.0.1:9"} for n in extra_places}}
        for name, b in boards.items():
            opts = (options or {}).get(name) or {}
            lines += [f"  {name}:", *(["    options:"] if opts else []),
                      *(f"      {k}: {v}" for k, v in opts.items()),
                      "    resources:", "      RemotePlace:",
                      f"        name: {name}", "    drivers:", "      SerialDriver: {}",
                      "      ExternalPowerDriver:",
                      f"        cmd_on: {power} on {b['control']}",
                      f"        cmd_off: {power} off {b['control']}",
                      "      EmulatedFlashDriver:", f"        control: {b['control']}"]
        for name in self.gdb_boards:  # the place's resources are all it needs: no driver
            lines += [f"  {name}:", "    resources:", "      RemotePlace:",
                      f"        name: {name}"]
        path.write_text("\n".join(lines) + "\n")
        return path

    def power_status(self, name: str) -> str:
        from rtbench.targets import emuboard

        return emuboard.request(self.boards[name]["control"], b"status\n")

    # ---- teardown ----

    def stop(self) -> None:
        """Kill everything the lab started; fail if anything is left running."""
        for b in self.boards.values():
            if b.get("socket"):
                b["socket"].close()
        for proc in reversed(self.procs):
            _kill_group(proc)
        left = leftovers(self.root, {p.pid for p in self.procs})
        assert not left, f"processes left behind: {left}"


def _kill_group(proc: subprocess.Popen) -> None:
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=grace)
            # the group may still hold a child (QEMU) of the process just reaped
            os.killpg(proc.pid, 0)
        except subprocess.TimeoutExpired:
            continue
        except ProcessLookupError:
            break
    proc.wait()


def leftovers(root: Path, sessions: set[int] = frozenset()) -> list[str]:
    """Live processes in one of the lab's sessions (a program it started, or a
    QEMU an emulated board started) or whose command line names the lab's
    directory."""
    mark = str(root)
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        state, session = fields[0], int(fields[3])  # stat fields 3 and 6
        if state != "Z" and (session in sessions or mark in cmd):
            found.append(f"{entry.name}: {cmd.strip()}")
    return found
