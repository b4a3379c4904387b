"""A board's console as the harness's lines, whoever reads it: labgrid's
console drivers (labgrid.py) or a serial port through pyserial
(gdbboard.py). The lines end at the harness's end record, at the board's
fault report, when the console closes or rtbench stops reading."""

from __future__ import annotations

import threading
import time

from rtbench.store.records import MAX_LINE
from rtbench.targets.base import Instance

FAULT_MARKER = "rtb-board: unexpected exception"  # the board's fault report (boards/cortex-m/fault.c)
# How an instance ended, as its "exit status" (QEMUDriver: QEMU's own, the image's status).
ENDED, FAULT, CLOSED, STOPPED = 0, 70, 71, 72


class Lines:
    """A board console's bytes as text lines. The iteration ends after the
    harness's end record, after the board's fault report, when the console
    closes, when stop() is called, or (with `silence`) when nothing has
    arrived for that many seconds; `ended` says which (None: silence).
    A subclass reads: _chunk() returns bytes, b"" for none yet, or None
    when the console is gone (setting `ended`)."""

    def __init__(self):
        self.silence: float | None = None
        self.ended: int | None = None
        self.skipping = False  # inside a line longer than MAX_LINE, its head given already
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def stop(self) -> None:
        """After this returns no read is in progress and none will start."""
        self._stop.set()
        with self._lock:
            pass

    def __iter__(self):
        buf, last = bytearray(), time.monotonic()
        while True:
            data = self._read()
            if data is None:  # stopped, or the console is gone
                return
            if not data:
                if self.silence is not None and time.monotonic() - last > self.silence:
                    return
                continue
            last = time.monotonic()
            for raw in self._lines(buf, data):
                line = raw.decode("utf-8", "replace").rstrip("\r")
                yield line + "\n"
                if line.startswith("{") and '"type":"end"' in line:
                    self.ended = ENDED
                    return
                if FAULT_MARKER in line:
                    self.ended = FAULT
                    return

    def _lines(self, buf: bytearray, data: bytes) -> list[bytes]:
        """The lines `data` completes. A console that never ends its line is
        never held whole: past MAX_LINE its head is given as a line (it then
        reads as a damaged record) and the rest is dropped up to its end."""
        if self.skipping:
            cut = data.find(b"\n")
            if cut < 0:
                return []
            data, self.skipping = data[cut + 1:], False
        buf += data
        *lines, rest = bytes(buf).split(b"\n") if b"\n" in data else [bytes(buf)]
        if len(lines):
            buf[:] = rest
        if len(buf) > MAX_LINE:
            lines.append(bytes(buf[:MAX_LINE + 1]))
            buf.clear()
            self.skipping = True
        return lines

    def _read(self) -> bytes | None:
        with self._lock:
            if self._stop.is_set():
                self.ended = STOPPED if self.ended is None else self.ended
                return None
            try:
                data = self._chunk()
            except Exception:  # the connection to the console broke
                self.ended = CLOSED
                return None
        if data is None and self.ended is None:
            self.ended = CLOSED
        return data

    def _chunk(self) -> bytes | None:
        raise NotImplementedError


class LinesInstance(Instance):
    """A start of the harness whose records come from a board's console
    (`lines`, a Lines) rather than a process's stdout; its "exit status" is
    how the lines ended."""

    lines: Lines

    @property
    def stdout(self):
        return self.lines

    @property
    def stderr(self):
        return iter(())

    def wait(self, timeout: float | None = None) -> int:
        return self.lines.ended if self.lines.ended is not None else STOPPED
