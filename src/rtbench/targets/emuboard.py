"""An emulated lab board: QEMU's MPS2 AN385 published the way a lab publishes
a real board, so the labgrid target can be tried, and is tested, on one
machine.

A lab reaches a real board through a serial console on the network (ser2net
on its UART), a switched outlet and a debug probe that flashes it. One
`serve` process is all three for an emulated board:

    python -m rtbench.targets.emuboard serve --console 127.0.0.1:5101 \\
        --control 127.0.0.1:5102 --dir /var/lib/emu-1

* Console port: what the board's UART prints goes to every TCP client
  connected at that moment (raw TCP, like ser2net's raw mode). Nothing is
  kept for a client that connects later, as on a serial line, so a client
  connects before it powers the board on. A labgrid exporter publishes the
  port as a NetworkSerialPort (`protocol: raw`).
* Control port: one request per connection, a line `on`, `off`, `status`,
  or `flash N` followed by N bytes of an ELF image; the answer is one line,
  `ok ...` or `error ...`. Power on boots the flashed image under QEMU
  (-icount at the shift rtbench builds for, semihosting for the image's
  exit status, no -append: the image runs the command line built into it);
  power off stops QEMU. As on a real board, a board with nothing flashed
  powers on and runs nothing, flashing a powered board takes effect at its
  next power-on, and an image that ends or crashes leaves the board powered
  and halted.

Clients: `python -m rtbench.targets.emuboard power on|off|status ADDR` (a
labgrid ExternalPowerDriver's cmd_on / cmd_off) and the labgrid driver
`EmulatedFlashDriver` (a BootstrapProtocol: `load(image)` sends it over the
control port), registered when this module is imported (labgrid
environment file: `imports: [rtbench.targets.emuboard]`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import socket
import subprocess
import sys
from pathlib import Path

FLASH = "flash.elf"
MAX_IMAGE = 16 << 20
MACHINES = ("mps2-an385",)


class BoardError(Exception):
    pass


def split_address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise BoardError(f"{text!r} is not HOST:PORT")
    return host or "127.0.0.1", int(port)


def qemu_command(machine: str, image: Path) -> list[str]:
    """The board under QEMU: UART0 on stdout, the clock rtbench's images are
    built for (rtbench.targets.qemu), semihosting for the exit status."""
    from rtbench.targets.qemu import ICOUNT_SHIFT, QEMU

    return [QEMU, "-M", machine, "-nographic", "-monitor", "none", "-no-reboot",
            "-semihosting-config", "enable=on,target=native",
            "-icount", f"shift={ICOUNT_SHIFT},align=off,sleep=off", "-kernel", str(image)]


class Board:
    def __init__(self, directory: Path, machine: str):
        self.dir, self.machine = directory, machine
        self.powered = False
        self.proc: asyncio.subprocess.Process | None = None
        self.pump: asyncio.Task | None = None
        self.consoles: set[asyncio.StreamWriter] = set()
        self.last_exit: int | None = None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def power_on(self) -> str:
        if self.powered:
            return "already on"
        self.powered, self.last_exit = True, None
        image = self.dir / FLASH
        if not image.is_file():
            return "on (nothing flashed: the board runs nothing)"
        with open(self.dir / "qemu.log", "wb") as log:  # QEMU's own complaints
            self.proc = await asyncio.create_subprocess_exec(
                *qemu_command(self.machine, image), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=log)
        self.pump = asyncio.create_task(self._pump(self.proc))
        return "on"

    async def power_off(self) -> str:
        self.powered = False
        if self.running:
            self.proc.kill()
        if self.proc is not None:
            await self.proc.wait()
        if self.pump is not None:
            await self.pump  # everything the UART printed has gone out
        self.proc = self.pump = None
        return "off"

    async def _pump(self, proc: asyncio.subprocess.Process) -> None:
        while chunk := await proc.stdout.read(4096):
            for writer in list(self.consoles):
                try:
                    writer.write(chunk)
                    await writer.drain()
                except (ConnectionError, RuntimeError):
                    self.consoles.discard(writer)
        self.last_exit = await proc.wait()

    def status(self) -> str:
        if not self.powered:
            return "off"
        if self.last_exit is not None:
            return f"on (halted: the image ended with status {self.last_exit})"
        return "on" if self.running else "on (nothing flashed)"

    def flash(self, data: bytes) -> str:
        if not data.startswith(b"\x7fELF"):
            raise BoardError("not an ELF image")
        tmp = self.dir / (FLASH + ".tmp")
        tmp.write_bytes(data)
        tmp.replace(self.dir / FLASH)
        return f"flashed {len(data)} bytes"

    async def console(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.consoles.add(writer)
        try:
            while await reader.read(4096):  # the harness reads nothing from its console
                pass
        except ConnectionError:
            pass
        finally:
            self.consoles.discard(writer)
            writer.close()

    async def control(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            verb, _, arg = (await reader.readline()).decode(errors="replace").strip().partition(" ")
            if verb == "flash":
                size = int(arg) if arg.isdigit() else -1
                if not 0 < size <= MAX_IMAGE:
                    raise BoardError(f"flash: bad size {arg!r}")
                answer = self.flash(await reader.readexactly(size))
            elif verb == "on":
                answer = await self.power_on()
            elif verb == "off":
                answer = await self.power_off()
            elif verb == "status":
                answer = self.status()
            else:
                raise BoardError(f"unknown request {verb!r} (on, off, status, flash N)")
            reply = f"ok {answer}"
        except (BoardError, OSError, asyncio.IncompleteReadError) as exc:
            reply = f"error {exc}"
        with contextlib.suppress(ConnectionError):
            writer.write(reply.encode() + b"\n")
            await writer.drain()
        writer.close()


async def serve(console: str, control: str, directory: Path, machine: str) -> None:
    board = Board(directory, machine)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    servers = [await asyncio.start_server(board.console, *split_address(console)),
               await asyncio.start_server(board.control, *split_address(control))]
    print(f"emuboard: {machine}, console {console}, control {control}, flash {directory / FLASH}",
          flush=True)
    try:
        await stop.wait()
    finally:
        await board.power_off()  # never leave a QEMU behind
        for server in servers:
            server.close()


def request(address: str, payload: bytes, timeout: float = 60.0) -> str:
    """Send one request to a board's control port; its answer, or BoardError."""
    try:
        with socket.create_connection(split_address(address), timeout=timeout) as sock:
            sock.sendall(payload)
            reply = sock.makefile("rb").readline().decode(errors="replace").strip()
    except OSError as exc:
        raise BoardError(f"emulated board at {address}: {exc.strerror or exc}") from exc
    verdict, _, text = reply.partition(" ")
    if verdict != "ok":
        raise BoardError(f"emulated board at {address}: {text or 'no answer'}")
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rtbench.targets.emuboard",
                                     description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    srv = sub.add_parser("serve", help="be the board: console, power and flash")
    srv.add_argument("--console", required=True, metavar="HOST:PORT")
    srv.add_argument("--control", required=True, metavar="HOST:PORT")
    srv.add_argument("--dir", required=True, type=Path, help="where the flashed image lives")
    srv.add_argument("--machine", default=MACHINES[0], choices=MACHINES)
    pwr = sub.add_parser("power", help="switch a served board on or off")
    pwr.add_argument("action", choices=("on", "off", "status"))
    pwr.add_argument("control", metavar="HOST:PORT")
    fl = sub.add_parser("flash", help="flash an image into a served board")
    fl.add_argument("image", type=Path)
    fl.add_argument("control", metavar="HOST:PORT")
    args = parser.parse_args(argv)
    try:
        if args.command == "serve":
            args.dir.mkdir(parents=True, exist_ok=True)
            asyncio.run(serve(args.console, args.control, args.dir, args.machine))
        elif args.command == "power":
            print(request(args.control, args.action.encode() + b"\n"))
        else:
            print(flash(args.control, args.image))
    except (BoardError, OSError) as exc:
        print(f"emuboard: error: {exc}", file=sys.stderr)
        return 1
    return 0


