"""The kernel comparison sheet's renderings (the model: kernels.py): the
terminal (a pages.Page), Markdown and HTML (templates kernelsheet.md.j2 /
kernelsheet.html.j2, the HTML with a plot per section of each kernel's
distribution side by side), all from the same tables:

* the key table, the first screen: the catalogue's first-page rows by
  title, each kernel's median, p99.9, max and "× fastest" (by the row's
  defining statistic: ranking.py);
* the verdict per section, the rows kept out of the rankings and why
  ("not ranked [n]"), then the configuration and what must be equal;
* a table per section (every row by title and id, the statistic that ranks
  it: min, median, p99, p99.9, max, "× fastest"), and Thread-Metric's counts
  where they ran beside.
"""

from __future__ import annotations

from markupsafe import Markup

import rtbench
from rtbench.compare import fairness
from rtbench.compare.kernels import Cell, Column, KernelSheet, Row, Section, summary_line
from rtbench.compare.ranking import SMALL_STEPS
from rtbench.peers import threadmetric as tm
from rtbench.sheets import system
from rtbench.sheets.templating import template_env
from rtbench.store.records import difference


# ---- number formatting ----

def fmt(v: float | None, unit: str, res: float = 0.0) -> str:
    """A figure in its unit; a time no finer than `res`, its clock's step."""
    if v is None:
        return "—"
    if unit == "ns":
        return system.fmt_time(v, res)
    return f"{v:,.0f}" if float(v).is_integer() or abs(v) >= 100 else f"{v:.1f}"


def fmt_ratio(r: float | None) -> str:
    return "—" if r is None else f"×{r:.2f}"


def fmt_diff(d: float, unit: str) -> str:
    """A difference to the row's smallest figure, where the row is too small
    to rank: "+3 instr.", "+12 ns" (never a ratio)."""
    if unit == "ns":
        return "+" + system.fmt_time(d)
    figure = f"{d:,.0f}" if float(d).is_integer() else f"{d:.1f}"
    return f"+{figure} {UNIT_SHORT.get(unit, unit)}."


UNIT_SHORT = {"instructions": "instr", "ns": "time", "est. cycles": "est. cyc"}


def cell_text(c: Cell, stat: str) -> str:
    if c.status != "ok":
        return c.status if stat == "p50" else ""
    if stat == "p50" and c.mean_only:
        return f"mean {fmt(c.fig('mean'), c.unit, c.res.get('mean', 0.0))}"
    return fmt(c.fig(stat), c.unit, c.res.get(stat, 0.0))


def row_note(row: Row, columns: list[Column]) -> str:
    """Why a kernel has no figure, why its figure is not ranked, how a port
    provides a service, what a kernel's own convention adds to the window
    (its fairness note), and why the row shows differences, not ratios."""
    parts = []
    for c, col in zip(row.cells, columns):
        if c.status != "ok" and c.reason:
            parts.append(f"{col.short}: {c.reason}")
            continue
        if c.status == "ok" and c.unranked:
            parts.append(f"{col.short}: not ranked: {c.unranked}")
        if c.status == "ok" and c.window_holds:
            parts.append(f"{col.short}: not comparable: {c.window_holds}")
        if c.how:
            parts.append(f"{col.short}: how: {c.how}")
        if c.status == "ok" and (d := difference(col.facts, row.id)):
            parts.append(f"{col.short}: {d}")
    for unit, why in row.small.items():
        parts.append(f"too small to rank in {UNIT_SHORT.get(unit, unit)} ({why}): "
                     "differences, not ratios")
    return "; ".join(parts)


def not_ranked_mark(sheet: KernelSheet, c: Cell) -> str:
    """"not ranked [n]": the cell's reason is the sheet's n-th “Not ranked” note."""
    n = next((i for i, (why, _rows) in enumerate(sheet.not_ranked, 1) if why == c.unranked), 0)
    return f"not ranked [{n}]" if n else "not ranked"


def not_ranked_lines(sheet: KernelSheet) -> list[str]:
    """The “Not ranked” notes: "[1] why — FreeRTOS: irq.response, ..."."""
    return [f"[{n}] {why} — " + ", ".join(rows)
            for n, (why, rows) in enumerate(sheet.not_ranked, 1)]


RATIO_HEADER = "× fastest"


# ---- renderings ----

