"""Pages (pages.py) for the commands beside the data sheet that read
stored runs and shipped sheets without judging them: history, runs and
reference list. The comparisons' pages are compare/views.py.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from rtbench import importers
from rtbench.errors import RtbenchError
from rtbench.sheets import estcycles
from rtbench.sheets.datasheet import figure_cell, fmt_us
from rtbench.sheets.pages import Page, Table
from rtbench.sheets.units import fmt_whole
from rtbench.store import catalog as catalog_mod
from rtbench.store import host as host_mod
from rtbench.store import reference
from rtbench.store.db import HistoryPoint, Run, RunSummary, Store
from rtbench.store.records import MetricRecord, Session


def run_name(run: Run) -> str:
    return f"run {run.id}" + (f" “{run.label}”" if run.label else "")


# ---- history METRIC ----

@dataclass(frozen=True)
class HistoryFilter:
    """Which runs `rtbench history` shows: a target ("host", "mps2-an385";
    exact), a kernel and a label (a part of it, any case: "freertos"
    matches "FreeRTOS V11.3.0"), the last N of those runs."""

    target: str | None = None
    kernel: str | None = None
    label: str | None = None
    last: int | None = None

    def apply(self, points: list[HistoryPoint]) -> list[HistoryPoint]:
        def part(want: str | None, have: str) -> bool:
            return want is None or want.casefold() in have.casefold()

        kept = [p for p in points if (self.target is None or _measured(p.run)["target"]
                                      == self.target)
                and part(self.kernel, _measured(p.run)["kernel"]) and part(self.label, p.run.label)]
        if self.last is not None:
            runs = list(dict.fromkeys(p.run.id for p in kept))[-self.last:] if self.last else []
            kept = [p for p in kept if p.run.id in runs]
        return kept

    def words(self) -> str:
        """"" for no filter, else what it kept: "; runs of target host, kernel ~ 6.1"."""
        said = [f"target {self.target}" if self.target else "",
                f"kernel ~ {self.kernel}" if self.kernel else "",
                f"label ~ {self.label}" if self.label else "",
                f"the last {self.last} run{'' if self.last == 1 else 's'}"
                if self.last is not None else ""]
        said = [x for x in said if x]
        return f"; only {', '.join(said)}" if said else ""


def history_from(db: Path | None, metric: str, profile: str | None, html: bool,
                 keep: HistoryFilter = HistoryFilter()) -> tuple[Page, list[dict]]:
    """`rtbench history METRIC`: its page and its JSON, from the store."""
    cat = catalog_mod.load()
    with Store(db, create=False) as store:
        if cat.get(metric) is None and metric not in store.metric_ids():
            raise RtbenchError(f"no metric {metric!r}: not in the catalogue and in no "
                               "stored run" + (catalog_mod.did_you_mean(
                                   metric, [*cat.ids, *store.metric_ids()])
                                   or " (see `rtbench list`)"))
        points = keep.apply(store.history(metric, profile))
    meta = cat.get(metric)
    page = history(metric, meta.title if meta else metric, points, html, keep.words())
    if not points:
        page.p(f"No stored run measured {metric}" + (f" under profile {profile}" if profile
                                                       else "") + keep.words() + ".")
    data = [{"run": p.run.id, "uuid": p.run.uuid, "started": p.run.started,
             "label": p.run.label, **_measured(p.run), "origin": _origin_word(p.run),
             "unit": _unit_of(p), "profile": p.profile, "record": p.record} for p in points]
    return page, data


def history(metric_id: str, title: str, points: list[HistoryPoint], html: bool,
            kept: str = "") -> Page:
    """One table (and in HTML one plot) per unit the runs measured it in:
    times in µs, a board's counts in instructions, a program's figures in
    their own unit; never one axis for two units. Each row says its target
    and origin (measured here, imported, a peer); a plot's line joins only
    the runs of one target, kernel and profile."""
    groups = _by_unit(points)
    page = Page(f"rtbench history: {title}",
                f"{metric_id}, every stored run{kept}, oldest first; "
                + ("; ".join(f"{_unit_words(u)}: {_runs_phrase(pts)}" for u, pts in groups.items())
                   if len(groups) > 1 else _unit_words(next(iter(groups), "ns"))) + ".")
    for unit, pts in groups.items():
        if len(groups) > 1:
            page.h2(f"In {_unit_words(unit)} ({_runs_phrase(pts)})")
        head = _UNIT_HEAD.get(unit, unit)
        # a board's estimated cycles beside its instructions (estcycles)
        label = estcycles.label(p.record for p in pts)
        est = [name for _k, name in estcycles.COLUMNS if _k != "cyc_max"] if label else []
        rows = []
        for pt in pts:
            m = MetricRecord(pt.record)
            figures = ([_count(m), *(figure_cell(m, k, lambda v: _us(v, m.step_ns))
                                     for k in ("min", "p50", "mean", "p99", "max"))]
                       if m.ok else ["", "—", "—", "—", "—", "—"])
            cells = estcycles.cells(pt.record)
            what = _measured(pt.run)
            rows.append([str(pt.run.id), pt.run.started, pt.run.label, what["target"],
                         what["kernel"], _origin_word(pt.run), pt.profile, m.status, *figures,
                         *([cells["cyc_p50"], cells["cyc_us"]] if label else []),
                         "" if m.ok else m.reason])
        page.table(Table(["run", "started", "label", "target", "kernel", "origin", "profile",
                          "status", "n",
                          *(f"{k} {head}" for k in ("min", "median", "mean", "p99", "max")),
                          *est, "reason"], rows, "llllllllrrrrrr" + "r" * len(est) + "l"))
        if label:
            page.p(label)
        if html and any(MetricRecord(p.record).ok for p in pts):
            page.svg(_history_plot(pts, unit))
    return page


_UNIT_HEAD = {"ns": "µs", "instructions": "instr"}  # figure_cell writes a time in µs


def _us(ns: float, step: float) -> str:
    """A time in µs: a source's whole µs whole ("8"), else to the ns ("8.123")."""
    return fmt_whole(ns, 1e3, step) or fmt_us(ns)


