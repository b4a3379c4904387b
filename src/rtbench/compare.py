"""Comparisons: a run against other runs, and a run against a vendor's
published reference sheet. Both build a plain model that the text,
Markdown, HTML and JSON renderings (cli, templates) lay out.

Run against run (docs/reports.md, "Comparing runs"): metrics are matched by
(id, profile); each later run's median is compared with the first run's.
A change is a regression only if the median is worse by more than the
threshold, by more than the counter's resolution, AND the Mann–Whitney U
test on the two histograms says the distributions differ (p < ALPHA), so
that noise is not called a regression.

Run against a reference sheet: catalogue metrics claim the sheet's rows by
name (rtbench.reference.row_key); each claimed row is shown beside our
figure, both normalised to cycles at each side's own clock where that is
known, with the ratio ours / theirs. Rows either side lacks are listed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rtbench import coverage, reference, stats, sysreport
from rtbench.catalog import Catalog
from rtbench.records import MetricRecord, Session
from rtbench.report import items
from rtbench.store import Run

ALPHA = 0.01  # significance level of the rank test
DEFAULT_THRESHOLD_PCT = 5.0


# ---- run against run ----

@dataclass
class Cell:
    """One run's figure for one (metric, profile), judged against the first run."""

    status: str  # ok, failed, unsupported, not measured, absent
    reason: str = ""
    n: int = 0
    unit: str = "ns"  # of the statistics below: "ns" for a time, "instructions" for a count
    p50: float | None = None  # None also when the source gave no median
    p99: float | None = None
    max: float | None = None
    mean: float | None = None  # shown where the source gave only a mean
    figure: str = ""  # a figure in another unit with its unit ("812 MB/s"), else ""
    change_pct: float | None = None  # median vs the first run's
    p_value: float | None = None
    verdict: str = ""  # "" (first run), slower, faster, same, not compared
    why: str = ""  # what decided the verdict

    # The statistics as times, for what only shows times (None for a count).
    @property
    def p50_ns(self) -> float | None:
        return self.p50 if self.unit == "ns" else None

    @property
    def p99_ns(self) -> float | None:
        return self.p99 if self.unit == "ns" else None

    @property
    def max_ns(self) -> float | None:
        return self.max if self.unit == "ns" else None

    @property
    def mean_ns(self) -> float | None:
        return self.mean if self.unit == "ns" else None


@dataclass
class Row:
    id: str
    title: str
    service: str
    profile: str
    cells: list[Cell]

    @property
    def key(self) -> str:
        return f"{self.id} [{self.profile}]"


@dataclass
class RunComparison:
    runs: list[Run]
    rows: list[Row]
    threshold_pct: float
    alpha: float
    warnings: list[str]

    def regressions(self) -> list[tuple[Row, int]]:
        """(row, index of the run) of every significant slow-down."""
        return [(r, i) for r in self.rows for i, c in enumerate(r.cells) if c.verdict == "slower"]


def compare_runs(runs: list[Run], catalog: Catalog,
                 threshold_pct: float = DEFAULT_THRESHOLD_PCT) -> RunComparison:
    per_run = [{(it.id, p): (it, rec) for it in items(run, catalog)
                for p, rec in it.records.items()} for run in runs]
    order = {mid: n for n, mid in enumerate(catalog.ids)}
    keys = list(dict.fromkeys(k for table in per_run for k in table))
    keys.sort(key=lambda k: order.get(k[0], len(order)))
    resolution = max((_resolution_ns(r) for r in runs), default=0.0)
    rows = []
    for key in keys:
        it = next(t[key][0] for t in per_run if key in t)
        cells = [_cell(t[key][1] if key in t else _ABSENT) for t in per_run]
        for i in range(1, len(cells)):
            _judge(cells[0], cells[i], per_run[0].get(key), per_run[i].get(key),
                   threshold_pct, resolution)
        rows.append(Row(key[0], it.title, it.service, key[1], cells))
    return RunComparison(runs, rows, threshold_pct, ALPHA, _environment_warnings(runs))


_ABSENT = object()


