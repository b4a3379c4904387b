"""The pages (sheets/pages.py) of the comparisons: runs against runs (with
their verdicts, limits and distribution plots), a run against a vendor's
sheet, a run beside its peers. One page each, rendered to the terminal,
Markdown or HTML by the same blocks as every other page.
"""

from __future__ import annotations

from rtbench.compare import estref
from rtbench.compare.runs import ALPHA, STAT_NAMES, TAIL_STATS, RunComparison, gated
from rtbench.peers import latency_measure, lm_causes, rtosbench, rttests, threadmetric
from rtbench.peers.lm_causes import AGREE
from rtbench.compare.vendors import RefComparison
from rtbench.sheets import estcycles, plots, system
from rtbench.sheets.datasheet import fmt_count, fmt_us
from rtbench.sheets.pages import Page, Table
from rtbench.sheets.plots import UNIT_SHORT, fmt_value
from rtbench.sheets.units import fmt_scaled, time_scale
from rtbench.sheets.views import run_name
from rtbench.store import reference
from rtbench.store.db import Run


def _p(p: float | None) -> str:
    """A p-value; 0 means below what a double can hold."""
    return "—" if p is None else "< 1e-300" if p == 0 else f"{p:.2g}"


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{v:+.1f} %"


# ---- compare A B [C ...] ----

_VERDICT_WORD = {"slower": "slower", "faster": "faster", "not significant": "n.s.",
                 "same": "", "not compared": ""}


def _change(ch) -> str:
    """One statistic's change in a table cell: "+28.0 % slower", "+3.1 %"
    (within the threshold: no word), "+12 % n.s."; "same" is never printed
    next to a move beyond the threshold (the verdict says what it is)."""
    if ch is None or ch.change_pct is None:
        return "—" if ch is None or ch.verdict == "not compared" else ch.verdict
    word = _VERDICT_WORD.get(ch.verdict, ch.verdict)
    return f"{ch.change_pct:+.1f} %" + (f" {word}" if word else "")


def _scale(cmp: RunComparison) -> tuple[str, float]:
    """One unit for the table's medians (times), as the data sheet chooses it."""
    return time_scale([c.p50 for r in cmp.rows for c in r.cells
                       if c.unit == "ns" and c.p50 is not None])


def _value(c, div: float) -> str:
    """A run's median in the table's unit, a count in its own, else what the
    source gave ("— (mean 4.99)", "812 MB/s"); never a median made up."""
    if c.status != "ok":
        return c.status
    if c.p50 is not None and c.cycles:  # a board's: its estimated cycles beside
        return (f"{c.p50:g} {UNIT_SHORT.get(c.unit, c.unit)} · {estcycles.median(c.cycles)} "
                f"est. cyc, {estcycles.us(c.cycles)} µs")
    if c.p50 is not None:
        return fmt_scaled(c.p50, div, res=c.res) if c.unit == "ns" else \
            f"{c.p50:g} {UNIT_SHORT.get(c.unit, c.unit)}"
    if c.figure:
        return c.figure
    return f"— (mean {fmt_scaled(c.mean, div)})" if c.mean is not None and c.unit == "ns" else "—"