VERDICT_TEXT = (
    "Per section, the kernels that share a unit, over the rows each of them measured: the "
    "fastest, and each other kernel's geometric mean of its figure over the fastest one's "
    "(×2.00: twice the instructions, typically), each row's figure being the statistic that "
    "defines it (the median of a cost, the max of a latency bound), with how many rows each "
    f"was fastest on. Rows too small to rank (every figure under {SMALL_STEPS} counter "
    "steps) and rows a kernel's record keeps out of the "
    "rankings (“not ranked”, with the reason) are left out, and counted. A summary, not a "
    "ranking of every service: the rows below hold each figure, and where a kernel's "
    "convention puts more in a window (its fairness note) the section says so.")

NOT_RANKED_TEXT = (
    "Rows a kernel's record keeps out of every ranking (the harness's `unranked`, "
    "docs/records.md): the figure is shown and real, but it measures no work of the kernel "
    "that a ratio could rank, so it takes no “× fastest” and enters no verdict.")

def page(sheet: KernelSheet):
    """The terminal rendering (and the blocks every format shares)."""
    from rtbench.sheets.pages import Page, Table

    cols = sheet.columns
    p = Page(sheet.title, "Columns are kernels: each row is one catalogue metric, measured by "
             "the same code on each, in each kernel's unit.")
    for w in sheet.warnings:
        p.warning(w)
    if sheet.key:
        p.h2(f"Key rows ({sheet.key_unit})")
        p.table(_stacked(key_table(sheet, terminal=True)))
        p.p(key_text(sheet))
    if sheet.verdicts:
        p.h2("Fastest, section by section")
        p.bullets([v.text() for v in sheet.verdicts])
        p.p(VERDICT_TEXT)
    if sheet.est_verdicts:
        p.h2("Fastest in estimated cycles")
        p.p(est_text(sheet))
        p.bullets([v.text() for v in sheet.est_verdicts])
        p.h2("Where instructions and estimated cycles disagree")
        p.bullets(sheet.disagree or ["nowhere: every section's order and every row's fastest "
                                     "kernel are the same in both units"])
    if sheet.not_ranked:
        p.h2("Not ranked")
        p.p(NOT_RANKED_TEXT)
        p.bullets(not_ranked_lines(sheet))
    p.h2("Configuration")
    p.p(fairness.FAIR_TEXT)
    p.table(Table(["", *(c.label for c in cols)], [[k, *v] for k, v in sheet.config]))
    p.table(Table(["must be equal", "equal?", *(c.title for c in cols)],
                  [[ch.what, "yes" if ch.fair else "NO" + (f" ({ch.why})" if ch.why else ""),
                    *ch.values] for ch in sheet.checks],
                  styles=["" if ch.fair else "bad" for ch in sheet.checks]))
    for s in sheet.sections:
        p.h2(s.name)
        p.table(_stacked(section_table(sheet, s, terminal=True)))
    if sheet.peer_rows:
        p.h2("Thread-Metric beside the kernels (peer)")
        p.p(TM_TEXT)
        p.table(_stacked(peer_table(sheet)))
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


def _stacked(t):
    """The terminal shows no header groups: each header names its kernel,
    on a line above the figure's name (narrower columns than one line)."""
    out, i = [], 0
    for label, span in t.groups:
        out += [f"{label}\n{h}" if label else h for h in t.headers[i:i + span]]
        i += span
    t.headers, t.groups = out, []
    return t


def section_table(sheet: KernelSheet, s: Section, terminal: bool = False):
    """A section's rows: by title and id, the statistic that ranks each,
    every kernel's figures and "× fastest", the notes. On a terminal, too
    narrow for them all, the median, p99.9 and max, the statistic in the
    title where it is not the median (as in the key table)."""
    from rtbench.sheets.pages import Table

    stats = KEY_STATS if terminal else SECTION_STATS
    headers, align = ["metric", "id"] + ([] if terminal else ["ranked by"]), "ll"
    align += "" if terminal else "l"
    groups = [("", len(headers))]
    for i, c in enumerate(sheet.columns):
        u = UNIT_SHORT.get(c.unit, c.unit)
        ratios = sheet.has_ratio(i)
        est = [] if terminal else _est_headers(sheet, i)
        headers += [f"{name} {u}" for _k, name in stats] + [RATIO_HEADER] * ratios + est
        align += "r" * (len(stats) + ratios + len(est))
        groups.append((c.short, len(stats) + ratios + len(est)))
    headers.append("notes")
    align += "l"
    groups.append(("", 1))
    rows = []
    for r in s.rows:
        cells = [key_title(r), r.id] if terminal else [r.title, r.id, r.statistic]
        for i, c in enumerate(r.cells):
            cells += [cell_text(c, k) for k, _name in stats]
            cells += [ratio_text(c, sheet)] * sheet.has_ratio(i)
            cells += [] if terminal else _est_cells(sheet, r, i)
        rows.append([*cells, row_note(r, sheet.columns)])
    return Table(headers, rows, align, groups=groups)