def _unit_words(unit: str) -> str:
    return "times in µs" if unit == "ns" else unit


def _runs_phrase(points: list[HistoryPoint]) -> str:
    ids = list(dict.fromkeys(p.run.id for p in points))
    return ("run " if len(ids) == 1 else "runs ") + ", ".join(map(str, ids))


def _unit_of(pt: HistoryPoint) -> str:
    """The unit of a point's figures; a record without one (failed,
    unsupported) has its run's."""
    m = MetricRecord(pt.record)
    if m.ok:
        return m.base_unit
    return "instructions" if Session(pt.run.session or {}).is_count else "ns"


def _by_unit(points: list[HistoryPoint]) -> dict[str, list[HistoryPoint]]:
    out: dict[str, list[HistoryPoint]] = {}
    for pt in points:
        out.setdefault(_unit_of(pt), []).append(pt)
    return out


def _history_plot(points: list[HistoryPoint], unit: str) -> str:
    from rtbench.sheets import plots

    runs = list(dict.fromkeys(p.run.id for p in points))
    return plots.line_plot([str(r) for r in runs], history_series(points),
                           "time" if unit == "ns" else unit, unit)


def history_series(points: list[HistoryPoint]) -> list[tuple[str, list, str]]:
    """The plot's lines over the runs of one unit: median and p99 of each
    (target, kernel, profile), so no line runs from one kernel or target to
    another (FreeRTOS → ThreadX is no trend); a run of another kernel, or
    without a figure, is a gap the line spans within its own runs."""
    runs = list(dict.fromkeys(p.run.id for p in points))
    lines = list(dict.fromkeys((_measured(p.run)["target"], _measured(p.run)["kernel"],
                                p.profile) for p in points))
    series = []
    for target, kernel, profile in lines:
        by_run = {p.run.id: MetricRecord(p.record) for p in points if p.profile == profile
                  and (_measured(p.run)["target"], _measured(p.run)["kernel"]) == (target, kernel)}
        name = " ".join(x for x in (target if len(lines) > 1 else "",
                                    kernel if len(lines) > 1 else "", profile) if x)
        for stat, style, what in (("p50", "-o", "median"), ("p99", "--", "p99")):
            values = [by_run[r].value(stat) if r in by_run and by_run[r].ok else None
                      for r in runs]
            series.append((f"{name} {what}", values, style))
    return series


def _origin_word(r: Run) -> str:
    """Where a history row's figures come from, in a word or three."""
    if r.origin == "measured":
        return "measured"
    if r.origin == "rtbench":
        return "results.json"
    if r.origin == "peer":
        return f"peer of run {r.linked_to}" if r.linked_to else "peer"
    return f"imported ({r.origin})"


# ---- runs ----

def runs_from(db: Path | None) -> tuple[Page, list[dict]]:
    """`rtbench runs`: its page and its JSON, from the store."""
    with Store(db, create=False) as store:
        summaries = store.summaries()
        path = str(store.path)
    data = [{"id": s.run.id, "uuid": s.run.uuid, "started": s.run.started,
             "finished": s.run.finished, "status": s.run.status, "label": s.run.label,
             **_listed(s)[0], "profiles": s.profiles, "counts": s.counts,
             "host": s.run.host, "imported_from": s.run.imported_from} for s in summaries]
    return runs_page(summaries, path), data


