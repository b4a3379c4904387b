"""The kernel comparison sheet's renderings (the model: kernels.py): the
terminal (a pages.Page), Markdown and HTML (templates kernelsheet.md.j2 /
kernelsheet.html.j2, the HTML with a plot per section of each kernel's
distribution side by side), all from the same tables:

* the key table, the first screen: the catalogue's first-page rows by
  title, each kernel's median, p99 and ratio to the row's fastest;
* the verdict per section, then the configuration and what must be equal;
* a table per section (every row by title and id: min, median, p99, max,
  ratio), and Thread-Metric's counts where they ran beside.
"""

from __future__ import annotations

from markupsafe import Markup

import rtbench
from rtbench.compare import fairness
from rtbench.compare.kernels import Cell, Column, KernelSheet, Row, Section, summary_line
from rtbench.peers import threadmetric as tm
from rtbench.sheets import system
from rtbench.sheets.templating import template_env
from rtbench.store.records import difference


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
    if stat == "p50" and c.mean_only:
        return f"mean {fmt(c.fig('mean'), c.unit)}"
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


RATIO_HEADER = "× fastest"


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
    if sheet.key:
        p.h2(f"Key rows ({sheet.key_unit})")
        p.table(_stacked(key_table(sheet)))
        p.p(key_text(sheet))
    if sheet.verdicts:
        p.h2("Fastest, section by section")
        p.bullets([v.text() for v in sheet.verdicts])
        p.p(VERDICT_TEXT)
    p.h2("Configuration")
    p.p(fairness.FAIR_TEXT)
    p.table(Table(["", *(c.label for c in cols)], [[k, *v] for k, v in sheet.config]))
    p.table(Table(["must be equal", "equal?", *(c.title for c in cols)],
                  [[ch.what, "yes" if ch.fair else "NO" + (f" ({ch.why})" if ch.why else ""),
                    *ch.values] for ch in sheet.checks],
                  styles=["" if ch.fair else "bad" for ch in sheet.checks]))
    for s in sheet.sections:
        p.h2(s.name)
        p.table(_stacked(section_table(sheet, s)))
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


def section_table(sheet: KernelSheet, s: Section):
    from rtbench.sheets.pages import Table

    headers, align, groups = ["metric", "id"], "ll", [("", 2)]
    for i, c in enumerate(sheet.columns):
        u = UNIT_SHORT.get(c.unit, c.unit)
        ratios = sheet.has_ratio(i)
        headers += [f"min {u}", f"median {u}", f"p99 {u}", f"max {u}",
                    *[RATIO_HEADER] * ratios]
        align += "rrrr" + "r" * ratios
        groups.append((c.short, 4 + ratios))
    headers.append("notes")
    align += "l"
    groups.append(("", 1))
    rows = []
    for r in s.rows:
        cells = [r.title, r.id]
        for i, c in enumerate(r.cells):
            cells += [cell_text(c, "min"), cell_text(c, "p50"), cell_text(c, "p99"),
                      cell_text(c, "max"), *[ratio_text(c)] * sheet.has_ratio(i)]
        rows.append([*cells, row_note(r, sheet.columns)])
    return Table(headers, rows, align, groups=groups)


def ratio_text(c: Cell) -> str:
    if c.status != "ok":
        return ""
    return "" if c.mean_only else fmt_ratio(c.ratio)


def key_text(sheet: KernelSheet) -> str:
    """What the key table holds, under it."""
    text = ("The key rows (the catalogue's first page: interrupt and task response, the "
            "context switches by cause, the headline primitives): each kernel's median and "
            "p99 in its unit")
    if any(sheet.has_ratio(i) for i in range(len(sheet.columns))):
        text += (", and “× fastest”, its median over the smallest median on the row "
                 "(×1.00: the fastest; never across units)")
    if any(c.mean_only for g in sheet.key for r in g.rows for c in r.cells):
        text += "; “mean”: a source that gave averages only (no median, no ratio)"
    return text + ". Every row, with min and max, follows section by section."


def rows_text(sheet: KernelSheet) -> str:
    """What the section tables hold, above them (Markdown and HTML)."""
    text = f"Each kernel's min, median, p99 and max in its own unit ({', '.join(sheet.units)})"
    if any(sheet.has_ratio(i) for i in range(len(sheet.columns))):
        text += ("; “× fastest” is a kernel's median over the smallest median on the row "
                 "among the kernels of its unit (×1.00: the fastest; above 1: more)")
    return text + (". A kernel without a figure says why in the notes; an import that gave "
                   "averages only shows “mean”, without a ratio.")


def key_table(sheet: KernelSheet):
    """The first screen: a row per key metric, by title, under its group;
    per kernel its median, p99 and ratio to the row's fastest."""
    from rtbench.sheets.pages import Table

    headers, align, groups = ["metric"], "l", [("", 1)]
    for i, c in enumerate(sheet.columns):
        u = "" if len(sheet.units) == 1 else " " + UNIT_SHORT.get(c.unit, c.unit)
        ratios = sheet.has_ratio(i)
        headers += [f"median{u}", f"p99{u}", *[RATIO_HEADER] * ratios]
        align += "rr" + "r" * ratios
        groups.append((c.short, 2 + ratios))
    rows, styles = [], []
    width = len(headers)
    for g in sheet.key:
        rows.append([g.name, *[""] * (width - 1)])
        styles.append("group")
        for r in g.rows:
            cells = [r.title]
            for i, c in enumerate(r.cells):
                cells += [cell_text(c, "p50"), cell_text(c, "p99"),
                          *[ratio_text(c)] * sheet.has_ratio(i)]
            rows.append(cells)
            styles.append("")
    return Table(headers, rows, align, styles=styles, groups=groups)


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
        verdict_text=VERDICT_TEXT, key_text=key_text(sheet), rows_text=rows_text(sheet), key_table=key_table, tm_text=TM_TEXT,
        section_table=section_table, peer_table=peer_table, plots=plots,
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
