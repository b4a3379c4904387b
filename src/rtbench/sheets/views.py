"""Pages (pages.py) for the commands beside the data sheet that read
stored runs and shipped sheets without judging them: history, runs and
reference list. The comparisons' pages are compare/views.py.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from rtbench.errors import RtbenchError
from rtbench.sheets.datasheet import figure_cell
from rtbench.sheets.pages import Page, Table
from rtbench.store import catalog as catalog_mod
from rtbench.store import reference
from rtbench.store.db import HistoryPoint, Run, RunSummary, Store
from rtbench.store.records import MetricRecord


def run_name(run: Run) -> str:
    return f"run {run.id}" + (f" “{run.label}”" if run.label else "")


# ---- history METRIC ----

def history_from(db: Path | None, metric: str, profile: str | None,
                 html: bool) -> tuple[Page, list[dict]]:
    """`rtbench history METRIC`: its page and its JSON, from the store."""
    cat = catalog_mod.load()
    with Store(db, create=False) as store:
        if cat.get(metric) is None and metric not in store.metric_ids():
            raise RtbenchError(f"no metric {metric!r}: not in the catalogue and in no "
                               "stored run" + (catalog_mod.did_you_mean(
                                   metric, [*cat.ids, *store.metric_ids()])
                                   or " (see `rtbench list`)"))
        points = store.history(metric, profile)
    meta = cat.get(metric)
    page = history(metric, meta.title if meta else metric, points, html)
    if not points:
        page.p(f"No stored run measured {metric}" + (f" under profile {profile}." if profile
                                                       else "."))
    data = [{"run": p.run.id, "uuid": p.run.uuid, "started": p.run.started,
             "label": p.run.label, "profile": p.profile, "record": p.record} for p in points]
    return page, data


def history(metric_id: str, title: str, points: list[HistoryPoint], html: bool) -> Page:
    page = Page(f"rtbench history: {title}", f"{metric_id}, every stored run, oldest first; µs.")
    rows = []
    for pt in points:
        m = MetricRecord(pt.record)
        figures = ([_count(m), *(figure_cell(m, k) for k in ("min", "p50", "mean", "p99", "max"))]
                   if m.ok else ["", "—", "—", "—", "—", "—"])
        rows.append([str(pt.run.id), pt.run.started, pt.run.label, pt.profile, m.status,
                     *figures, "" if m.ok else m.reason])
    page.table(Table(["run", "started", "label", "profile", "status", "n", "min", "median",
                      "mean", "p99", "max", "reason"], rows, "lllllrrrrrrl"))
    if html and any(MetricRecord(p.record).ok for p in points):
        page.svg(_history_plot(points))
    return page


def _history_plot(points: list[HistoryPoint]) -> str:
    from rtbench.sheets import plots

    runs = list(dict.fromkeys(p.run.id for p in points))
    profiles = list(dict.fromkeys(p.profile for p in points))
    series = []
    for profile in profiles:
        by_run = {p.run.id: MetricRecord(p.record) for p in points if p.profile == profile}
        for stat, style, name in (("p50", "-o", "median"), ("p99", "--", "p99")):
            values = [by_run[r].ns_or_none(stat) if r in by_run and by_run[r].ok else None
                      for r in runs]
            series.append((f"{profile} {name}", values, style))
    return plots.line_plot([str(r) for r in runs], series, "time")


# ---- runs ----

def runs_from(db: Path | None) -> tuple[Page, list[dict]]:
    """`rtbench runs`: its page and its JSON, from the store."""
    with Store(db, create=False) as store:
        summaries = store.summaries()
        path = str(store.path)
    data = [{"id": s.run.id, "uuid": s.run.uuid, "started": s.run.started,
             "finished": s.run.finished, "status": s.run.status, "label": s.run.label,
             "profiles": s.profiles, "counts": s.counts, "host": s.run.host,
             "imported_from": s.run.imported_from} for s in summaries]
    return runs_page(summaries, path), data


def runs_page(summaries: list[RunSummary], db: str) -> Page:
    page = Page("rtbench runs", f"Database {db}")
    rows = []
    for s in summaries:
        r, c = s.run, s.counts
        counts = f"{c.get('ok', 0)} ok" + "".join(
            f", {c[k]} {k}" for k in ("failed", "unsupported", "pending") if c.get(k))
        try:
            env, origin = _environment(s), _origin(r)
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            # a run an older rtbench stored, or a database edited by hand: its row
            # says so, and the others are listed
            env, origin = f"unreadable ({type(exc).__name__})", ""
        rows.append([str(r.id), r.started, r.status, r.label, ", ".join(map(str, s.profiles)),
                     counts, env, origin])
    page.table(Table(["run", "started", "status", "label", "profiles", "metrics",
                      "environment", "origin"], rows, "lllllll"))
    if not summaries:
        page.p("No runs stored yet: `rtbench run` measures one.")
    return page


def _environment(s: RunSummary) -> str:
    r = s.run
    host = r.host
    env = " · ".join(str(x) for x in (host.get("hostname", ""), host.get("cpu_model", ""),
                                      host.get("kernel_release", ""),
                                      host.get("preemption", "")) if x)
    rt = (r.session or {}).get("rt") or {}
    imported = (r.session or {}).get("origin") in ("import", "peer")  # the source says nothing
    if r.session and len(s.profiles) <= 1 and not imported:  # several profiles: each has its own
        env += " · RT" if rt.get("realtime") else " · not RT"
    if r.damaged:
        env += f" · {len(r.damaged)} part(s) unreadable"
    return env


def _count(m: MetricRecord) -> str:
    return "—" if m.n is None else str(m.n)


def _origin(r: Run) -> str:
    """Measured here, a results.json import, or `rtbench import KIND` (with its files)."""
    if r.origin == "measured":
        return "measured here"
    if r.origin == "rtbench":
        return f"imported from {r.imported_from}"
    if r.origin in ("zephyr", "rt-tests", "lmbench", "rtos-benchmark"):
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
