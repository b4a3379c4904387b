"""rtbench.store.blocks: a run cut into blocks and merged back exactly.

Each block's record is made here the way the harness writes one (figures
net of the block's own overhead, the histogram in raw ticks with
`offset`, the percentiles by nearest rank on the buckets, mean and
stddev rounded to three places), from known raw samples; the merge of N
such blocks must give what one block of all the samples would give, net of
the run's overhead, and every percentile must equal a nearest-rank
computation done here on the merged raw samples.
"""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from rtbench.store import blocks
from synth import QS, block_record, buckets, nearest_rank


def _samples(seed: int = 7, n: int = 3000) -> np.ndarray:
    rng = np.random.default_rng(seed)
    core = rng.lognormal(np.log(4000), 0.08, n - 20)
    far = rng.uniform(20_000, 500_000, 20)  # a tail across many buckets
    out = np.round(np.concatenate([core, far])).astype(np.int64)
    rng.shuffle(out)
    return out


# ---- merging ----

@pytest.mark.parametrize("nblocks", [1, 2, 7, 20])
def test_merged_blocks_equal_one_block_of_all_samples(nblocks):
    raw = _samples()
    overhead = 30
    # blocks of unequal length, each calibrated to a slightly different overhead
    cuts = np.sort(np.random.default_rng(1).choice(np.arange(60, len(raw) - 60),
                                                   nblocks - 1, replace=False))
    parts = np.split(raw, cuts)
    acc = blocks.Accumulator()
    for k, part in enumerate(parts):
        acc.add(block_record(part, overhead=28 + k % 5, canary=1000 + k, elapsed_s=0.01),
                {"t": float(k), "steal_ms": 0.5, "irqs": 3})
    rec = acc.record(overhead)

    assert rec["n"] == len(raw) and rec["status"] == "ok"
    assert rec["overhead"] == overhead
    assert rec["min"] == raw.min() - overhead and rec["max"] == raw.max() - overhead
    assert rec["mean"] == pytest.approx(raw.mean() - overhead, abs=2e-3)
    assert rec["stddev"] == pytest.approx(raw.std(ddof=1), rel=1e-6, abs=2e-3)
    for k, q in QS.items():  # exact: the merged histogram is the one-block histogram
        assert rec[k] == nearest_rank(raw, q) - overhead, k
    # the histogram is exactly the one of all the samples, in raw ticks
    assert rec["hist"]["buckets"] == buckets(raw)
    assert rec["hist"]["offset"] == -overhead and rec["hist"]["overflow"] == 0
    # counts add up; everything else of the first block is kept
    assert rec["discarded"] == 5 * nblocks and rec["invalid"] == nblocks
    assert rec["id"] == "sched.yield.ctx.thread" and rec["cpu"] == 1
    assert "elapsed_ticks" not in rec
    # the blocks: one summary each, net of the run's overhead, with their probes
    assert len(rec["blocks"]) == nblocks
    for k, (b, part) in enumerate(zip(rec["blocks"], parts)):
        assert b["n"] == len(part)
        assert b["min"] == part.min() - overhead and b["max"] == part.max() - overhead
        assert b["p50"] == nearest_rank(part, 50000) - overhead
        assert b["mean"] == pytest.approx(part.mean() - overhead, abs=2e-3)
        assert b["canary"] == 1000 + k and b["t"] == k and b["s"] == pytest.approx(0.01)
    assert rec["observed_s"] == pytest.approx(0.01 * nblocks)
    assert rec["steal_ms"] == pytest.approx(0.5 * nblocks) and rec["irqs"] == 3 * nblocks
    assert rec["canary"] == int(statistics.median(1000 + k for k in range(nblocks)))


def test_one_block_merged_is_the_block_itself():
    raw = _samples(n=500)
    one = block_record(raw, overhead=26)
    acc = blocks.Accumulator()
    acc.add(one)
    rec = acc.record(26)
    for k in ("n", "min", "max", "p50", "p90", "p99", "p999"):
        assert rec[k] == one[k], k
    assert rec["mean"] == pytest.approx(one["mean"], abs=1e-3)
    assert rec["stddev"] == pytest.approx(one["stddev"], abs=1e-3)


