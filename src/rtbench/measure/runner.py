"""Run the harness on a target, with a watchdog and restarts.

One harness instance (a local process, or a board booted under an
emulator: rtbench.targets) measures the metrics it is given in order. If it
hangs inside a metric (no `metric` record within the timeout after `begin`)
or dies there, that metric is recorded as failed and a new instance (a
fresh boot) measures the rest. Every metric is handed to `on_metric` the
moment it arrives so the caller can commit it before anything else can go
wrong.
"""

from __future__ import annotations

import collections
import os
import queue
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from rtbench.errors import HarnessError, RtbenchError
from rtbench.process import lifetime
from rtbench.store import records
from rtbench.targets.base import Instance, Target, describe_exit  # noqa: F401 (re-exported)
from rtbench.targets.host import HostTarget

Record = dict[str, Any]
_EOF = object()
IDLE_LIMIT = 30.0


class HarnessUsageError(RtbenchError):
    """The harness rejected its command line (exit code 2 before any metric)."""


@dataclass
class RunOptions:
    ids: list[str]
    samples: int = 10000
    warmup: int = 100
    budget_ms: int = 2000
    cpu: int | None = None
    no_rt: bool = False
    timeout: float = 30.0
    extra: list[str] = field(default_factory=list)  # e.g. the profile's options


@dataclass
class Outcome:
    session: Record | None = None
    metrics: dict[str, Record] = field(default_factory=dict)
    interrupted: bool = False
    restarts: int = 0
    bad: list[str] = field(default_factory=list)  # the bad records' metrics and why


def _noop(*_args: Any) -> None:
    pass