def run_comparison(cmp: RunComparison, gate: tuple[str, ...] = (), html: bool = False) -> Page:
    first = cmp.runs[0]
    unit, div = _scale(cmp)
    page = Page(f"rtbench comparison: {', '.join(run_name(r) for r in cmp.runs)}",
                f"Every later run against {run_name(first)}: the median, p99, p99.9 and max, "
                f"each with its own verdict; medians in {unit} (counts in their unit).")
    for w in cmp.warnings:
        page.warning(w)
    _verdict(page, cmp, gate)  # first: a reader (and a CI log's reader) opens it for this
    page.h2("Method")
    page.p(f"A statistic counts as changed only if it moved by more than {cmp.threshold_pct:g} % "
           "and by more than one step of the counter (its resolution, or one read's "
           "spread, and the difference of the two runs' subtracted overheads), and, where a "
           f"test exists, the test says so (p < {ALPHA:g}, Holm-corrected over the metrics): "
           "for runs measured in blocks, a Mann–Whitney U test of the two runs' block "
           "medians, p99s, p99.9s and maxima (slow-host blocks left out: the blocks are the "
           "replicates); otherwise Mann–Whitney U over the samples for the median and, for "
           "p99 and p99.9, the share of samples beyond the first run's percentile (tested "
           "only with 10 samples beyond it in each run), and the max is one sample of each "
           "run's window (its samples, observed for so long): no test, and no gate fails "
           "on it. "
           "“n.s.”: moved beyond the threshold, not significant; a bare percentage: within "
           "the threshold.")
    est = next((c.cycles for r in cmp.rows for c in r.cells if c.cycles), None)
    if est:
        page.p(f"Beside a board's median instructions, the median in {est['label']} (µs at "
               f"the board's {est['hz'] / 1e6:g} MHz); the verdicts judge the instructions.")
    if len(cmp.runs) > 1:
        _comparison_table(page, cmp, div, unit)
    if cmp.limits:
        _limits(page, cmp)
    if html and len(cmp.runs) > 1:
        _distribution_plots(page, cmp)
    page.p(summary_line(cmp, gate))  # the last line, as every comparison's (CI logs)
    return page


def _verdict(page: Page, cmp: RunComparison, gate: tuple[str, ...]) -> None:
    """The slow-downs of each statistic and the summary line."""
    page.h2("Verdict")
    for st in TAIL_STATS:
        slow = [(row, i) for row, i, s in cmp.regressions((st,)) if s == st]
        if slow:
            gates = " (gates: --fail-on)" if st in gate else ""
            page.p(f"{STAT_NAMES[st]}: {len(slow)} slow-down(s) beyond "
                   f"{cmp.threshold_pct:g} %{gates}:")
            page.bullets([regression_line(row, cmp.runs[i], cmp.runs[0], row.cells[i], st)
                          for row, i in slow[:20]]
                         + ([f"… and {len(slow) - 20} more"] if len(slow) > 20 else []))
    if not cmp.regressions(TAIL_STATS) and len(cmp.runs) > 1:
        page.p(f"No significant slow-down beyond {cmp.threshold_pct:g} % in any statistic.")
    page.p(summary_line(cmp, gate))


def _comparison_table(page: Page, cmp: RunComparison, div: float, unit: str) -> None:
    first = cmp.runs[0]
    headers = ["metric", "profile", f"run {first.id} median {unit}"]
    align = "llr"
    groups = [("", 2), (run_name(first), 1)]
    several = len(cmp.runs) > 2
    for r in cmp.runs[1:]:
        headers += [f"run {r.id} median {unit}",
                    *(f"{r.id}: {STAT_NAMES[st]}" if several else STAT_NAMES[st]
                      for st in TAIL_STATS)]
        align += "r" * (1 + len(TAIL_STATS))
        groups.append((run_name(r), 1 + len(TAIL_STATS)))
    rows, styles = [], []
    for row in cmp.rows:
        marked = any(c.unranked for c in row.cells)
        cells = [f"{row.id} · not ranked" if marked else row.id, row.profile,
                 _value(row.cells[0], div)]
        verdicts = set()
        for c in row.cells[1:]:
            if c.changes:
                cells += [_value(c, div), *(_change(c.changes.get(st)) for st in TAIL_STATS)]
            else:  # not compared: why, once
                cells += [_value(c, div), c.why or c.verdict, *[""] * (len(TAIL_STATS) - 1)]
            # coloured by what a test backs: a max one sample each decides colours nothing
            verdicts |= {ch.verdict for st, ch in c.changes.items() if gated(c, st)} or {c.verdict}
        rows.append(cells)
        styles.append("bad" if "slower" in verdicts else "better" if "faster" in verdicts
                      else "muted" if verdicts <= {"not compared"} else "")
    page.table(Table(headers, rows, align, styles, groups))
    unranked = unranked_lines(cmp)
    if unranked:
        page.p("“not ranked”: the run's record keeps the row out of every ranking (its figure "
               "measures no work of the kernel a ranking could use), for this reason; the "
               "row is compared here all the same, a before/after of the same figure:")
        page.bullets(unranked)