# The statistics each kernel shows: the section tables all of them, the key
# table the median, the tail and the worst (p99.9 and max beside the median
# everywhere: a latency bound is ranked by its max).
SECTION_STATS = (("min", "min"), ("p50", "median"), ("p99", "p99"), ("p999", "p99.9"),
                 ("max", "max"))
KEY_STATS = (("p50", "median"), ("p999", "p99.9"), ("max", "max"))


def ratio_text(c: Cell, sheet: KernelSheet | None = None) -> str:
    """The "× fastest" cell: the ratio of the row's statistic, the
    difference where the row is too small to rank, "not ranked [n]" where
    the kernel's record keeps the row out of the rankings."""
    if c.status != "ok":
        return ""
    if c.window_holds:  # the row's note says what its window holds
        return "not comparable"
    if c.unranked:
        return not_ranked_mark(sheet, c) if sheet is not None else "not ranked"
    if c.diff is not None:
        return fmt_diff(c.diff, c.unit)
    return "" if c.mean_only else fmt_ratio(c.ratio)


def est_text(sheet: KernelSheet) -> str:
    """What the estimated cycles are, wherever the sheet shows them."""
    return (f"{sheet.est_label}. The emulated boards' samples priced by a cycle model "
            "(docs/cycles.md), beside their instructions, never instead: the same verdicts "
            "computed on the estimates (a row's estimate of its defining statistic; a row "
            f"under {SMALL_STEPS} estimated cycles on every kernel is too small to rank), "
            "with the median's model range [lo, hi] in the tables and µs at the board's "
            "clock. Where the two units rank the kernels otherwise, the section below says so.")


def kernel_rows_table(sheet: KernelSheet, s: Section):
    """A section's rows for a page of fixed width (HTML): a row per metric
    and kernel, stacked under the metric's title, so every figure of every
    kernel is on screen however many kernels there are (a column group per
    kernel pushed the third kernel's off a 1280 px page). Columns: min,
    median, p99, p99.9, max, "× fastest", a board's estimated cycles; the
    kernel's unit beside its name."""
    from rtbench.sheets.pages import Table

    est = max((_est_headers(sheet, i) for i in range(len(sheet.columns))), key=len)
    ratios = any(sheet.has_ratio(i) for i in range(len(sheet.columns)))
    headers = ["metric", "ranked by", "kernel", *(n for _k, n in SECTION_STATS),
               *[RATIO_HEADER] * ratios, *est, "notes"]
    rows, styles = [], []
    for r in s.rows:
        for i, (c, col) in enumerate(zip(r.cells, sheet.columns)):
            cells = [f"{r.title} · {r.id}", r.statistic] if i == 0 else ["", ""]
            cells.append(f"{col.short} ({UNIT_SHORT.get(col.unit, col.unit)})")
            cells += [cell_text(c, k) for k, _n in SECTION_STATS]
            cells += [ratio_text(c, sheet) if sheet.has_ratio(i) else ""] * ratios
            mine = _est_cells(sheet, r, i)
            cells += mine + [""] * (len(est) - len(mine))
            rows.append([*cells, row_note(r, sheet.columns) if i == 0 else ""])
            styles.append("first" if i == 0 else "")
    return Table(headers, rows, "lll" + "r" * (len(SECTION_STATS) + ratios + len(est)) + "l",
                 styles)


def _est_headers(sheet: KernelSheet, i: int, terminal: bool = False) -> list[str]:
    """The estimated-cycles columns of kernel i, where it has estimates (a
    terminal, too narrow, gets no µs)."""
    if not sheet.est_label or sheet.columns[i].unit != "instructions":
        return []
    return ["median est. cycles [lo, hi]", *["est. µs"] * (not terminal),
            *["× fastest est."] * sheet.has_ratio(i)]


def _est_cells(sheet: KernelSheet, r: Row, i: int, terminal: bool = False) -> list[str]:
    from rtbench.sheets import estcycles

    n = len(_est_headers(sheet, i, terminal))
    if not n:
        return []
    c = r.cells[i]
    if c.status != "ok" or c.cycles is None or r.est is None:
        return [""] * n
    return [estcycles.median(c.cycles), *[estcycles.us(c.cycles)] * (not terminal),
            *[ratio_text(r.est.cells[i], sheet)] * sheet.has_ratio(i)]


