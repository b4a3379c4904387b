"""A run as many short blocks, interleaved across the metrics (issue 13).

Why. On a shared host the same kernel path measures 20–45 % apart from one
episode to the next: on this project's VM something outside the guest (a
sibling hyperthread on the host, most likely) shares the core's caches for
milliseconds to more than 12 s at a time. A metric sampled in one 25–50 ms
stretch reads whichever state the host was in, and two identical runs
disagree by more than any real regression.

How. The runner runs the harness over the whole metric list in B passes
(`--blocks`, default 20 on the host), each pass measuring every metric for
`samples / B` samples and `budget / B` ms: a *block*. So each metric is
sampled B times spread over the whole run, between all the others, and its
figures are the merge of its blocks, done exactly here:

* the histograms bucket by bucket in raw counter ticks (before the
  overhead is subtracted), so every percentile is what one block of all the
  samples would give;
* n, min and max exactly, mean and variance by Chan's parallel update of
  Welford's statistics;
* the timestamp overhead subtracted from the merged figures is the mean of
  every pass's calibrated mean (20 000 pairs each), rounded to a tick;
* every block's own summary is kept (`blocks`: median, p99, …, the canary,
  the steal time and interrupts of the benchmark CPU, its length), so the
  spread between blocks is reported and `rtbench compare` judges on block
  replicates, as pyperf judges on worker processes, instead of a rank test
  over thousands of correlated samples.

The harness's C core stays as it was: one block per invocation in fixed
memory (a board's 64 KiB arena holds one 21 KiB histogram, not B). A board
target is deterministic (instructions under -icount) and keeps one block.

The canary (rtb_port_canary: on Linux a pointer chase through an L2-resident
buffer and a null system call) is timed by the harness before and after
every block; a block whose canary ran well above the run's usual is a
"slow-host" block: it is counted and shown, and its samples stay in the
figures (they are what the machine did), so nothing is hidden.

Where. The passes run in measure/interleave.py; this module is arithmetic
on records only (the plan, the exact merge, the blocks read back), so the
sheets and comparisons that read a record's blocks need nothing of the
side that measures.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from rtbench.store.records import MetricRecord

DEFAULT_BLOCKS = 20   # blocks per metric on the host
QUICK_BLOCKS = 6      # with --quick (6 against 6 blocks can reach p < 0.01 in compare; 5 cannot)
MIN_BLOCK_SAMPLES = 50  # fewer samples than this per block make no block
MIN_BLOCK_WARMUP = 10   # each block warms its scenario up again
# A block is a slow-host block when its canary took this much longer than
# the run's usual canary (its lower quartile over every block of the run).
SLOW_CANARY = 0.25
STATS = ("min", "max", "mean", "stddev", "p50", "p90", "p99", "p999")
_QUANTILES = {"p50": 50000, "p90": 90000, "p99": 99000, "p999": 99900}


# ---- the plan ----

@dataclass(frozen=True)
class Plan:
    """How a metric's samples are cut into blocks."""

    blocks: int       # blocks of the plan (a --duration run repeats them)
    samples: int      # asked in all
    warmup: int       # asked (per metric)
    budget_ms: int    # asked in all
    duration_s: float | None = None  # --duration: repeat passes until this long

    def block_samples(self, k: int) -> int:
        """Samples of the k-th pass (the remainder goes to the first ones)."""
        base, extra = divmod(self.samples, self.blocks)
        return max(1, base + (1 if k % self.blocks < extra else 0))

    @property
    def block_warmup(self) -> int:
        if self.blocks == 1:
            return self.warmup
        return min(self.warmup, max(MIN_BLOCK_WARMUP, math.ceil(self.warmup / self.blocks)))

    @property
    def block_budget_ms(self) -> int:
        return max(1, self.budget_ms // self.blocks)

    def more(self, done: int, elapsed_s: float) -> bool:
        """Whether another pass is due after `done` passes."""
        if self.duration_s is not None:
            return done < self.blocks or elapsed_s < self.duration_s
        return done < self.blocks


def plan(samples: int, warmup: int, budget_ms: int, blocks: int,
         duration_s: float | None = None) -> Plan:
    """At most `blocks` blocks of at least MIN_BLOCK_SAMPLES samples."""
    b = max(1, min(blocks, samples // MIN_BLOCK_SAMPLES)) if blocks > 1 else 1
    return Plan(b, samples, warmup, budget_ms, duration_s)


# ---- merging ----

def quantile(hist: dict[int, tuple[int, int]], overflow: int, total: int, q: int,
             lo_clamp: int, hi_clamp: int) -> int:
    """The harness's rtb_hist_quantile on merged raw buckets: nearest rank
    (the smallest value with at least q/100000 of the samples at or below
    it), the midpoint of its bucket (`lo + (hi - lo - 1) // 2`), clamped to
    the exact min and max; a rank among the overflowed samples is the max."""
    rank = max(1, (total * q + 99999) // 100000)
    seen = 0
    for lo in sorted(hist):
        hi, count = hist[lo]
        seen += count
        if seen >= rank:
            return min(max(lo + (hi - lo - 1) // 2, lo_clamp), hi_clamp)
    return hi_clamp


@dataclass
class Accumulator:
    """One metric's blocks so far (raw ticks, before any overhead)."""

    first: dict | None = None   # the first block's record: the fields every block shares
    status: dict | None = None  # a block that was not ok: the metric's end
    n: int = 0
    mean: float = 0.0
    m2: float = 0.0
    min: int | None = None
    max: int | None = None
    hist: dict[int, tuple[int, int]] = field(default_factory=dict)
    batch: list[int] = field(default_factory=list)  # each block's batch_overhead (0: one call a sample)
    overflow: int = 0
    discarded: int = 0
    invalid: int = 0
    cut: bool = False
    blocks: list[dict] = field(default_factory=list)  # raw per-block summaries
    mismatch: int = 0  # blocks dropped: measured otherwise (ops per sample) than the first
    empty: int = 0     # blocks that took no sample (their budget went on set-up)
    last_empty: dict | None = None

    @property
    def done(self) -> bool:
        """Not to be measured again (it failed or is unsupported)."""
        return self.status is not None

    def add(self, rec: dict, info: dict | None = None) -> None:
        """Merge one block's record; `info`: the block's probes (t, steal, irqs)."""
        if rec.get("status") != "ok":
            if _empty(rec):  # a short block whose budget went before a sample
                self.empty += 1
                self.last_empty = rec
                return
            if self.status is None:
                self.status = rec
            return
        if self.first is None:
            self.first = rec
        elif rec.get("ops", 1) != self.first.get("ops", 1):
            self.mismatch += 1
            return
        o = rec.get("overhead") or 0  # the stamps' cost, and a batch's loop (batch_overhead)
        self.batch.append(int(rec.get("batch_overhead") or 0))
        n = int(rec["n"])
        raw_mean = float(rec["mean"]) + o
        m2 = float(rec.get("stddev") or 0.0) ** 2 * max(n - 1, 0)
        if n:
            total = self.n + n
            delta = raw_mean - self.mean
            self.mean += delta * n / total
            self.m2 += m2 + delta * delta * self.n * n / total
            self.n = total
            lo, hi = int(rec["min"]) + o, int(rec["max"]) + o
            self.min = lo if self.min is None else min(self.min, lo)
            self.max = hi if self.max is None else max(self.max, hi)
        h = rec.get("hist") or {}
        for lo_b, hi_b, count in h.get("buckets") or ():
            prev = self.hist.get(int(lo_b), (int(hi_b), 0))
            self.hist[int(lo_b)] = (int(hi_b), prev[1] + int(count))
        self.overflow += int(h.get("overflow") or 0)
        self.discarded += int(rec.get("discarded") or 0)
        self.invalid += int(rec.get("invalid") or 0)
        self.cut |= bool(rec.get("budget_exhausted"))
        block = {"n": n, **{k: int(rec[k]) + o for k in ("min", "max", "p50", "p90", "p99",
                                                           "p999") if k in rec},
                 "mean": raw_mean}
        if rec.get("canary"):
            block["canary"] = int(rec["canary"])
        if rec.get("elapsed_ticks") and rec.get("tick_hz"):
            block["s"] = rec["elapsed_ticks"] / rec["tick_hz"]
        block.update(info or {})
        self.blocks.append(block)

    def record(self, overhead: int) -> dict | None:
        """The merged record, every figure net of `overhead` (the run's
        stamp cost) and of the metric's own batch loop (the median of its
        blocks' batch_overhead, where a sample timed a batch)."""
        if self.first is None:
            if self.status is None and self.last_empty is not None:
                return {**self.last_empty, "reason": f"no samples taken in any of its "
                        f"{self.empty} block(s) (raise --budget-ms or lower --blocks)"}
            return self.status
        if self.batch and any(self.batch):
            batch = int(statistics.median(self.batch))
            overhead += batch
        rec = {k: v for k, v in self.first.items()
               if k not in STATS and k not in ("hist", "canary", "elapsed_ticks")}
        if self.batch and any(self.batch):
            rec["batch_overhead"] = batch
        rec.update(n=self.n, discarded=self.discarded, invalid=self.invalid,
                   budget_exhausted=self.cut, overhead=overhead)
        if self.n:
            total = sum(c for _hi, c in self.hist.values()) + self.overflow
            rec.update(min=self.min - overhead, max=self.max - overhead,
                       mean=round(self.mean - overhead, 3),
                       stddev=round(math.sqrt(self.m2 / (self.n - 1)), 3) if self.n > 1 else 0.0)
            for k, q in _QUANTILES.items():
                rec[k] = quantile(self.hist, self.overflow, total, q, self.min,
                                  self.max) - overhead
        rec["hist"] = {**(self.first.get("hist") or {}), "offset": -overhead,
                       "overflow": self.overflow,
                       "buckets": [[lo, hi, c] for lo, (hi, c) in sorted(self.hist.items())]}
        rec["blocks"] = [_net(b, overhead) for b in self.blocks]
        seconds = [b["s"] for b in self.blocks if "s" in b]
        if seconds:
            rec["observed_s"] = round(sum(seconds), 6)
        for key in ("steal_ms", "irqs"):
            got = [b[key] for b in self.blocks if key in b]
            if got:
                rec[key] = round(sum(got), 3) if key == "steal_ms" else sum(got)
        canaries = [b["canary"] for b in self.blocks if "canary" in b]
        if canaries:
            rec["canary"] = int(statistics.median(canaries))
        if self.empty:
            rec["note"] = "; ".join(filter(None, (
                rec.get("note"), f"{self.empty} block(s) took no sample within their budget "
                "(its set-up used it up)")))
        if self.mismatch:
            rec["note"] = "; ".join(filter(None, (
                rec.get("note"), f"{self.mismatch} block(s) measured with another batch "
                "size left out")))
        if self.status is not None:  # it ran for a while, then failed
            rec.update(status=self.status["status"],
                       reason=f"{self.status.get('reason', '')} (in block "
                              f"{len(self.blocks) + 1}; {len(self.blocks)} block(s) before it "
                              "were measured)")
            for k in (*STATS, "hist", "blocks"):
                rec.pop(k, None)
            rec["n"] = 0
        return rec


def _empty(rec: dict) -> bool:
    """A block that failed only because it took no sample: a later block of a
    metric whose set-up (e.g. starting a load) can use a short block's
    budget up. It costs that block, not the metric."""
    return rec.get("status") == "failed" and str(rec.get("reason", "")).startswith(
        "no samples taken")


def _net(block: dict, overhead: int) -> dict:
    out = dict(block)
    for k in ("min", "max", "p50", "p90", "p99", "p999"):
        if k in out:
            out[k] -= overhead
    out["mean"] = round(out["mean"] - overhead, 3)
    for k in ("s", "t"):
        if k in out:
            out[k] = round(out[k], 6)
    return out


def run_overhead(means: list[float], fallback: int) -> int:
    """The overhead subtracted from a run's figures: the mean of its passes'
    calibrated means, rounded (the harness rounds its own the same way)."""
    means = [m for m in means if m is not None]
    return int(sum(means) / len(means) + 0.5) if means else fallback


# ---- reading the blocks back ----

def block_values(rec: dict, stat: str = "p50") -> list[float]:
    """Each block's `stat` per operation (a batched row's tails per batch:
    records.PER_CALL_STATS), in the record's unit (ticks or instructions);
    [] for a record without blocks."""
    div = MetricRecord(rec).divisor(stat)
    return [b[stat] / div for b in rec.get("blocks") or () if stat in b]


def spread(rec: dict) -> float | None:
    """Between-block spread of the median: the interquartile range of the
    block medians over the metric's median (a fraction), None with fewer
    than 4 blocks or a median at or below zero."""
    meds = block_values(rec)
    p50 = rec.get("p50")
    if len(meds) < 4 or p50 is None or p50 <= 0:
        return None
    q = statistics.quantiles(meds, n=4, method="inclusive")
    return (q[2] - q[0]) / (p50 / float(rec.get("ops") or 1))


def canary_baseline(records: list[dict]) -> float | None:
    """The run's usual canary: the lower quartile of every block's canary
    (a host that slowed some blocks only raises the upper ones)."""
    values = sorted(b["canary"] for r in records for b in r.get("blocks") or ()
                    if b.get("canary"))
    if len(values) < 4:
        return None
    return statistics.quantiles(values, n=4, method="inclusive")[0]


def slow_blocks(rec: dict, baseline: float | None) -> int:
    """Blocks of `rec` whose canary ran SLOW_CANARY above the baseline."""
    if not baseline:
        return 0
    return sum(1 for b in rec.get("blocks") or ()
               if b.get("canary") and b["canary"] > baseline * (1 + SLOW_CANARY))


def window(rec: dict) -> tuple[int | None, float | None]:
    """The observed window of a record's max: (samples, seconds)."""
    return rec.get("n"), rec.get("observed_s")


def fmt_seconds(s: float) -> str:
    """A short duration: "420 ms", "1.3 s", "2.0 min"."""
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1:
        return f"{s * 1e3:.3g} ms"
    if s < 120:
        return f"{s:.3g} s"
    return f"{s / 60:.3g} min"


def window_text(rec: dict) -> str:
    """The window a max was observed in, "1,000 samples in 5.1 ms" (the
    samples' own timed stretches added up), or "1,000 samples" when the
    record does not say how long; "" without a sample count."""
    n, s = window(rec)
    if not n:
        return ""
    return f"{n:,} samples" + (f" in {fmt_seconds(s)}" if s else "")


def blocks_text(rec: dict, baseline: float | None) -> str:
    """A record's blocks in a few words: how many, the spread of their
    medians, the slow-host ones; "" for a record without blocks."""
    got = rec.get("blocks") or []
    if len(got) < 2:
        return ""
    parts = [f"{len(got)} blocks"]
    sp = spread(rec)
    if sp is not None:
        parts.append(f"spread {sp * 100:.1f} %")
    slow = slow_blocks(rec, baseline)
    if slow:
        parts.append(f"{slow} slow-host")
    return ", ".join(parts)


def merged_session(first: dict, plan_: Plan, passes: int, means: list[float],
                   overhead: int) -> dict:
    """The run's session record: the first pass's, its config in the run's
    terms (samples, budget in all) and how the blocks were cut. A harness
    that has no time budget (budget_ms 0: a count of instructions, where
    --samples alone decides) keeps none."""
    budgeted = first.get("config", {}).get("budget_ms", 1) != 0
    s = {**first, "config": {**first.get("config", {}), "samples": plan_.samples,
                             "warmup": plan_.warmup,
                             "budget_ms": plan_.budget_ms if budgeted else 0,
                             "blocks": passes, "block_samples": plan_.block_samples(0),
                             "block_warmup": plan_.block_warmup,
                             "block_budget_ms": plan_.block_budget_ms if budgeted else 0}}
    if plan_.duration_s is not None:
        s["config"]["duration_s"] = plan_.duration_s
    ts = dict(first.get("ts", {}))
    if len(means) > 1 or "overhead_mean" in ts:
        ts["overhead_pass_means"] = [round(m, 3) for m in means]
        ts["overhead"] = overhead
    s["ts"] = ts
    return s

