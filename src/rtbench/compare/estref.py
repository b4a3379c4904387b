"""A board run's estimated cycles beside a vendor's published figures
(`rtbench compare RUN --ref NAME`, docs/cycles.md): model against
measurement, never one for the other.

Theirs were measured on their silicon; ours is the cycle model's estimate
of the same samples on the board's core (a record's `cycles`,
docs/records.md), with the model's own range. Like with like, as for every
row of the comparison (vendors.py): the estimate's statistic is the one
paired with theirs (reference.STATISTICS: the estimate's median, mean or
max), with the model's range of that statistic; the ratio is estimate ÷
theirs, and the range's ratios lo ÷ theirs and hi ÷ theirs. Their cycles
are as printed, or their time at their stated clock (vendors.py converts);
beside their time, the estimate in µs at the board's clock, the one
conversion of estimated cycles every sheet makes (estcycles.us). The
instruction count beside them keeps no ratio: instructions are not cycles.
"""

from __future__ import annotations

from dataclasses import dataclass

from rtbench.store.records import MetricRecord

# The model's range of each statistic a vendor's figure can pair with (the
# record's `cycles`: p50_lo/p50_hi, mean_lo/mean_hi, max_lo/max_hi).
RANGES = {"p50": ("p50_lo", "p50_hi"), "mean": ("mean_lo", "mean_hi"),
          "max": ("max_lo", "max_hi")}
MARK = "model ÷ measured"
HEADER = "our est. cycles [lo, hi] (a model)"


@dataclass
class Estimate:
    """One statistic of a record's estimated cycles and the model's range of it."""

    stat: str
    cycles: float
    lo: float | None  # None: a record stored before the model gave this statistic's range
    hi: float | None
    hz: float  # the board's core clock, for µs
    label: str  # the model's own words (docs/records.md `cycles.label`)

    @property
    def ns(self) -> float:
        return self.cycles / self.hz * 1e9


@dataclass
class Ratio:
    """Estimate ÷ theirs, and the model's range of it (lo ÷ theirs, hi ÷ theirs)."""

    value: float
    lo: float | None
    hi: float | None


def estimate(rec: dict, stat: str) -> Estimate | None:
    """The record's estimated `stat`, None without a priced record."""
    c = MetricRecord(rec).cycles
    if not c or stat not in RANGES:
        return None
    lo, hi = (c.get(k) for k in RANGES[stat])
    return Estimate(stat, float(c[stat]), lo, hi, float(c["hz"]), c["label"])


def ratio(est: Estimate, theirs: float, scale: float = 1.0) -> Ratio:
    """est × scale ÷ theirs (scale: est. cycles into theirs' unit)."""
    def of(v: float | None) -> float | None:
        return None if v is None else v * scale / theirs
    return Ratio(est.cycles * scale / theirs, of(est.lo), of(est.hi))


def cycles_ratio(est: Estimate, their_cycles: float) -> Ratio:
    return ratio(est, their_cycles)


def time_ratio(est: Estimate, their_ns: float) -> Ratio:
    """The estimate in µs at the board's clock ÷ their time."""
    return ratio(est, their_ns, 1e9 / est.hz)


# ---- text ----

def figure(est: Estimate | None) -> str:
    """"130 [106, 162] (5.20 µs)": the estimate, its model range, µs at the board's clock."""
    if est is None:
        return "—"
    has_range = est.lo is not None and est.hi is not None
    rng = f" [{_n(est.lo)}, {_n(est.hi)}]" if has_range else ""
    us = est.ns / 1e3
    at = f"{us:.3f} µs" if us < 10 else f"{us:,.2f} µs"
    return f"{_n(est.cycles)}{rng} ({at}{'' if has_range else '; no model range stored'})"


def _n(v: float | None) -> str:
    """A count of cycles as is; a mean's to a tenth."""
    return "—" if v is None else f"{v:,.0f}" if float(v).is_integer() else f"{v:,.1f}"


def ratios(est_cycles: Ratio | None, est_time: Ratio | None) -> str:
    """"model ÷ measured ×0.40 [0.35, 0.52] cyc, ×0.02 [0.01, 0.02] time"; "" without."""
    parts = [f"{_x(r)} {unit}" for r, unit in ((est_cycles, "cyc"), (est_time, "time")) if r]
    return f"{MARK} " + ", ".join(parts) if parts else ""


def _x(r: Ratio) -> str:
    rng = f" [{r.lo:.2f}, {r.hi:.2f}]" if r.lo is not None and r.hi is not None else ""
    return f"×{r.value:.2f}{rng}"


def paragraph(label: str, clock_note: str) -> str:
    """What the estimate beside their figures is, and what its ratio is not."""
    return (f"Model against measurement: beside their figures, our estimated cycles ({label}) "
            "of the same samples, the statistic paired with theirs, with the model's range "
            f"of it. “{MARK} ×r [lo, hi]” is our estimate ÷ their figure, and the model's "
            "range ÷ their figure: theirs was measured on their silicon, ours is a model of "
            "a Cortex-M core at zero wait states on an emulated board, so the ratio is how "
            "far the two differ, not a measurement of either kernel against the other. "
            "“cyc” sets it beside their cycles, as printed or their time at their stated "
            f"clock ({clock_note}); “time” sets our estimate in µs at the board's clock "
            "(the one conversion of estimated cycles rtbench makes) beside their time, so "
            "it holds the two clocks' difference too. Our instructions still "
            "stand beside theirs without a ratio; “—”: no estimate (a run made "
            "`--no-cycles`, or a row the model cannot pair, docs/cycles.md).")
