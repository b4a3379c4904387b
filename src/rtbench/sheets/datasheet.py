"""The data sheet of a stored run: one model, rendered as Markdown and as
HTML, and the files `rtbench run` writes.

`sheet_model()` turns a run into the header, the first page
(firstpage.py), the configuration and warnings (configuration.py), the
methodology, the per-service tables (the System part's through
system.py) and the glossary; the Markdown and HTML templates only lay it
out, and the HTML adds a histogram per metric.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markupsafe import Markup

import rtbench
from rtbench.sheets import advice as advice_mod
from rtbench.sheets import calibration, estcycles, firstpage, system
from rtbench.sheets.configuration import (Expect, board_configuration, core_clock_phrase,
                                          describe, expectations, figures_unit,
                                          host_configuration, import_methodology,
                                          is_board_run, run_warnings, units_note)
from rtbench.sheets.export import envelope
from rtbench.sheets.files import atomic_write
from rtbench.sheets.plots import UNIT_SHORT
from rtbench.sheets.templating import template_env
from rtbench.sheets.units import fmt_scaled, time_scale
from rtbench.store import blocks
from rtbench.store.catalog import Catalog
from rtbench.store.db import Run
from rtbench.store.items import OTHER_SERVICE, UNMAPPED_SERVICE, Item, items
from rtbench.store.records import MetricRecord, Session, difference, strict_json


# ---- number formatting: negative values keep their sign, never clamped ----

def fmt_us(ns: float) -> str:
    return f"{ns / 1000:.3f}"


def fmt_ns(ns: float) -> str:
    # One decimal where it still says something (below 100 ns), else integer.
    return f"{ns:.1f}" if abs(ns) < 100 else f"{ns:.0f}"


def fmt_count(v: float) -> str:
    """Instructions (and raw ticks): whole where they are, else one decimal (a mean)."""
    return str(int(v)) if float(v).is_integer() else f"{v:.1f}"


fmt_ticks = fmt_count


# ---- the model ----

# Statistic columns of the results tables: (key, header without its unit).
# A run with one profile gets the full set; with several, each profile gets
# the short set side by side. Every figure column holds one unit, chosen per
# table (ns, µs, ms; or the count's unit) and said in its header.
TIME_COLUMNS = (("n", "n"), ("min", "min"), ("p50", "median"), ("p99", "p99"), ("max", "max"))
TIME_SHORT_COLUMNS = (("min", "min"), ("p50", "median"), ("p99", "p99"), ("max", "max"))
# The median in the counter's own unit, for the vendors' cycle tables. A run
# whose counter is the CPU's cycle counter says cycles. (The POSIX port's TSC
# ticks at a constant rate that is not the core's clock.)
_COUNTER_HEADER = {"ticks": "median ticks", "cycles": "median cycles"}
# Where the harness measured the core clock (Session.core_cycles_hz), the
# median time in core cycles beside the ticks: what a vendor's CPU cycles
# are, which the TSC's ticks are not (2.6 GHz against a 3.5 GHz core).
_CORE_HEADER = ("p50_core", "median core cycles")


# Records from other sources (docs/records.md: `stats_given`) that gave a
# mean and no median: a mean column in their table, and no counter column
# (their ticks are ns).
MEAN_COLUMN = ("mean", "mean")
# A run measured in instructions (QEMU -icount): no time, so no µs or ns.
COUNT_COLUMNS = (("n", "n"), ("min", "min"), ("p50", "median"), ("mean", "mean"),
                 ("p99", "p99"), ("max", "max"))
COUNT_SHORT_COLUMNS = TIME_SHORT_COLUMNS
_BLANK = "—"
FIGURE_KEYS = ("min", "p50", "mean", "p99", "max")


@dataclass
class Table:
    profiles: list[str]
    columns: tuple[tuple[str, str], ...]
    rows: list[dict] = field(default_factory=list)
    # metrics without a figure in any profile (unsupported, failed, not
    # measured): one line per status, ids grouped by reason
    collapsed: list[dict] = field(default_factory=list)


def sheet_model(run: Run, catalog: Catalog) -> dict[str, Any]:
    catalog = catalog.for_target(run.host)  # a board's sheet speaks of its kernel and board
    host = run.host
    session = Session(run.session or {})
    expect = expectations(run, session)
    its = items(run, catalog)
    if is_board_run(run):
        title = (f"rtbench data sheet — {host.get('os', '?')} {host.get('kernel_version', '')} "
                 f"on {host.get('board', host.get('target', '?'))}")
        config = board_configuration(run, session)
    else:
        # an imported rtos-benchmark log gives its kernel's version, not a
        # Linux release: "FreeRTOS V11.3.0", not "FreeRTOS unknown kernel"
        version = host.get("kernel_release") or host.get("kernel_version") or "unknown kernel"
        kernel = f"{host.get('os', 'Linux')} {version}"
        title = f"rtbench data sheet — {kernel} on {host.get('cpu_model', 'unknown CPU')}"
        config = host_configuration(run, session, expect)
    advice = advice_mod.check(run)
    return {
        "title": title,
        "first": firstpage.build(run, catalog, advice),
        "advice": advice,
        "config": config,
        "warnings": run_warnings(run, session, expect),
        "methodology": import_methodology(session) if session.source is not None else
        methodology(session, expect) if run.session else
        "The harness did not report its session record, so the method cannot be described.",
        "profiles": run.profiles,
        "services": _service_tables(its, run.profiles, expect, catalog.services,
                                    figures_unit(session), session),
        "definitions": _definitions(its),
        "units_note": " ".join(filter(None, (units_note(session), estcycles.label(
            r for it in its for r in it.records.values())))),
        "calibration": calibration.model(run.calibrations),
        "run": run,
        "version": rtbench.__version__,
    }


def methodology(session: Session, expect: dict[str, Expect] | None = None) -> str:
    ts, rt, cfg = session.ts, session.rt, session.config
    if session.is_count:
        return _count_methodology(session)

    def ns(ticks: Any) -> str:
        v = session.ticks_ns(ticks) if ticks is not None else None
        return "? ns" if v is None else f"{fmt_ns(v)} ns"

    omin, omed = ts.get("overhead_min"), ts.get("overhead_median")
    res = ts.get("resolution")
    if rt.get("realtime"):
        sched = (f"under {rt.get('policy', 'SCHED_FIFO')} with memory "
                 f"{'locked' if rt.get('mlock') else 'not locked'}")
    else:
        sched = f"without real-time scheduling ({rt.get('reason') or 'not granted'})"
    parts = [
        f"Every figure is the difference of two reads of the benchmark counter "
        f"({ts.get('source', '?')}, measured at {session.hz / 1e6:.3f} MHz).",
        f"Reading the counter costs {omin} ticks ({ns(omin)}) at minimum and {omed} ticks "
        f"({ns(omed)}) at the median over {ts.get('overhead_samples', '?')} back-to-back reads;",
        "the mean of those reads (rounded to a tick; with blocks, the mean over every block's",
        "calibration) was subtracted from every sample, so an operation shorter than one",
        "counter read can show a slightly negative time.",
        f"The counter's resolution is {res} tick{'' if res == 1 else 's'} ({ns(res)}).",
        f"Each metric ran {cfg.get('warmup', '?')} warm-up samples, which were discarded,",
        f"then up to {cfg.get('samples', '?')} measured samples within a time budget of "
        f"{cfg.get('budget_ms', '?')} ms.",
        f"All tasks of a scenario were pinned to CPU {rt.get('cpu', '?')} and ran {sched}."
        if not expect or len(expect) == 1 else
        "Placement and scheduling differ by profile: " + "; ".join(
            f"{p}: {describe(e)}" for p, e in expect.items()) + ".",
        "Statistics: minimum, maximum, mean and standard deviation are exact; the",
        "percentiles come from a log-linear histogram with at most 0.4 % relative error.",
        *_core_sentence(session),
    ]
    method = blocks_methodology(cfg)
    return " ".join(parts) + (f"\n\n{method}" if method else "")


def blocks_methodology(cfg: dict) -> str:
    """How blocks, the canary and replicates work (issue 13), for a run
    measured in blocks; "" for one block (a board, older runs)."""
    n = cfg.get("blocks")
    if not n or n <= 1:
        return ""
    return " ".join([
        f"Blocks: the run measured every metric in {n} blocks of about "
        f"{cfg.get('block_samples', '?')} samples, in passes over the whole metric list, so each",
        "metric was sampled across the whole run between all the others, and its figures",
        "merge its blocks exactly (the histograms bucket by bucket, so every percentile is",
        "that of all the samples; the counter overhead subtracted is the mean of every",
        "pass's calibration). A max is the largest sample of the window the note states:",
        "that many samples, observed for that long in all (the timed stretches added up),",
        "not a bound beyond it; a --duration soak widens it. Spread: the interquartile",
        "range of the block medians over the median, how much the figure moved during the",
        "run. Canary: before and after every block the harness times a fixed piece of",
        "work (a pointer chase and a null system call); a block whose canary ran more than",
        f"{blocks.SLOW_CANARY * 100:.0f} % above the run's usual (its lower quartile) is a",
        "slow-host block: counted in the note, its samples kept in the figures. Replicates:",
        "`rtbench compare` judges a median, p99 and p99.9 by a Mann–Whitney U test on the",
        "two runs' block figures (the slow-host blocks left out), not on thousands of",
        "correlated samples, at the 1 % level after Holm's correction over every metric",
        "compared (20 blocks against 20 can pass it over hundreds of metrics; 6, --quick,",
        "only over a few).",
    ])


def _core_sentence(session: Session) -> list[str]:
    """How the core cycles beside the ticks were obtained, where they were."""
    if not session.core_cycles_hz:
        return []
    return [f"The counter's ticks are not the core's cycles; the {core_clock_phrase(session)}"
            " was measured at start-up (adds that each wait on the last retire one per core "
            "cycle), and the median core cycles column is the median time × that clock."]


def _counter_columns(columns: tuple[tuple[str, str], ...], unit: str) -> tuple:
    return tuple((k, _COUNTER_HEADER.get(unit, h)) if k == "p50_ticks" else (k, h)
                 for k, h in columns)


def _count_methodology(session: Session) -> str:
    """An instruction-counting target: the method in its own unit."""
    ts, rt, cfg, t = session.ts, session.rt, session.config, session.target
    omed, res = ts.get("overhead_median"), ts.get("resolution")
    return " ".join([
        f"Every figure is the difference of two reads of the board's counter "
        f"({ts.get('source', '?')}), converted per interval to {session.unit}:",
        f"{ts.get('unit_detail', '')}",
        f"Reading the counter costs {omed} {session.unit} (two back-to-back reads, the same",
        f"every time: min {ts.get('overhead_min')}); that cost was subtracted from every",
        f"sample. The resolution is {res} {session.unit[:-1] if res == 1 else session.unit}.",
        "The same image run twice gives the same figures: nothing on the host changes a count.",
        f"Each metric ran {cfg.get('warmup', '?')} warm-up samples, which were discarded,",
        f"then {cfg.get('samples', '?')} measured samples: no time budget (a count of "
        "instructions is deterministic, so --samples alone decides)." if not cfg.get('budget_ms')
        else f"then up to {cfg.get('samples', '?')} measured samples within a budget of "
        f"{cfg.get('budget_ms', '?')} ms of the board's (virtual) time.",
        f"Tasks ran under the kernel's scheduler ({rt.get('policy') or '?'}) on its one CPU; the",
        f"kernel's tick ({t.get('tick_hz', '?')} Hz) kept running, so a sample the tick",
        "interrupt lands in carries its cost: it shows in the max and the high percentiles,",
        "never in the median.",
        "Statistics: minimum, maximum, mean and standard deviation are exact; the",
        "percentiles come from a log-linear histogram (exact below 256).",
    ])


def _service_tables(its: list[Item], profiles: list[str], expect: dict[str, Expect],
                    services: tuple[str, ...], unit: str = "ticks",
                    session: Session = Session({})) -> list[dict]:
    by_service: dict[str, list[Item]] = {}
    for it in its:
        by_service.setdefault(it.service, []).append(it)
    order = [*services, OTHER_SERVICE, UNMAPPED_SERVICE]
    return [{"name": s, "table": _table(by_service[s], profiles, expect, unit, session),
             "part": "System" if system.is_system(s) else "Kernel"}
            for s in order if s in by_service]


def _table(its: list[Item], profiles: list[str], expect: dict[str, Expect],
           unit: str, session: Session = Session({})) -> Table:
    """One section: a row per metric that has a figure in some profile, the
    others collapsed into a line per status. Columns and the unit are this
    table's own (a section of imported means gets a mean column; a
    section of MB/s a rate column), never set by another section."""
    multi = len(profiles) > 1
    shown = [it for it in its if any(r and r.get("status") == "ok" for r in it.records.values())]
    recs = [MetricRecord(r) for it in shown for r in it.records.values() if r]
    in_system = bool(its) and system.is_system(its[0].service)
    scale = time_scale([m.value("p50") for m in recs if m.is_time])
    suffix = f" {scale[0]}"
    if in_system:
        rate = any((it.meta and it.meta.unit == "bandwidth") or m.bytes or m.unit == "MB/s"
                   for it in shown for m in map(MetricRecord, filter(None, it.records.values())))
        columns = system.columns(multi, rate, scale[0])
    elif recs and all(m.is_count for m in recs):
        columns = tuple((k, f"{h} {UNIT_SHORT.get(unit, unit)}" if k != "n" else h)
                        for k, h in (COUNT_SHORT_COLUMNS if multi else COUNT_COLUMNS))
        if not multi and any(m.cycles for m in recs):  # an emulated board's estimate beside
            columns = (*columns, *estcycles.COLUMNS)
    else:
        columns = tuple((k, h + suffix if k != "n" else h)
                        for k, h in (TIME_SHORT_COLUMNS if multi else TIME_COLUMNS))
        if any(not m.has("p50") and m.has("mean") for m in recs):  # a source gave a mean only
            columns = (*columns[:-1], (MEAN_COLUMN[0], MEAN_COLUMN[1] + suffix), columns[-1])
        if not multi and any(m.is_time and not m.origin for m in recs):
            columns = (*columns, ("p50_ticks", _COUNTER_HEADER.get(unit, "median ticks")))
            if session.core_cycles_hz:
                columns = (*columns, _CORE_HEADER)
    table = Table(profiles, columns)
    for it in shown:
        values, notes = [], []
        for profile in profiles:
            figures, note = _figures(it.records, profile, expect[profile], scale[1], in_system,
                                     session)
            values.extend(figures.get(k, _BLANK) for k, _h in columns)
            if note:
                notes.append(f"{profile}: {note}" if multi else note)
        unranked = any(r and r.get("status") == "ok" and MetricRecord(r).unranked
                       for r in it.records.values())  # marked; its note says why
        table.rows.append({"title": it.title, "id": it.id, "values": values,
                           "note": "; ".join(notes), "unranked": unranked})
    table.collapsed = _collapsed([it for it in its if it not in shown], multi)
    return table


def _collapsed(its: list[Item], multi: bool) -> list[dict]:
    """[{"status": "unsupported", "groups": [(reason, [ids])]}] for metrics
    with no figure in any profile."""
    by_status: dict[str, dict[str, list[str]]] = {}
    for it in its:
        for profile, rec in it.records.items():
            status = "not measured" if rec is None else rec.get("status", "?")
            reason = "run incomplete" if rec is None else rec.get("reason") or "no reason given"
            label = f"{it.id} [{profile}]" if multi else it.id
            ids = by_status.setdefault(status, {}).setdefault(reason, [])
            if label not in ids:
                ids.append(label)
    order = ("failed", "unsupported", "not measured")
    return [{"status": st, "count": sum(len(v) for v in by_status[st].values()),
             "groups": list(by_status[st].items())}
            for st in sorted(by_status, key=lambda x: order.index(x) if x in order else 9)]


_MISSING = object()


def _figures(records: dict[str, dict | None], profile: str, expect: Expect,
             div: float = 1e3, in_system: bool = False,
             session: Session = Session({})) -> tuple[dict[str, str], str]:
    """The table cells of one metric under one profile (times in the
    table's unit: ns divided by `div`, no digit finer than the clock's
    step), and its note."""
    rec = records.get(profile, _MISSING)
    if rec is _MISSING:
        return {"n": ""}, ""
    if rec is None:
        return {"n": ""}, "not measured (run incomplete)"
    m = MetricRecord(rec)
    if not m.ok:
        return {"n": ""}, f"{m.status}: {m.reason or 'no reason given'}"
    if in_system:
        return system.figures(rec, div), "; ".join(_notes(rec, expect))
    core_hz, step = session.core_cycles_hz, session.clock_step
    cells = {k: figure_cell(m, k, lambda v, k=k: fmt_scaled(v, div, m.step_ns, m.step(k, step)))
             for k in FIGURE_KEYS}
    cells.update(estcycles.cells(rec))
    cells["n"] = _BLANK if m.n is None else str(m.n)
    cells["p50_ticks"] = (fmt_ticks(rec["p50"]) if m.has("p50") and m.is_time
                          and not m.origin else _BLANK)
    # a time per operation in core cycles, whole (the clock is an estimate)
    cells["p50_core"] = (f"{m.ns('p50') * core_hz / 1e9:.0f}" if core_hz and m.has("p50")
                         and m.is_time and not m.origin else _BLANK)
    return cells, "; ".join(_notes(rec, expect))


def figure_cell(m: MetricRecord, stat: str, fmt=fmt_us) -> str:
    """One statistic as a table cell: µs (or `fmt`) for a time, the figure
    with its unit otherwise ("812.5 MB/s"), "—" when the record lacks it."""
    value = m.value(stat)
    if value is None:
        return _BLANK
    mark = BATCH_MARK if m.per_batch(stat) else ""  # the row's notes say per batch of how many
    if m.is_time:
        return fmt(value) + mark
    if m.is_count:  # the column says the unit
        return fmt_count(value) + mark
    return (f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}") + f" {m.unit}"


BATCH_MARK = "†"


def batch_note(m: MetricRecord) -> str:
    """What the † beside a batched row's tails means ("" for other rows)."""
    if m.batch <= 1:
        return ""
    return (f"† per batch of {m.batch} calls, not divided (one slow call shows at its full "
            f"size); min, median and mean are per call")