def unranked_lines(cmp: RunComparison) -> list[str]:
    """Each marked row with the runs whose record unranks it and why."""
    out = []
    for row in cmp.rows:
        whys: dict[str, list[str]] = {}
        for run, c in zip(cmp.runs, row.cells):
            if c.unranked:
                whys.setdefault(c.unranked, []).append(str(run.id))
        for why, ids in whys.items():
            out.append(f"{row.key}, run{'s' if len(ids) > 1 else ''} {', '.join(ids)}: {why}")
    return out


def _limits(page: Page, cmp: RunComparison) -> None:
    failed = cmp.limit_failures
    page.h2(f"Limits ({len(failed)} exceeded of {len(cmp.limits)} checks)")
    rows, styles = [], []
    for c in sorted(cmp.limits, key=lambda c: (c.passed is not False, c.passed is None)):
        result = {True: "ok", False: "EXCEEDED", None: "not checked"}[c.passed]
        if c.passed is False and c.value is None:
            result = "FAILED"
        rows.append([c.limit.text, str(c.run.id), c.id, c.profile,
                     "—" if c.value is None else fmt_value(c.value, c.limit.unit),
                     result + (f": {c.why}" if c.why else "")])
        styles.append({False: "bad", None: "muted"}.get(c.passed, ""))
    page.table(Table(["limit", "run", "metric", "profile", "value", "result"], rows,
                     "llllrl", styles))


def _distribution_plots(page: Page, cmp: RunComparison) -> None:
    """Per metric, the runs' distributions overlaid (1 − CDF on log axes:
    the tail is where runs differ), the verdicts under each plot."""
    colours = [plots.COLOURS[i % len(plots.COLOURS)] for i in range(len(cmp.runs))]
    figures = []
    with plots.TailPlotter() as plotter:
        for row in cmp.rows:
            samples = cmp.samples.get((row.id, row.profile)) or []
            series = [(run_name(run), g, colours[i]) for i, (run, g)
                      in enumerate(zip(cmp.runs, samples)) if g is not None]
            units = {g.unit for _n, g, _c in series}
            if len(series) < 2 or len(units) != 1:
                continue
            svg = plotter.svg(series)
            if svg is None:
                continue
            caption = "; ".join(
                f"run {cmp.runs[i].id}: " + ", ".join(
                    f"{STAT_NAMES[st]} {_change(c.changes[st])}" for st in TAIL_STATS
                    if st in c.changes)
                for i, c in enumerate(row.cells) if i and c.changes)
            figures.append({"id": f"{row.id}-{row.profile}",
                            "title": f"{row.title}", "code": f"{row.id} [{row.profile}]",
                            "svg": svg, "caption": caption})
    if figures:
        page.h2("Distributions")
        page.p("Each run's samples as 1 − CDF (the share of samples above a value) on log "
               "axes, from the stored histograms: a tail that moved shows as curves that part "
               "on the right.")
        page.figures(figures, [(run_name(r), colours[i]) for i, r in enumerate(cmp.runs)])


