"""A row timed in batches (Linux: a few-ns call against a ~10 ns counter
step, rtb_batch) reports its tails per batch, never divided by the batch
size: one slow call shows in the max at its full size (issue: honest tails
for batched rows). The harness's fault hook `slowone:ID:NS` makes exactly
one call of the metric busy-wait NS ns, inside the timed call."""

import json
import subprocess

import pytest

from rtbench.cli import main
from rtbench.store.records import PER_CALL_STATS, MetricRecord

SLOW_NS = 400_000
ID = "sem.give.no_waiter"


@pytest.fixture
def slowed_run(isolated, monkeypatch, real_cache):
    monkeypatch.setenv("XDG_CACHE_HOME", str(real_cache))  # the session's build, not one of its own
    monkeypatch.setenv("RTBENCH_INJECT_FAULT", f"slowone:{ID}:{SLOW_NS}")
    assert main(["run", "--quick", "--no-tune", "--no-programs", "--only", ID, "--db", "r.db",
                 "--out", "o"]) == 0
    env = json.loads((isolated / "o" / "results.json").read_text())
    return next(m for m in env["metrics"] if m["id"] == ID)


def test_one_slow_call_shows_at_full_size_in_the_max(slowed_run):
    m = MetricRecord(slowed_run)
    assert m.ok
    # the call waited SLOW_NS: the max holds it whole, batched or not
    assert m.value("max") >= 0.9 * SLOW_NS
    # and the median is a call's, far below
    assert m.value("p50") < SLOW_NS / 100


def test_a_batched_rows_tails_are_per_batch_and_said_so(slowed_run):
    m = MetricRecord(slowed_run)
    if m.batch == 1:
        pytest.skip("the counter is fine enough for one call a sample here")
    assert m.ops == m.batch and slowed_run["batch_overhead"] >= 0
    for stat in ("p99", "max"):
        assert m.per_batch(stat) and m.divisor(stat) == 1
    for stat in PER_CALL_STATS:
        assert not m.per_batch(stat) and m.divisor(stat) == m.batch
    # the sheet marks the per-batch figures and says what they are
    from rtbench.sheets.datasheet import BATCH_MARK, batch_note, figure_cell

    assert figure_cell(m, "max").endswith(BATCH_MARK)
    assert not figure_cell(m, "p50").endswith(BATCH_MARK)
    assert f"per batch of {m.batch} calls" in batch_note(m)


def _batch(real_exe, *args):
    out = subprocess.run([str(real_exe), "--only", ID, "--samples", "200", "--no-rt", *args],
                         capture_output=True, text=True, timeout=120)
    recs = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    session = next(r for r in recs if r.get("type") == "session")
    metric = next(r for r in recs if r.get("type") == "metric")
    return session["ts"], metric


def test_a_given_step_decides_the_batch_in_every_block(real_exe):
    """A later block of an interleaved run takes the first block's clock step
    (--step, issue: blocks of one metric batched alike): a step far coarser
    than 2 ns batches, a step of one tick at the counter's rate does not,
    whatever this block's own reads measured, and the session says which."""
    ts, _m = _batch(real_exe)
    assert ts["step"] >= ts["resolution"] >= 1
    hz = ts["hz_measured"] or ts["hz_nominal"]
    coarse = int(hz * 100e-9) + 1  # 100 ns in ticks
    ts, m = _batch(real_exe, "--step", str(coarse))
    assert ts["step"] == coarse and m["ops"] > 1 and m["batch"] == m["ops"]
    if hz <= 5e8:  # one tick is 2 ns or more: the counter itself is coarse
        return
    ts, m = _batch(real_exe, "--step", "1")
    assert ts["step"] == 1 and m["ops"] == 1


def test_the_harness_refuses_a_step_that_is_no_number(real_exe):
    out = subprocess.run([str(real_exe), "--step", "fine", "--list"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and "--step needs a whole number" in out.stderr


@pytest.mark.parametrize("step", ["1", "1000"])
def test_the_one_slow_call_lands_in_a_quick_block_batched_or_not(real_exe, step):
    """The test hook's one slow call falls in a --quick block's timed samples
    whether the row is timed one call a sample (--step 1) or in batches
    (--step 1000): it was past the end of an unbatched block, so a machine
    with a fine counter measured no slow call at all."""
    out = subprocess.run([str(real_exe), "--only", ID, "--samples", "167", "--warmup", "9",
                          "--no-rt", "--step", step, "--fault", f"slowone:{ID}:{SLOW_NS}"],
                         capture_output=True, text=True, timeout=120)
    rec = next(json.loads(line) for line in out.stdout.splitlines()
               if line.startswith('{"type":"metric"'))
    m = MetricRecord(rec)
    assert m.ok and (m.batch > 1) == (step == "1000")
    assert m.value("max") >= 0.9 * SLOW_NS
