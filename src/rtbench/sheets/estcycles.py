"""An emulated board's estimated cycles (a record's `cycles` object,
docs/records.md and docs/cycles.md) as every rendering shows them: beside
the instructions, never instead, with the model's range and µs at the
board's clock, and the model's own words for what the figure is (the
record carries them: `label`).
"""

from __future__ import annotations

from typing import Any, Iterable

from rtbench.store.records import MetricRecord

BLANK = "—"
# The columns a table of instructions gains when its records carry cycles.
COLUMNS = (("cyc_p50", "median est. cycles [lo, hi]"), ("cyc_max", "max est. cycles"),
           ("cyc_us", "median est. µs"))


def of(rec: dict | None) -> dict[str, Any] | None:
    """The record's estimated cycles (ok ones only), or None."""
    return MetricRecord(rec).cycles if rec else None


def median(c: dict[str, Any] | None) -> str:
    """"105 [94, 125]": the median estimate and the model's range of it."""
    if not c:
        return BLANK
    return f"{c['p50']:,} [{c['p50_lo']:,}, {c['p50_hi']:,}]"


def us(c: dict[str, Any] | None, key: str = "p50") -> str:
    """An estimate in µs at the board's clock (`hz`)."""
    if not c or not c.get("hz"):
        return BLANK
    v = c[key] / c["hz"] * 1e6
    return f"{v:.3f}" if v < 10 else f"{v:.2f}" if v < 100 else f"{v:,.1f}"


def cells(rec: dict | None) -> dict[str, str]:
    """The COLUMNS' cells of one record."""
    c = of(rec)
    return {"cyc_p50": median(c), "cyc_max": f"{c['max']:,}" if c else BLANK,
            "cyc_us": us(c)}


def label(records: Iterable[dict | None]) -> str:
    """The model's label ("est. cycles: Cortex-M3 TRM model, zero wait
    states; [lo, hi] is …") and the clock µs are at, from the first record
    that has cycles; "" when none has."""
    for rec in records:
        c = of(rec)
        if c:
            return said(c)
    return ""


def said(c: dict[str, Any]) -> str:
    """One record's estimate in the model's words, and the clock µs are at."""
    return f"{c['label']}. µs at the board's {c['hz'] / 1e6:g} MHz."