def summary_line(cmp: RunComparison, gate: tuple[str, ...] = ()) -> str:
    """The comparison in one line, for the end of every rendering and CI logs."""
    parts = []
    for i, run in enumerate(cmp.runs[1:], start=1):
        counts = cmp.counts(i)
        judged = sum(1 for r in cmp.rows if r.cells[i].changes)
        per = []
        for st in TAIL_STATS:
            c = counts[st]
            words = [f"{c[v]} {v}" for v in ("slower", "faster") if c.get(v)]
            per.append(f"{STAT_NAMES[st]} " + (", ".join(words) or "no change"))
        rest = _not_compared(cmp, i)
        parts.append(f"run {run.id} vs run {cmp.runs[0].id}: {judged} metrics compared"
                     + (f" of {len(cmp.rows)} rows ({rest})" if rest else "") + "; "
                     + "; ".join(per))
    if cmp.limits:
        checked = [c for c in cmp.limits if c.passed is not None]
        parts.append(f"limits: {len(cmp.limit_failures)} exceeded of {len(checked)} checked")
    if gate or cmp.limits:
        failing = len(cmp.regressions(gate)) + len(cmp.limit_failures)
        what = ",".join(gate) + (" + limits" if cmp.limits else "") if gate else "limits"
        untested = len(cmp.untested(gate)) if gate else 0
        parts.append(f"gate ({what}): " + (f"FAIL ({failing})" if failing else "pass")
                     + (f", {untested} slower without a test, not gated" if untested else ""))
    return "Summary: " + " · ".join(parts)


def _not_compared(cmp: RunComparison, i: int) -> str:
    """Why the rows the later run `i` was not judged on were not: unsupported
    or failed in either run, in one run only, or (units, no median in the
    source, not measured) not comparable; "" when every row was judged."""
    counts: dict[str, int] = {}
    for r in cmp.rows:
        base, cell = r.cells[0], r.cells[i]
        if cell.changes:
            continue
        statuses = {base.status, cell.status}
        why = ("in one run only" if "absent" in statuses else
               "unsupported" if "unsupported" in statuses else
               "failed" if "failed" in statuses else
               "not measured" if "not measured" in statuses else "not comparable")
        counts[why] = counts.get(why, 0) + 1
    return ", ".join(f"{counts[k]} {k}" for k in ("unsupported", "failed", "in one run only",
                                                  "not measured", "not comparable")
                     if counts.get(k))


def limit_value(c) -> str:
    return f"{fmt_value(c.value, c.limit.unit)}" if c.value is not None else "no value"


def regression_line(row, run: Run, first: Run, cell, stat: str = "p50") -> str:
    ch = cell.changes.get(stat)
    if ch is None:
        return f"{row.id} [{row.profile}] run {run.id}: {cell.verdict}"
    unit = cell.unit
    test = "" if ch.p_value is None else f", p {'= ' if ch.p_value else ''}{_p(ch.p_value)}"
    window = ""
    base = row.cells[0] if row.cells else None
    if stat == "max" and base is not None and base.window and cell.window:
        window = f"; windows {base.window} → {cell.window}"  # a max is its window's
    return (f"{row.id} [{row.profile}] run {run.id}: {STAT_NAMES[stat]} "
            f"{fmt_value(ch.base, unit)} → {fmt_value(ch.value, unit)} "
            f"({_pct(ch.change_pct)} vs run {first.id}{test}{window})")


# ---- compare RUN --ref NAME ----

def _figure(cell) -> str:
    if cell is None:
        return "—"
    printed = " = ".join(f"{v} {u}" for v, u in cell.figures)
    extra = []
    if cell.cycles is not None and not any(u == "cycles" for _v, u in cell.figures):
        extra.append(f"{cell.cycles:.0f} cyc")
    if cell.time_ns is None and cell.cycles is not None:
        extra.append("clock not stated")
    ratios = []
    if cell.ratio_cycles is not None:
        ratios.append(f"×{cell.ratio_cycles:.2f} cyc")
    if cell.ratio_time is not None:
        ratios.append(f"×{cell.ratio_time:.2f} time")
    est = estref.ratios(cell.est_cycles, cell.est_time)  # a board's estimate: a model's
    text = printed + (f" ({', '.join(extra)})" if extra else "")
    return text + (" → " + ", ".join(ratios) if ratios else "") + (f"; {est}" if est else "")


