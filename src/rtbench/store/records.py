"""Harness records (docs/records.md, schema 2): parsing, checking, units.

Python never guesses what a number means: a harness record's statistics are
in its `unit`: "ticks" or "cycles" of a counter at `tick_hz` (a time: the
only conversion done here is to ns), or "instructions" (a count, under an
instruction-counting emulator: never converted to a time).

Records rtbench did not measure (docs/records.md, "Records from other
sources": imports, peers, external programs) carry `origin`, `source` and
`stats_given`: only the statistics the source gave are present, and
readers show an absent one as absent (`MetricRecord.has`, `ns_or_none`),
never computed from the others. Their unit may be a non-time one ("MB/s").
"""

from __future__ import annotations

import fnmatch
import json
import math
from dataclasses import dataclass
from typing import Any

from rtbench.store.contract import (  # noqa: F401 (the protocol's terms, re-exported)
    MAX_COUNT, MAX_FIGURE, STATS, STATUSES, TIME_UNIT, TIME_UNITS, RecordError, figure_problem)
from rtbench.store import contract

SCHEMA = 2
# Schema 1 named fields that hold the record's unit (instructions on a board)
# after ticks; schema 2 names them for what they are. A record of either is
# read in schema 2's names (`upgrade`), wherever it comes from.
RENAMED_METRIC = {"overhead_ticks": "overhead", "canary_ticks": "canary"}
RENAMED_HIST = {"offset_ticks": "offset"}
RENAMED_TS = {"resolution_ticks": "resolution", "overhead_min_ticks": "overhead_min",
              "overhead_median_ticks": "overhead_median", "overhead_mean_ticks": "overhead_mean",
              "overhead_ticks": "overhead"}
TYPES = ("registry", "session", "begin", "metric", "end")
MAX_LINE = 1 << 20  # characters of a record line (the harness's largest: ~200 KB)
# A sample that times a batch of N calls because the counter is too coarse
# for one (the record's `batch`, rtb_batch): these statistics are per call
# (the batch's span divided by N: the mean exactly, the others as the span
# of a typical batch); the rest (the tails, the spread) stay per batch,
# never divided, so one slow call shows at its full size.
PER_CALL_STATS = ("min", "p50", "mean")
COUNT_UNITS = ("instructions",)    # harness units that are counts (no tick_hz)
HARNESS_UNITS = TIME_UNITS + COUNT_UNITS
# `origin` of records rtbench did not measure with its harness (absent: the harness)
ORIGINS = ("import", "peer", "external", "rtbench")


class DamagedRecord(RecordError):
    """A line that starts like a record and is no JSON (cut short, damaged
    on a serial line, longer than any record): lost on the way, where a
    RecordError that is not this one is a record the harness got wrong."""


def _renamed(d: dict, names: dict[str, str]) -> dict:
    if not any(old in d for old in names):
        return d
    return {names.get(k, k) if names.get(k, k) not in d else k: v for k, v in d.items()}


def upgrade(rec: dict[str, Any]) -> dict[str, Any]:
    """A record in schema 2's names (a schema-1 record renamed; anything
    else as it is). Idempotent."""
    if not isinstance(rec, dict):
        return rec
    t = rec.get("type")
    if t == "session" and isinstance(rec.get("ts"), dict):
        ts = _renamed(rec["ts"], RENAMED_TS)
        return rec if ts is rec["ts"] else {**rec, "ts": ts}
    if t in (None, "metric"):
        rec = _renamed(rec, RENAMED_METRIC)
        if isinstance(rec.get("hist"), dict):
            hist = _renamed(rec["hist"], RENAMED_HIST)
            if hist is not rec["hist"]:
                rec = {**rec, "hist": hist}
    return rec