def _notes(rec: dict, expect: Expect) -> list[str]:
    """Whatever makes this metric's figures differ from the sheet's method."""
    notes = []
    if rec.get("status") == "ok" and (why := MetricRecord(rec).unranked):
        notes.append(f"not ranked: {why}")  # shown, kept out of every ranking
    if (b := batch_note(MetricRecord(rec))):
        notes.append(b)
    if rec.get("budget_exhausted"):
        notes.append(f"time budget ran out after {rec['n']} samples")
    if rec.get("invalid"):
        notes.append(f"{rec['invalid']} invalid samples dropped")
    if expect.realtime and rec.get("realtime") is False:
        notes.append("not real-time")
    # docs/records.md: placement is "pinned" (all tasks on `cpu`) or "unpinned"
    if rec.get("placement") == "unpinned":
        if expect.placement != "unpinned":
            notes.append("tasks not pinned to one CPU")
    elif rec.get("cpu") is not None and rec["cpu"] != expect.cpu:
        notes.append(f"tasks on CPU {rec['cpu']}")
    if rec.get("emulated"):  # the port built the service, or differs from the row: how
        notes.append(f"how: {rec['emulated']}")
    if rec.get("window_holds"):  # not the service of its name: no vendor's, no kernel's
        notes.append(f"not comparable: the window holds {rec['window_holds']}")
    if rec.get("status") == "ok" and (d := difference(expect.facts, rec.get("id", ""))):
        notes.append(d)  # the kernel's own convention in the window (the port says)
    if rec.get("note"):
        notes.append(rec["note"])
    if rec.get("status") == "ok" and rec.get("max") is not None:
        window = blocks.window_text(rec)
        if window:  # issue 13: a max is the max of this window, no more
            notes.append(f"max of {window}")
        about = blocks.blocks_text(rec, expect.canary)
        if about:
            notes.append(about)
    return notes