def _cell(rec: Any) -> Cell:
    if rec is _ABSENT:
        return Cell("absent", "not in this run")
    if rec is None:
        return Cell("not measured", "run incomplete")
    m = MetricRecord(rec)
    if not m.ok:
        return Cell(m.status, m.reason)
    if not (m.is_time or m.is_count):  # a program's figure in its own unit: shown, not judged
        figure = " / ".join(f"{k} {m.value(k):.4g} {m.unit}" for k in ("p50", "mean", "max")
                            if m.has(k))
        return Cell("ok", n=m.n or 0, unit=m.unit, figure=figure)
    return Cell("ok", n=m.n or 0, unit=m.base_unit, p50=m.value("p50"), p99=m.value("p99"),
                max=m.value("max"), mean=m.value("mean"))


def _judge(base: Cell, cell: Cell, base_item, item, threshold_pct: float,
           resolution_ns: float) -> None:
    if base.status != "ok" or cell.status != "ok":
        cell.verdict = "not compared"
        cell.why = f"first run: {base.status}" if base.status != "ok" else cell.status
        return
    if base.unit != cell.unit:  # instructions on an emulator against time on a host
        cell.verdict = "not compared"
        cell.why = f"different units ({base.unit} against {cell.unit}): no ratio"
        return
    if base.p50 is None or cell.p50 is None:  # never a median made up from a mean
        cell.verdict = "not compared"
        cell.why = ("first run: " if base.p50 is None else "") + "no median in the source"
        return
    diff = cell.p50 - base.p50
    if base.p50 > 0:
        cell.change_pct = 100 * diff / base.p50
    # a count's step is one instruction; a time's the coarser run's counter step
    resolution, res_unit = (1.0, base.unit) if base.unit != "ns" else (resolution_ns, "ns")
    ga = stats.grouped(base_item[1]) if base_item else None
    gb = stats.grouped(item[1]) if item else None
    if ga and gb and min(ga.n, gb.n) >= stats.MIN_SAMPLES_FOR_TEST:
        cell.p_value = stats.mann_whitney(ga, gb)[1]
    cell.verdict = "same"
    if cell.change_pct is None:
        cell.why = "first run's median ≤ 0: no ratio"
    elif abs(cell.change_pct) <= threshold_pct:
        cell.why = f"within ±{threshold_pct:g} %"
    elif abs(diff) <= resolution * 1.001:  # one step, whatever each run's exact clock
        cell.why = f"within the counter's resolution ({resolution:.1f} {res_unit})"
    elif cell.p_value is None:
        cell.why = "no histograms to test (or fewer than 9 samples)"
    elif cell.p_value >= ALPHA:
        cell.why = f"not significant (p = {cell.p_value:.2g})"
    else:
        cell.verdict = "slower" if diff > 0 else "faster"
        cell.why = f"p = {cell.p_value:.2g}" if cell.p_value else "p < 1e-300"


def _resolution_ns(run: Run) -> float:
    s = Session(run.session or {})
    res = s.ts.get("resolution_ticks")
    return (s.ticks_ns(res) or 0.0) if res else 0.0


def _environment_warnings(runs: list[Run]) -> list[str]:
    """Like pyperf: say when the runs did not measure under the same conditions."""
    out = []
    targets = [f"{r.host.get('target', 'host')} ({r.host.get('os', '?')} "
               f"{r.host.get('kernel_version' if r.host.get('target') else 'kernel_release', '')})"
               for r in runs]
    units = [Session(r.session or {}).unit for r in runs if r.session]
    if len(set(targets)) > 1:
        out.append("different targets and kernels: " + ", ".join(
            f"run {r.id}: {t}" for r, t in zip(runs, targets)))
    if len(set(units)) > 1:
        out.append("different units (instructions on an emulator are not times): their figures "
                   "stand side by side, without a ratio or a verdict")
    for key, what in (("hostname", "hosts"), ("cpu_model", "CPU models"),
                      ("kernel_release", "kernels"), ("preemption", "preemption models")):
        values = [r.host.get(key, "?") for r in runs]
        if len(set(values)) > 1:
            out.append(f"different {what}: " + ", ".join(f"run {r.id}: {v}"
                                                         for r, v in zip(runs, values)))
    # rt-tests beside a run (`rtbench run --with-peers`): no harness session to compare;
    # their priority and sample count are in each record's source.command
    peers = [r for r in runs if r.origin == "peer"]
    out += [f"run {r.id}: rt-tests programs run beside run {r.linked_to} (--with-peers)"
            for r in peers]
    runs = [r for r in runs if r.origin != "peer"]
    rt = [Session(r.session or {}).rt.get("realtime") for r in runs]
    if len(set(rt)) > 1:
        out.append("not every run had real-time scheduling: " + ", ".join(
            f"run {r.id}: {'yes' if v else 'no'}" for r, v in zip(runs, rt)))
    cfg = [Session(r.session or {}).config.get("samples") for r in runs]
    if len(set(cfg)) > 1:
        out.append("different sample counts: " + ", ".join(
            f"run {r.id}: {v}" for r, v in zip(runs, cfg)))
    return out