def parse_line(line: str) -> dict[str, Any] | None:
    """The record on `line`, or None if the line is not a record.

    Only lines starting with `{` are records (the protocol's rule); anything
    else is a diagnostic and is ignored. A record is checked whole
    (rtbench.store.contract): a line that starts with `{` and is not a
    record the protocol allows is a RecordError, never a crash later.
    """
    line = line.strip()
    if not line.startswith("{"):
        return None
    if len(line) > MAX_LINE:
        raise DamagedRecord(f"harness printed a record line longer than {MAX_LINE} characters")
    try:
        rec = _DECODER.decode(line)
    except RecursionError:
        raise RecordError("harness printed a record nested too deeply") from None
    except json.JSONDecodeError as exc:  # no JSON: cut or damaged on its way
        raise DamagedRecord(f"harness printed a malformed record ({_why(exc)}): "
                            f"{contract.printable(line, 200)}") from None
    except ValueError as exc:  # NaN, Infinity, a number of 5000 digits: JSON, but no record
        raise RecordError(f"harness printed a malformed record ({_why(exc)}): "
                          f"{contract.printable(line, 200)}") from None
    if not isinstance(rec, dict) or rec.get("type") not in TYPES:
        raise RecordError(f"harness printed a record of unknown type: "
                          f"{contract.printable(line, 200)}")
    if rec.get("type") == "session" and rec.get("schema") == 1:
        rec = upgrade(rec)  # an image built by an earlier rtbench (a flashed board's log)
    elif rec.get("type") == "metric":
        rec = upgrade(rec)
    contract.check(rec)
    _CHECKS[rec["type"]](rec)
    return rec


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


def _why(exc: ValueError) -> str:
    return str(exc).split(": line 1 column")[0] if "line 1 column" in str(exc) else str(exc)


_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def _need(rec: dict, *keys: str) -> None:
    missing = [k for k in keys if not isinstance(rec, dict) or k not in rec]
    if missing:
        raise RecordError(f"{rec.get('type') if isinstance(rec, dict) else 'a'} record lacks "
                          f"{', '.join(missing)}: {json.dumps(rec)[:200]}")


def _check_session(rec: dict) -> None:
    _need(rec, "schema", "ts", "rt", "config")
    if rec["schema"] not in (1, SCHEMA):
        raise RecordError(f"harness speaks record schema {contract.printable(rec['schema'], 20)}, "
                          f"this rtbench knows schemas 1 and {SCHEMA}")
    _need(rec["ts"], "hz_measured")
    _need(rec["rt"], "realtime")


def _check_metric(rec: dict) -> None:
    _need(rec, "id", "status")
    mid = contract.printable(rec["id"], 60)
    if rec["status"] not in STATUSES:
        raise RecordError(f"metric {mid}: unknown status "
                          f"{contract.printable(rec['status'], 20)!r}")
    if rec["status"] != "ok":
        return
    _need(rec, "unit", "n", *STATS)
    if rec["unit"] not in HARNESS_UNITS:
        raise RecordError(f"metric {mid}: unknown unit {contract.printable(rec['unit'], 20)!r}")
    if rec["unit"] in TIME_UNITS:
        _need(rec, "tick_hz")


_CHECKS = {
    "registry": lambda r: _need(r, "id"),
    "session": _check_session,
    "begin": lambda r: _need(r, "id"),
    "metric": _check_metric,
    "end": lambda r: None,
}