def _definitions(its: list[Item]) -> list[dict]:
    return [{"id": it.id, "title": it.meta.title, "definition": it.meta.definition,
             "clock_start": it.meta.clock_start, "clock_stop": it.meta.clock_stop,
             "service": it.meta.service, "batch": _batch_sentence(it),
             "statistic": it.meta.statistic_text}
            for it in its if it.meta]


def _batch_sentence(it: Item) -> str:
    """Where the run timed a batch of calls per sample (the record's
    `batch`, rtb_batch: the counter too coarse for one call), where the
    clock really started and stopped and what is divided; "" for one call
    per sample."""
    batch = max((MetricRecord(r).batch for r in it.records.values() if r), default=1)
    if batch <= 1:
        return ""
    return (f" In this run a sample timed {batch} such calls in a row (the counter is too "
            f"coarse for one; the loop's own cost, measured with empty calls, is subtracted): "
            f"the clock started before the first and stopped after the last. Min, median "
            f"and mean are that span divided by {batch}; p90, p99, p99.9 and max are per "
            f"batch of {batch}, not divided, so one slow call shows at its full size "
            f"(marked {BATCH_MARK}).")


# ---- renderings ----

def render_markdown(run: Run, catalog: Catalog) -> str:
    """The Markdown sheet; its definitions are a page of their own
    (`render_glossary`, which `rtbench run` writes beside it)."""
    return template_env().get_template("datasheet.md.j2").render(**sheet_model(run, catalog))


