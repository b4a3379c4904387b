"""The kernel comparison sheet: runs of different kernels (FreeRTOS and
ThreadX on the same emulated board; Linux where a row exists) as one data
sheet whose columns are kernels.

`rtbench compare A B ...` comes here when its runs measured different
kernels or targets (`applies`); runs of one kernel keep the run-against-run
comparison (runs.py). The model (`build`) holds:

* each kernel's configuration, from its session record's target facts
  (kernel version, port, asserts, tick, heap, task allocation, interrupt
  masking...) and its run (compiler and flags, emulator, unit, samples),
  with a fairness table that says which of the settings that must be equal
  are (fairness.py, after Thread-Metric's porting rules: the same tick, no
  debug checks, the same compiler, the same board and counter, each
  kernel's options listed);
* the key rows first (the catalogue's [[first_page]] groups: interrupt and
  task response, the context switches by cause, the headline primitives),
  each kernel's median, p99.9 and max and "× fastest", by title: the sheet
  opens on them, then the verdict per section;
* the catalogue's kernel rows, section by section, each kernel's min /
  median / p99 / p99.9 / max in its own unit and "× fastest": its figure
  of the row's defining statistic (the catalogue's `statistic`: the median
  of a cost, the max of a latency bound) over the fastest kernel's on the
  row in the same unit (never across units: instructions on the emulated
  board against ns on Linux stand side by side), or the difference where
  the row is too small to rank, or nothing where the kernel's record says
  the row is `unranked` (ranking.py); an import that gave means only
  (Zephyr's latency_measure) shows its mean, marked, and takes no ratio (a
  mean is not a median);
* Thread-Metric's counts where the runs have them beside (peer runs linked
  by `rtbench run --with-peers`), read as instructions per count and set
  beside the rtbench rows one count performs.

Renderings: the terminal, Markdown and HTML in kernelpage.py, JSON
(jsonable.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from rtbench.compare import fairness, ranking
from rtbench.compare.ranking import Verdict
from rtbench.peers import threadmetric as tm
from rtbench.sheets import system
from rtbench.store.catalog import Catalog
from rtbench.store.db import DEFAULT_PROFILE, Run
from rtbench.store.items import items
from rtbench.store.catalog import STATISTIC_KEY
from rtbench.store.records import MetricRecord, Session, ticks_to_ns

STATS = ("min", "p50", "p99", "p999", "max")


# ---- which comparisons come here ----

def kernel_key(run: Run) -> tuple[str, str, str]:
    """What a run measured: (target, kernel, its version). An imported log
    of an RTOS (Zephyr's latency_measure, rtos-benchmark) ran on a board,
    not on a host: its target is the board the log names."""
    h = run.host
    if h.get("target_kind"):  # a board
        return h.get("target", "?"), h.get("os", "?"), h.get("kernel_version", "")
    os_name = h.get("os") or "Linux"
    version = h.get("kernel_release") or h.get("kernel_version") or ""
    if run.origin not in ("measured", "rtbench", "peer") and os_name != "Linux":
        board = str(h.get("board") or h.get("cpu_model") or "").removeprefix("board ")
        return (f"{board}, imported" if board else "imported"), os_name, version
    return "host", os_name, h.get("kernel_release", "")


def applies(runs: list[Run], linked: dict[int, list[Run]]) -> bool:
    """Runs of different kernels or targets, or one run with Thread-Metric
    beside it. Two versions of one kernel on one target (Linux 6.1 and 6.6,
    FreeRTOS V11.2 and V11.3) are a before/after: the run comparison, with
    its verdicts, serves them."""
    measured = [r for r in runs if r.origin != "peer"]
    if len({kernel_key(r)[:2] for r in measured}) > 1:
        return True
    beside = linked.get(runs[0].id, []) if len(runs) == 1 else []
    # one run whose only peer is Thread-Metric (with rtos-benchmark or
    # rt-tests beside it too, the peer comparison shows them all)
    return bool(beside) and all(tm.is_thread_metric(p) for p in beside)


# ---- the model ----

@dataclass
class Column:
    """One kernel: its run, its unit and its configuration."""

    run: Run
    title: str        # "ThreadX 6.4.2"
    target: str       # "mps2-an385", "host"
    unit: str         # of its figures: "instructions", or "ns" for a time
    facts: dict[str, str]
    peers: list[Run] = field(default_factory=list)  # Thread-Metric runs beside it
    resolution: float = 1.0  # the counter's step in its own ticks (the session's ts.resolution)
    clock_step: float = 0.0  # a time counter's step as a sample sees it (Session.clock_step)

    short: str = ""  # the kernel's name where it is unambiguous in the sheet ("ThreadX")

    @property
    def label(self) -> str:
        return f"{self.title} ({self.target}, run {self.run.id})"


@dataclass
class Cell:
    status: str  # ok, unsupported, failed, not measured, absent
    reason: str = ""
    unit: str = ""
    values: dict[str, float | None] = field(default_factory=dict)  # STATS
    ratio: float | None = None  # its figure of the row's statistic / the row's smallest
    how: str = ""  # the record's `emulated`: how the port provides it
    diff: float | None = None  # where the row is too small to rank: figure − the smallest
    unranked: str = ""  # the record's `unranked`: why it takes no ratio, no verdict
    step: float = 1.0  # the counter's step for the row's statistic, in `unit` per operation
    cycles: dict | None = None  # an emulated board's estimated cycles (docs/records.md)
    window_holds: str = ""  # the record's `window_holds`: not the named service, so not comparable
    res: dict[str, float] = field(default_factory=dict)  # a time's clock step per statistic

    @property
    def apart(self) -> bool:
        """Out of every ratio and verdict: unranked, or not the service of its name."""
        return bool(self.unranked or self.window_holds)

    def fig(self, stat: str) -> float | None:
        return self.values.get(stat)

    @property
    def mean_only(self) -> bool:
        """A source that gave the mean and no median (an import of averages)."""
        return self.status == "ok" and self.fig("p50") is None and self.fig("mean") is not None


@dataclass
class Row:
    id: str
    title: str
    cells: list[Cell]
    statistic: str = "median"  # the catalogue's: the statistic that ranks the row
    small: dict[str, str] = field(default_factory=dict)  # unit -> why too small to rank
    # the same row in estimated cycles (EST_UNIT), ranked as the row is:
    # None where no kernel's record has them
    est: "Row | None" = None

    @property
    def stat(self) -> str:
        """The record's statistic that ranks the row: "p50" or "max"."""
        return STATISTIC_KEY[self.statistic]


@dataclass
class Section:
    name: str
    rows: list[Row]


@dataclass
class KeyGroup:
    """One of the catalogue's first-page groups ("Context switches, by
    cause"): the kernel rows of its ids that some kernel measured (the same
    Row objects as in the sections)."""

    name: str
    rows: list[Row]


@dataclass
class PeerCell:
    status: str
    reason: str = ""
    count: float | None = None        # the median period's total
    periods: list[int] = field(default_factory=list)
    per_count: float | None = None    # instructions per count (the board's period / count)
    estimate: float | None = None     # the same from rtbench's rows (sum of related medians)
    ratio: float | None = None        # count / the first kernel's count
    check: str = ""                   # Thread-Metric's own check, when it failed


@dataclass
class PeerRow:
    test: tm.Test
    cells: list[PeerCell]


@dataclass
class KernelSheet:
    columns: list[Column]
    config: list[tuple[str, list[str]]]
    checks: list[fairness.Check]
    sections: list[Section]
    peer_rows: list[PeerRow]
    warnings: list[str]
    not_measured: int  # kernel rows no column measured
    key: list[KeyGroup] = field(default_factory=list)  # the first screen
    verdicts: list[Verdict] = field(default_factory=list)  # after it, per section
    # (reason, ["Kernel: row id", ...]): the rows a record keeps out of every
    # ranking, numbered in this order by the renderings' "not ranked [n]"
    not_ranked: list[tuple[str, list[str]]] = field(default_factory=list)
    # the same verdicts in estimated cycles (the boards' cycle model), and
    # where they and the instructions' disagree, in words
    est_verdicts: list[Verdict] = field(default_factory=list)
    disagree: list[str] = field(default_factory=list)
    est_label: str = ""  # the model's own words for its figures

    @property
    def title(self) -> str:
        return "rtbench kernel comparison — " + " · ".join(c.title for c in self.columns)

    @property
    def units(self) -> list[str]:
        return list(dict.fromkeys(c.unit for c in self.columns))

    def has_ratio(self, i: int) -> bool:
        """Column i gets a ratio column: another kernel shares its unit."""
        return sum(c.unit == self.columns[i].unit for c in self.columns) > 1

    @property
    def key_unit(self) -> str:
        """The key table's unit in words: "instructions", or each kernel's."""
        if len(self.units) == 1:
            return self.units[0] if self.units[0] != "ns" else "time"
        return ", ".join(f"{c.short} in {c.unit if c.unit != 'ns' else 'time'}"
                         for c in self.columns)


def _column(run: Run, peer_runs: list[Run]) -> Column:
    target, os_name, version = kernel_key(run)
    session = Session(run.session or {})
    unit = session.unit if session.is_count else "ns"
    title = f"{os_name} {version}".strip()
    facts = {k: str(v) for k, v in session.target.items()}
    try:
        resolution = max(float(session.ts.get("resolution") or 1), 1.0)
    except (TypeError, ValueError):
        resolution = 1.0
    return Column(run, title, target, unit, facts,
                  [p for p in peer_runs if tm.is_thread_metric(p)], resolution=resolution,
                  clock_step=session.clock_step)


def build(runs: list[Run], catalog: Catalog, linked: dict[int, list[Run]]) -> KernelSheet:
    columns = [_column(r, linked.get(r.id, [])) for r in runs if r.origin != "peer"]
    names = [c.title.split(" ")[0] for c in columns]
    targets = [f"{n} ({c.target})" for c, n in zip(columns, names)]
    for c, name, target in zip(columns, names, targets):
        c.short = (name if names.count(name) == 1 else target if targets.count(target) == 1
                   else f"{c.title} ({c.target}, run {c.run.id})")
    sections, not_measured = _sections(columns, catalog)
    verdicts = ranking.verdicts(columns, sections)
    est_verdicts, label = _estimates(columns, sections)
    return KernelSheet(columns, fairness.config(columns), fairness.checks(columns), sections,
                       _peer_rows(columns), fairness.warnings(columns), not_measured,
                       key_groups(sections, catalog), verdicts,
                       ranking.not_ranked(columns, sections), est_verdicts,
                       disagreements(verdicts, est_verdicts, sections, columns), label)


# ---- the same rows in estimated cycles ----

EST_UNIT = "est. cycles"


def _est_cell(c: Cell) -> Cell:
    """A cell's estimated cycles as a cell of their own (ranked by the same
    rules: a step of one cycle, the record's `unranked` kept)."""
    if c.status != "ok":
        return Cell(c.status, c.reason)
    if c.cycles is None:
        return Cell("no estimate", "no estimated cycles in this record")
    return Cell("ok", unit=EST_UNIT, values={k: c.cycles.get(k) for k in (*STATS, "mean")},
                how=c.how, unranked=c.unranked, step=1.0, cycles=c.cycles,
                window_holds=c.window_holds)


def _estimates(columns: list[Column], sections: list[Section]) -> tuple[list[Verdict], str]:
    """Each row's twin in estimated cycles (row.est), ranked, and the
    verdicts over them; the model's label. Nothing where no record has
    cycles (a run without the model, Linux)."""
    label = next((c.cycles["label"] for s in sections for r in s.rows for c in r.cells
                  if c.cycles), "")
    if not label:
        return [], ""
    est_cols = [replace(col, unit=EST_UNIT) if col.unit == "instructions" else col
                for col in columns]
    est_sections = []
    for s in sections:
        rows = []
        for r in s.rows:
            r.est = Row(r.id, r.title, [_est_cell(c) for c in r.cells], r.statistic)
            ranking.rank_row(r.est, est_cols)
            rows.append(r.est)
        est_sections.append(Section(s.name, rows))
    return [v for v in ranking.verdicts(est_cols, est_sections) if v.unit == EST_UNIT], label


def disagreements(verdicts: list[Verdict], est: list[Verdict], sections: list[Section],
                  columns: list[Column]) -> list[str]:
    """Where instructions and estimated cycles rank the kernels otherwise:
    per section, a different order of the verdict; per row, a different
    fastest kernel (among the kernels both units rank on it)."""
    out = []
    by_section = {v.section: v for v in verdicts if v.unit == "instructions"}
    for v in est:
        u = by_section.get(v.section)
        if u is None or not u.order or not v.order:
            continue
        if [k for k, _r in u.order] != [k for k, _r in v.order]:
            out.append(f"{v.section}: instructions rank " + _order(u) + "; est. cycles rank "
                       + _order(v))
    rows = []
    for s in sections:
        for r in s.rows:
            if r.est is None:
                continue
            a, b = _fastest(r, columns), _fastest(r.est, columns)
            if a and b and a != b:
                rows.append(f"`{r.id}` ({' = '.join(a)} in instructions, {' = '.join(b)} in "
                            "est. cycles)")
    if rows:
        out.append(f"{len(rows)} row{'s' if len(rows) != 1 else ''} ranked in both units "
                   "with another fastest kernel: " + "; ".join(rows))
    return out


def _order(v: Verdict) -> str:
    return " < ".join(f"{k}" + (f" ×{r:.2f}" if r != 1.0 else "") for k, r in v.order)


def _fastest(row: Row, columns: list[Column]) -> list[str]:
    """The kernels with the smallest ranked figure on the row (ratio 1)."""
    return [col.short for c, col in zip(row.cells, columns) if c.ratio is not None
            and abs(c.ratio - 1.0) < 1e-12]


def key_groups(sections: list[Section], catalog: Catalog) -> list[KeyGroup]:
    """The catalogue's first-page groups, with the rows some kernel measured."""
    rows = {r.id: r for s in sections for r in s.rows}
    groups = [KeyGroup(name, [rows[i] for i in ids if i in rows])
              for name, ids in catalog.first_page]
    return [g for g in groups if g.rows]


def _profile(run: Run) -> str:
    return "rt" if "rt" in run.profiles else (run.profiles or [DEFAULT_PROFILE])[0]


def _cell(rec: dict | None, present: bool, stat: str = "p50", resolution: float = 1.0,
          clock_step: float = 0.0) -> Cell:
    if not present:
        return Cell("absent", "not in this run")
    if rec is None:
        return Cell("not measured", "run incomplete")
    m = MetricRecord(rec)
    if not m.ok:
        return Cell(m.status, m.reason)
    if not (m.is_time or m.is_count):
        return Cell("other unit", f"a figure in {m.unit}")
    # one step of the counter in the figure's unit, per operation as the figure is
    step = (ticks_to_ns(resolution, float(rec["tick_hz"])) if m.is_time and rec.get("tick_hz")
            else resolution) / m.divisor(stat)
    return Cell("ok", unit=m.base_unit, values={k: m.value(k) for k in (*STATS, "mean")},
                how=rec.get("emulated") or "", unranked=m.unranked, step=step, cycles=m.cycles,
                window_holds=m.window_holds,
                res={k: m.step(k, clock_step) for k in (*STATS, "mean")})


def _sections(columns: list[Column], catalog: Catalog) -> tuple[list[Section], int]:
    per_col = []
    for c in columns:
        profile = _profile(c.run)
        per_col.append({it.id: (it, it.records.get(profile, None), profile in it.records)
                        for it in items(c.run, catalog)})
    order = {mid: n for n, mid in enumerate(catalog.ids)}
    ids = sorted({i for t in per_col for i in t}, key=lambda i: order.get(i, len(order)))
    by_service: dict[str, list[Row]] = {}
    not_measured = 0
    for mid in ids:
        it = next(t[mid][0] for t in per_col if mid in t)
        if system.is_system(it.service) or it.meta is None:
            continue  # the System part and imported figures: not kernel rows
        statistic = it.meta.statistic
        cells = [_cell(t[mid][1], t[mid][2], STATISTIC_KEY[statistic], col.resolution,
                       col.clock_step)
                 if mid in t else _cell(None, False) for t, col in zip(per_col, columns)]
        if not any(c.status == "ok" for c in cells):
            not_measured += 1
            continue
        row = Row(mid, it.title, cells, statistic)
        ranking.rank_row(row, columns)
        by_service.setdefault(it.service, []).append(row)
    names = [s for s in catalog.services if s in by_service]
    return [Section(s, by_service[s]) for s in names], not_measured


# ---- Thread-Metric beside the kernels ----

def _tm_record(col: Column, test: tm.Test) -> dict | None:
    for p in col.peers:
        for rec in p.metrics:
            if rec["id"] == f"{tm.KEY}:{test.key}":
                return rec
    return None


def _median(col: Column, metric: str) -> float | None:
    profile = _profile(col.run)
    for rec in col.run.metrics:
        if rec["id"] == metric and rec.get("profile", DEFAULT_PROFILE) == profile:
            m = MetricRecord(rec)
            return m.value("p50") if m.ok and m.is_count else None
    return None


def _peer_rows(columns: list[Column]) -> list[PeerRow]:
    if not any(c.peers for c in columns):
        return []
    rows = []
    for test in tm.TESTS:
        cells = []
        for c in columns:
            rec = _tm_record(c, test)
            if rec is None:
                cells.append(PeerCell("absent", "no Thread-Metric run beside this run"
                                      if not c.peers else "not in the Thread-Metric run"))
                continue
            if rec["status"] != "ok":
                cells.append(PeerCell(rec["status"], rec.get("reason", "")))
                continue
            src = rec.get("source") or {}
            count = float(rec["p50"])
            shift = int(src.get("icount_shift", 7))
            per = tm.instructions_per_period(shift, src.get("period_s", tm.PERIOD_S))
            related = [(_median(c, mid), k) for mid, k in test.related]
            estimate = (sum(v * k for v, k in related)
                        if related and all(v is not None for v, _k in related) else None)
            cells.append(PeerCell("ok", count=count, periods=list(src.get("periods", [])),
                                  per_count=per / count if count else None, estimate=estimate,
                                  check="; ".join(src.get("errors", []))))
        first = cells[0] if cells and cells[0].status == "ok" else None
        for x in cells:
            if x.status == "ok" and first is not None and first.count:
                x.ratio = x.count / first.count
        if any(x.status != "absent" for x in cells):
            rows.append(PeerRow(test, cells))
    return rows


def to_jsonable(sheet: KernelSheet) -> Any:
    from rtbench.compare.jsonable import to_jsonable as plain

    return plain(sheet)


# ---- the summary line every comparison ends with ----

def summary_line(sheet: KernelSheet) -> str:
    """The sheet in one line: per kernel, what became of each kernel row
    shown (measured, of which not ranked; unsupported, failed, not in its
    run), the catalogue rows
    no kernel measured, and Thread-Metric's tests where it ran beside."""
    per = []
    for i, c in enumerate(sheet.columns):
        counts: dict[str, int] = {}
        for s in sheet.sections:
            for r in s.rows:
                st = r.cells[i].status
                key = "measured" if st == "ok" else "not in its run" if st in (
                    "absent", "not measured") else st
                counts[key] = counts.get(key, 0) + 1
        order = sorted(counts, key=lambda k: (k != "measured", k))
        unranked = sum(r.cells[i].status == "ok" and bool(r.cells[i].unranked)
                       for s in sheet.sections for r in s.rows)
        per.append(f"{c.short or c.title} " + ", ".join(
            f"{counts[k]} {k}" + (f" ({unranked} not ranked)" if k == "measured" and unranked
                                   else "") for k in order))
    shown = sum(len(s.rows) for s in sheet.sections)
    text = (f"Summary: {len(sheet.columns)} kernels, {shown} kernel rows with a figure on at "
            f"least one: " + "; ".join(per) + f"; {sheet.not_measured} catalogue kernel rows "
            "on none (not shown)")
    if sheet.peer_rows:
        tm_per = []
        for i, c in enumerate(sheet.columns):
            ok = sum(r.cells[i].status == "ok" for r in sheet.peer_rows)
            tm_per.append(f"{c.short or c.title} {ok} counted")
        text += (f" · Thread-Metric: {len(sheet.peer_rows)} tests, " + ", ".join(tm_per)
                 + f", {sum(x.status != 'ok' for r in sheet.peer_rows for x in r.cells)} "
                 "without a count")
    return text + "."