# ---- run against a published reference sheet ----

@dataclass
class Published:
    """One reference cell: the sheet's figures for a row on one variant."""

    figures: list[tuple[str, str]]  # (value as printed, unit)
    time_ns: float | None
    cycles: float | None
    note: str = ""
    mb_s: float | None = None  # a published bandwidth (MB/s)
    ratio_cycles: float | None = None  # our cycles / theirs, each at its own clock
    ratio_time: float | None = None  # our time / theirs
    ratio_count: float | None = None  # our instructions / their cycles (a count run)


@dataclass
class RefRow:
    id: str
    title: str
    profile: str
    key: str  # the sheet's row name
    ours_status: str
    ours_reason: str
    ours_ns: float | None
    ours_cycles: float | None
    cells: list[Published | None]
    ours_mb_s: float | None = None  # our bandwidth at the median sample (bandwidth metrics)
    ours_stat: str = "p50"  # the statistic ours is: the median, or the mean of a
                            # source that gave no median (an imported figure)
    ours_count: float | None = None  # a count run's figure (instructions), never a time
    ours_unit: str = ""


@dataclass
class RefComparison:
    run: Run
    sheet: reference.Sheet
    columns: list[str]
    variants: list[reference.Variant]
    rows: list[RefRow]
    published_only: list[tuple[str, str]]  # (row name, why we have no figure)
    ours_only: list[tuple[str, str, str]]  # (metric id, profile, title)
    our_clock_hz: float
    our_clock: str
    our_unit: str = "ticks"  # "instructions": an emulator's count, set beside their cycles
    our_unit_detail: str = ""


def compare_reference(run: Run, sheet: reference.Sheet, catalog: Catalog) -> RefComparison:
    cells = _published_cells(sheet)  # (row key, variant) -> Published
    claims: dict[str, list[str]] = {}  # row key -> metric ids claiming it
    for m in catalog.metrics:
        for key in m.vendor.get(sheet.vendor_key, ()):
            claims.setdefault(key, []).append(m.id)
    session = Session(run.session or {})
    its = items(run, catalog)
    rows: list[RefRow] = []
    ours_only = []
    sheet_keys = {key for key, _variant in cells}
    for it in its:
        keys = [k for k in (it.meta.vendor.get(sheet.vendor_key, ()) if it.meta else ())
                if k in sheet_keys]
        for profile, rec in it.records.items():
            if not keys:
                if rec is not None and rec.get("status") == "ok":
                    ours_only.append((it.id, profile, it.title))
                continue
            for key in keys:
                rows.append(_ref_row(it, profile, rec, key))
    used = [v for v in sheet.variants() if any((r.key, v) in cells for r in rows)]
    for r in rows:
        r.cells = [_with_ratio(cells.get((r.key, v)), r) for v in used]
    measured = {r.key for r in rows}
    published_only = [(key, _why_not(key, claims, its, sheet, catalog))
                      for key in sheet.keys() if key not in measured]
    varying = reference.varying_fields(used or sheet.variants())
    return RefComparison(run, sheet, [v.label(varying) for v in used], used, rows,
                         published_only, ours_only, session.hz,
                         f"{session.hz / 1e6:.3f} MHz" if session.hz else "unknown",
                         session.unit, session.ts.get("counter_unit_detail")
                         or session.ts.get("unit_detail", ""))