def render_glossary(run: Run, catalog: Catalog) -> str:
    """The glossary and the definition of every metric of the run (Markdown)."""
    catalog = catalog.for_target(run.host)
    lines = [f"# Glossary and definitions — run {run.id}", ""]
    lines += [f"- **{term}** — {text}" for term, text in GLOSSARY]
    lines += ["", "## Metric definitions", ""]
    for d in _definitions(items(run, catalog)):
        lines.append(f"- **`{d['id']}`** — {d['title']}. {d['definition']}\n"
                     f"  Clock starts: {d['clock_start']}. Stops: {d['clock_stop']}.{d['batch']}"
                     f" {d['statistic']}")
    return "\n".join(lines) + "\n"


def render_html(run: Run, catalog: Catalog) -> str:
    """The self-contained HTML sheet: inline CSS and SVG, no script, no
    network. Histograms need matplotlib, imported only here."""
    from rtbench.sheets import plots

    catalog = catalog.for_target(run.host)
    model = sheet_model(run, catalog)
    colours = {p: plots.COLOURS[i % len(plots.COLOURS)] for i, p in enumerate(run.profiles)}
    figures: dict[str, dict] = {}
    its = items(run, catalog)
    at_resolution = set(advice_mod.resolution_rows(advice_mod.Facts(run)))
    with plots.HistogramPlotter() as plotter:
        for it in its:
            figures[it.id] = _histogram(it, colours, plotter, it.id in at_resolution)
    model.update(figures=figures, colours=colours, glossary=GLOSSARY,
                 curves=_curves(run, its))
    return template_env().get_template("datasheet.html.j2").render(**model)