def strict_json(obj: Any, **kwargs: Any) -> str:
    """JSON that strict parsers read: a NaN or an infinity (a record stored
    before rtbench refused them) is written as null, never as a bare NaN."""
    def finite(o: Any) -> Any:
        if isinstance(o, float) and not math.isfinite(o):
            return None
        if isinstance(o, dict):
            return {k: finite(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [finite(v) for v in o]
        return o

    return json.dumps(finite(obj), allow_nan=False, **kwargs)


def registry_entry(rec: dict[str, Any]) -> tuple[bool, str]:
    """A `--list` line as (supported, what the harness says of the row): an
    unsupported row's reason, or where a supported row's window holds not
    the service its name implies, "not comparable: " and what it holds
    (`window_holds`); "" otherwise. The one reader of every target's list."""
    supported = bool(rec.get("supported", True))
    if not supported:
        return False, str(rec.get("reason", ""))
    holds = rec.get("window_holds")
    return True, f"not comparable: {holds}" if isinstance(holds, str) and holds else ""


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
    def cycles(self) -> dict[str, Any] | None:
        """An emulated board's estimated cycles of the same samples
        (docs/records.md `cycles`: a model's estimate, never a measurement),
        when the model priced them; None otherwise."""
        c = self.raw.get("cycles")
        return c if isinstance(c, dict) and c.get("status") == "ok" and self.ok else None

    @property
    def unranked(self) -> str:
        """Why the row is kept out of every ranking (docs/records.md: the
        harness's `unranked`, e.g. "the kernel adds nothing: ..."); "" when
        it is ranked. Its figure is shown, never ranked."""
        value = self.raw.get("unranked")
        return value.strip() if isinstance(value, str) else ""

    @property
    def window_holds(self) -> str:
        """What the row's window holds where the port says it is not the
        service the row's name implies (docs/records.md `window_holds`,
        rtb_port_window_holds): "a sem_post of the start gate …"; "" when
        it holds the named service. Such a figure is compared with no other
        kernel's and no vendor's."""
        value = self.raw.get("window_holds")
        return value.strip() if isinstance(value, str) else ""

    @property
    def ops(self) -> int:
        """Operations one sample timed (`rtb_per_sample`); statistics are per sample."""
        return int(self.raw.get("ops") or 1)

    @property
    def bytes(self) -> int:
        """Bytes one sample moved (0: the metric is not a transfer)."""
        return int(self.raw.get("bytes") or 0)

    @property
    def batch(self) -> int:
        """Calls a sample timed because the counter was too coarse for one
        (rtb_batch; 1: one call a sample)."""
        return int(self.raw.get("batch") or 1)

    def per_batch(self, stat: str) -> bool:
        """Whether `stat` is given per batch of `batch` calls, not per call
        (PER_CALL_STATS)."""
        return self.batch > 1 and stat not in PER_CALL_STATS

    def divisor(self, stat: str) -> float:
        """What a sample's `stat` is divided by to give the figure: `ops`,
        less the batch for a batched row's tails."""
        return self.ops / self.batch if self.per_batch(stat) else self.ops

    def step(self, stat: str, clock_step: float) -> float:
        """The smallest change `stat` can show, in `base_unit`: one step of
        the clock (`Session.clock_step`, ticks) over what a sample is divided
        by. A figure below it is below what the counter resolves; 0 where
        there is no such step (a count, another tool's figure)."""
        if not (self.is_time and clock_step > 0 and self.raw.get("tick_hz")) or self.origin:
            return 0.0
        return ticks_to_ns(clock_step, self.raw["tick_hz"]) / self.divisor(stat)

    def ns(self, stat: str) -> float:
        """A statistic in ns per operation (per sample divided by `ops`; a
        batch's tails per batch, `per_batch`). KeyError if the record lacks
        it (see `has`, `ns_or_none`)."""
        return ticks_to_ns(self.raw[stat], self.raw["tick_hz"]) / self.divisor(stat)

    # ---- records from other sources (docs/records.md) ----

    @property
    def unit(self) -> str:
        """"ticks"/"cycles" (a time at `tick_hz`), "instructions" (a count),
        or the figure's own unit from another source ("MB/s", ...)."""
        return self.raw.get("unit", TIME_UNIT)

    @property
    def is_time(self) -> bool:
        return self.unit in TIME_UNITS

    @property
    def is_count(self) -> bool:
        """Instructions executed: a cost, not a time (no frequency)."""
        return self.unit in COUNT_UNITS

    @property
    def base_unit(self) -> str:
        """The unit `value` answers in: "ns" for a time, else the record's own."""
        return "ns" if self.is_time else self.unit

    def count(self, stat: str) -> float:
        """A statistic of a count record (instructions) per operation."""
        return float(self.raw[stat]) / self.divisor(stat)

    @property
    def stats_given(self) -> tuple[str, ...]:
        """The statistics the source gave; a harness record gives them all."""
        given = self.raw.get("stats_given")
        return STATS if given is None else tuple(s for s in STATS if s in given)

    def has(self, stat: str) -> bool:
        """Whether the record holds `stat` (an ok record that the source gave it)."""
        return self.ok and stat in self.stats_given and self.raw.get(stat) is not None

    def ns_or_none(self, stat: str) -> float | None:
        """`ns(stat)`, or None when the record lacks it or is not a time."""
        return self.ns(stat) if self.is_time and self.has(stat) else None

    def value(self, stat: str) -> float | None:
        """The statistic in `base_unit` (ns for a time, instructions per
        operation for a count, the source's own unit otherwise), or None."""
        if not self.has(stat):
            return None
        if self.is_time:
            return self.ns(stat)
        return self.count(stat) if self.is_count else float(self.raw[stat])

    @property
    def n(self) -> int | None:
        """The sample count, None when the source did not say."""
        return self.raw.get("n")

    @property
    def origin(self) -> str:
        """"" for the harness's records, else one of ORIGINS."""
        return self.raw.get("origin", "")

    @property
    def mapped(self) -> bool:
        """False for a figure no catalogue metric answers (id "<tool>:<name>")."""
        return self.raw.get("mapped", True) is not False

    @property
    def source(self) -> dict[str, Any]:
        return self.raw.get("source") or {}

    @property
    def step_ns(self) -> float:
        """The step of the figures as an imported source printed them, in ns
        (cyclictest's whole µs: 1000), 0 where none is known."""
        v = self.source.get("step_ns")
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 \
            else 0.0


# ---- where a kernel's convention puts more in a window than the definition ----
# A port states it in its target facts as "differs:PATTERN[,PATTERN...]" =
# text (rtb/port.h, struct rtb_port_info.facts): the rows whose ids match a
# pattern (fnmatch) carry the text of the most specific (longest) pattern.
DIFFERS = "differs:"
# "evidence:PATTERNS" -> "fn[,fn]": the kernel function whose instructions
# show, in an instruction trace, the thing a definition difference of the
# same patterns states (the window audit checks a note is on rows whose
# windows hold it). Not shown on a sheet.
EVIDENCE = "evidence:"


def differences(facts: dict[str, Any]) -> list[tuple[list[str], str]]:
    """A port's stated definition differences: (patterns, text), in order."""
    return [(k[len(DIFFERS):].split(","), str(v)) for k, v in facts.items()
            if k.startswith(DIFFERS)]


def evidences(facts: dict[str, Any]) -> list[tuple[list[str], list[str]]]:
    """A port's evidence for its definition differences: (patterns, functions)."""
    return [(k[len(EVIDENCE):].split(","), str(v).split(",")) for k, v in facts.items()
            if k.startswith(EVIDENCE)]


def is_note_key(key: str) -> bool:
    """A definition difference or its evidence: no configuration row."""
    return key.startswith((DIFFERS, EVIDENCE))


def difference(facts: dict[str, Any], metric_id: str) -> str:
    """What the port says its kernel adds to `metric_id`'s window ("": nothing)."""
    best, text = -1, ""
    for patterns, says in differences(facts):
        for p in patterns:
            if fnmatch.fnmatchcase(metric_id, p) and len(p) > best:
                best, text = len(p), says
    return text


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

    @property
    def core_hz(self) -> float:
        """The core clock the harness measured (ts.core_hz: a chain of dependent
        adds timed by the reference clock), 0 where the port has none. Only a
        "ticks" counter needs it: a "cycles" counter is the core's own.
        (A harness of the issue-13 WIP gave it as the target fact "core_hz".)"""
        value = self.ts.get("core_hz") or self.target.get("core_hz") or 0
        try:
            return max(float(value), 0.0)
        except (TypeError, ValueError):
            return 0.0

    @property
    def core_hz_method(self) -> str:
        """How the core clock was obtained, in the harness's words."""
        return self.ts.get("core_hz_method") or self.target.get("core_hz_how") or ""

    @property
    def core_cycles_hz(self) -> float:
        """The clock at which a time becomes core cycles beside a vendor's CPU
        cycles: the measured core clock when the counter's ticks are not the
        core's cycles, else 0 (no conversion to make, or none known)."""
        return self.core_hz if self.unit == TIME_UNIT else 0.0

    @property
    def unit(self) -> str:
        """The unit of the run's harness figures (older harnesses: "ticks")."""
        return self.ts.get("unit") or TIME_UNIT

    @property
    def is_count(self) -> bool:
        return self.unit in COUNT_UNITS

    @property
    def target(self) -> dict[str, Any]:
        """The port's facts about its target (kernel version, tick, board...)."""
        return self.raw.get("target") or {}

    @property
    def source(self) -> dict[str, Any] | None:
        """What an imported run was read from (`rtbench import KIND`), or what
        a peer run ran (`--with-peers` on a board: rtbench.peers.rtosbench), else None."""
        return self.raw.get("source") if self.raw.get("origin") in ("import", "peer") else None

    @property
    def is_peer(self) -> bool:
        return self.raw.get("origin") == "peer"

    def ticks_ns(self, ticks: float) -> float | None:
        return ticks_to_ns(ticks, self.hz) if self.hz else None

    @property
    def clock_step(self) -> float:
        """One step of the clock as a sample sees it, in the counter's ticks:
        its resolution, or one read's spread where larger (ts.step); 0 for a
        count (instructions are exact) or where the harness did not say."""
        if self.is_count:
            return 0.0
        steps = [v for v in (self.ts.get("step"), self.ts.get("resolution"))
                 if isinstance(v, (int, float)) and not isinstance(v, bool)]
        return float(max(steps, default=0))
