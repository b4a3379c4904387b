"""`rtbench hist METRIC [RUN]`: one metric's distribution as cyclictest
prints its histogram (`-h`): a line per bucket (lower bound, count), the
summary lines after it, and the samples beyond the last bucket counted as
"Histogram Overflows", so a worst case is never hidden by the bucket range.

The buckets are re-cut from the stored log-linear histogram (each stored
bucket's samples at its midpoint, ≤ 0.4 % off); a cyclictest import keeps
its own overflow count, said on its own line.

An emulated board's record also holds the same samples in estimated cycles
(its `cycles`, docs/cycles.md): their histogram follows the instructions'
in the same layout, under the model's own label, never in their place; a
board record without them says that nothing is estimated, and why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rtbench.errors import RtbenchError
from rtbench.sheets import estcycles
from rtbench.sheets.plots import UNIT_SHORT
from rtbench.sheets.units import fmt_scaled, time_scale
from rtbench.store.catalog import did_you_mean
from rtbench.store.db import Store
from rtbench.store.records import MetricRecord
from rtbench.store.stats import Grouped, grouped

MIN_WIDTH_NS = 1e-3  # a bucket of a time: no finer than the ps a figure in ns is rounded to
MAX_WIDTH = 1e15  # in the run's unit: rtbench stores no figure beyond it (records.MAX_FIGURE)
BUCKETS = 100  # buckets before the overflow line, by default (cyclictest -h 100 at 1 µs)
BAR = 40
_TIME_UNITS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}
SUMMARY = (("Min", "min"), ("Median", "p50"), ("Avg", "mean"), ("P99", "p99"), ("Max", "max"))
EST_UNIT = "est. cycles"  # the model's unit (docs/records.md `cycles.unit`)


@dataclass
class Histogram:
    unit: str  # the unit bucket bounds are printed in ("µs", "ns", "instr")
    div: float  # base unit per printed unit
    width: float  # bucket width, base unit
    start: float  # first bucket's lower bound, base unit
    counts: list[int]
    overflow: int  # samples at or above start + len(counts) * width
    underflow: int  # samples below start (none unless --width moved it)
    source_overflow: int  # samples beyond the source's own histogram (cyclictest)

    @property
    def limit(self) -> float:
        return self.start + len(self.counts) * self.width


def parse_width(text: str | None, base_unit: str) -> float | None:
    """--width: "1us", "250ns", or a plain number in the run's unit."""
    if text is None:
        return None
    t = text.strip().lower()
    for suffix, mult in sorted(_TIME_UNITS.items(), key=lambda kv: -len(kv[0])):
        if t.endswith(suffix) and base_unit == "ns":
            t, scale = t[:-len(suffix)], mult
            break
    else:
        scale = 1.0
    try:
        value = float(t) * scale
    except ValueError:
        raise RtbenchError(f"--width {text[:40]!r}: a number with a unit (1us, 250ns), or a "
                           f"plain number in the run's unit ({base_unit})") from None
    low = MIN_WIDTH_NS if base_unit == "ns" else 1.0
    if not math.isfinite(value) or not low <= value <= MAX_WIDTH:
        raise RtbenchError(f"--width {text[:40]!r}: from {low:g} to {MAX_WIDTH:g} "
                           f"{base_unit} (a bucket no finer than the figures, no wider than "
                           "any of them)")
    return value


def nice_width(span: float, buckets: int = 30) -> float:
    """A 1-2-5 step that cuts `span` into at most `buckets` buckets."""
    if span <= 0:
        return 1.0
    raw = span / buckets
    e = math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * 10 ** e >= raw:
            return float(m * 10 ** e)
    return float(10 ** (e + 1))


def make(rec: dict, width: float | None = None, buckets: int = BUCKETS,
         whole_counts: bool = False) -> Histogram:
    m = MetricRecord(rec)
    g = grouped(rec)
    if g is None:
        raise RtbenchError(f"{rec['id']}: no histogram stored (the source gave "
                           f"{', '.join(m.stats_given) or 'no statistic'})")
    unit, div = _display_unit(m, m.value("p50") or float(g.values[0]))
    return _cut(g, m.value("p99"), m.is_count, width, buckets, unit, div,
                int((rec.get("hist") or {}).get("overflow") or 0))


