"""Harness records (docs/records.md, schema 1): parsing, checking, units.

Python never guesses what a number means: statistics are in counter ticks at
`tick_hz`, and the only conversion done here is ticks -> ns.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from rtbench.errors import HarnessError

SCHEMA = 1
TYPES = ("registry", "session", "begin", "metric", "end")
STATUSES = ("ok", "unsupported", "failed")
STATS = ("min", "max", "mean", "stddev", "p50", "p90", "p99", "p999")


class RecordError(HarnessError):
    """A line that claims to be a record but breaks the protocol."""


def parse_line(line: str) -> dict[str, Any] | None:
    """The record on `line`, or None if the line is not a record.

    Only lines starting with `{` are records (the protocol's rule); anything
    else is a diagnostic and is ignored.
    """
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        rec = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RecordError(f"harness printed a malformed record ({exc}): {line[:200]}") from exc
    if not isinstance(rec, dict) or rec.get("type") not in TYPES:
        raise RecordError(f"harness printed a record of unknown type: {line[:200]}")
    _CHECKS[rec["type"]](rec)
    return rec


def _need(rec: dict, *keys: str) -> None:
    missing = [k for k in keys if k not in rec]
    if missing:
        raise RecordError(f"{rec.get('type')} record lacks {', '.join(missing)}: "
                          f"{json.dumps(rec)[:200]}")


def _check_session(rec: dict) -> None:
    _need(rec, "schema", "ts", "rt", "config")
    if rec["schema"] != SCHEMA:
        raise RecordError(f"harness speaks record schema {rec['schema']}, "
                          f"this rtbench knows schema {SCHEMA}")
    _need(rec["ts"], "hz_measured")
    _need(rec["rt"], "realtime")


def _check_metric(rec: dict) -> None:
    _need(rec, "id", "status")
    if rec["status"] not in STATUSES:
        raise RecordError(f"metric {rec['id']}: unknown status {rec['status']!r}")
    if rec["status"] != "ok":
        return
    _need(rec, "unit", "tick_hz", "n", *STATS)
    if rec["unit"] != "ticks":
        raise RecordError(f"metric {rec['id']}: unknown unit {rec['unit']!r}")
    if not rec["tick_hz"] or rec["tick_hz"] <= 0:
        raise RecordError(f"metric {rec['id']}: tick_hz must be positive")


_CHECKS = {
    "registry": lambda r: _need(r, "id"),
    "session": _check_session,
    "begin": lambda r: _need(r, "id"),
    "metric": _check_metric,
    "end": lambda r: None,
}


def ticks_to_ns(ticks: float, tick_hz: float) -> float:
    # A 64-bit float keeps ~15 significant digits: plenty for tick counts.
    return ticks * 1e9 / tick_hz


def failed_record(metric_id: str, reason: str) -> dict[str, Any]:
    """A metric record rtbench writes itself when the harness could not.

    `origin` tells it apart from records the harness printed.
    """
    return {"type": "metric", "id": metric_id, "status": "failed", "reason": reason,
            "n": 0, "origin": "rtbench"}


@dataclass(frozen=True)
class MetricRecord:
    """Read-only view on a metric record with unit conversions."""

    raw: dict[str, Any]

    @property
    def id(self) -> str:
        return self.raw["id"]

    @property
    def status(self) -> str:
        return self.raw["status"]

    @property
    def reason(self) -> str:
        return self.raw.get("reason", "")

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def ops(self) -> int:
        """Operations one sample timed (`rtb_per_sample`); statistics are per sample."""
        return int(self.raw.get("ops") or 1)

    @property
    def bytes(self) -> int:
        """Bytes one sample moved (0: the metric is not a transfer)."""
        return int(self.raw.get("bytes") or 0)

    def ns(self, stat: str) -> float:
        """A statistic in ns per operation (per sample divided by `ops`)."""
        return ticks_to_ns(self.raw[stat], self.raw["tick_hz"]) / self.ops


@dataclass(frozen=True)
class Session:
    """Read-only view on the harness session record."""

    raw: dict[str, Any]

    @property
    def ts(self) -> dict[str, Any]:
        return self.raw.get("ts", {})

    @property
    def rt(self) -> dict[str, Any]:
        return self.raw.get("rt", {})

    @property
    def config(self) -> dict[str, Any]:
        return self.raw.get("config", {})

    @property
    def hz(self) -> float:
        return self.ts.get("hz_measured") or 0

    def ticks_ns(self, ticks: float) -> float | None:
        return ticks_to_ns(ticks, self.hz) if self.hz else None
