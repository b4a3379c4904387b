"""`rtbench import harness LOG`: the harness's own record stream, captured
from a board's serial port (or any console) by whatever the user has, for
a board rtbench did not drive (real hardware, no QEMU, no labgrid).

The log holds the same JSON lines rtbench reads from a local harness or an
emulated UART (docs/records.md), among whatever else the console printed
(a boot banner, diagnostics, line noise): lines that do not start with `{`
are not records and are skipped, as the runner skips them. What serial
capture tools write is read as they write it: lines ended by LF, CR LF or
CR alone, and a timestamp before each line (`[12:00:01.234] `,
`2026-11-25 12:00:01.234 `, `Nov 25 12:00:01 `, grabserial's
`[0.123456 0.000120] `). The run is stored as measured by the harness (the
sheet is the same as for a run rtbench drove), its configuration taken
from the session record's target facts.

Two kinds of trouble, told apart:

* **A bad record** (a JSON line that breaks the record contract: a wrong
  type, NaN, a negative time, a figure beyond any, nesting, sizes; see
  rtbench.store.contract) is one error, `LOG:LINE: why`, and nothing of the
  log is stored: the board said something wrong, and none of it is trusted.
  So is a log out of order (a metric that begins again, a result after
  another metric began: two runs' outputs mixed; see _State).
* **A lossy log** (the capture was cut, possibly mid-line; a line was
  damaged or lost on the way, so it is no JSON; a metric began and its
  result never came; the end record counts other metrics than arrived) is
  stored as measured, the run marked incomplete, each metric that began
  without its result stored failed with the reason, as the runner does
  for a board that stopped.

The log is read twice, a line at a time (`read` checks it whole, holding
one line and the ids seen; `HarnessLog.records` reads it again for the
store), so memory does not grow with the log; a line longer than
records.MAX_LINE is never held whole; damaged lines are counted, the first
few named (a line that does not end in `}` is damaged without parsing).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from rtbench.importers.base import ImportFormatError, Source
from rtbench.store import contract, records

MAX_METRICS = 10_000  # metric records in one log (the catalogue has ~500 per profile)
# A timestamp a serial capture tool put before the line (tio, minicom, picocom,
# CoolTerm, moreutils' ts, grabserial); the record starts after it.
_STAMP = re.compile(
    r"\s*(?:\[[0-9 :.,/T+\-Z]{1,40}\]"                       # [12:00:01.234] [0.1 0.0]
    r"|[0-9]{1,4}[0-9 :.,/T+\-Z]{0,39}"                       # 2026-11-25 12:00:01.234
    r"|[A-Z][a-z]{2} {1,2}[0-9]{1,2} [0-9:.]{5,16})"          # Nov 25 12:00:01
    r"\s*(?:[>|:-]\s*)?(?=\{)")


@dataclass
class HarnessLog:
    src: Source
    session: dict[str, Any]
    count: int  # metric records stored, those rtbench writes for lost ones included
    complete: bool  # the end record arrived, counting what arrived, nothing lost
    lost: list[dict[str, Any]] = field(default_factory=list)  # failed records for lost metrics
    why: str = ""  # why the log is incomplete

    def records(self) -> Iterator[dict[str, Any]]:
        """The metric records again, in the log's order (the lost ones last)."""
        for _n, rec in _records(self.src):
            if isinstance(rec, dict) and rec["type"] == "metric":
                yield rec
        yield from self.lost

    def host(self, name: str) -> dict[str, Any]:
        """The target as the session record describes it (never this PC)."""
        t = self.session.get("target") or {}
        board = str(t.get("board", "unknown board"))
        kernel = str(t.get("kernel", self.session.get("port", "?")))
        os_name, _, version = kernel.partition(" ")
        return {"target": board, "target_kind": "board (serial log)", "board": board,
                "cpu_model": str(t.get("cpu", "unknown")), "os": os_name,
                "kernel_version": version, "log": name}


def read(src: Source) -> HarnessLog:
    """Check the whole log (nothing is stored from a log that fails)."""
    state = _State(src.name)
    for n, rec in _records(src):
        state.line(n, rec)
    return state.finish(src)


# Damaged lines: counted, and the first few named (a capture of millions
# of them must not hold a number for each).
DAMAGED_SHOWN = 5