def _ours(r) -> str:
    """Our figure: µs, plus MB/s for a bandwidth, or instructions; which
    statistic it is comes in its own column (_paired)."""
    if r.ours_status != "ok":
        return r.ours_status
    if r.window_holds:  # what it holds: under the table (not_comparable_lines)
        return f"not comparable ({_ours_figure(r)})"
    if r.unranked:
        return _ours_figure(r) + " (not ranked)"
    return _ours_figure(r)


def _ours_figure(r) -> str:
    if r.ours_count is not None:
        return f"{r.ours_count:g} {UNIT_SHORT.get(r.ours_unit, r.ours_unit)}"
    parts = [] if r.ours_ns is None else [system.fmt_time(r.ours_ns, r.ours_res)]
    if r.ours_mb_s is not None:
        parts.append(f"{r.ours_mb_s:,.0f} MB/s" if r.ours_mb_s >= 100 else f"{r.ours_mb_s:.3g} MB/s")
    return " = ".join(parts) or "—"


def _paired(r) -> str:
    """Our statistic beside theirs ("max ~ maximum"); "≠" where ours lacks
    the one they published (an import with fewer statistics: no ratio)."""
    if r.ours_status != "ok" or not r.ours_stat:
        return ""
    like = r.ours_stat == reference.STATISTICS[r.their_stat]
    return (f"{STAT_NAMES.get(r.ours_stat, r.ours_stat)} {'~' if like else '≠'} "
            f"{reference.STATISTIC_WORDS[r.their_stat]}")


def ref_comparison(cmp: RefComparison) -> Page:
    s = cmp.sheet
    page = Page(f"rtbench {run_name(cmp.run)} beside {s.title}",
                f"Published figures from {s.source}.")
    page.warning("Different hardware, clock, compiler and method: this comparison is a guide, "
                 "not a verdict. " + (f"The vendor's own words: {s.caveat}" if s.caveat else ""))
    page.p(_statistics_sentence(s))
    if cmp.our_unit == "instructions":
        page.warning("Different units: ours are instructions executed under an "
                     "instruction-counting emulator (" + cmp.our_unit_detail + "); theirs "
                     "are cycles or times on their hardware. A Cortex-M3 needs about 1 to 2 "
                     "cycles per instruction, more with wait states, and exception entry and "
                     "return are 12 cycles each that the count leaves out, so the two stand "
                     "side by side with no ratio: a path's length is not its speed.")
        page.p(f"Ours: the run's samples in instructions. Theirs: as printed "
               f"({s.clock_note}), converted to cycles at the sheet's stated clock, or left "
               "in its own unit where the sheet states no clock. Each column is one set-up "
               "the sheet published.")
        if cmp.est_label:
            page.p(estref.paragraph(cmp.est_label, s.clock_note))
    elif cmp.our_core_hz:
        page.p(f"Ours: the run's samples, and beside their cycles our time in "
               f"cycles of the core's clock ({cmp.cycles_note}; the benchmark counter ticks "
               f"at {cmp.our_clock}, which is not the core's clock). Theirs: as "
               f"printed ({s.clock_note}), converted to cycles at the sheet's stated clock, or "
               "left in its own unit where the sheet states no clock. Each column is one "
               "set-up the sheet published; “×” is ours ÷ theirs (above 1: we are slower), "
               "in core cycles against their cycles and in time where both are known; for "
               "a bandwidth it is theirs ÷ ours, so above 1 still means slower.")
    else:
        page.p(f"Ours: the run's samples; our ticks are ticks of the benchmark "
               f"counter at {cmp.our_clock} (the measured counter frequency, which is not "
               f"the core clock unless the counter is the core's cycle counter). Theirs: as "
               f"printed ({s.clock_note}), converted to cycles at the sheet's stated clock, or "
               "left in its own unit where the sheet states no clock. Each column is one "
               "set-up the sheet published; “×” is ours ÷ theirs (above 1: we are slower), "
               "in counter ticks against their cycles and in time where both are known; for "
               "a bandwidth it is theirs ÷ ours, so above 1 still means slower.")
        if cmp.cycles_note:
            page.p(f"Our cycles are {cmp.cycles_note}.")
    if cmp.rows:
        count = cmp.our_unit == "instructions"
        ours_head = ("our instructions" if count else
                     "our core cycles" if cmp.our_core_hz else "our ticks")
        est = [estref.HEADER] if cmp.est_label else []  # a model's, beside the count
        headers = ["metric", "profile", "published row", "statistic (ours ~ theirs)", "ours",
                   ours_head, *est, *cmp.columns]
        rows = [[r.id, r.profile, r.key, _paired(r), _ours(r),
                 (f"{r.ours_count:.0f}" if r.ours_count is not None else "—") if count else
                 ("—" if r.ours_cycles is None else f"{r.ours_cycles:.0f}"),
                 *([estref.figure(r.est)] if est else []),
                 *[_figure(c) for c in r.cells]] for r in cmp.rows]
        page.table(Table(headers, rows, "llllrr" + "r" * len(est) + "l" * len(cmp.columns)))
        unranked = [f"{r.id} [{r.profile}] beside “{r.key}”: {r.unranked}" for r in cmp.rows
                    if r.ours_status == "ok" and r.unranked]
        if unranked:
            page.p("“not ranked”: our record keeps the row out of every ranking, so it stands "
                   "beside the published figure with no ratio, for this reason:")
            page.bullets(unranked)
        if holds := not_comparable_lines(cmp.rows):
            page.p("“not comparable”: on this port the row's window does not hold the service "
                   "its name implies, so it has no ratio: what the port says it measures:")
            page.bullets(holds)
    else:
        page.p("No metric of this run answers a row of this sheet.")
    page.h2(f"Published, not measured by this run ({len(cmp.published_only)})")
    if cmp.published_only:
        page.table(Table(["published row", "why"], [list(x) for x in cmp.published_only]))
    else:
        page.p("None: every published row has a figure of ours.")
    page.p(ref_summary(cmp))
    return page


