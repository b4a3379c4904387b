"""`rtbench import harness LOG`: the harness's own record stream, captured
from a board's serial port (or any console) by whatever the user has, for
a board rtbench did not drive (real hardware, no QEMU, no labgrid).

The log holds the same JSON lines rtbench reads from a local harness or an
emulated UART (docs/records.md), among whatever else the console printed
(a boot banner, diagnostics): lines that do not start with `{` are not
records and are skipped, as the runner skips them. The run is stored as
measured by the harness (the sheet is the same as for a run rtbench
drove), its configuration taken from the session record's target facts.
A log that ends inside a metric (the board stopped, the capture was cut)
stores what arrived, the run marked incomplete and the metric failed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rtbench.importers.base import ImportFormatError, Source
from rtbench.store import records


@dataclass
class HarnessLog:
    session: dict[str, Any]
    metrics: list[dict[str, Any]]
    complete: bool  # the harness's end record arrived

    def host(self, name: str) -> dict[str, Any]:
        """The target as the session record describes it (never this PC)."""
        t = self.session.get("target") or {}
        kernel = str(t.get("kernel", self.session.get("port", "?")))
        os_name, _, version = kernel.partition(" ")
        return {"target": t.get("board", "unknown board"), "target_kind": "board (serial log)",
                "board": t.get("board", "unknown board"), "cpu_model": t.get("cpu", "unknown"),
                "os": os_name, "kernel_version": version, "log": name}


def read(src: Source) -> HarnessLog:
    session: dict[str, Any] | None = None
    metrics: dict[str, dict[str, Any]] = {}
    current: tuple[int, str] | None = None  # (line, metric id) begun, not yet reported
    end = False
    for n, line in src.lines():
        line = line.strip()
        if not line.startswith("{"):
            continue  # a diagnostic, a banner, noise on the line
        try:
            rec = records.parse_line(line)
        except records.RecordError as exc:
            raise ImportFormatError(src.name, n, str(exc).replace("harness printed ", "")) from exc
        kind = rec["type"]
        if kind == "registry":
            raise ImportFormatError(src.name, n, "a --list output, not a run")
        if kind == "session":
            if session is not None:
                raise ImportFormatError(src.name, n, "a second session record: the board ran "
                                        "the harness twice; import each run's part on its own")
            session = rec
            continue
        if session is None:
            raise ImportFormatError(src.name, n, f"{kind} record before the session record")
        if end:
            raise ImportFormatError(src.name, n, f"{kind} record after the end record")
        if kind == "end":
            end = True
        elif kind == "begin":
            current = (n, rec["id"])
        elif kind == "metric":
            if rec["id"] in metrics:
                raise ImportFormatError(src.name, n, f"metric {rec['id']} reported twice")
            metrics[rec["id"]] = rec
            current = None
    if session is None:
        raise ImportFormatError(src.name, 0, "no harness session record: not an rtbench "
                                "harness log (docs/records.md)")
    if current is not None and current[1] not in metrics:
        metrics[current[1]] = records.failed_record(
            current[1], f"the log ends inside this metric (line {current[0]}): the board "
            "stopped or the capture was cut")
    return HarnessLog(session, list(metrics.values()), end)
