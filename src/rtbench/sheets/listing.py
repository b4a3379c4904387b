"""`rtbench list`: the metric catalogue as a table (id, title and status on
this machine's harness; with `--long` each definition, its clock points,
the statistic that defines it and vendor names) or as JSON (every catalogue field)."""

from __future__ import annotations

import json
from dataclasses import asdict

from rich.table import Table

from rtbench.errors import RtbenchError
from rtbench.store.catalog import Catalog, Metric, did_you_mean


def services(cat: Catalog, service: str | None) -> list[str]:
    """The sections to list: every one, or the one named (any case)."""
    names = list(cat.services)
    if service is None:
        return names
    chosen = [s for s in names if s.lower() == service.lower()]
    if not chosen:
        raise RtbenchError(f"unknown service {service!r}"
                           + (did_you_mean(service, names) or f" (one of: {', '.join(names)})"))
    return chosen


def as_json(metrics: list[Metric]) -> str:
    return json.dumps([asdict(m) for m in metrics], indent=2, ensure_ascii=False)


def status(m: Metric, support: dict[str, tuple[bool, str]]) -> str:
    """A metric's status on this host: what the harness already built says
    (`support`; empty when none is built), or who measures it."""
    if m.measured_by == "external":
        return "standard program"
    if m.id not in support:
        return "?" if not support else "not in this harness"
    ok, why = support[m.id]  # a supported row's words: its window is not the service
    return (f"supported; {why}" if why else "supported") if ok else f"unsupported: {why}"


def long_table(metrics: list[Metric]) -> Table:
    """Every metric with its definition, clock points, defining statistic
    (median or max) and vendor names."""
    table = Table(title="rtbench metrics", show_lines=True)
    for col in ("id", "title", "definition", "vendor names"):
        table.add_column(col, overflow="fold", no_wrap=(col == "id"),
                         min_width=max(len(m.id) for m in metrics) if col == "id" else None)
    for m in metrics:
        vendors = "\n".join(f"{v}: {'; '.join(names)}"
                             for v, names in m.vendor.items() if names)
        table.add_row(m.id, f"{m.title}\n[dim]{m.service}[/dim]",
                      f"{m.definition}\n[dim]Clock starts: {m.clock_start}. Stops: "
                      f"{m.clock_stop}. {m.statistic_text}[/dim]", vendors or "—")
    return table


def table(cat: Catalog, services_: list[str], support: dict[str, tuple[bool, str]]) -> Table:
    """A line per metric, section by section: id, title, status on this host."""
    metrics = [m for s in services_ for m in cat.by_service(s)]
    table = Table(title=f"rtbench metrics ({len(metrics)}; --long for definitions)",
                  box=None, header_style="bold", pad_edge=False)
    table.add_column("id", no_wrap=True, min_width=max(len(m.id) for m in metrics))
    table.add_column("title", overflow="fold")
    table.add_column("status on this host", overflow="fold")
    for s in services_:
        table.add_row(f"[bold]{s}[/bold]", "", "")
        for m in cat.by_service(s):
            table.add_row(m.id, m.title, status(m, support))
    return table