def _curves(run: Run, its: list[Item]) -> dict[str, list[dict]]:
    """Service name -> the curve plots shown under its table (first profile
    that has the points; the cache sizes are the host's)."""
    out: dict[str, list[dict]] = {}
    marks = system.cache_marks(run.host)
    by_id = {it.id: it for it in its}
    for profile in run.profiles:
        for n, c in enumerate(system.curves(its, profile)):
            service = by_id[c.points[0][3]].service
            if any(d["series"] == c.series for d in out.get(service, [])):
                continue
            caches = ", ".join(label for label, _ in marks) or "cache sizes not reported"
            out.setdefault(service, []).append({
                "series": c.series, "profile": profile,
                "svg": Markup(system.curve_svg(c, marks, f"curve{n}-{profile}")),
                "caption": f"{c.series}: median and p99 per load over {len(c.points)} sizes"
                           f" ({profile} profile); dotted lines: {caches}."})
    return out


def _histogram(it: Item, colours: dict[str, str], plotter, at_resolution: bool = False
               ) -> dict:
    """One metric's figure: the histogram (the legend inside names the
    median, p99 and max), and a caption only for what the plot cannot
    show. A row at the counter's resolution gets no log-axis plot: its few
    values and their counts are said instead."""
    from rtbench.sheets import plots
    from rtbench.store import stats

    series, captions, why = [], [], ""
    multi = len(it.records) > 1
    for profile, rec in it.records.items():
        if rec is None or rec.get("status") != "ok":
            continue
        m = MetricRecord(rec)
        if not (m.is_time or m.is_count) or any(m.value(k) is None for k in ("p50", "p99", "max")):
            tool = (rec.get("source") or {}).get("tool") or rec.get("origin") or "the source"
            why = f"{tool} gave {', '.join(m.stats_given) or 'no statistic'} only"
            continue  # a figure from another tool without a distribution
        g = stats.grouped(rec)
        marks = {k: m.value(k) for k in ("p50", "p99", "max")}
        fmt = lambda v: plots.fmt_value(v, m.base_unit)  # noqa: E731
        text = ""
        if g is None:
            text = (f"median {fmt(marks['p50'])} · p99 {fmt(marks['p99'])} · "
                    f"max {fmt(marks['max'])} · no histogram stored")
        elif at_resolution:
            text = "at the counter's resolution, so no histogram: " + _distinct(g, fmt)
        else:
            series.append(plots.Series(g, marks, colours[profile], profile if multi else ""))
            low = int(g.counts[g.values <= 0].sum())
            if low:
                text = f"{low} of {g.n} samples ≤ {fmt(0)}, left of the log axis"
        if text:
            captions.append({"profile": profile, "colour": colours[profile], "text": text})
    svg = plotter.svg(series) if series else None
    return {"svg": Markup(svg) if svg else None, "captions": captions, "why": why,
            "at_resolution": at_resolution and not series}


