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
* the catalogue's kernel rows, section by section, each kernel's min /
  median / max in its own unit and the ratio of its median to the first
  kernel's in the same unit (never across units: instructions on the
  emulated board against ns on Linux stand side by side);
* Thread-Metric's counts where the runs have them beside (peer runs linked
  by `rtbench run --with-peers`), read as instructions per count and set
  beside the rtbench rows one count performs.

Renderings: the terminal (a pages.Page), Markdown and HTML (templates
kernelsheet.md.j2 / kernelsheet.html.j2, the HTML with a plot per section
of each kernel's distribution side by side), JSON (jsonable.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

import rtbench
from rtbench.compare import fairness
from rtbench.peers import threadmetric as tm
from rtbench.sheets import system
from rtbench.sheets.templating import template_env
from rtbench.store.catalog import Catalog
from rtbench.store.db import DEFAULT_PROFILE, Run
from rtbench.store.items import items
from rtbench.store.records import MetricRecord, Session, difference, differences

STATS = ("min", "p50", "p99", "max")


# ---- which comparisons come here ----

def kernel_key(run: Run) -> tuple[str, str, str]:
    """What a run measured: (target, kernel, its version)."""
    h = run.host
    if h.get("target_kind"):  # a board
        return h.get("target", "?"), h.get("os", "?"), h.get("kernel_version", "")
    return "host", h.get("os") or "Linux", h.get("kernel_release", "")


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
    ratio: float | None = None  # median / the first same-unit kernel's median
    how: str = ""  # the record's `emulated`: how the port provides it

    def fig(self, stat: str) -> float | None:
        return self.values.get(stat)


@dataclass
class Row:
    id: str
    title: str
    cells: list[Cell]


@dataclass
class Section:
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
class Verdict:
    """One section's answer to "which kernel is fastest, by how much": the
    kernels of one unit over the rows each of them measured (a median above
    0), each kernel's geometric mean of its median over the fastest one's;
    and where a kernel's definition differs on those rows (its fairness
    notes, fairness.py)."""

    section: str
    unit: str
    rows: int
    order: list[tuple[str, float]]  # (kernel, geometric-mean ratio to the fastest), fastest first
    wins: dict[str, int]  # kernel -> rows where its median is the smallest
    differs: list[str]  # "FreeRTOS on timer.start.*, ...": the fairness notes on these rows

    def text(self) -> str:
        fastest, *others = self.order
        by = ", ".join(f"{k} ×{r:.2f}" for k, r in others)
        wins = ", ".join(f"{k} {n}" for k, n in self.wins.items() if n)
        out = (f"{self.section}: {fastest[0]} fastest over {self.rows} rows ({by}: the "
               f"geometric mean of each kernel's median over {fastest[0]}'s; fastest or tied "
               f"on {wins} rows)")
        if self.differs:
            out += "; definitions differ: " + "; ".join(self.differs)
        return out


@dataclass
class KernelSheet:
    columns: list[Column]
    config: list[tuple[str, list[str]]]
    checks: list[fairness.Check]
    sections: list[Section]
    peer_rows: list[PeerRow]
    warnings: list[str]
    not_measured: int  # kernel rows no column measured
    ratio_base: dict[str, int]  # unit -> the column index ratios in that unit are to
    verdicts: list[Verdict] = field(default_factory=list)  # the first screen, per section

    @property
    def title(self) -> str:
        return "rtbench kernel comparison — " + " · ".join(c.title for c in self.columns)

    @property
    def units(self) -> list[str]:
        return list(dict.fromkeys(c.unit for c in self.columns))

    def has_ratio(self, i: int) -> bool:
        """Column i gets a ratio column: another kernel shares its unit."""
        return sum(c.unit == self.columns[i].unit for c in self.columns) > 1


def _column(run: Run, peer_runs: list[Run]) -> Column:
    target, os_name, version = kernel_key(run)
    session = Session(run.session or {})
    unit = session.unit if session.is_count else "ns"
    title = f"{os_name} {version}".strip()
    facts = {k: str(v) for k, v in session.target.items()}
    return Column(run, title, target, unit, facts,
                  [p for p in peer_runs if tm.is_thread_metric(p)])


def build(runs: list[Run], catalog: Catalog, linked: dict[int, list[Run]]) -> KernelSheet:
    columns = [_column(r, linked.get(r.id, [])) for r in runs if r.origin != "peer"]
    names = [c.title.split(" ")[0] for c in columns]
    for c, name in zip(columns, names):
        c.short = name if names.count(name) == 1 else f"{c.title} ({c.target}, run {c.run.id})"
    base: dict[str, int] = {}
    for i, c in enumerate(columns):
        base.setdefault(c.unit, i)
    sections, not_measured = _sections(columns, catalog, base)
    return KernelSheet(columns, fairness.config(columns), fairness.checks(columns), sections,
                       _peer_rows(columns, base), fairness.warnings(columns), not_measured,
                       base, verdicts(columns, sections))


def verdicts(columns: list[Column], sections: list[Section]) -> list[Verdict]:
    """Per section and unit shared by two kernels or more: which is fastest
    (Verdict). The method rows are checks, not a kernel's speed."""
    import math

    out = []
    for s in sections:
        for unit in dict.fromkeys(c.unit for c in columns):
            idx = [i for i, c in enumerate(columns) if c.unit == unit]
            rows = [r for r in s.rows if not r.id.startswith("method.") and all(
                r.cells[i].status == "ok" and (r.cells[i].fig("p50") or 0) > 0 for i in idx)]
            if len(idx) < 2 or not rows:
                continue
            logs = {i: sum(math.log(r.cells[i].fig("p50")) for r in rows) / len(rows)
                    for i in idx}
            best = min(idx, key=lambda i: logs[i])
            order = sorted(idx, key=lambda i: logs[i])
            wins = {columns[i].short: 0 for i in order}
            for r in rows:
                low = min(r.cells[i].fig("p50") for i in idx)
                for i in idx:
                    if r.cells[i].fig("p50") == low:
                        wins[columns[i].short] += 1
            differs = {}
            for r in rows:
                for i in idx:
                    for patterns, text in differences(columns[i].facts):
                        if difference(columns[i].facts, r.id) == text:
                            differs.setdefault(f"{columns[i].short} on {', '.join(patterns)}",
                                               text)
            out.append(Verdict(s.name, unit, len(rows),
                               [(columns[i].short, math.exp(logs[i] - logs[best])) for i in order],
                               wins, [f"{k} ({v})" for k, v in differs.items()]))
    return out


def _profile(run: Run) -> str:
    return "rt" if "rt" in run.profiles else (run.profiles or [DEFAULT_PROFILE])[0]


def _cell(rec: dict | None, present: bool) -> Cell:
    if not present:
        return Cell("absent", "not in this run")
    if rec is None:
        return Cell("not measured", "run incomplete")
    m = MetricRecord(rec)
    if not m.ok:
        return Cell(m.status, m.reason)
    if not (m.is_time or m.is_count):
        return Cell("other unit", f"a figure in {m.unit}")
    return Cell("ok", unit=m.base_unit, values={k: m.value(k) for k in STATS},
                how=rec.get("emulated") or "")


def _sections(columns: list[Column], catalog: Catalog,
              base: dict[str, int]) -> tuple[list[Section], int]:
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
        cells = [_cell(t[mid][1], t[mid][2]) if mid in t else _cell(None, False)
                 for t in per_col]
        if not any(c.status == "ok" for c in cells):
            not_measured += 1
            continue
        for c, col in zip(cells, columns):
            first = cells[base[col.unit]]
            shared = sum(x.unit == col.unit for x in columns) > 1
            if shared and c.status == "ok" and first.status == "ok" and first.unit == c.unit:
                b, v = first.fig("p50"), c.fig("p50")
                if b and v is not None and b > 0:
                    c.ratio = v / b
        by_service.setdefault(it.service, []).append(Row(mid, it.title, cells))
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


def _peer_rows(columns: list[Column], base: dict[str, int]) -> list[PeerRow]:
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


# ---- number formatting ----

def fmt(v: float | None, unit: str) -> str:
    if v is None:
        return "—"
    if unit == "ns":
        return system.fmt_time(v)
    return f"{v:,.0f}" if float(v).is_integer() or abs(v) >= 100 else f"{v:.1f}"


def fmt_ratio(r: float | None) -> str:
    return "—" if r is None else f"×{r:.2f}"


UNIT_SHORT = {"instructions": "instr", "ns": "time"}


def cell_text(c: Cell, stat: str) -> str:
    if c.status != "ok":
        return c.status if stat == "p50" else ""
    return fmt(c.fig(stat), c.unit)


def row_note(row: Row, columns: list[Column]) -> str:
    """Why a kernel has no figure, how a port provides a service, and what a
    kernel's own convention adds to the window (its fairness note)."""
    parts = []
    for c, col in zip(row.cells, columns):
        if c.status != "ok" and c.reason:
            parts.append(f"{col.short}: {c.reason}")
            continue
        if c.how:
            parts.append(f"{col.short}: how: {c.how}")
        if c.status == "ok" and (d := difference(col.facts, row.id)):
            parts.append(f"{col.short}: {d}")
    return "; ".join(parts)


def ratio_header(sheet: KernelSheet, col_index: int) -> str:
    col = sheet.columns[col_index]
    return f"× {sheet.columns[sheet.ratio_base[col.unit]].short}"


# ---- renderings ----

VERDICT_TEXT = (
    "Per section, the kernels that share a unit, over the rows each of them measured: the "
    "fastest, and each other kernel's geometric mean of its median over the fastest one's "
    "(×2.00: twice the instructions, typically), with how many rows each was fastest on. A "
    "summary, not a ranking of every service: the rows below hold each figure, and where a "
    "kernel's convention puts more in a window (its fairness note) the section says so.")

def page(sheet: KernelSheet):
    """The terminal rendering (and the blocks every format shares)."""
    from rtbench.sheets.pages import Page, Table

    cols = sheet.columns
    p = Page(sheet.title, "Columns are kernels: each row is one catalogue metric, measured by "
             "the same code on each, in each kernel's unit.")
    for w in sheet.warnings:
        p.warning(w)
    if sheet.verdicts:
        p.h2("Fastest, section by section")
        p.p(VERDICT_TEXT)
        p.bullets([v.text() for v in sheet.verdicts])
    p.h2("Configuration")
    p.p(fairness.FAIR_TEXT)
    p.table(Table(["", *(c.label for c in cols)], [[k, *v] for k, v in sheet.config]))
    p.table(Table(["must be equal", "equal?", *(c.title for c in cols)],
                  [[ch.what, "yes" if ch.fair else "NO" + (f" ({ch.why})" if ch.why else ""),
                    *ch.values] for ch in sheet.checks],
                  styles=["" if ch.fair else "bad" for ch in sheet.checks]))
    for s in sheet.sections:
        p.h2(s.name)
        p.table(_flat(section_table(sheet, s)))
    if sheet.peer_rows:
        p.h2("Thread-Metric beside the kernels (peer)")
        p.p(TM_TEXT)
        p.table(_flat(peer_table(sheet)))
        p.bullets([f"**{r.test.title}**: one count is {r.test.count}. {r.test.relation}"
                   for r in sheet.peer_rows])
        checks = [f"{col.title}, {r.test.title}: {x.check}" for r in sheet.peer_rows
                  for x, col in zip(r.cells, cols) if x.check]
        if checks:
            p.p("Thread-Metric's own checks that failed (the counts are kept as printed; the "
                "peer run's records say why):")
            p.bullets(checks)
    p.p(f"{sheet.not_measured} catalogue kernel rows have no figure on any of these kernels "
        "(not shown); the System part (Linux programs) is not a kernel row.")
    p.p(summary_line(sheet))
    return p


def _flat(t):
    """The terminal shows no header groups: each header names its kernel."""
    t.headers, t.groups = flat_headers(t), []
    return t


def section_table(sheet: KernelSheet, s: Section):
    from rtbench.sheets.pages import Table

    headers, align, groups = ["metric"], "l", [("", 1)]
    for i, c in enumerate(sheet.columns):
        u = UNIT_SHORT.get(c.unit, c.unit)
        ratios = sheet.has_ratio(i)
        headers += [f"min {u}", f"median {u}", f"max {u}", *[ratio_header(sheet, i)] * ratios]
        align += "rrr" + "r" * ratios
        groups.append((c.short, 3 + ratios))
    headers.append("notes")
    align += "l"
    groups.append(("", 1))
    rows = []
    for r in s.rows:
        cells = [r.id]
        for i, c in enumerate(r.cells):
            cells += [cell_text(c, "min"), cell_text(c, "p50"), cell_text(c, "max"),
                      *[fmt_ratio(c.ratio) if c.status == "ok" else ""] * sheet.has_ratio(i)]
        rows.append([*cells, row_note(r, sheet.columns)])
    return Table(headers, rows, align, groups=groups)


TM_TEXT = (
    "Thread-Metric's tests, built from the same ThreadX checkout and run under the same QEMU "
    f"(`rtbench run --with-peers`): each count is one pass of a loop of kernel calls, totalled "
    f"per report period of {tm.PERIOD_S} s of virtual time, the kernel tick at {tm.TICK_HZ} Hz as "
    "its porting rules ask. Under -icount a period is a fixed number of instructions, so a "
    "count reads as instructions per count (the period's instructions ÷ the count, the "
    "report thread's own work included), which the last column sets beside the rtbench rows "
    "one count performs (their medians, summed). ThreadX runs ThreadX's own Thread-Metric "
    "layer; FreeRTOS rtbench's (harness/peers/thread-metric/tm_freertos.c).")


def peer_table(sheet: KernelSheet):
    from rtbench.sheets.pages import Table

    ratios = len(sheet.columns) > 1
    headers, align, groups = ["test"], "l", [("", 1)]
    for c in sheet.columns:
        headers += ["count / period", "instr / count", "rtbench rows",
                    *[f"× {sheet.columns[0].short}"] * ratios]
        align += "rrr" + "r" * ratios
        groups.append((c.short, 3 + ratios))
    rows = []
    for r in sheet.peer_rows:
        cells = [r.test.title]
        for x in r.cells:
            if x.status != "ok":
                cells += [x.status, "", "", *[""] * ratios]
                continue
            cells += [fmt(x.count, "count") + (" (check failed)" if x.check else ""),
                      fmt(x.per_count, "instructions"), fmt(x.estimate, "instructions"),
                      *[fmt_ratio(x.ratio)] * ratios]
        rows.append(cells)
    return Table(headers, rows, align, groups=groups)


def render(sheet: KernelSheet, fmt_: str) -> str:
    """Markdown or HTML of the sheet."""
    name = {"md": "kernelsheet.md.j2", "html": "kernelsheet.html.j2"}[fmt_]
    plots = _plots(sheet) if fmt_ == "html" else {}
    return template_env().get_template(name).render(
        sheet=sheet, title=sheet.title, version=rtbench.__version__, fair_text=fairness.FAIR_TEXT,
        verdict_text=VERDICT_TEXT, tm_text=TM_TEXT, section_table=section_table, peer_table=peer_table, plots=plots,
        colours=_colours(sheet), flat=flat_headers, summary=summary_line(sheet))


def flat_headers(t) -> list[str]:
    """A table's headers with their group's label in front (Markdown has no
    header groups)."""
    out, i = [], 0
    for label, span in t.groups or [("", len(t.headers))]:
        for h in t.headers[i:i + span]:
            out.append(f"{label} {h}".strip() if label else h)
        i += span
    return out


def _colours(sheet: KernelSheet) -> list[str]:
    from rtbench.sheets.plots import COLOURS

    return [COLOURS[i % len(COLOURS)] for i in range(len(sheet.columns))]


def _plots(sheet: KernelSheet) -> dict[str, list[Markup]]:
    """Section name -> one plot per unit: each kernel's distribution of
    every row of the section side by side."""
    from rtbench.sheets import plots

    colours = _colours(sheet)
    out: dict[str, list[Markup]] = {}
    n = 0
    for s in sheet.sections:
        for unit in sheet.units:
            idx = [i for i, c in enumerate(sheet.columns) if c.unit == unit]
            rows = [(r.id, [(sheet.columns[i].title, colours[i],
                             r.cells[i].values if r.cells[i].status == "ok" else None)
                            for i in idx]) for r in s.rows]
            if not any(v for _id, ks in rows for _t, _c, v in ks):
                continue
            n += 1
            out.setdefault(s.name, []).append(Markup(plots.range_plot(rows, unit, f"k{n}")))
    return out


def to_jsonable(sheet: KernelSheet) -> Any:
    from rtbench.compare.jsonable import to_jsonable as plain

    return plain(sheet)


# ---- the summary line every comparison ends with ----

def summary_line(sheet: KernelSheet) -> str:
    """The sheet in one line: per kernel, what became of each kernel row
    shown (measured, unsupported, failed, not in its run), the catalogue rows
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
        per.append(f"{c.short or c.title} " + ", ".join(f"{counts[k]} {k}" for k in order))
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
