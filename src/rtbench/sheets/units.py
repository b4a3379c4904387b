"""Figures in units a reader takes in at a glance: the one unit a column
of times reads best in (`time_scale`) and a figure in it (`fmt_scaled`).
The first page, the data sheet's tables, the System part, the histograms
in the terminal and the comparison pages all set their times this way.
"""

from __future__ import annotations

import math


TIME_SCALES = (("ns", 1.0), ("µs", 1e3), ("ms", 1e6), ("s", 1e9))


def time_scale(values: list[float]) -> tuple[str, float]:
    """The unit a column of times (ns) reads best in: the largest unit in
    which the column's middle value is at least 1."""
    shown = sorted(abs(v) for v in values if v is not None)
    if not shown:
        return ("µs", 1e3)
    mid = shown[len(shown) // 2]
    best = TIME_SCALES[0]
    for label, div in TIME_SCALES:
        if mid >= div:
            best = (label, div)
    return best


def fmt_whole(v: float, div: float, step: float) -> str | None:
    """A figure a source printed in whole steps (cyclictest's integer µs:
    step 1000 ns) as the whole number it is in a unit of a whole number of
    steps ("8", not "8.000"); None for any other figure."""
    if step <= 0 or step % div or v % step:
        return None
    return f"{round(v / div):,}"


def fmt_scaled(v: float | None, div: float, step: float = 0.0, res: float = 0.0) -> str:
    """Four significant digits at most, never more than three decimals;
    thousands grouped ("33,031"); a figure of whole steps (fmt_whole) whole.
    `res` (ns, as `v`) is the smallest change the clock resolves in this
    figure: no digit finer than it is printed, and a figure below it reads
    "< res" (0.77 ns measured with a 6 ns step is "< 6.1", not "0.7703")."""
    if v is None:
        return "—"
    if (whole := fmt_whole(v, div, step)) is not None:
        return whole
    if res > 0 and abs(v) < res:
        return below(res, div)
    x = v / div
    if float(x).is_integer() and div == 1.0:
        return f"{int(x):,}"
    a = abs(x)
    decimals = 3 if a < 10 else 2 if a < 100 else 1 if a < 1000 else 0
    if res > 0:
        decimals = min(decimals, resolved_decimals(res / div))
    return f"{x:,.{decimals}f}"


def resolved_decimals(step: float) -> int:
    """The decimals a figure known to within `step` (in its unit) carries:
    down to the step's first significant digit (6.09 -> 0, 0.0061 -> 3)."""
    return max(0, -math.floor(math.log10(step))) if step > 0 else 3


def below(res: float, div: float) -> str:
    """A figure under one step of the clock, in the column's unit: "< 6.1"."""
    return f"< {res / div:.2g}"