def _distinct(g, fmt, shown: int = 4) -> str:
    """The most frequent values of a sample and their counts ("0 ns ×9,812 ·
    0.4 ns ×180 · 12 others ×8")."""
    order = sorted(range(len(g.values)), key=lambda i: -g.counts[i])
    parts = [f"{fmt(float(g.values[i]))} ×{int(g.counts[i]):,}" for i in order[:shown]]
    rest = order[shown:]
    if rest:
        parts.append(f"{len(rest)} other values ×{int(sum(g.counts[i] for i in rest)):,}")
    return " · ".join(parts)


# Terms the sheet uses, for the glossary next to the metric definitions.
GLOSSARY = (
    ("median (p50), p99, p99.9", "The value half (99 %, 99.9 %) of the samples are at or "
     "below, read from the log-linear histogram (≤ 0.4 % error)."),
    ("min, max", "The exact smallest and largest sample; max is the worst case observed."),
    ("ticks", "Ticks of the benchmark counter, at the frequency measured at start-up and "
     "stated in the configuration; not the CPU core clock (an x86 TSC ticks at a constant "
     "rate whatever the core's clock)."),
    ("cycles", "CPU core clock cycles, from the core's own cycle counter (DWT CYCCNT on a "
     "Cortex-M)."),
    ("core cycles", "A time converted to cycles of the CPU core's clock, where the counter "
     "ticks at another rate (an x86 TSC): the clock is measured at start-up by a chain of "
     "dependent adds (one per core cycle) timed by the reference clock, and stated in the "
     "configuration."),
    ("instructions", "Instructions executed, counted exactly by an instruction-counting "
     "emulator (QEMU -icount): a cost, not a time; every instruction counts 1 and exception "
     "entry and return count 0."),
    ("timestamp overhead", "The median cost of one counter read, subtracted from every "
     "sample, so very short operations can show slightly negative times."),
    ("warm-up", "Samples run before measuring and discarded, so caches and the kernel's "
     "paths are warm."),
    ("profile", "A set-up the whole catalogue was measured under (e.g. rt, default, cold); "
     "a run may hold several, shown side by side."),
    ("unsupported", "The port lacks the service; the reason is given, never a number."),
    ("not ranked", "The figure is real and shown, but the harness says it measures no work "
     "of the kernel a ranking could use (the kernel adds nothing, the tick's phase, "
     "instructions of rtbench's own): the note says why, and the row stays out of the worst "
     "cases, every comparison's ratios and the kernel comparison's verdicts."),
    ("failed", "The primitive returned an error or the scenario timed out or crashed; the "
     "reason is given."),
)


# ---- results.json and writing ----


# What `rtbench run` writes into its output folder (also listed by `run --help`).
OUTPUT_FILES = (("datasheet.md", "the data sheet, Markdown"),
                ("datasheet.html", "the data sheet, one self-contained HTML file"),
                ("glossary.md", "the glossary and every metric's definition"),
                ("results.json", "every record (docs/results-schema.json)"))


def write_outputs(run: Run, catalog: Catalog, out_dir: Path) -> dict[str, Path]:
    """Write OUTPUT_FILES into out_dir; their paths by name."""
    paths = {name: out_dir / name for name, _what in OUTPUT_FILES}
    atomic_write(paths["results.json"], strict_json(envelope(run, catalog), indent=2) + "\n")
    atomic_write(paths["glossary.md"], render_glossary(run, catalog))
    atomic_write(paths["datasheet.md"], render_markdown(run, catalog))
    atomic_write(paths["datasheet.html"], render_html(run, catalog))
    return paths