def test_overhead_is_readded_per_block_and_the_runs_subtracted():
    """Every block's figures are net of its own overhead; the merge works in
    raw ticks and subtracts the run's overhead once."""
    raw = np.array([100, 110, 120, 130] * 20, dtype=np.int64)
    acc = blocks.Accumulator()
    acc.add(block_record(raw[:40], overhead=20))   # net min 80
    acc.add(block_record(raw[40:], overhead=40))   # net min 60: same raw samples
    assert acc.min == 100 and acc.max == 130  # raw
    for run_overhead, net_min in ((30, 70), (0, 100), (20, 80)):
        rec = acc.record(run_overhead)
        assert rec["min"] == net_min and rec["max"] == 130 - run_overhead
        assert rec["mean"] == pytest.approx(raw.mean() - run_overhead)
        assert rec["p50"] == nearest_rank(raw, 50000) - run_overhead
        assert rec["hist"]["offset"] == -run_overhead
        assert rec["overhead"] == run_overhead
        assert [b["min"] for b in rec["blocks"]] == [100 - run_overhead] * 2
    # a record without overhead (a counting port): nothing added
    rec = {**block_record(raw, overhead=0)}
    del rec["overhead"]
    acc = blocks.Accumulator()
    acc.add(rec)
    assert acc.record(0)["min"] == 100


def test_a_failed_block_after_ok_blocks_ends_the_metric():
    raw = _samples(n=600)
    acc = blocks.Accumulator()
    acc.add(block_record(raw[:300], overhead=26))
    acc.add(block_record(raw[300:], overhead=26))
    assert not acc.done
    acc.add({"type": "metric", "id": "sched.yield.ctx.thread", "status": "failed",
             "reason": "timeout after 30 s", "n": 0})
    assert acc.done
    rec = acc.record(26)
    assert rec["status"] == "failed" and rec["n"] == 0
    assert rec["reason"].startswith("timeout after 30 s")
    assert "in block 3" in rec["reason"] and "2 block(s) before it" in rec["reason"]
    for k in (*blocks.STATS, "hist", "blocks"):
        assert k not in rec, k
    # a later ok block (it is not measured again, but if one came) changes nothing
    acc.add(block_record(raw, overhead=26))
    assert acc.record(26)["status"] == "failed"


def test_a_metric_failed_or_unsupported_in_its_first_block():
    acc = blocks.Accumulator()
    bad = {"type": "metric", "id": "irq.response", "status": "unsupported",
           "reason": "no interrupt source", "n": 0}
    acc.add(bad)
    assert acc.done and acc.record(26) is bad
    assert blocks.Accumulator().record(26) is None  # nothing arrived


def test_a_block_measured_with_another_batch_size_is_left_out():
    raw = _samples(n=900)
    acc = blocks.Accumulator()
    acc.add(block_record(raw[:300], overhead=26, ops=1))
    acc.add(block_record(raw[300:600] * 8, overhead=26, ops=8))  # another batch: dropped
    acc.add(block_record(raw[600:], overhead=26, ops=1))
    rec = acc.record(26)
    kept = np.concatenate([raw[:300], raw[600:]])
    assert acc.mismatch == 1 and rec["n"] == 600 and len(rec["blocks"]) == 2
    assert rec["max"] == kept.max() - 26 and rec["p99"] == nearest_rank(kept, 99000) - 26
    assert "1 block(s) measured with another batch size left out" in rec["note"]


def test_overflowed_samples_count_in_the_ranks():
    raw = np.arange(100, 200, dtype=np.int64)
    rec = block_record(raw, overhead=0)
    rec["max"] = 10_000_000  # one sample beyond the histogram
    rec["hist"]["overflow"] = 1
    rec["n"] = 101
    acc = blocks.Accumulator()
    acc.add(rec)
    acc.add(block_record(raw, overhead=0))
    out = acc.record(0)
    assert out["hist"]["overflow"] == 1 and out["n"] == 201
    assert out["p999"] == 10_000_000  # rank 201 of 201 lies among the overflowed: the max