class Runner:
    def __init__(self, target: "Target | Path", opts: RunOptions,
                 on_session: Callable[[Record], None] = _noop,
                 on_begin: Callable[[str], None] = _noop,
                 on_metric: Callable[[Record], None] = _noop):
        if not isinstance(target, Target):  # a harness executable: the host target
            target = HostTarget(Path(target))
        self.target, self.opts = target, opts
        # the watchdog's wait for a metric: --timeout, longer on a target
        # that runs slower than the harness alone (a board's cycle model)
        self.timeout = opts.timeout * target.slowdown
        self.on_session, self.on_begin, self.on_metric = on_session, on_begin, on_metric
        self.outcome = Outcome()
        self._seen_begin = False
        self._state: tuple[str | None, int] = (None, 0)  # (metric begun, metrics received)

    def run(self) -> Outcome:
        """Measure every metric; Ctrl-C stops early with `interrupted` set.

        HarnessError / HarnessUsageError propagate: nothing more can be
        measured then, but what arrived before has been handed out already.
        """
        remaining = list(self.opts.ids)
        try:
            while remaining:
                remaining = self._instance(remaining)
                if remaining:
                    self.outcome.restarts += 1
        except KeyboardInterrupt:
            self.outcome.interrupted = True
        return self.outcome

    def command(self, ids: list[str]) -> list[str]:
        """The harness command line (docs/records.md) for `ids`, without the program."""
        o = self.opts
        cmd = ["--only", ",".join(ids), "--samples", str(o.samples),
               "--warmup", str(o.warmup), "--budget-ms", str(o.budget_ms)]
        if o.cpu is not None:
            cmd += ["--cpu", str(o.cpu)]
        if o.no_rt and "--no-rt" not in o.extra:
            cmd.append("--no-rt")
        if o.no_rt and "--no-mlock" not in o.extra:  # --no-rt: no SCHED_FIFO, no mlockall
            cmd.append("--no-mlock")
        cmd += o.extra
        fault = os.environ.get("RTBENCH_INJECT_FAULT")
        # Test hook. Only pass it while its target is still to be measured:
        # after the faulty metric failed, the restarted harness runs clean
        # (hang:ID, crash:ID; slow:ID:NS slows ID in every block).
        if fault and (":" not in fault or fault.split(":")[1] in ids):
            cmd += ["--fault", fault]
        return cmd

    def _instance(self, ids: list[str]) -> list[str]:
        """Run one harness instance over `ids`; return the ids still to do."""
        inst = self.target.start(self.command(ids))
        stream = _Stream(inst)
        bad = None
        try:
            try:
                current, arrived, timed_out = self._consume(stream, ids)
            except records.RecordError as exc:  # a bad record: its metric failed
                bad, (current, arrived) = exc, self._state
                timed_out = False
        finally:
            rc = _stop(inst, kill=not stream.eof)
            stream.join()
        if bad is not None:
            self._bad(bad, current)
        else:
            self._after(ids, current, arrived, timed_out, rc, stream.diagnostic(), inst)
        return [i for i in ids if i not in self.outcome.metrics]

    def _bad(self, exc: records.RecordError, current: str | None) -> None:
        """A record the contract refuses (rtbench.store.contract), or one out
        of the protocol's order: the metric it came in failed, with the
        reason, and the run will be incomplete; the rest is measured by a
        fresh instance. Outside any metric nothing can be blamed on one: the
        harness is not understood (HarnessError, the run fails)."""
        if current is None:
            raise exc  # a protocol error (RecordError is a HarnessError): the run fails
        why = str(exc).replace("harness printed ", "").replace("harness sent ", "")
        self.outcome.bad.append(f"{current}: {why}")
        self._deliver(records.failed_record(current, f"bad record from the harness: {why}"))

    def _consume(self, stream: "_Stream", ids: list[str]) -> tuple[str | None, int, bool]:
        """Read records until EOF or the watchdog fires.

        Returns (metric in progress or None, metrics received, timed out?).
        """
        current, arrived, session_seen = None, 0, False
        self._state = (current, arrived)
        # Outside a metric (start-up calibration, between metrics) the harness
        # gets at least 30 s even when --timeout is short.
        idle = max(self.timeout, IDLE_LIMIT)
        clock = stream.inst.progress_s  # wall time, or an emulator's CPU time (Instance)
        deadline = clock() + idle
        while True:
            line = _next_line(stream, clock, deadline)
            if line is None:
                return current, arrived, True
            if line is _EOF:
                return current, arrived, False
            rec = records.parse_line(line)  # a bad one: RecordError, see _bad
            if rec is None:
                stream.note(line)  # a diagnostic, not a record; does not feed the watchdog
                continue
            stream.forget_notes()  # a diagnostic counts only if no record followed it
            kind = rec["type"]
            if kind == "session":
                session_seen = True
                if self.outcome.session is None:  # restarts: keep the first one
                    self.outcome.session = rec
                    self.on_session(rec)
            elif kind in ("begin", "metric"):
                self._check_expected(rec, ids, session_seen, current)
                if kind == "begin":
                    current, self._seen_begin = rec["id"], True
                    self.on_begin(rec["id"])
                else:
                    current, arrived = None, arrived + 1
                    self._deliver(rec)
            self._state = (current, arrived)
            deadline = clock() + (self.timeout if current else idle)

    def _check_expected(self, rec: Record, ids: list[str], session_seen: bool,
                        current: str | None) -> None:
        mid = rec["id"]
        if not session_seen:
            raise records.RecordError(f"harness sent {rec['type']} {mid} before its session record")
        if mid not in ids or mid in self.outcome.metrics:
            raise records.RecordError(f"harness sent {rec['type']} for unexpected metric {mid}")
        if rec["type"] == "metric" and current not in (None, mid):
            raise records.RecordError(f"harness began {current} but reported {mid}")
        if rec["type"] == "begin" and current is not None:
            raise records.RecordError(f"harness began {mid} before reporting {current}")

    def _deliver(self, rec: Record) -> None:
        self.outcome.metrics[rec["id"]] = rec
        self.on_metric(rec)

    def _after(self, ids: list[str], current: str | None, arrived: int, timed_out: bool,
               rc: int, stderr: str, inst: Instance) -> None:
        """Decide what a finished harness instance means."""
        if timed_out and current is not None:
            self._deliver(records.failed_record(current, f"timeout after {self.timeout:g}s"))
        elif timed_out:
            raise HarnessError(f"harness sent no record for "
                               f"{max(self.timeout, IDLE_LIMIT):g}s outside any metric; "
                               "stopped it")
        elif current is not None:
            why = f"harness crashed ({inst.describe_exit(rc)})"
            self._deliver(records.failed_record(current, why + (f": {stderr}" if stderr else "")))
        elif arrived == 0 and any(i not in self.outcome.metrics for i in ids):
            # Restarting a harness that measures nothing would loop forever.
            if rc == 2 and not self._seen_begin:
                raise HarnessUsageError(f"harness rejected its arguments: {stderr or 'exit code 2'}")
            raise HarnessError(f"harness exited ({inst.describe_exit(rc)}) without measuring anything"
                               + (f": {stderr}" if stderr else ""))