def _statistics_sentence(s: reference.Sheet) -> str:
    """Which of our statistics stands beside which of theirs, and why."""
    rows = "; ".join(f"“{k}” is a {reference.STATISTIC_WORDS[v]}, beside our "
                     f"{STAT_NAMES.get(reference.STATISTICS[v], v)}" for k, v in s.statistic_rows)
    ours = STAT_NAMES.get(reference.STATISTICS[s.statistic], s.statistic)
    return (f"Like with like: the sheet's figures are each a {reference.STATISTIC_WORDS[s.statistic]}"
            f" ({s.statistic_note}), so ours is the {ours}" + (f"; {rows}" if rows else "")
            + ". A ratio is printed only where both are the same statistic in comparable "
            "units.")


def not_comparable_lines(rows) -> list[str]:
    """Our ok rows whose window holds not their service (`window_holds`): what."""
    return [f"{r.id} [{r.profile}] beside “{r.key}”: not comparable: {r.window_holds}"
            for r in rows if r.ours_status == "ok" and r.window_holds]


def ref_summary(cmp: RefComparison) -> str:
    """Every published row accounted for once: with a figure of ours, or
    what this run has instead (unsupported, failed, not measured), or no
    metric of this run at all; then our metrics the sheet has no row for."""
    best: dict[str, str] = {}  # row -> the best status any of our rows for it has
    rank = {"ok": 0, "failed": 1, "unsupported": 2}
    for r in cmp.rows:
        now = best.get(r.key)
        if now is None or rank.get(r.ours_status, 3) < rank.get(now, 3):
            best[r.key] = r.ours_status
    counts = {"ok": 0, "unsupported": 0, "failed": 0, "other": 0}
    for status in best.values():
        counts[status if status in counts else "other"] += 1
    ok = [r for r in cmp.rows if r.ours_status == "ok"]
    apart = len({r.key for r in ok} - {r.key for r in ok if not r.window_holds})
    parts = [f"{counts['ok']} with a figure of ours"
             + (f" ({apart} of them not comparable: no ratio)" if apart else "")]
    parts += [f"{counts[k]} {k} in this run" for k in ("unsupported", "failed") if counts[k]]
    if counts["other"]:
        parts.append(f"{counts['other']} not measured (run incomplete)")
    parts.append(f"{len(cmp.published_only)} without a metric of this run (listed above with "
                 "the reason)")
    s = cmp.sheet
    return (f"Summary: {s.name}: {len(s.keys())} published rows: {', '.join(parts)}; "
            f"{len(cmp.ours_only)} measured metrics of this run have no row in this sheet "
            "(`--format json` lists them).")