# ---- the plan ----

@pytest.mark.parametrize("samples,asked,want", [
    (1000, 5, 5), (10000, 20, 20), (1001, 5, 5), (999, 20, 19), (120, 20, 2),
    (99, 20, 1), (30, 20, 1), (10000, 1, 1), (50, 3, 1), (100, 3, 2)])
def test_plan_cuts_samples_into_blocks_of_at_least_the_minimum(samples, asked, want):
    p = blocks.plan(samples, 100, 2000, asked)
    assert p.blocks == want
    per = [p.block_samples(k) for k in range(p.blocks)]
    assert sum(per) == samples
    assert max(per) - min(per) <= 1 and per == sorted(per, reverse=True)  # remainder first
    if p.blocks > 1:
        assert min(per) >= blocks.MIN_BLOCK_SAMPLES


def test_plan_warmup_budget_and_passes():
    p = blocks.plan(10000, 100, 2000, 20)
    assert p.block_budget_ms == 100
    assert p.block_warmup == blocks.MIN_BLOCK_WARMUP  # ceil(100/20) = 5, raised to 10
    assert blocks.plan(10000, 1000, 2000, 20).block_warmup == 50
    assert blocks.plan(10000, 5, 2000, 20).block_warmup == 5  # never more than asked
    assert blocks.plan(10000, 100, 2000, 1).block_warmup == 100
    assert blocks.plan(10000, 100, 7, 20).block_budget_ms == 1  # at least 1 ms
    assert [p.more(k, 0.0) for k in (0, 19, 20)] == [True, True, False]
    # --duration: every planned pass, then more until the time is up
    d = blocks.plan(1000, 50, 500, 5, duration_s=10.0)
    assert d.more(3, 99.0) and d.more(7, 5.0) and not d.more(7, 10.5)
    assert d.block_samples(5) == d.block_samples(0)  # later passes repeat the plan's blocks


def test_run_overhead_and_session():
    assert blocks.run_overhead([26.4, 26.4, 27.0], 99) == 27  # mean 26.6, rounded
    assert blocks.run_overhead([26.2, None, 26.2], 99) == 26
    assert blocks.run_overhead([], 31) == 31
    p = blocks.plan(1000, 50, 500, 5)
    first = {"type": "session", "config": {"samples": 200, "warmup": 10, "budget_ms": 100,
                                           "other": 1},
             "ts": {"overhead_mean": 26.4}}
    s = blocks.merged_session(first, p, 5, [26.4, 26.6], 27)
    assert s["config"] == {"samples": 1000, "warmup": 50, "budget_ms": 500, "other": 1,
                           "blocks": 5, "block_samples": 200, "block_warmup": 10,
                           "block_budget_ms": 100}
    assert s["ts"]["overhead"] == 27 and s["ts"]["overhead_pass_means"] == [26.4, 26.6]
    assert first["config"]["samples"] == 200  # the pass's record is not changed


# ---- reading the blocks back ----

def _with_blocks(p50s, canaries=None, ops=1, p50=None):
    canaries = canaries or [None] * len(p50s)
    bl = [{"n": 100, "p50": v, "p99": v * 2, **({"canary": c} if c else {})}
          for v, c in zip(p50s, canaries)]
    return {"id": "x", "ops": ops, "p50": p50 if p50 is not None else statistics.median(p50s),
            "blocks": bl}


