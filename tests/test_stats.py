"""The statistics behind `rtbench compare`: samples regrouped from stored
histograms, and the grouped Mann–Whitney U test checked against SciPy."""

import numpy as np
import pytest
from scipy.stats import mannwhitneyu

from rtbench.store import stats
from synth import HZ, OVERHEAD, buckets, record


def _expand(g: stats.Grouped) -> np.ndarray:
    return np.repeat(g.values, g.counts.astype(int))


def test_grouped_midpoints_offset_and_overflow():
    rec = record("a", [0, 0, 5, 300, 300, 1000])
    g = stats.grouped(rec)
    assert g.n == 6
    # Below 256 raw ticks a bucket is one tick: exact. 300 + 26 = 326 lies in
    # the bucket [326, 328) of width 2: midpoint 326.5 raw = 300.5 reported.
    expect_ticks = [0, 5, 300.5]
    assert np.allclose(g.values[:3], np.array(expect_ticks) * 1e9 / HZ)
    assert list(g.counts[:3]) == [2, 1, 2]
    rec["hist"]["overflow"] = 3  # counted at the exact maximum
    g = stats.grouped(rec)
    at_max = np.isclose(g.values, rec["max"] * 1e9 / HZ)
    assert g.n == 9 and g.counts[at_max].tolist() == [3]


def test_no_histogram_no_samples():
    assert stats.grouped({"status": "failed", "id": "a"}) is None
    rec = record("a", [5, 6])
    del rec["hist"]
    assert stats.grouped(rec) is None


def test_midpoint_error_is_within_the_bucket_width():
    rng = np.random.default_rng(0)
    x = np.round(rng.lognormal(9, 1.0, 5000))  # 100 .. 100 000 ticks
    g = stats.grouped(record("a", x))
    true_ns = np.sort(x) * 1e9 / HZ
    rel = np.abs(_expand(g) - true_ns) / np.maximum(true_ns, 1)
    assert rel[x[np.argsort(x)] >= 128].max() <= 1 / 128  # 0.78 % bucket, midpoint ≤ 0.4 %


@pytest.mark.parametrize("shift, spread", [(0.0, 0.05), (0.003, 0.05), (0.05, 0.2),
                                           (0.0, 0.0001)])
def test_mann_whitney_equals_scipy_on_the_expanded_samples(shift, spread):
    rng = np.random.default_rng(42)
    a = stats.grouped(record("a", np.round(rng.lognormal(7, spread, 3000))))
    b = stats.grouped(record("a", np.round(rng.lognormal(7 + shift, spread, 2500))))
    u, p = stats.mann_whitney(a, b)
    ref = mannwhitneyu(_expand(a), _expand(b), method="asymptotic", alternative="two-sided")
    assert u == pytest.approx(ref.statistic, rel=1e-12)
    assert p == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)


def test_identical_constant_samples_are_not_different():
    a = stats.grouped(record("a", [10] * 50))
    assert stats.mann_whitney(a, a) == (1250.0, 1.0)


def test_plot_bins_keep_every_positive_sample():
    rng = np.random.default_rng(1)
    x = np.concatenate([[-5, 0, 0], np.round(rng.lognormal(8, 0.5, 1000))])
    g = stats.grouped(record("a", x))
    lo, hi = stats.positive_range(g)
    b = stats.plot_bins(g, lo, hi, nbins=50)
    assert len(b.edges) == 51 and b.counts.sum() == 1000 and b.nonpositive == 3
    assert b.edges[0] == pytest.approx(lo) and b.edges[-1] >= hi


def test_bucket_helper_matches_the_records_doc():
    assert buckets(np.array([0, 127, 128, 129, 255, 256, 257, 258])) == [
        [0, 1, 1], [127, 128, 1], [128, 129, 1], [129, 130, 1], [255, 256, 1],
        [256, 258, 2], [258, 260, 1]]
    assert OVERHEAD == 26
