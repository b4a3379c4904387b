"""How the kernel comparison ranks its rows (docs/method.md, "The statistic
that defines a row, and rows too small or kept out"; docs/reports.md,
"Kernels side by side"):

* by the statistic that defines the row, the catalogue's `statistic`: the
  median of a cost, the max of a latency bound, never another;
* each kernel's figure over the row's smallest among the kernels of one
  unit ("× fastest"), or, where the row is too small to rank
  (`too_small`: every figure under SMALL_STEPS steps of its counter), its
  difference to the smallest ("+3 instr.") and no ratio, since one step
  either way would move a ratio by a tenth or more;
* a cell whose record says `unranked` (docs/records.md: the kernel adds
  nothing, the tick's phase, rtbench's own instructions) shows its figure
  and takes neither, and the row stays out of the verdicts;
* per section and unit, the verdict: the geometric mean of each kernel's
  figure over the fastest kernel's, on the rows every kernel of the unit
  has a ranked figure for; the rows left out are counted and said.

Arithmetic on the model's rows and columns (kernels.py builds them and
calls this; nothing here imports it back).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from rtbench.store.catalog import STATISTIC_KEY
from rtbench.store.records import difference, differences

# A figure under this many steps of its counter is too small to rank: under
# QEMU -icount 10 instructions (a step is one instruction, and the window's
# edges, an interrupt's boundary, rtbench's stamp, are a step or two each);
# on a time counter 10 of its steps (the session's resolution: 10 ns at
# Linux's 1 ns step, 100 ns for a TSC that moves in steps of 26 at 2.6 GHz).
# Below it, one step either way moves a ratio by 10 % or more: the sheet
# prints the difference, which is exact, and no ratio.
SMALL_STEPS = 10


def too_small(values: list[float], steps: list[float]) -> str:
    """Why a row's figures (one unit, its defining statistic; each with its
    counter's step in that unit) are too small to rank, "" when they are not."""
    if all(v < SMALL_STEPS * s for v, s in zip(values, steps)):
        return f"every figure under {SMALL_STEPS} counter steps"
    if min(values) <= 0:
        return "a figure of 0 or less, which no ratio divides"
    return ""


def rank_row(row, columns) -> None:
    """Set each cell's ratio (its figure of the row's statistic over the
    smallest of its unit) or, where those figures are too small to rank,
    its difference to the smallest; note the unit in `row.small` then. A
    cell not ok, of another unit, without the statistic (an import of
    means) or unranked by its record takes neither."""
    stat = STATISTIC_KEY[row.statistic]
    for unit in dict.fromkeys(col.unit for col in columns):
        same = [c for c, col in zip(row.cells, columns) if col.unit == unit
                and c.status == "ok" and c.unit == unit and c.fig(stat) is not None
                and not c.apart]
        if len(same) < 2:
            continue
        values = [c.fig(stat) for c in same]
        low = min(values)
        why = too_small(values, [c.step for c in same])
        if why:
            row.small[unit] = why
            for c, v in zip(same, values):
                c.diff = v - low
        else:
            for c, v in zip(same, values):
                c.ratio = v / low


@dataclass
class Verdict:
    """One section's answer to "which kernel is fastest, by how much": the
    kernels of one unit over the rows each of them has a ranked figure for
    (the row's defining statistic), each kernel's geometric mean of its
    figure over the fastest one's; the rows left out and why; and where a
    kernel's definition differs on those rows (its fairness notes)."""

    section: str
    unit: str
    rows: int
    order: list[tuple[str, float]]  # (kernel, geometric-mean ratio to the fastest), fastest first
    wins: dict[str, int]  # kernel -> rows where its figure is the smallest
    differs: list[str]  # "FreeRTOS on `timer.start.*`, ...": the fairness notes on these rows
    by_max: int = 0  # of the rows, those ranked by their max (latency bounds)
    small: int = 0  # rows left out: too small to rank (a difference in the tables)
    unranked: dict[str, int] = field(default_factory=dict)  # kernel -> rows its record unranks
    left_out_unranked: int = 0  # rows left out because some kernel's figure is unranked

    def text(self) -> str:
        out = f"{self.section}: "
        if self.order:
            fastest, *others = self.order
            by = ", ".join(f"{k} ×{r:.2f}" for k, r in others)
            wins = ", ".join(f"{k} {n}" for k, n in self.wins.items() if n)
            stat = ("each row's median" if not self.by_max else
                    f"each row's defining statistic, the max on {self.by_max} latency-bound "
                    f"row{'s' if self.by_max != 1 else ''}, else the median")
            out += (f"{fastest[0]} fastest over {_rows(self.rows)} ({by}: the geometric mean "
                    f"of each kernel's figure over {fastest[0]}'s, by {stat}; fastest or "
                    f"tied on {wins} rows)")
        else:
            out += "no row to rank"
        if self.small:
            out += (f"; {_rows(self.small)} too small to rank "
                    "(a difference in the tables, not a ratio)")
        if self.left_out_unranked:
            per = ", ".join(f"{k} {n}" for k, n in self.unranked.items() if n)
            out += (f"; {_rows(self.left_out_unranked)} not ranked on a kernel ({per}: see "
                    "“Not ranked”)")
        if self.differs:
            out += "; definitions differ: " + "; ".join(self.differs)
        return out