def _ref_row(it, profile: str, rec: dict | None, key: str) -> RefRow:
    if rec is None:
        return RefRow(it.id, it.title, profile, key, "not measured", "run incomplete",
                      None, None, [])
    m = MetricRecord(rec)
    if not m.ok:
        return RefRow(it.id, it.title, profile, key, m.status, m.reason, None, None, [])
    stat = "p50" if m.has("p50") else "mean" if m.has("mean") else None
    if stat is None:
        return RefRow(it.id, it.title, profile, key, "ok", "", None, None, [], ours_stat="")
    mb_s = sysreport.mb_per_s(rec, stat)
    if m.is_count:  # instructions (an emulator): beside their cycles, never as a time
        return RefRow(it.id, it.title, profile, key, "ok", "", None, None, [], None, stat,
                      ours_count=m.count(stat), ours_unit=m.unit)
    if not m.is_time:  # a figure in its own unit (e.g. MB/s from a program)
        return RefRow(it.id, it.title, profile, key, "ok", "", None, None, [], mb_s, stat)
    # per operation: a sample that timed `ops` operations is divided (records.md)
    return RefRow(it.id, it.title, profile, key, "ok", "", m.ns(stat),
                  float(rec[stat]) / m.ops, [], mb_s, stat)


_TIME_UNITS = {"us": 1000.0, "ns": 1.0}


def _published_cells(sheet: reference.Sheet) -> dict[tuple[str, reference.Variant], Published]:
    out: dict[tuple[str, reference.Variant], Published] = {}
    for row in sheet.rows():
        var = reference.variant(sheet.vendor_key, row)
        cell = out.setdefault((reference.row_key(sheet.vendor_key, row), var),
                              Published([], None, None))
        cell.figures.append((row.value, row.unit))
        if row.note and row.note not in cell.note:
            cell.note = f"{cell.note}; {row.note}" if cell.note else row.note
        try:
            value = float(row.value)
        except ValueError:
            continue
        hz = var.clock_hz
        if row.unit in _TIME_UNITS and cell.time_ns is None:
            cell.time_ns = value * _TIME_UNITS[row.unit]
            if hz and cell.cycles is None:
                cell.cycles = cell.time_ns * hz / 1e9
        elif row.unit == "MB/s" and cell.mb_s is None:
            cell.mb_s = value
        elif row.unit == "cycles" and cell.cycles is None:
            cell.cycles = value
            if hz and cell.time_ns is None:
                cell.time_ns = value / hz * 1e9
    return out


def _with_ratio(cell: Published | None, row: RefRow) -> Published | None:
    if cell is None or row.ours_status != "ok":
        return cell
    c = Published(cell.figures, cell.time_ns, cell.cycles, cell.note, cell.mb_s)
    if c.mb_s and row.ours_mb_s:  # as a time ratio: above 1, we are slower
        c.ratio_time = c.mb_s / row.ours_mb_s
    if c.cycles and row.ours_cycles is not None:
        c.ratio_cycles = row.ours_cycles / c.cycles
    if c.time_ns and row.ours_ns is not None:
        c.ratio_time = row.ours_ns / c.time_ns
    if c.cycles and row.ours_count is not None:
        c.ratio_count = row.ours_count / c.cycles
    return c


def _why_not(key: str, claims: dict[str, list[str]], its, sheet: reference.Sheet,
             catalog: Catalog) -> str:
    na = coverage.not_applicable(catalog, sheet).get(key)
    if na is not None:
        return f"not applicable: {na}"
    if key not in claims:
        return "no rtbench metric measures it yet"
    in_run = {it.id for it in its}
    return ("claimed by " + ", ".join(claims[key]) + ", "
            + ("not in this run" if not in_run & set(claims[key]) else "no figure in this run"))


def to_jsonable(obj: Any) -> Any:
    """The comparison models as plain JSON values (runs reduced to their ids)."""
    import dataclasses

    if isinstance(obj, Run):
        return {"id": obj.id, "uuid": obj.uuid, "label": obj.label, "started": obj.started,
                "status": obj.status, "host": obj.host.get("hostname", "")}
    if isinstance(obj, reference.Sheet):
        return {"name": obj.name, "title": obj.title, "source": obj.source,
                "clock_note": obj.clock_note, "caveat": obj.caveat}
    if dataclasses.is_dataclass(obj):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, float) and obj != obj:  # never NaN in JSON
        return None
    return obj