def flash(control: str, image: Path) -> str:
    data = Path(image).read_bytes()
    return request(control, f"flash {len(data)}\n".encode() + data)


def _labgrid_driver() -> None:
    """Register EmulatedFlashDriver with labgrid (when it is installed)."""
    try:
        import attr
        from labgrid.driver.common import Driver
        from labgrid.factory import target_factory
        from labgrid.protocol import BootstrapProtocol
        from labgrid.step import step
    except ImportError:
        return

    @target_factory.reg_driver
    @attr.s(eq=False)
    class EmulatedFlashDriver(Driver, BootstrapProtocol):
        """Flashes an emulated board (`serve`) over its control port: the
        emulated board's debug probe. `image` names an entry of the
        environment's `images:`, as OpenOCDDriver's does."""

        control = attr.ib(validator=attr.validators.instance_of(str))
        image = attr.ib(default=None,
                        validator=attr.validators.optional(attr.validators.instance_of(str)))

        @Driver.check_active
        @step(args=["filename"])
        def load(self, filename=None):
            if filename is None and self.image is not None:
                filename = self.target.env.config.get_image_path(self.image)
            flash(self.control, Path(filename))

    globals()["EmulatedFlashDriver"] = EmulatedFlashDriver


if __name__ == "__main__":
    sys.exit(main())  # serve, power, flash: labgrid is not needed (nor imported)
else:
    _labgrid_driver()
