"""Statistics on stored histograms: samples regrouped from buckets, the
Mann–Whitney U test on grouped data, bins for plotting.

The store keeps each metric's log-linear histogram (docs/records.md), not its
raw samples. A bucket `[lo, hi)` stands for `count` samples at its midpoint,
which is exact up to the bucket's width (≤ 0.4 % of the value; buckets below
128 ticks are one tick wide and exact). Everything here works on
(value, count) pairs, so its cost grows with the number of buckets, never
with the number of samples (a run may take 10 million).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rtbench.store.records import COUNT_UNITS

MIN_SAMPLES_FOR_TEST = 9  # below this a rank test has no power (Google Benchmark's rule)


@dataclass(frozen=True)
class Grouped:
    """A sample as distinct values (ascending) with their counts, in `unit`:
    ns for a time record, instructions for a count record."""

    values: np.ndarray
    counts: np.ndarray
    unit: str = "ns"

    @property
    def n(self) -> int:
        return int(self.counts.sum())


def grouped(rec: dict) -> Grouped | None:
    """The record's histogram as (value, count) pairs, or None without one:
    ns per operation for a time, instructions per operation for a count.

    Midpoint of `[lo, hi)` in whole ticks is `(lo + hi - 1) / 2`, plus the
    histogram's `offset` (the subtracted timestamp overhead). Samples
    beyond the histogram's range (`overflow`) are counted at the record's
    exact maximum.
    """
    hist = rec.get("hist") or {}
    buckets = hist.get("buckets") or []
    count = rec.get("unit") in COUNT_UNITS
    hz = rec.get("tick_hz") or 0
    if rec.get("status") != "ok" or not buckets or (hz <= 0 and not count):
        return None
    b = np.asarray(buckets, dtype=float).reshape(-1, 3)
    ticks = (b[:, 0] + b[:, 1] - 1) / 2 + float(hist.get("offset", 0))
    counts = b[:, 2]
    if hist.get("overflow"):
        ticks = np.append(ticks, float(rec["max"]))
        counts = np.append(counts, float(hist["overflow"]))
    order = np.argsort(ticks, kind="stable")
    ops = float(rec.get("ops") or 1)  # a sample timed `ops` operations
    if count:
        return Grouped(ticks[order] / ops, counts[order], rec["unit"])
    return Grouped(ticks[order] * 1e9 / hz / ops, counts[order])


def ungrouped(values: list[float]) -> Grouped:
    """Plain values (e.g. a run's block medians) as a Grouped sample."""
    v = np.sort(np.asarray(values, dtype=float))
    return Grouped(v, np.ones(len(v)))


def mann_whitney(a: Grouped, b: Grouped) -> tuple[float, float]:
    """Two-sided Mann–Whitney U test: (U of `a`, p-value).

    The same statistic and normal approximation as
    `scipy.stats.mannwhitneyu(x, y, method="asymptotic")` (tie-corrected
    variance, continuity correction) on the samples the histograms stand
    for, computed from the grouped values in O(buckets) instead of ranking
    every sample (and without importing SciPy, which alone takes longer
    than a whole comparison); the tests check it against SciPy on the
    expanded samples.
    """
    values, inverse = np.unique(np.concatenate([a.values, b.values]),
                                return_inverse=True)
    k = len(a.values)
    c1 = np.bincount(inverse[:k], weights=a.counts, minlength=len(values))
    c2 = np.bincount(inverse[k:], weights=b.counts, minlength=len(values))
    t = c1 + c2
    n1, n2 = c1.sum(), c2.sum()
    n = n1 + n2
    before = np.cumsum(t) - t
    r1 = float((c1 * (before + (t + 1) / 2)).sum())  # sum of a's (mid-)ranks
    u1 = r1 - n1 * (n1 + 1) / 2
    u = max(u1, n1 * n2 - u1)
    tie_term = float((t ** 3 - t).sum())
    var = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)))
    if var <= 0:  # every sample has the same value: no difference to find
        return float(u1), 1.0
    z = (u - n1 * n2 / 2 - 0.5) / math.sqrt(var)
    # two-sided: 2 * (1 - Phi(z)) = erfc(z / sqrt 2), as SciPy's norm.sf does it
    return float(u1), float(min(1.0, max(0.0, math.erfc(z / math.sqrt(2)))))


def exceedance_test(a: Grouped, b: Grouped, threshold: float) -> float:
    """Two-sided p-value that the share of samples above `threshold` (the
    first run's percentile) is the same in `a` and `b`: the pooled
    two-proportion z-test on the counts above it. A percentile that moved
    moves the share of the other run's samples beyond the old value; the
    test sees it from the histograms in O(buckets)."""
    ka, kb = float(a.counts[a.values > threshold].sum()), float(b.counts[b.values > threshold].sum())
    na, nb = float(a.n), float(b.n)
    pooled = (ka + kb) / (na + nb)
    var = pooled * (1 - pooled) * (1 / na + 1 / nb)
    if var <= 0:  # nothing (or everything) beyond it in both: no difference to find
        return 1.0
    z = abs(ka / na - kb / nb) / math.sqrt(var)
    return float(min(1.0, max(0.0, math.erfc(z / math.sqrt(2)))))


@dataclass(frozen=True)
class Bins:
    """A histogram rebinned for plotting on a log axis (the sample's unit)."""

    edges: np.ndarray  # len(counts) + 1 log-spaced edges
    counts: np.ndarray
    nonpositive: int  # samples at or below 0, which a log axis cannot show


def positive_range(g: Grouped) -> tuple[float, float] | None:
    pos = g.values[g.values > 0]
    return (float(pos[0]), float(pos[-1])) if len(pos) else None


def plot_bins(g: Grouped, lo: float, hi: float, nbins: int = 200) -> Bins:
    """The samples in `nbins` equal bins of log(time) over [lo, hi] (the plot's
    range, shared by the profiles drawn together): about two pixels per bin
    in the sheet, so no bar is narrower than the eye can see and the SVG
    stays small whatever the number of buckets."""
    pos = g.values > 0
    nonpositive = int(g.counts[~pos].sum())
    edges = np.geomspace(lo, hi * (1 + 1e-9), nbins + 1)
    if not pos.any():
        return Bins(edges, np.zeros(nbins), nonpositive)
    step = (math.log(edges[-1]) - math.log(lo)) / nbins
    idx = np.clip(((np.log(g.values[pos]) - math.log(lo)) / step).astype(np.int64),
                  0, nbins - 1)
    return Bins(edges, np.bincount(idx, weights=g.counts[pos], minlength=nbins), nonpositive)
