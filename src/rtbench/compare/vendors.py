"""A run against a vendor's published reference sheet (`rtbench compare
RUN --ref NAME`): catalogue metrics claim the sheet's rows by name
(rtbench.store.reference.row_key); each claimed row is shown beside our
figure, both normalised to cycles at each side's own clock where that is
known, with the ratio ours / theirs. Like with like: the statistic of ours
is the one the sheet published (reference.STATISTICS: a worst case beside
our max, an average beside our mean), and a count of instructions stands
beside their cycles without a ratio (a path length is not a speed); a board
run's estimated cycles of the same samples stand beside theirs with a ratio
marked model against measurement (estref.py). A row
whose record says `unranked` (docs/records.md: the kernel adds nothing, the
tick's phase, rtbench's own instructions) stands beside theirs without a
ratio either, and says why; so does a row whose window, the port says,
holds something other than the service its name implies (`window_holds`:
Linux's task start is a sem_post): not comparable, in the port's words, and
out of every ratio. Rows either side lacks are listed, the
unclaimed ones with why (coverage.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from rtbench.compare import coverage, estref
from rtbench.sheets import system
from rtbench.sheets.configuration import core_clock_phrase
from rtbench.store import reference
from rtbench.store.catalog import Catalog
from rtbench.store.db import Run
from rtbench.store.items import items
from rtbench.store.records import MetricRecord, Session


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
    est_cycles: estref.Ratio | None = None  # our estimated cycles / their cycles (a model's)
    est_time: estref.Ratio | None = None  # the estimate at the board's clock / their time


@dataclass
class RefRow:
    id: str
    title: str
    profile: str
    key: str  # the sheet's row name
    ours_status: str
    ours_reason: str
    ours_ns: float | None
    ours_cycles: float | None  # counter ticks, or core cycles where the run measured the
                               # core clock (RefComparison.cycles_note says which)
    cells: list[Published | None]
    ours_mb_s: float | None = None  # our bandwidth at the median sample (bandwidth metrics)
    ours_stat: str = "p50"  # the statistic ours is: the one paired with theirs
                            # (their_stat), or what the source gave (an import)
    ours_count: float | None = None  # a count run's figure (instructions), never a time
    ours_unit: str = ""
    their_stat: str = "unstated"  # what the published figure is (reference.STATISTICS)
    unranked: str = ""  # the record's `unranked`: why ours takes no ratio against theirs
    est: estref.Estimate | None = None  # a board's estimated cycles of the statistic ours is
    window_holds: str = ""  # the record's `window_holds`: not their service, so not comparable
    ours_res: float = 0.0  # the clock's step in ours_ns: no digit finer is shown


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
    our_core_hz: float = 0.0  # the core clock ours_cycles are at (0: they are counter ticks)
    cycles_note: str = ""  # what our cycles are, in words for the output
    est_label: str = ""  # the cycle model's label, when a row carries its estimate


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
                rows.append(_ref_row(it, profile, rec, key, session,
                                     sheet.statistic_of(key)))
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
                         or session.ts.get("unit_detail", ""), session.core_cycles_hz,
                         _cycles_note(session),
                         next((r.est.label for r in rows if r.est), ""))


def _cycles_note(session: Session) -> str:
    """What our figure beside their CPU cycles is: core cycles at the measured
    core clock, or the counter's own ticks (which a TSC's are not)."""
    if session.is_count:
        return ""
    if session.core_cycles_hz:
        return (f"core cycles: ns × {session.core_hz / 1e9:.2f} GHz, the "
                f"{core_clock_phrase(session)}")
    if session.unit == "cycles":
        return "cycles of the core's own cycle counter"
    clock = f" at {session.hz / 1e9:.3f} GHz" if session.hz else ""
    return (f"counter ticks{clock}, not core cycles: the run has no measured core clock "
            "(the counter's rate need not be the core's)")


def _ref_row(it, profile: str, rec: dict | None, key: str, session: Session = Session({}),
             theirs: str = "unstated") -> RefRow:
    """Our figure for one published row, the statistic `theirs` asks for
    (reference.STATISTICS); beside their CPU cycles, the counter's ticks, or
    core cycles (the time × core_hz) where the run measured the core clock
    and the ticks are not the core's."""
    if rec is None:
        return RefRow(it.id, it.title, profile, key, "not measured", "run incomplete",
                      None, None, [], their_stat=theirs)
    m = MetricRecord(rec)
    if not m.ok:
        return RefRow(it.id, it.title, profile, key, m.status, m.reason, None, None, [],
                      their_stat=theirs)
    row = _ok_row(it, profile, key, rec, m, session.core_cycles_hz, theirs)
    row.unranked, row.window_holds = m.unranked, m.window_holds
    row.ours_res = m.step(row.ours_stat, session.clock_step) if row.ours_stat else 0.0
    return row


def _ok_row(it, profile: str, key: str, rec: dict, m: MetricRecord, core_hz: float,
            theirs: str) -> RefRow:
    """An ok record's figure of the statistic `theirs` asks for."""
    stat = _our_stat(m, theirs)
    if stat is None:
        return RefRow(it.id, it.title, profile, key, "ok", "", None, None, [], ours_stat="",
                      their_stat=theirs)
    mb_s = system.mb_per_s(rec, stat)
    if m.is_count:  # instructions (an emulator): beside their cycles, never as a time;
        # the model's estimate of the same samples beside them, when it priced them
        return RefRow(it.id, it.title, profile, key, "ok", "", None, None, [], None, stat,
                      ours_count=m.count(stat), ours_unit=m.unit, their_stat=theirs,
                      est=estref.estimate(rec, stat))
    if not m.is_time:  # a figure in its own unit (e.g. MB/s from a program)
        return RefRow(it.id, it.title, profile, key, "ok", "", None, None, [], mb_s, stat,
                      their_stat=theirs)
    # per operation: a sample that timed `ops` operations is divided (records.md)
    cycles = m.ns(stat) * core_hz / 1e9 if core_hz else float(rec[stat]) / m.divisor(stat)
    return RefRow(it.id, it.title, profile, key, "ok", "", m.ns(stat), cycles, [], mb_s, stat,
                  their_stat=theirs)


def _our_stat(m: MetricRecord, theirs: str) -> str | None:
    """The statistic of ours to set beside theirs: the same one, else (a
    source that gave fewer, an import) the nearest it has; None if none."""
    want = reference.STATISTICS[theirs]
    for stat in (want, "p50", "mean"):
        if m.has(stat):
            return stat
    return None


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
    if row.unranked or row.window_holds:
        return c  # ours measures no work of the kernel, or not theirs: nothing to set beside
    if row.ours_stat != reference.STATISTICS[row.their_stat]:
        return c  # not the statistic they published (ours lacks it): no ratio
    if c.mb_s and row.ours_mb_s:  # as a time ratio: above 1, we are slower
        c.ratio_time = c.mb_s / row.ours_mb_s
    if c.cycles and row.ours_cycles is not None:
        c.ratio_cycles = row.ours_cycles / c.cycles
    if c.time_ns and row.ours_ns is not None:
        c.ratio_time = row.ours_ns / c.time_ns
    # a count of instructions beside their cycles: side by side, no ratio; the
    # model's estimate of the same samples: a ratio, model against measurement
    if row.est and c.cycles:
        c.est_cycles = estref.cycles_ratio(row.est, c.cycles)
    if row.est and c.time_ns:
        c.est_time = estref.time_ratio(row.est, c.time_ns)
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