def make_est(c: dict, width: float | None = None, buckets: int = BUCKETS) -> Histogram:
    """The estimated cycles' histogram (a record's `cycles`): its stored
    buckets (one per value up to the model's bucket count, exact), re-cut
    as the instructions' are. Its samples are the record's, so an overflow
    beyond its buckets cannot happen (the model's `hist.overflow` is 0)."""
    b = np.asarray(c["hist"]["buckets"], dtype=float).reshape(-1, 3)
    values = (b[:, 0] + b[:, 1] - 1) / 2 + float(c["hist"].get("offset", 0))
    order = np.argsort(values, kind="stable")
    g = Grouped(values[order], b[order, 2], EST_UNIT)
    return _cut(g, float(c["p99"]), True, width, buckets, EST_UNIT, 1.0, 0)


def _cut(g: Grouped, p99: float | None, whole: bool, width: float | None, buckets: int,
         unit: str, div: float, source_overflow: int) -> Histogram:
    """Buckets of `width` (default: a 1-2-5 step that puts the p99 within 30
    of them; a count's at least 1 and whole) from the first sample on."""
    lo, p99 = float(g.values[0]), p99 or float(g.values[-1])
    width = width or nice_width(max(p99 - lo, 1.0 if whole else 1e-9))
    if whole:
        width = max(1.0, round(width))
    start = math.floor(lo / width) * width
    idx = np.floor((g.values - start) / width).astype(np.int64)
    inside = (idx >= 0) & (idx < buckets)
    counts = np.bincount(idx[inside], weights=g.counts[inside], minlength=buckets)
    return Histogram(unit, div, width, start, [int(c) for c in counts],
                     int(g.counts[idx >= buckets].sum()), int(g.counts[idx < 0].sum()),
                     source_overflow)


def _display_unit(m: MetricRecord, typical: float) -> tuple[str, float]:
    """The unit the body of the distribution reads best in (the sheet's rule)."""
    if not m.is_time:
        return UNIT_SHORT.get(m.base_unit, m.base_unit), 1.0
    return time_scale([typical])


def render(rec: dict, h: Histogram, title: str, all_rows: bool = False) -> str:
    """cyclictest's layout: `# Histogram`, one `bound count` line per
    bucket (from the first to the last non-empty, or all with `all_rows`),
    then the summary with the overflow count."""
    m = MetricRecord(rec)
    summary = []
    for label, stat in SUMMARY:
        v = m.value(stat)
        name = f"{label} Latencies" if m.is_time else label
        summary.append(f"# {name}: " + ("—" if v is None else f"{fmt_scaled(v, h.div)} {h.unit}"))
    return _layout(h, [f"# {title}"], summary, all_rows)


def render_est(c: dict, h: Histogram, all_rows: bool = False) -> str:
    """The estimated cycles of the same samples in the same layout, under
    the model's label: the median with the model's range of it, and µs at
    the board's clock (estcycles)."""
    head = [f"# {EST_UNIT} of the same {c['n']} samples, sample by sample (rtbench's cycle "
            "model, docs/cycles.md)", f"# {estcycles.said(c)}"]
    summary = []
    for label, stat in SUMMARY:
        v = f"{c[stat]:,}" if stat != "mean" else f"{c[stat]:,.1f}"
        if stat == "p50":
            v = estcycles.median(c)
        summary.append(f"# {label}: {v} {EST_UNIT} ({estcycles.us(c, stat)} µs)")
    return _layout(h, head, summary, all_rows)


def no_est(rec: dict) -> str:
    """Why a board record (instructions) has no estimated cycles, on one line."""
    c = rec.get("cycles")
    if isinstance(c, dict) and c.get("status") == "unpaired":
        why = ("the cycle model's samples could not stand beside these: "
               + str(c.get("reason") or "no reason given"))
    else:
        why = "the run was made without the cycle model (--no-cycles), or before rtbench had one"
    return f"# No {EST_UNIT}: nothing is estimated for this record; {why}\n"