def key_text(sheet: KernelSheet) -> str:
    """What the key table holds, under it."""
    text = ("The key rows (the catalogue's first page: interrupt and task response, the "
            "context switches by cause, the headline primitives): each kernel's median, "
            "p99.9 and max in its unit")
    if any(sheet.has_ratio(i) for i in range(len(sheet.columns))):
        text += (", and “× fastest”, its figure of the statistic that defines the row (the "
                 "median; the max where the title says “by max”, a latency bound) over the "
                 "smallest on the row (×1.00: the fastest; never across units); “+3 instr.”: "
                 f"the row is too small to rank (every figure under {SMALL_STEPS} counter "
                 "steps), so the difference to the smallest, not a ratio; “not ranked "
                 "[n]”: the kernel's record keeps the row out of every ranking, the n-th "
                 "note under “Not ranked” says why")
    if any(c.mean_only for g in sheet.key for r in g.rows for c in r.cells):
        text += "; “mean”: a source that gave averages only (no median, no ratio)"
    if sheet.est_label:
        text += (f"; beside them the median in {sheet.est_label} µs at the board's clock; "
                 "“× fastest est.”: the same ratio of the estimates")
    return text + ". Every row, with min and p99, follows section by section."


def rows_text(sheet: KernelSheet) -> str:
    """What the section tables hold, above them (Markdown and HTML)."""
    text = (f"Each kernel's min, median, p99, p99.9 and max in its own unit "
            f"({', '.join(sheet.units)}); “ranked by” is the statistic that defines the row "
            "(the median of a cost, the max of a latency bound)")
    if any(sheet.has_ratio(i) for i in range(len(sheet.columns))):
        text += ("; “× fastest” is a kernel's figure of that statistic over the smallest on "
                 "the row among the kernels of its unit (×1.00: the fastest; above 1: more), "
                 "or, on a row too small to rank, the difference to the smallest (“+3 instr.”), "
                 "or “not ranked [n]” where the kernel's record keeps the row out of the "
                 "rankings")
    if sheet.est_label:
        text += (f"; beside them, the median in {sheet.est_label} µs at the board's clock, "
                 "and “× fastest est.”, the ratio of the estimates")
    return text + (". A kernel without a figure, or not ranked, says why in the notes; an "
                   "import that gave averages only shows “mean”, without a ratio.")


def key_table(sheet: KernelSheet, terminal: bool = False):
    """The first screen: a row per key metric, by title ("…, by max" for a
    latency bound), under its group; per kernel its median, p99.9, max and
    "× fastest"."""
    from rtbench.sheets.pages import Table

    headers, align, groups = ["metric"], "l", [("", 1)]
    for i, c in enumerate(sheet.columns):
        u = "" if len(sheet.units) == 1 else " " + UNIT_SHORT.get(c.unit, c.unit)
        ratios = sheet.has_ratio(i)
        est = _est_headers(sheet, i, terminal)
        headers += [f"{name}{u}" for _k, name in KEY_STATS] + [RATIO_HEADER] * ratios + est
        align += "r" * (len(KEY_STATS) + ratios + len(est))
        groups.append((c.short, len(KEY_STATS) + ratios + len(est)))
    rows, styles = [], []
    width = len(headers)
    for g in sheet.key:
        rows.append([g.name, *[""] * (width - 1)])
        styles.append("group")
        for r in g.rows:
            cells = [key_title(r)]
            for i, c in enumerate(r.cells):
                cells += [cell_text(c, k) for k, _name in KEY_STATS]
                cells += [ratio_text(c, sheet)] * sheet.has_ratio(i)
                cells += _est_cells(sheet, r, i, terminal)
            rows.append(cells)
            styles.append("")
    return Table(headers, rows, align, styles=styles, groups=groups)


def key_title(r: Row) -> str:
    """A key row's title, with the statistic that ranks it where that is
    not the median."""
    return r.title if r.statistic == "median" else f"{r.title}, by {r.statistic}"


TM_TEXT = tm.ABOUT  # the peer's own words


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
        verdict_text=VERDICT_TEXT, key_text=key_text(sheet), rows_text=rows_text(sheet),
        est_text=est_text(sheet) if sheet.est_label else "",
        key_table=key_table, tm_text=TM_TEXT, not_ranked_text=NOT_RANKED_TEXT,
        not_ranked=not_ranked_lines(sheet),
        section_table=section_table, kernel_rows_table=kernel_rows_table,
        peer_table=peer_table, plots=plots,
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