# ---- a run beside its peers (`rtbench run --with-peers`): rt-tests, rtos-benchmark ----

PEER_STATS = ("min", "p50", "mean", "p99", "max")


@dataclass
class PeerRow:
    id: str  # the catalogue metric both answer, or the peer's own name if none
    title: str
    program: str  # the peer program (rt-tests' cyclictest…, rtos-benchmark)
    label: str  # the peer's own name for the figure (the program, or rtos-benchmark's row)
    command: str
    peer_status: str
    peer_reason: str
    peer_unit: str  # "ns" for a time, else the figures' unit ("instructions")
    peer: dict[str, float | None]  # only the statistics the program gave, in peer_unit
    peer_n: int | None
    ours_status: str  # "ok", "unsupported", "failed", or "none" (no rtbench metric)
    ours_unit: str
    ours: dict[str, float | None]
    ours_n: int | None
    why: str
    # The same statistics as times, for what only shows times (None for a count).
    peer_ns: dict[str, float | None] = field(init=False)
    ours_ns: dict[str, float | None] = field(init=False)

    def __post_init__(self) -> None:
        self.peer_ns = _as_ns(self.peer, self.peer_unit)
        self.ours_ns = _as_ns(self.ours, self.ours_unit)


@dataclass
class PeerComparison:
    run: Run
    peers: list[Run]
    rows: list[PeerRow]
    families: list[str]  # "rt-tests", "rtos-benchmark": the suites of the peer runs
    methods: list[str]  # how a suite measured beside rtbench, a paragraph each

    @property
    def units(self) -> list[str]:
        """The units the figures are in ("ns", "instructions"), first seen first."""
        seen = [r.peer_unit for r in self.rows if r.peer_status == "ok"]
        seen += [r.ours_unit for r in self.rows if r.ours_status == "ok"]
        return list(dict.fromkeys(seen))


def compare_peers(run: Run, peer_runs: list[Run], catalog: Catalog) -> PeerComparison:
    """Every peer figure beside rtbench's for the same catalogue metric, each
    side in its own unit (ns for rt-tests on Linux, instructions for
    rtos-benchmark on an emulated board, as rtbench's there)."""
    from rtbench import peers as peers_mod
    from rtbench import peers_board

    ours = {}
    for rec in run.metrics:  # the first profile that has it (rt unless the run had none)
        ours.setdefault(rec["id"], rec)
    rows, families, methods = [], [], []
    for pr in peer_runs:
        for rec in pr.metrics:
            src = rec.get("source") or {}
            program = src.get("tool", rec["id"])
            meta = catalog.get(rec["id"])
            mine = ours.get(rec["id"]) if rec.get("mapped", True) else None
            (p_unit, p_stats), (o_unit, o_stats) = _stats(rec), _stats(mine)
            rows.append(PeerRow(
                rec["id"], meta.title if meta else src.get("label", program), program,
                src.get("label", program), src.get("command", ""),
                rec["status"], rec.get("reason", ""), p_unit, p_stats, rec.get("n"),
                (mine["status"] if mine else "none"), o_unit, o_stats, (mine or {}).get("n"),
                peers_mod.why(rec)))
            fam = peers_mod.family(rec)
            if fam not in families:
                families.append(fam)
                if fam == "rtos-benchmark":
                    methods.append(peers_board.method(pr.session, run.session))
    return PeerComparison(run, peer_runs, rows, families, methods)


def _stats(rec: dict | None) -> tuple[str, dict[str, float | None]]:
    """(unit, the statistics in it): ns for a time, else the record's unit."""
    if not rec:
        return "ns", {k: None for k in PEER_STATS}
    m = MetricRecord(rec)
    return m.base_unit, {k: m.value(k) for k in PEER_STATS}


def _as_ns(stats: dict[str, float | None], unit: str) -> dict[str, float | None]:
    return {k: (v if unit == "ns" else None) for k, v in stats.items()}