def _layout(h: Histogram, head: list[str], summary: list[str], all_rows: bool) -> str:
    nonzero = [i for i, c in enumerate(h.counts) if c]
    first, last = (0, len(h.counts) - 1) if all_rows or not nonzero else (nonzero[0], nonzero[-1])
    top = max(h.counts) or 1

    def fmt(v: float) -> str:
        x = v / h.div
        return f"{x:g}" if float(x).is_integer() else f"{x:.4g}"

    lines = [*head,
             f"# buckets of {fmt(h.width)} {h.unit}, each line its lower bound and its sample "
             "count; re-cut from the stored histogram",
             "# Histogram"]
    for i in range(first, last + 1):
        c = h.counts[i]
        bar = "#" * (max(1, round(BAR * c / top)) if c else 0)
        lines.append(f"{fmt(h.start + i * h.width):>9} {c:09d}  {bar}")
    total = sum(h.counts) + h.overflow + h.underflow
    lines.append(f"# Total: {total:09d}")
    lines += summary
    if h.underflow:
        lines.append(f"# Histogram Underflows: {h.underflow:09d} (below {fmt(h.start)} {h.unit})")
    lines.append(f"# Histogram Overflows: {h.overflow:09d} (at or above {fmt(h.limit)} "
                 f"{h.unit}; --buckets or --width to see them)")
    if h.source_overflow:
        lines.append(f"# of which beyond the source's own histogram: {h.source_overflow:09d} "
                     "(its Histogram Overflows, counted at its max)")
    return "\n".join(lines) + "\n"


HIST_JSON_SCHEMA = 1


def series(h: Histogram, name: str) -> dict:
    """A histogram as data (`--format json|csv`): each bucket's bounds in
    the printed unit, its count, and what lies outside them."""
    def at(v: float) -> float:
        x = v / h.div
        return int(x) if float(x).is_integer() else round(x, 6)

    unit = "instructions" if h.unit == UNIT_SHORT.get("instructions") else h.unit
    return {"series": name, "unit": unit, "bucket_width": at(h.width),
            "buckets": [{"lower": at(h.start + i * h.width),
                         "upper": at(h.start + (i + 1) * h.width), "count": c}
                        for i, c in enumerate(h.counts)],
            "underflow": h.underflow, "overflow": h.overflow, "overflow_at": at(h.limit),
            "source_overflow": h.source_overflow}


def as_data(rec: dict, h: Histogram, run_id: int, est: Histogram | None) -> dict:
    """`rtbench hist --format json`: the measured buckets in the unit the
    text prints them in (a time's µs or ns, a board's instructions), the
    summary in the same unit, and the cycle model's buckets apart, as an
    estimate in `est. cycles` under the model's own label."""
    m = MetricRecord(rec)
    out = {"schema": "rtbench-hist", "schema_version": HIST_JSON_SCHEMA,
           "metric": rec["id"], "run": run_id, "profile": rec.get("profile", "rt"),
           "n": m.n, "measured": series(h, "measured"),
           "summary": {stat: (None if (v := m.value(stat)) is None else v / h.div)
                       for _label, stat in SUMMARY},
           "estimate": None, "no_estimate": None}
    if est is not None:
        c = m.cycles
        out["estimate"] = {**series(est, "estimate"), "label": estcycles.said(c),
                           "summary": {stat: c[stat] for _label, stat in SUMMARY}}
    elif m.is_count:
        out["no_estimate"] = no_est(rec).lstrip("# ").strip()
    return out


def of_run(db: Path | None, metric: str, run: str, profile: str | None, width: str | None,
           buckets: int, all_rows: bool, fmt: str = "text") -> str:
    """`rtbench hist METRIC RUN`: the text (or JSON, CSV), from the store."""
    with Store(db, create=False) as store:
        stored = store.get_run(run)
    recs = [r for r in stored.metrics if r["id"] == metric
            and (profile is None or r.get("profile", "rt") == profile)]
    if not recs:
        ids = {r["id"] for r in stored.metrics}
        raise RtbenchError(f"run {stored.id} has no metric {metric!r}"
                           + (f" in profile {profile!r}" if profile and metric in ids else
                              did_you_mean(metric, sorted(ids))))
    rec = recs[0]
    m = MetricRecord(rec)
    if not m.ok:
        raise RtbenchError(f"{metric} in run {stored.id}: {m.status}: {m.reason}")
    w = parse_width(width, m.base_unit)
    h = make(rec, w, buckets)
    title = (f"rtbench hist {metric}, run {stored.id} [{rec.get('profile', 'rt')}]: "
             f"{m.n} samples")
    if fmt != "text":
        from rtbench.sheets import tabular
        from rtbench.store.records import strict_json

        data = as_data(rec, h, stored.id,
                       make_est(m.cycles, w, buckets) if m.cycles else None)
        return (tabular.hist_csv(data) if fmt == "csv"
                else strict_json(data, indent=2, ensure_ascii=False) + "\n")
    text = render(rec, h, title, all_rows)
    if m.cycles:  # the same --width and --buckets: both are counts
        return text + "\n" + render_est(m.cycles, make_est(m.cycles, w, buckets), all_rows)
    return text + no_est(rec) if m.is_count else text