def test_spread_is_the_iqr_of_block_medians_over_the_median():
    rec = _with_blocks([100, 110, 120, 130, 140], p50=120)
    # inclusive quartiles of 100..140: 110 and 130
    assert blocks.spread(rec) == pytest.approx(20 / 120)
    assert blocks.block_values(rec) == [100, 110, 120, 130, 140]
    assert blocks.block_values(rec, "p99") == [200, 220, 240, 260, 280]
    # per operation: a batched record's blocks and median are both per batch
    batched = _with_blocks([800, 880, 960, 1040, 1120], ops=8, p50=960)
    assert blocks.spread(batched) == pytest.approx(160 / 960)
    assert blocks.block_values(batched) == [100, 110, 120, 130, 140]
    assert blocks.spread(_with_blocks([100] * 6)) == 0.0
    assert blocks.spread(_with_blocks([100, 110, 120])) is None  # fewer than 4 blocks
    assert blocks.spread(_with_blocks([0, 0, 0, 0], p50=0)) is None
    assert blocks.spread({"p50": 5}) is None  # no blocks (a board run)


def test_canary_baseline_and_slow_blocks():
    fast = _with_blocks([100] * 6, canaries=[1000, 1010, 990, 1000, 1005, 1000])
    slow = _with_blocks([100] * 6, canaries=[1000, 1300, 995, 2000, 1240, 1000])
    base = blocks.canary_baseline([fast, slow])
    values = sorted(fast_c for r in (fast, slow) for fast_c in
                    (b["canary"] for b in r["blocks"]))
    assert base == statistics.quantiles(values, n=4, method="inclusive")[0]
    assert 990 <= base <= 1000
    # slow-host: canary above baseline * 1.25 (1250 at most): 1300 and 2000, not 1240
    assert blocks.slow_blocks(slow, base) == 2
    assert blocks.slow_blocks(fast, base) == 0
    assert blocks.slow_blocks(slow, None) == 0
    # fewer than 4 canaries in the run: no baseline
    assert blocks.canary_baseline([_with_blocks([1, 2, 3], canaries=[5, 6, 7])]) is None
    assert blocks.canary_baseline([{"id": "board", "p50": 3}]) is None
    # blocks without a canary are neither counted in the baseline nor slow
    mixed = _with_blocks([100] * 5, canaries=[None, 1000, 1000, 1000, 1000])
    assert blocks.canary_baseline([mixed]) == 1000 and blocks.slow_blocks(mixed, 1000) == 0


def test_window_is_samples_and_seconds():
    acc = blocks.Accumulator()
    raw = _samples(n=400)
    for part in np.split(raw, 4):
        acc.add(block_record(part, overhead=26, elapsed_s=0.125))
    rec = acc.record(26)
    assert blocks.window(rec) == (400, pytest.approx(0.5))
    assert blocks.window({"n": 7}) == (7, None)


def test_a_later_block_without_samples_costs_that_block_only():
    """A short block whose set-up used its budget (sys.timer.wakeup.load starts
    its load in every block) takes no sample: the metric keeps its other
    blocks and says so; a first block without samples is the metric's end."""
    acc = blocks.Accumulator()
    ok = {"id": "x", "status": "ok", "n": 3, "min": 1, "max": 3, "mean": 2.0, "stddev": 1.0,
          "p50": 2, "p90": 3, "p99": 3, "p999": 3, "overhead": 0,
          "hist": {"buckets": [[1, 2, 1], [2, 3, 1], [3, 4, 1]], "overflow": 0}}
    empty = {"id": "x", "status": "failed", "reason": "no samples taken"}
    acc.add(dict(ok))
    acc.add(dict(empty))
    acc.add(dict(ok))
    rec = acc.record(0)
    assert rec["status"] == "ok" and rec["n"] == 6 and len(rec["blocks"]) == 2
    assert "1 block(s) took no sample" in rec["note"]
    late = blocks.Accumulator()  # an empty first block costs that block only too
    late.add(dict(empty))
    late.add(dict(ok))
    assert late.record(0)["status"] == "ok" and late.record(0)["n"] == 3
    never = blocks.Accumulator()
    never.add(dict(empty))
    never.add(dict(empty))
    rec = never.record(0)
    assert rec["status"] == "failed" and "any of its 2 block(s)" in rec["reason"]