def _measured(run: Run) -> dict[str, str]:
    """What a run measured, for telling runs apart: its target, kernel and
    board (or CPU)."""
    h = run.host
    return {"target": host_mod.target_name(h, run.origin == "measured"),
            "kernel": host_mod.kernel_name(h), "board": host_mod.board_name(h)}


def runs_page(summaries: list[RunSummary], db: str) -> Page:
    page = Page("rtbench runs", f"Database {db}; each run's target, kernel and board (or CPU), "
                "for picking the ids to compare.")
    rows = []
    for s in summaries:
        r, c = s.run, s.counts
        counts = f"{c.get('ok', 0)} ok" + "".join(
            f", {c[k]} {k}" for k in ("failed", "unsupported", "pending") if c.get(k))
        what, env, origin = _listed(s)
        rows.append([str(r.id), r.started, r.status, r.label, what["target"], what["kernel"],
                     what["board"], ", ".join(map(str, s.profiles)), counts, env, origin])
    page.table(Table(["run", "started", "status", "label", "target", "kernel", "board / CPU",
                      "profiles", "metrics", "machine", "origin"], rows, "l" * 11))
    if not summaries:
        page.p("No runs stored yet: `rtbench run` measures one.")
    return page


def _listed(s: RunSummary) -> tuple[dict[str, str], str, str]:
    """A run's row in the listing: what it measured (`_measured`), its
    machine and its origin. A run an older rtbench stored, or a database
    edited by hand, lists as unreadable in part, and the others as ever."""
    try:
        return _measured(s.run), _machine(s), _origin(s.run)
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        return dict.fromkeys(("target", "kernel", "board"), "?"), \
            f"unreadable ({type(exc).__name__})", ""


def _machine(s: RunSummary) -> str:
    r = s.run
    env = str(r.host.get("hostname", ""))
    rt = (r.session or {}).get("rt") or {}
    imported = (r.session or {}).get("origin") in ("import", "peer")  # the source says nothing
    if r.session and len(s.profiles) <= 1 and not imported \
            and not r.host.get("target_kind"):  # several profiles: each has its own; a board
        env += (" · " if env else "") + ("RT" if rt.get("realtime") else "not RT")
    if r.damaged:
        env += (" · " if env else "") + f"{len(r.damaged)} part(s) unreadable"
    return env


def _count(m: MetricRecord) -> str:
    return "—" if m.n is None else str(m.n)


def _origin(r: Run) -> str:
    """Measured here, a results.json import, or `rtbench import KIND` (with its files)."""
    if r.origin == "measured":
        return "measured here"
    if r.origin == "rtbench":
        return f"imported from {r.imported_from}"
    if r.origin in importers.FOREIGN:
        from pathlib import PurePath

        files = [PurePath(a).name for a in r.argv[3:]] if r.argv[1:2] == ["import"] else []
        shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        return f"imported ({r.origin}) from {shown or r.imported_from}"
    return r.origin + (f" of run {r.linked_to}" if r.linked_to else "")


# ---- reference list ----

def reference_list() -> tuple[Page, list[dict]]:
    """`rtbench reference list`: its page and its JSON."""
    data = [asdict(s) | {"rows": len(s.rows())} for s in reference.sheets()]
    return reference_page(), data


def _base_platform(v: reference.Variant) -> str:
    """DSP/BIOS names its platforms "TMS320C54x (Near)": the part without the config."""
    suffix = f" ({v.config})"
    return v.platform[:-len(suffix)] if v.config and v.platform.endswith(suffix) else v.platform


def reference_page() -> Page:
    page = Page("rtbench reference sheets",
                "The vendors' published figures shipped with rtbench; "
                "`rtbench compare RUN --ref NAME` puts a run beside one.")
    rows = []
    for s in reference.sheets():
        variants = s.variants()
        platforms = list(dict.fromkeys(_base_platform(v) for v in variants))
        clocks = list(dict.fromkeys(v.clock_mhz for v in variants if v.clock_mhz))
        rows.append([s.name, s.title, "; ".join(platforms),
                     ", ".join(f"{c} MHz" for c in clocks) or "not stated",
                     ", ".join(s.units()), str(len(s.rows())), s.source])
    page.table(Table(["name", "title", "platforms", "clock", "units", "rows", "source"], rows,
                     "lllllrl"))
    return page
