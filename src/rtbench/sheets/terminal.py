"""A stored run's data sheet on a terminal (`rtbench show RUN`): its first
page as `rtbench run` ends with it, then the configuration, the method and
every service's table, from the same model as the Markdown and HTML sheets
(datasheet.sheet_model), laid out by pages.print_rich: a table that fits
the width, else a row at a time; never a Markdown mark, never a cropped id.
"""

from __future__ import annotations

from typing import Any

from rtbench.sheets import datasheet, firstpage
from rtbench.sheets.pages import Page, Table, print_rich
from rtbench.store.catalog import Catalog
from rtbench.store.db import Run


def print_sheet(run: Run, catalog: Catalog, console: Any, first_only: bool = False,
                soft: bool = True) -> None:
    """The sheet on `console`; with `first_only` its first page alone."""
    model = datasheet.sheet_model(run, catalog)
    firstpage.print_console(model["first"], console, model["title"], soft=soft)
    if not first_only:
        console.print()
        print_rich(_rest(model), console, soft=soft)


def _rest(model: dict) -> Page:
    """Everything after the first page, as a page of blocks."""
    page = Page("Target configuration, method and results")
    page.bullets([f"**{label}:** {value}" for label, value in model["config"]])
    page.h2("Methodology")
    for para in str(model["methodology"]).split("\n\n"):
        page.p(para)
    if (cal := model.get("calibration")):  # the cycle model against a chip (calibration.py)
        page.h2(cal["heading"])
        page.p(cal["summary"])
        if cal["rows"]:
            page.table(Table(cal["headers"], cal["rows"], "l" + "r" * (len(cal["headers"]) - 2)
                             + "l"))
    page.h2("Results")
    if model["units_note"]:
        page.p(model["units_note"])
    for service in model["services"]:
        page.h2(service["name"])
        t = service["table"]
        if t.rows:
            page.table(_table(t))
        for c in t.collapsed:
            page.p(f"{c['status'].capitalize()} ({c['count']}): " + "; ".join(
                f"{', '.join(ids)} — {reason}" for reason, ids in c["groups"]) + ".")
    return page


def _table(t: datasheet.Table) -> Table:
    """A service's table: the metric by title and id, each profile's
    figures, the note."""
    multi = len(t.profiles) > 1
    heads = [f"{p} {h}" if multi else h for p in t.profiles for _k, h in t.columns]
    rows = [[f"{r['title']} · {r['id']}" + (" · not ranked" if r.get("unranked") else ""),
             *r["values"], r["note"]] for r in t.rows]
    return Table(["metric", *heads, "note"], rows, "l" + "r" * len(heads) + "l")