# ---- compare RUN, when it has peers (--with-peers): rt-tests, rtos-benchmark ----

# how each suite of peers measured beside rtbench: each peer's own words
_PEER_WHERE = {"rt-tests": rttests.WHERE, "rtos-benchmark": rtosbench.WHERE,
               "Thread-Metric": threadmetric.WHERE, "latency_measure": latency_measure.WHERE}


def _peer_unit_phrase(units: list[str]) -> str:
    if not units or units == ["ns"]:
        return "figures in µs"
    if len(units) == 1:
        return (f"figures in {units[0]}" + (" executed (QEMU -icount: a count, not a time)"
                                            if units[0] == "instructions" else ""))
    return "each figure in the unit its row names"


def _peer_cell(v: float | None, unit: str) -> str:
    if v is None:
        return "—"
    return fmt_us(v) if unit == "ns" else fmt_count(v)


def peer_comparison(cmp) -> Page:
    fams = cmp.families
    units = cmp.units
    page = Page(f"rtbench {run_name(cmp.run)} beside {' and '.join(fams) or 'its peers'}",
                ("; ".join(_PEER_WHERE.get(f, f) for f in fams)
                 or "no peer gave a figure (each row says why)")
                + f" (`rtbench run --with-peers`); {_peer_unit_phrase(units)}.")
    page.p("Peers: the statistics the program printed (min, average and max; median and "
           "p99 only where it printed a histogram); “—”: it gave none, nothing is "
           "computed from the others. Ours: the same catalogue metric of this run.")
    mixed = len(units) > 1
    keys = ("min", "p50", "mean", "p99", "max")
    headers = ["metric", "peer's name", *(["unit"] if mixed else []), "peer n",
               *(f"peer {k}" for k in ("min", "median", "mean", "p99", "max")),
               "ours n", *(f"ours {k}" for k in ("min", "median", "mean", "p99", "max"))]
    rows = []
    for r in cmp.rows:
        peer = ([_peer_cell(r.peer[k], r.peer_unit) for k in keys]
                if r.peer_status == "ok" else [f"{r.peer_status}: {r.peer_reason}", *[""] * 4])
        ours = ([_peer_cell(r.ours[k], r.ours_unit) for k in keys]
                if r.ours_status == "ok" else
                ["no rtbench metric" if r.ours_status == "none" else r.ours_status, *[""] * 4])
        unit = [r.peer_unit if r.peer_unit == r.ours_unit or r.ours_status != "ok"
                else f"{r.peer_unit} / {r.ours_unit}"] if mixed else []
        rows.append([r.id, r.label, *unit, "—" if r.peer_n is None else str(r.peer_n), *peer,
                     "—" if r.ours_n is None else str(r.ours_n), *ours])
    page.table(Table(headers, rows, "ll" + "l" * mixed + "r" * 12))
    if cmp.lm_rows:
        lm_both_ways(cmp, page)
    page.h2("How each program measures, and why the figures differ")
    for text in cmp.methods:
        page.p(text)
    shared = {}
    for r in cmp.rows:
        shared.setdefault((r.program, r.command), []).append(r)
    for (program, command), group in shared.items():
        if len(group) == 1 and group[0].label == program:  # one program, one figure
            if group[0].why:
                page.bullets([f"**{program}** (`{command}`): {group[0].why}"])
            continue
        page.p(f"**{program}**" + (f" (`{command}`)" if command else "") + ", per figure:")
        page.bullets([f"**{r.label}** → `{r.id}`: {r.why}" for r in group if r.why])
    page.p(peer_summary(cmp))
    return page