def _rows(n: int) -> str:
    return f"{n} row" if n == 1 else f"{n} rows"


def verdicts(columns, sections) -> list[Verdict]:
    """Per section and unit shared by two kernels or more: which is fastest
    (Verdict). The method rows are checks, not a kernel's speed."""
    out = []
    for s in sections:
        for unit in dict.fromkeys(c.unit for c in columns):
            idx = [i for i, c in enumerate(columns) if c.unit == unit]
            if len(idx) < 2:
                continue
            v = _verdict(s, unit, idx, columns)
            if v is not None:
                out.append(v)
    return out


def _verdict(s, unit: str, idx: list[int], columns) -> Verdict | None:
    ranked, small, left_out = [], 0, 0
    unranked = {columns[i].short: 0 for i in idx}
    for r in s.rows:
        stat = STATISTIC_KEY[r.statistic]
        if r.id.startswith("method.") or not all(
                r.cells[i].status == "ok" and r.cells[i].fig(stat) is not None for i in idx):
            continue  # a row some kernel has no figure of its statistic for: not compared
        if any(r.cells[i].apart for i in idx):
            left_out += 1
            for i in idx:
                unranked[columns[i].short] += r.cells[i].apart
        elif unit in r.small:
            small += 1
        else:
            ranked.append(r)
    if not (ranked or small or left_out):
        return None
    if not ranked:
        return Verdict(s.name, unit, 0, [], {}, [], 0, small, unranked, left_out)
    fig = {id(r): STATISTIC_KEY[r.statistic] for r in ranked}
    logs = {i: sum(math.log(r.cells[i].fig(fig[id(r)])) for r in ranked) / len(ranked)
            for i in idx}
    order = sorted(idx, key=lambda i: logs[i])
    best = order[0]
    wins = {columns[i].short: 0 for i in order}
    for r in ranked:
        low = min(r.cells[i].fig(fig[id(r)]) for i in idx)
        for i in idx:
            if r.cells[i].fig(fig[id(r)]) == low:
                wins[columns[i].short] += 1
    differs: dict[str, str] = {}
    for r in ranked:
        for i in idx:
            for patterns, text in differences(columns[i].facts):
                if difference(columns[i].facts, r.id) == text:
                    on = ", ".join(f"`{p}`" for p in patterns)
                    differs.setdefault(f"{columns[i].short} on {on}", text)
    return Verdict(s.name, unit, len(ranked),
                   [(columns[i].short, math.exp(logs[i] - logs[best])) for i in order],
                   wins, [f"{k} ({v})" for k, v in differs.items()],
                   sum(r.statistic == "max" for r in ranked), small, unranked, left_out)


def not_ranked(columns, sections) -> list[tuple[str, list[str]]]:
    """Every reason a record gave for keeping its row out of the rankings,
    in sheet order, with the "Kernel: row id" it concerns: the sheet's
    “Not ranked” notes, which the cells refer to by number."""
    out: dict[str, list[str]] = {}
    for s in sections:
        for r in s.rows:
            for c, col in zip(r.cells, columns):
                if c.status == "ok" and c.unranked:
                    out.setdefault(c.unranked, []).append(f"{col.short}: {r.id}")
    return list(out.items())
