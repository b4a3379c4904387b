"""Exports of a stored run (CSV, JSON) and reading a results file back for
`rtbench import`.

JSON is the results envelope (rtbench.report.envelope), described by the
JSON Schema in rtbench/schema/results.schema.json (docs/results-schema.json
is the same file). CSV has one row per metric and profile; its columns are
CSV_COLUMNS, documented in docs/reports.md.
"""

from __future__ import annotations

import csv
import io
import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from rtbench.catalog import Catalog
from rtbench.errors import RtbenchError
from rtbench.records import MetricRecord
from rtbench.report import ENVELOPE_SCHEMA, envelope, items
from rtbench.store import DEFAULT_PROFILE, Run

CSV_SCHEMA = 1
CSV_COLUMNS = (
    "schema_version", "run_id", "run_uuid", "run_label", "metric_id", "profile", "service",
    "title", "status", "reason", "n", "tick_hz", "min_ns", "p50_ns", "p90_ns", "p99_ns",
    "p999_ns", "max_ns", "mean_ns", "stddev_ns", "min_cycles", "p50_cycles", "p99_cycles",
    "max_cycles", "realtime", "note",
    # records from other sources (docs/records.md): empty for the harness's
    "origin", "stats_given", "unit", "min_value", "p50_value", "mean_value", "max_value",
)
_NS_STATS = ("min", "p50", "p90", "p99", "p999", "max", "mean", "stddev")
_CYCLE_STATS = ("min", "p50", "p99", "max")


class ResultsFileError(RtbenchError):
    """A results file that cannot be imported (the message names why)."""


def to_json(run: Run, catalog: Catalog) -> str:
    return json.dumps(envelope(run, catalog), indent=2) + "\n"


def to_csv(run: Run, catalog: Catalog) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for it in items(run, catalog):
        for profile, rec in it.records.items():
            row = {"schema_version": CSV_SCHEMA, "run_id": run.id, "run_uuid": run.uuid,
                   "run_label": run.label, "metric_id": it.id, "profile": profile,
                   "service": it.service, "title": it.title}
            if rec is None:
                row.update(status="not_measured", reason="run incomplete")
            else:
                row.update(_csv_figures(rec))
            w.writerow([row.get(c, "") for c in CSV_COLUMNS])
    return buf.getvalue()


def _csv_figures(rec: dict) -> dict[str, Any]:
    m = MetricRecord(rec)
    row: dict[str, Any] = {"status": m.status, "reason": m.reason, "n": rec.get("n", ""),
                           "note": rec.get("note", ""), "origin": m.origin}
    if "stats_given" in rec:
        row["stats_given"] = " ".join(m.stats_given)
    if not m.ok:
        return row
    # An absent statistic stays an empty cell: never computed from the others.
    if not m.is_time:
        row["unit"] = m.unit
        for stat in ("min", "p50", "mean", "max"):
            if m.has(stat):
                row[f"{stat}_value"] = _num(rec[stat])
        return row
    row.update(tick_hz=rec["tick_hz"], realtime=str(rec.get("realtime", "")).lower())
    for stat in _NS_STATS:
        if m.has(stat):
            row[f"{stat}_ns"] = f"{m.ns(stat):.3f}"
    if not m.origin:  # an imported time's ticks are ns, not anybody's cycles
        for stat in _CYCLE_STATS:
            row[f"{stat}_cycles"] = _num(rec[stat])
    return row


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.3f}"


# ---- reading results files ----

@lru_cache(maxsize=None)
def results_schema() -> dict:
    text = resources.files("rtbench").joinpath("schema/results.schema.json").read_text("utf-8")
    return json.loads(text)


def load_results(path: Path) -> dict:
    """A results file read, upgraded to the current schema version and
    checked against the schema; ResultsFileError naming the problem otherwise."""
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ResultsFileError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResultsFileError(f"{path} is not valid JSON: {exc.msg} at line {exc.lineno} "
                           f"column {exc.colno}") from exc
    if not isinstance(data, dict) or "schema_version" not in data:
        raise ResultsFileError(f"{path} is not an rtbench results file (no schema_version)")
    version = data["schema_version"]
    if version == 1:
        data = upgrade_v1(data)
    elif version != ENVELOPE_SCHEMA:
        newer = isinstance(version, int) and version > ENVELOPE_SCHEMA
        raise ResultsFileError(f"{path} has results schema_version {version!r}"
                           + (", written by a newer rtbench" if newer else "")
                           + f"; this rtbench reads versions 1 and {ENVELOPE_SCHEMA}")
    validate(data, str(path))
    return data


def validate(data: Any, name: str = "results") -> None:
    import jsonschema

    validator = jsonschema.Draft202012Validator(results_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "top level"
        raise ResultsFileError(f"{name} does not match the results schema at {where}: "
                           f"{_short(error.message)}")
    seen = set()
    for rec in data["metrics"]:
        key = (rec["id"], rec["profile"])
        if key in seen:
            raise ResultsFileError(f"{name} holds metric {rec['id']} [{rec['profile']}] twice")
        seen.add(key)


def _short(message: str, limit: int = 160) -> str:
    message = " ".join(message.split())
    return message if len(message) <= limit else message[:limit - 1] + "…"


def upgrade_v1(data: dict) -> dict:
    """Schema 1 (rtbench 0.1.0) → 2: records gain their profile ("rt"),
    not_measured becomes {id, profile} objects, the run lists its profiles."""
    out = dict(data, schema_version=ENVELOPE_SCHEMA)
    run = dict(data.get("run") or {})
    metrics = [dict(m, profile=m.get("profile", DEFAULT_PROFILE)) if isinstance(m, dict) else m
               for m in data.get("metrics") or []]
    not_measured = [{"id": m, "profile": DEFAULT_PROFILE} if isinstance(m, str) else m
                    for m in data.get("not_measured") or []]
    run.setdefault("profiles", list(dict.fromkeys(
        m["profile"] for m in metrics if isinstance(m, dict))) or [DEFAULT_PROFILE])
    out.update(run=run, metrics=metrics, not_measured=not_measured)
    return out
