"""Coverage: how much of each vendor's data sheet rtbench answers.

Every distinct row of a kernel reference sheet (rtbench.store.reference) is, for
this port:
  measured     a catalogue metric claims it and the port supports that metric
  unsupported  only metrics the port cannot measure claim it (the reason is theirs)
  n/a          the catalogue lists it as not a kernel metric (with why), or
               no metric that claims it has code on this target (a board's
               port has no System part: an operating system's services)
  missing      nothing claims it: a gap in the catalogue

`print_tables` lays the coverage of each target out for `rtbench list
--coverage [--rows]` (the targets say what they support).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.table import Table

from rtbench.store import reference
from rtbench.store.catalog import Catalog

MEASURED, UNSUPPORTED, NA, MISSING = "measured", "unsupported", "n/a", "missing"


@dataclass
class RowCoverage:
    key: str
    status: str
    metrics: list[str]
    why: str = ""


@dataclass
class SheetCoverage:
    sheet: reference.Sheet
    rows: list[RowCoverage] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.rows)


def claims(cat: Catalog, vendor_key: str) -> dict[str, list[str]]:
    """Row name -> the metric ids that list it under `vendor_key`."""
    out: dict[str, list[str]] = {}
    for m in cat.metrics:
        for name in m.vendor.get(vendor_key, ()):
            out.setdefault(name, []).append(m.id)
    return out


def not_applicable(cat: Catalog, sheet: reference.Sheet) -> dict[str, str]:
    """Row name -> why it is not rtbench's to measure: rows listed by name,
    and every row of a section listed by its prefix."""
    na = {name: why for v, name, why in cat.not_applicable if v == sheet.vendor_key}
    sections = [(prefix, why) for v, prefix, why in cat.not_applicable_sections
                if v == sheet.vendor_key]
    if sections:
        for row in sheet.rows():
            for prefix, why in sections:
                if row.section.startswith(prefix):
                    na.setdefault(reference.row_key(sheet.vendor_key, row), why)
    return na


def compute(cat: Catalog, support: dict[str, tuple[bool, str]],
            kernel_only: bool = True, absent_is_na: bool = False) -> list[SheetCoverage]:
    """Coverage of every (kernel) reference sheet, given the port's
    `support` (metric id -> (supported, why not), from the harness registry).
    absent_is_na: a metric the registry lacks has no code on this target (a
    board's port), not a port that cannot measure it."""
    out = []
    for sheet in reference.sheets():
        if kernel_only and not sheet.kernel:
            continue
        claimed = claims(cat, sheet.vendor_key)
        na = not_applicable(cat, sheet)
        cov = SheetCoverage(sheet)
        for key in sheet.keys():
            ids = claimed.get(key, [])
            if any(support.get(i, (False, ""))[0] for i in ids):
                cov.rows.append(RowCoverage(key, MEASURED, ids))
            elif ids and absent_is_na and not any(i in support for i in ids):
                cov.rows.append(RowCoverage(key, NA, ids, "no code for it on this target"))
            elif ids:
                why = "; ".join(sorted({support.get(i, (False, "not in the harness"))[1]
                                        for i in ids}))
                cov.rows.append(RowCoverage(key, UNSUPPORTED, ids, why))
            elif key in na:
                cov.rows.append(RowCoverage(key, NA, [], na[key]))
            else:
                cov.rows.append(RowCoverage(key, MISSING, []))
        out.append(cov)
    return out


def unknown_names(cat: Catalog) -> list[tuple[str, str, str]]:
    """(metric id, vendor key, name) for every vendor name the catalogue lists
    that no reference row carries: a typo, or a row that is not there."""
    keys = {s.vendor_key: set(s.keys()) for s in reference.sheets()}
    bad = []
    for m in cat.metrics:
        for vk, names in m.vendor.items():
            if vk not in keys:
                continue  # a vendor without a shipped sheet (e.g. lmbench)
            bad.extend((m.id, vk, n) for n in names if n not in keys[vk])
    for vk, name, _ in cat.not_applicable:
        if name not in keys.get(vk, set()):
            bad.append(("[not_applicable]", vk, name))
    sections = {s.vendor_key: {r.section for r in s.rows()} for s in reference.sheets()}
    for vk, prefix, _ in cat.not_applicable_sections:
        if not any(sec.startswith(prefix) for sec in sections.get(vk, ())):
            bad.append(("[not_applicable]", vk, f"section {prefix}"))
    return bad


def print_tables(console, cat: Catalog, columns: dict[str, dict], rows: bool,
                 note: str = "") -> None:
    """A table of every sheet's rows measured / unsupported / n/a / missing
    per target (`columns`: target -> what it supports; the first is this
    host), the note on columns left out, and with `rows` every row of
    every sheet per target with what answers it."""
    per_target = {name: {c.sheet.name: c for c in compute(
        cat, support, kernel_only=False, absent_is_na=n > 0)}
        for n, (name, support) in enumerate(columns.items())}
    first = next(iter(per_target.values()))
    table = Table(title="Coverage of the vendors' data sheets (distinct rows; ti-am654x is "
                        "a system sheet, the others kernel sheets): measured / unsupported / "
                        "n/a / missing per target")
    table.add_column("sheet", overflow="fold")
    table.add_column("rows", justify="right")
    for name in per_target:  # folded, never cut with "…": every target's name stays whole
        table.add_column(name, justify="right", overflow="fold")
    statuses = (MEASURED, UNSUPPORTED, NA, MISSING)
    for sheet_name, c in first.items():
        table.add_row(c.sheet.name, str(len(c.rows)),
                      *(" / ".join(str(t[sheet_name].count(s)) for s in statuses)
                        for t in per_target.values()))
    console.print(table)
    if note:
        console.print(f"[yellow]{note}[/yellow]", soft_wrap=True)
    if not rows:
        return
    for name, sheets in per_target.items():
        for c in sheets.values():
            detail = Table(title=f"{c.sheet.title} — {name}", show_lines=False)
            for col in ("row", "status", "answered by / why"):
                detail.add_column(col, overflow="fold")
            for r in c.rows:
                detail.add_row(r.key, r.status,
                               ", ".join(r.metrics) + (f" ({r.why})" if r.why else ""))
            console.print(detail)
