"""CSV for every command that has a table (hyperfine's exporters share one
table layer; so do these): `report` (export.to_csv), `history`, `hist`
and `compare` (compare/document.py) write through `csv_text`, a header row
first, every figure with its unit said by its column or a `unit` column:
a time in ns (`_ns`), a counter's figures as `_ticks` (never cycles), a
board's `instructions`, the cycle model's figures as `est. cycles`, an
estimate, never a measurement.
"""

from __future__ import annotations

import csv
import io
from typing import Any, Iterable

HISTORY_CSV_SCHEMA = 1
HIST_CSV_SCHEMA = 1
HIST_CSV_COLUMNS = ("schema_version", "metric_id", "run", "profile", "series", "kind", "unit",
                    "lower", "upper", "count")


def csv_text(columns: Iterable[str], rows: Iterable[dict[str, Any]]) -> str:
    """A header row, then each row's value per column ("" where it has none)."""
    columns = list(columns)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for row in rows:
        w.writerow(["" if row.get(c) is None else row.get(c) for c in columns])
    return buf.getvalue()


def history_csv(points: list[dict[str, Any]], metric: str) -> str:
    """`rtbench history METRIC --format csv`: one row per run and profile, the
    report's columns (export.CSV_COLUMNS: `_ns`, `_ticks` with `unit`, a
    figure that is no time in `_value` with its unit, est. cycles labelled)
    after the run's target, kernel and origin, oldest run first."""
    from rtbench.sheets import export
    from rtbench.store import catalog

    meta = catalog.load().get(metric)
    title, service = (meta.title, meta.service) if meta else (metric, "")
    columns = ["history_schema_version", "target", "kernel", "run_origin",
               *export.CSV_COLUMNS]
    rows = []
    for p in points:
        row = {"history_schema_version": HISTORY_CSV_SCHEMA, "target": p.get("target"),
               "kernel": p.get("kernel"), "run_origin": p.get("origin"),
               "schema_version": export.CSV_SCHEMA, "run_id": p["run"], "run_uuid": p["uuid"],
               "run_label": p["label"], "metric_id": metric, "profile": p["profile"],
               "service": service, "title": title}
        row.update(export.csv_figures(p["record"]))
        rows.append(row)
    return csv_text(columns, rows)


def hist_csv(data: dict[str, Any]) -> str:
    """`rtbench hist --format csv`: one row per bucket (its bounds in `unit`,
    its count), then the underflow and overflow rows; the cycle model's
    buckets after the measured ones, `series` "estimate" and unit
    `est. cycles`."""
    rows = []
    for series in (data["measured"], data.get("estimate")):
        if not series:
            continue
        base = {"schema_version": HIST_CSV_SCHEMA, "metric_id": data["metric"],
                "run": data["run"], "profile": data["profile"], "series": series["series"],
                "unit": series["unit"]}
        rows += [{**base, "kind": "bucket", **b} for b in series["buckets"]]
        if series["underflow"]:
            rows.append({**base, "kind": "underflow", "upper": series["buckets"][0]["lower"],
                         "count": series["underflow"]})
        rows.append({**base, "kind": "overflow", "lower": series["overflow_at"],
                     "count": series["overflow"]})
    return csv_text(HIST_CSV_COLUMNS, rows)