def _stop(inst: Instance, kill: bool) -> int:
    """Reap the harness and anything left in its process group."""
    if not kill:
        try:
            inst.wait(timeout=5)  # closed stdout: normally exiting right now
        except subprocess.TimeoutExpired:
            pass
    # The harness runs in its own session (so a terminal's Ctrl-C does not
    # reach it): kill the whole group, scenario helpers included.
    return inst.kill()


def _next_line(stream: "_Stream", clock: Callable[[], float], deadline: float):
    """The stream's next line, _EOF, or None once `clock` (the instance's
    progress_s) passes `deadline`; the clock is read at least every POLL_S of
    wall time while no line comes."""
    while True:
        left = deadline - clock()
        if left <= 0:
            return None
        line = stream.get(time.monotonic() + min(left, POLL_S))
        if line is not None:
            return line


POLL_S = 1.0


class _Stream:
    """stdout lines through a queue (so reads can time out); stderr kept,
    and the diagnostics among stdout's lines (a board has one console).

    Memory stays bounded whatever the harness prints: a line is read up to
    records.MAX_LINE characters (a longer one is passed on cut, so it reads
    as a damaged record, and the rest of it is skipped, never held), a line
    that is not a record is cut to NOTE_CHARS, and the queue holds at most
    QUEUE_LINES lines (the reader waits while it is full)."""

    NOTE_CHARS = 400
    QUEUE_LINES = 64

    def __init__(self, inst: Instance):
        self._q: queue.Queue = queue.Queue(maxsize=self.QUEUE_LINES)
        self._err: collections.deque[str] = collections.deque(maxlen=50)
        self._diag: collections.deque[str] = collections.deque(maxlen=5)
        self._stop = threading.Event()
        self.eof = False
        self.inst = inst
        self._threads = [
            threading.Thread(target=self._read_out, args=(inst.stdout,), daemon=True),
            threading.Thread(target=self._read_err, args=(inst.stderr,), daemon=True)]
        for t in self._threads:
            t.start()

    def _put(self, item) -> bool:
        while not self._stop.is_set():
            try:
                self._q.put(item, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def _read_out(self, pipe) -> None:
        try:
            for line in _bounded_lines(pipe, self.NOTE_CHARS):
                if not self._put(line):
                    return
        except (OSError, ValueError):
            pass
        finally:
            self._put(_EOF)

    def _read_err(self, pipe) -> None:
        try:
            for line in _bounded_lines(pipe, self.NOTE_CHARS):
                if line.strip():
                    self._err.append(line.rstrip()[:self.NOTE_CHARS])
        except (OSError, ValueError):
            pass

    def get(self, deadline: float):
        """Next line, _EOF, or None when the deadline passed first."""
        try:
            item = self._q.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None
        if item is _EOF:
            self.eof = True
        return item

    def join(self) -> None:
        self._stop.set()  # a reader waiting on a full queue gives up
        for t in self._threads:
            t.join(timeout=5)

    def note(self, line: str) -> None:
        """A non-record line of the record stream (a board's diagnostic)."""
        if line.strip():
            self._diag.append(line.strip())

    def forget_notes(self) -> None:
        self._diag.clear()

    def stderr_tail(self) -> str:
        return self._err[-1] if self._err else ""

    def diagnostic(self) -> str:
        """The last word the harness said about itself: stderr, else the
        record stream's last diagnostic line."""
        return self.stderr_tail() or (self._diag[-1] if self._diag else "")


def _bounded_lines(pipe, note_chars: int):
    """The pipe's lines, none longer than records.MAX_LINE + 1 characters
    (what is beyond is read and dropped); a line that is not a record cut
    to `note_chars`. A pipe without readline (a board's console) is
    iterated as it is: it bounds its own lines."""
    readline = getattr(pipe, "readline", None)
    if readline is None:
        yield from pipe
        return
    limit = records.MAX_LINE + 1
    while True:
        line = readline(limit)
        if not line:
            return
        if len(line) >= limit and not line.endswith("\n"):
            rest = line
            while rest and not rest.endswith("\n"):
                rest = readline(limit)
            line += "\n"
        if len(line) > note_chars and not line.lstrip().startswith("{"):
            line = line[:note_chars] + "\n"
        yield line