def _signed(a: float | None, b: float | None) -> str:
    return "—" if a is None or b is None else f"{a - b:+.1f}"


def _one(v: float | None) -> str:
    return "—" if v is None else f"{v:.1f}"


def lm_both_ways(cmp, page: Page | None = None) -> Page:
    """Zephyr's latency_measure as Zephyr ships it (stock) and rebuilt with
    rtbench's configuration, row by row beside rtbench's mean, and the
    Kconfig settings in which the two builds differ: a section of the peer
    page (or a page of its own, for docs/peers.md)."""
    page = page or Page("latency_measure, stock and rebuilt, beside rtbench")
    page.h2(lm_causes.BOTH_WAYS_TITLE)
    page.p(lm_causes.BOTH_WAYS_NOTE)
    # a row no rtbench metric answers keeps the importer's own name (with a colon)
    rows = [[r.label, r.id if ":" not in r.id else "—", _one(r.ours),
             _one(r.rebuilt), _one(r.stock), _signed(r.stock, r.rebuilt),
             _signed(r.ours, r.rebuilt)] for r in cmp.lm_rows]
    page.table(Table(["latency_measure row", "rtbench metric", "rtbench mean", "rebuilt",
                      "stock", "stock − rebuilt", "rtbench − rebuilt"], rows, "llrrrrr"))
    if cmp.lm_settings:
        value = lambda v: "unset" if v is None else f"`{v}`"  # noqa: E731
        page.p("The Kconfig settings in which the two builds differ (read from their .config "
               "files; stock → rebuilt):")
        page.bullets([f"`{name}`: {value(a)} → {value(b)}" for name, a, b in cmp.lm_settings])
    differ = [r for r in cmp.lm_rows if r.ours is not None and r.rebuilt is not None
              and abs(r.ours - r.rebuilt) > AGREE]
    if differ:
        page.p("The rebuilt rows that differ from rtbench's by more than "
               f"{AGREE} instructions, and why (each cause is checked against instruction traces "
               "of both images: the functions it names run more in the window it says, and the "
               "causes account for the difference, tests/test_lm_trace.py):")
        named = {}
        for r in differ:
            for c in lm_causes.causes(r.label, r.build):
                named.setdefault(c.name, c.text)
        page.table(Table(["latency_measure row", "rtbench − rebuilt", "causes"],
                         [[r.label, _signed(r.ours, r.rebuilt),
                           ", ".join(dict.fromkeys(c.name for c in
                                                   lm_causes.causes(r.label, r.build)))]
                          for r in differ], "lrl"))
        page.bullets([f"**{name}**: {text}" for name, text in named.items()])
    return page


def peer_summary(cmp) -> str:
    """Every peer row accounted for once: both sides with a figure, the
    peer's side without one (unsupported, failed), ours without one, or no
    rtbench metric for it (unmatched)."""
    counts: dict[str, int] = {}
    for r in cmp.rows:
        why = ("unmatched (no rtbench metric)" if r.ours_status == "none" else
               "unmatched (not in this run)" if r.ours_status == "not in this run" else
               f"{r.peer_status} on the peer's side" if r.peer_status != "ok" else
               f"{r.ours_status} on rtbench's side" if r.ours_status != "ok" else "side by side")
        counts[why] = counts.get(why, 0) + 1
    order = sorted(counts, key=lambda k: (k != "side by side", k.startswith("unmatched"), k))
    families = " and ".join(cmp.families) or "its peers (none gave a figure)"
    return (f"Summary: run {cmp.run.id} beside {families}: {len(cmp.rows)} peer figures: "
            + ", ".join(f"{counts[k]} {k}" for k in order) + ".")