@dataclass
class _State:
    """The log read in order. The harness prints `begin ID`, then ID's
    result, then the next metric's `begin`: one metric at a time, each once.
    A lossy capture drops or damages lines, never reorders them, so a
    metric that begins again (after its result, or after another metric
    began) or a result that comes after another metric began is no lossy
    log: two runs' outputs mixed, or a board that restarted without its
    session record. That is refused in one line, never stored as a metric
    "whose result line is missing" beside the result itself."""

    name: str
    session: dict[str, Any] | None = None
    reported: set[str] = field(default_factory=set)
    current: str | None = None  # begun, its result not come yet
    current_at: int = 0
    lost: list[dict[str, Any]] = field(default_factory=list)  # failed records for lost metrics
    lost_at: dict[str, int] = field(default_factory=dict)  # lost metric -> its begin line
    damaged: int = 0  # lines that were no record any more
    damaged_at: list[int] = field(default_factory=list)  # the first DAMAGED_SHOWN of them
    end: dict[str, Any] | None = None
    last: int = 0

    def fail(self, n: int, why: str) -> None:
        raise ImportFormatError(self.name, n, why)

    def line(self, n: int, rec: dict[str, Any] | str) -> None:
        self.last = n
        if isinstance(rec, str):  # a damaged line: lossy, not bad
            if self.session is not None:
                self.damaged += 1
                if len(self.damaged_at) < DAMAGED_SHOWN:
                    self.damaged_at.append(n)
            return
        kind = rec["type"]
        if kind == "registry":
            self.fail(n, "a --list output, not a run")
        if kind == "session":
            if self.session is not None:
                self.fail(n, "a second session record: the board ran the harness twice; "
                          "import each run's part on its own")
            self.session = rec
            return
        if self.session is None:
            self.fail(n, f"{kind} record before the session record")
        if self.end is not None:
            self.fail(n, f"{kind} record after the end record")
        if kind == "end":
            self.end = rec
        elif kind == "begin":
            self._begin(n, rec["id"])
        elif kind == "metric":
            self._metric(n, rec["id"])

    def _begin(self, n: int, mid: str) -> None:
        name = contract.printable(mid)
        if mid in self.reported:
            self.fail(n, f"metric {name} begins again after its result")
        began = self.current_at if mid == self.current else self.lost_at.get(mid)
        if began is not None:
            self.fail(n, f"metric {name} begins again (it began at line {began}): the log is "
                         "out of order (two runs' outputs mixed, or the board restarted "
                         "without its session record); import each run's part on its own")
        if self.current is not None:  # its result never came
            self._lose(f"its result line is missing from the log (begun at line "
                       f"{self.current_at}, the next metric began at line {n})")
        self.current, self.current_at = mid, n

    def _metric(self, n: int, mid: str) -> None:
        name = contract.printable(mid)
        if mid in self.reported:
            self.fail(n, f"metric {name} reported twice")
        if mid in self.lost_at:
            self.fail(n, f"metric {name} reported after another metric began (it began at "
                         f"line {self.lost_at[mid]}): the log is out of order (two runs' "
                         "outputs mixed?); import each run's part on its own")
        if len(self.reported) + len(self.lost) >= MAX_METRICS:
            self.fail(n, f"more than {MAX_METRICS} metric records: not one harness run")
        if self.current is not None and self.current != mid:
            self._lose(f"its result line is missing from the log (begun at line "
                       f"{self.current_at}, metric {name} reported at line {n})")
        self.current = None
        self.reported.add(mid)

    def _lose(self, why: str) -> None:
        """The metric begun is lost: stored failed with `why`."""
        assert self.current is not None
        self.lost.append(records.failed_record(self.current, why))
        self.lost_at[self.current] = self.current_at
        self.current = None

    def finish(self, src: Source) -> HarnessLog:
        if self.session is None:
            self.fail(0, "no harness session record: not an rtbench harness log "
                         "(docs/records.md)")
        if self.current is not None:
            self._lose(f"the log ends inside this metric (line {self.current_at}): the board "
                       "stopped or the capture was cut")
        count = len(self.reported) + len(self.lost)  # apart: a metric is one or the other
        why = []
        if self.end is None:
            why.append("the log has no end record")
        elif self.end.get("metrics") not in (None, count):
            why.append(f"its end record counts {self.end['metrics']} metrics, "
                       f"{count} arrived")
        if self.damaged:
            lines = ", ".join(map(str, self.damaged_at))
            more = " …" if self.damaged > len(self.damaged_at) else ""
            why.append(f"{self.damaged} damaged line(s) ({lines}{more})")
        if self.lost:
            why.append(f"{len(self.lost)} metric(s) without their result")
        return HarnessLog(src, self.session, count, not why, self.lost, "; ".join(why))


def _records(src: Source) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """(line, record) for every record line; a line that starts a record
    but is no JSON any more (cut, damaged, too long) as (line, its head)."""
    for n, line, whole in _lines(src):
        text = line.strip()
        if not text.startswith("{"):
            m = _STAMP.match(text)
            if m is None or not any(c in m.group() for c in ":."):
                continue  # a diagnostic, a banner, noise on the line
            text = text[m.end():]
        if not whole or "\x00" in text or not text.endswith("}"):
            yield n, text[:80]  # cut, damaged or too long: no JSON object (no parse needed)
            continue
        try:
            rec = records.parse_line(text)
        except records.DamagedRecord:
            yield n, text[:80]  # no JSON: damaged on the way, or cut
            continue
        except records.RecordError as exc:
            raise ImportFormatError(src.name, n,
                                    str(exc).replace("harness printed ", "")) from None
        if rec is not None:
            yield n, rec


def _lines(src: Source) -> Iterator[tuple[int, str, bool]]:
    """(line number, line, whole?) with LF, CR LF or CR as line ends; a line
    longer than records.MAX_LINE is given as its head, not whole, and the
    rest of it is skipped without being held."""
    limit = records.MAX_LINE
    fh = io.StringIO(src.text, newline=None) if src.text is not None else \
        src.open(newline=None)
    n = 0
    with fh:
        try:
            while True:
                line = fh.readline(limit + 1)
                if not line:
                    return
                n += 1
                if len(line) <= limit or line.endswith("\n"):
                    yield n, line.rstrip("\n"), True
                    continue
                head = line[:200]
                while line and not line.endswith("\n"):
                    line = fh.readline(limit + 1)
                yield n, head, False
        except OSError as exc:
            raise ImportFormatError(src.name, 0, f"cannot read: {exc.strerror or exc}") from exc
