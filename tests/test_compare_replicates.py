"""Issue 13's acceptance tests for `rtbench compare`:

* two identical runs report no regression, and `--fail-on-regression`
  exits 0;
* a real slowdown (a busy-wait inside the timed interval of one scenario)
  is reported as slower, and the gate exits 1, while the metrics it does
  not touch are not reported;
* `compare --ref vxworks` on a Linux run sets no cross-CPU signal row
  (xsig.*) beside a vendor's interrupt row; the irq.* rows are unsupported.

Two kinds of runs. Synthetic runs, measured in blocks and merged by
rtbench.store.blocks (tests/synth.py), whose every block is drawn from a known
distribution, host episodes included (a block the canary marks slow):
they check the 5 % claims deterministically. Real runs of the real harness
(short: a few metrics, 20 blocks of 100 samples, as a default run cuts), with the harness's test
hook `--fault slow:ID:NS` (a busy-wait of NS ns inside the port call the
metric ID times, between its two timestamps; the runner passes it from
RTBENCH_INJECT_FAULT): they check the whole path, hook included. On the
shared 2-vCPU VM this was written on, the median of a context switch
(about 1.5-2.5 µs) moved by 10-25 % between two identical runs a few
seconds apart (the host's episodes last longer than such a run), so a
500 ns busy-wait (+20-35 %) was reported in some runs and masked in
others, and two identical runs were sometimes "slower" at 5 %. The real
runs therefore inject 3 µs (well over +100 %), and the identical real runs
are checked on the rows that do not depend on the host's state.

Nothing here depends on how fast this machine is: the verdicts are the
test. The judgement rests on each run's block medians (a Mann-Whitney U
test at p < 0.01, after Holm's correction over the metrics compared), which
is why the real runs have 20 blocks, as a default run: with 10, and a few
of one run's blocks left out as slow-host, blocks that do not overlap gave
p ≈ 0.003, not significant over six metrics. With 5
blocks (--quick) even blocks that do not overlap at all give p = 0.012
(normal approximation), so --quick never shows a significant change.
"""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pytest

from rtbench import compare
from rtbench.cli import main
from rtbench.store import catalog
from synth import blocked_record, record, run, store

real_harness = pytest.mark.skipif(
    shutil.which("cmake") is None or shutil.which("cc") is None,
    reason="cmake and a C compiler are needed for the real harness")
BLOCKS_WHY = re.compile(r"^\d+ vs \d+ blocks")
# No change: within the threshold or one counter step ("same"), or a change
# the blocks do not hold up ("not significant": the empty interval's median
# moves by a few ticks with one read's spread, which the blocks see as noise).
UNCHANGED = ("same", "not significant")


# ---- synthetic runs in blocks ----

# metric -> median in ticks (method.null: below the counter's resolution, 26 ticks)
MEDIANS = {"method.null": 8, "sched.yield.ctx.thread": 4000, "sem.give.no_waiter": 300,
           "sem.give.wake_ctx.thread": 9000}


def _blocked_run(run_id, seed, nblocks=20, slow=None, episodes=(), marked=True,
                 host_noise=0.03, only=None, canary=10000):
    """A run of MEDIANS in `nblocks` blocks of 200 samples. Every block
    has its own host state (the block's median off by `host_noise`, log
    scale); the blocks in `episodes` ran 40 % slower, with a canary 60 %
    slower when `marked`; `slow` multiplies one metric in every block."""
    rng = np.random.default_rng(seed)
    slow = slow or {}
    metrics = []
    for mid, median in MEDIANS.items():
        if only and mid not in only:
            continue
        parts, canaries = [], []
        for k in range(nblocks):
            state = float(rng.lognormal(0, host_noise)) * (1.4 if k in episodes else 1.0)
            core = rng.lognormal(np.log(median * state * slow.get(mid, 1.0)), 0.05, 198)
            far = rng.uniform(3, 40, 2) * median
            parts.append(np.round(np.concatenate([core, far])).astype(np.int64))
            canaries.append(int(rng.normal(canary, canary / 100) * (1.6 if k in episodes and marked
                                                           else 1.0)))
        metrics.append(blocked_record(mid, parts, canaries=canaries))
    return run(metrics, run_id=run_id, label=f"r{run_id}")


@pytest.fixture(scope="module")
def cat():
    return catalog.load()


@pytest.mark.parametrize("seed", range(8))
def test_identical_blocked_runs_are_no_regression(cat, seed):
    cmp = compare.compare_runs([_blocked_run(1, seed), _blocked_run(2, 100 + seed)], cat)
    assert cmp.regressions() == []
    for row in cmp.rows:
        p50 = row.cells[1].changes["p50"]
        assert p50.verdict in ("same", "not significant"), (row.id, p50)
        assert "samples tested" not in p50.why, p50  # judged on the blocks, not the samples


def test_identical_blocked_runs_pass_the_gate(isolated, capsys):
    store(isolated / "r.db", _blocked_run(1, 1, episodes={3, 4, 11}))
    store(isolated / "r.db", _blocked_run(2, 2, episodes={15, 16, 17, 18}))
    assert main(["compare", "1", "2", "--db", "r.db", "--fail-on-regression"]) == 0
    out, err = capsys.readouterr()
    assert "regression" not in err
    assert "median no change" in out.splitlines()[-1] or "gate (p50): pass" in out


@pytest.mark.parametrize("seed", range(8))
def test_the_readmes_gate_passes_identical_blocked_runs(isolated, capsys, seed):
    """`compare A B --fail-on p50,p99,max` (README): the max is judged on the
    blocks' maxima, a test like the others; two runs of one set-up whose
    single worst samples differ by up to ×10 pass (issue: 38 "regressions",
    every one a one-sample max with no test)."""
    store(isolated / "r.db", _blocked_run(1, seed))
    store(isolated / "r.db", _blocked_run(2, 100 + seed))
    assert main(["compare", "1", "2", "--db", "r.db", "--fail-on", "p50,p99,max"]) == 0
    assert "rtbench: regression" not in capsys.readouterr().err
    assert main(["compare", "1", "2", "--db", "r.db", "--format", "json"]) == 0
    for row in json.loads(capsys.readouterr().out)["detail"]["rows"]:
        mx = row["cells"][1]["changes"]["max"]
        assert mx["p_value"] is not None, mx  # tested on the blocks, whatever the verdict


def test_the_readmes_gate_fails_a_slower_run_and_names_an_untested_max(isolated, capsys):
    """The same gate on a 20 % slow-down fails on its tested statistics; runs
    without blocks have a max of one sample each: a slower max there is
    said ("not gated (no test)") and fails nothing."""
    store(isolated / "r.db", _blocked_run(1, 1))
    store(isolated / "r.db", _blocked_run(2, 2, slow={"sched.yield.ctx.thread": 1.2}))
    assert main(["compare", "1", "2", "--db", "r.db", "--fail-on", "p50,p99,max"]) == 1
    assert ("rtbench: regression: sched.yield.ctx.thread [rt] run 2: median"
            in capsys.readouterr().err)
    body = np.full(5000, 4000)
    for rid, worst in ((3, 8000), (4, 80000)):  # one sample each: ×10 in the max
        store(isolated / "r.db", run([record("sched.yield.ctx.thread",
                                             np.append(body, worst))], run_id=rid))
    assert main(["compare", "3", "4", "--db", "r.db", "--fail-on", "p50,p99,max"]) == 0
    err = capsys.readouterr().err
    assert "rtbench: not gated (no test): sched.yield.ctx.thread [rt] run 4: max" in err
    assert "rtbench: regression" not in err


def test_a_twenty_percent_slowdown_is_reported(cat, isolated, capsys):
    base, slowed = _blocked_run(1, 1), _blocked_run(2, 2, slow={"sched.yield.ctx.thread": 1.2})
    cmp = compare.compare_runs([base, slowed], cat)
    (row, i, stat), = cmp.regressions()
    assert (row.id, i, stat) == ("sched.yield.ctx.thread", 1, "p50")
    p50 = row.cells[1].changes["p50"]
    assert p50.change_pct == pytest.approx(20, abs=3) and p50.p_value < 0.001
    assert p50.why == "20 vs 20 blocks"
    by_id = {r.id: r.cells[1].changes["p50"] for r in cmp.rows}
    assert by_id["method.null"].verdict == "same"
    store(isolated / "r.db", base)
    store(isolated / "r.db", slowed)
    assert main(["compare", "1", "2", "--db", "r.db", "--fail-on-regression"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("rtbench: regression: sched.yield.ctx.thread [rt] run 2: median")
    assert err.count("rtbench: regression:") == 1


def test_slow_host_blocks_are_left_out_of_the_test(cat):
    """Half of the second run's blocks ran during a host episode (+40 %):
    with the canary marking them, the test rests on the other blocks and
    reports no regression; with the canary blind to it, the same figures
    are a regression (the control: the blocks alone tell nothing apart)."""
    base = _blocked_run(1, 1)
    marked = _blocked_run(2, 2, episodes=set(range(0, 20, 2)))
    cmp = compare.compare_runs([base, marked], cat)
    assert cmp.regressions() == []
    p50 = next(r for r in cmp.rows if r.id == "sched.yield.ctx.thread").cells[1]
    assert p50.slow_blocks == 10 and p50.changes["p50"].change_pct > 5
    assert p50.changes["p50"].verdict == "not significant" and p50.changes["p50"].p_value > 0.1
    assert "10 slow-host left out" in p50.changes["p50"].why  # the verdict says what it rests on
    blind = _blocked_run(2, 2, episodes=set(range(0, 20, 2)), marked=False)
    flagged = {r.id for r, _i, _s in compare.compare_runs([base, blind], cat).regressions()}
    assert "sched.yield.ctx.thread" in flagged


def test_five_blocks_can_never_be_significant(cat):
    """Five blocks a run (what --quick used to cut): at p < 0.01 no change can be
    shown on 5 vs 5 block medians (the smallest p is 0.012), so a doubled
    median reads "not significant"; 6 blocks each (--quick now) can show it
    when it is the only metric compared, and not over four (Holm: 4 × 0.005)."""
    slow = {"sched.yield.ctx.thread": 2.0}
    alone = ["sched.yield.ctx.thread"]
    five = compare.compare_runs([_blocked_run(1, 1, nblocks=5, only=alone),
                                 _blocked_run(2, 2, nblocks=5, slow=slow, only=alone)], cat)
    p50 = next(r for r in five.rows if r.id == "sched.yield.ctx.thread").cells[1].changes["p50"]
    assert p50.verdict == "not significant" and p50.p_value == pytest.approx(0.012, abs=1e-3)
    six = compare.compare_runs([_blocked_run(1, 1, nblocks=6, only=alone),
                                _blocked_run(2, 2, nblocks=6, slow=slow, only=alone)], cat)
    p50 = next(r for r in six.rows if r.id == "sched.yield.ctx.thread").cells[1].changes["p50"]
    assert p50.verdict == "slower"
    four = compare.compare_runs([_blocked_run(1, 1, nblocks=6),
                                 _blocked_run(2, 2, nblocks=6, slow=slow)], cat)
    p50 = next(r for r in four.rows if r.id == "sched.yield.ctx.thread").cells[1].changes["p50"]
    assert p50.verdict == "not significant" and p50.p_value < 0.01
    assert "after Holm's correction over 4 tests" in p50.why


def test_holm_keeps_the_gate_over_many_metrics_at_alpha():
    """370 metrics compared: a p of 0.001 is what one metric in a thousand
    gives by chance, so over 370 it is not a finding; 1e-8 (blocks that do
    not overlap) still is."""
    changes = [compare.StatChange("p50", 100.0, 120.0, 20.0, p, verdict="slower", why="20 vs 20 blocks")
               for p in [1e-8, 0.001] + [0.5] * 368]
    compare.holm(changes)
    assert changes[0].verdict == "slower" and changes[0].p_adjusted == pytest.approx(3.7e-6)
    assert changes[1].verdict == "not significant"
    assert changes[1].why.startswith("p = 0.001, 0.37 after Holm's correction over 370 tests")
    assert changes[1].why.endswith("20 vs 20 blocks")  # what it rests on is kept
    assert all(c.p_adjusted == 1.0 for c in changes[2:])
    one = [compare.StatChange("p50", 100.0, 120.0, 20.0, 0.005, verdict="slower")]
    compare.holm(one)
    assert one[0].verdict == "slower"  # one test: nothing to correct


def test_the_max_is_corrected_over_the_metrics_like_the_median(cat):
    """The max is tested on the blocks' maxima, so it is a test among the
    comparison's many: Holm corrects it like the others. A max slower in
    every block of one metric among four, 6 blocks against 6 (p ≈ 0.004
    alone), is not significant once corrected over the four."""
    base = _blocked_run(1, 1, nblocks=6)
    slowed = _blocked_run(2, 2, nblocks=6)
    rec = next(m for m in slowed.metrics if m["id"] == "sched.yield.ctx.thread")
    for b in rec["blocks"]:
        b["max"] *= 50  # every block's worst sample far beyond the first run's
    rec["max"] *= 50
    cmp = compare.compare_runs([base, slowed], cat)
    mx = next(r for r in cmp.rows if r.id == "sched.yield.ctx.thread").cells[1].changes["max"]
    assert mx.p_value < 0.01 and mx.p_adjusted > 0.01 and mx.verdict == "not significant", mx
    assert "after Holm's correction over 4 tests" in mx.why


def test_a_shift_no_larger_than_the_clocks_step_and_calibration_is_no_change(cat):
    """Every figure of a run is net of its own subtracted overhead; where two
    runs subtracted overheads 40 ticks apart and read their clock in steps of
    up to 30, an empty interval 45 ticks lower in every block is theirs, not
    the operation's ("same"); 200 ticks lower is a change (CI: method.null
    "faster" by 4 ticks between two identical runs)."""
    def shifted(run_id, seed, by, overhead):
        r = _blocked_run(run_id, seed, only={"method.null", "sched.yield.ctx.thread"})
        r.session["ts"].update(step=30, overhead=overhead)
        rec = next(m for m in r.metrics if m["id"] == "method.null")
        for blk in rec["blocks"]:
            for k in ("p50", "p99", "p999", "max", "min"):
                blk[k] = blk[k] - by
        rec["p50"] -= by
        return r
    base = shifted(1, 1, 0, 60)
    for by, verdict in ((45, "same"), (200, "faster")):
        cmp = compare.compare_runs([base, shifted(2, 2, by, 100)], cat)
        p50 = next(r for r in cmp.rows if r.id == "method.null").cells[1].changes["p50"]
        assert p50.verdict == verdict, (by, p50)
    assert "within the counter's resolution" in compare.compare_runs(
        [base, shifted(2, 2, 45, 100)], cat).rows[0].cells[1].changes["p50"].why


def test_compare_says_when_the_host_itself_ran_slower(cat):
    """The canary, the same fixed work in both runs, took 20 % longer in the
    second: compare says so beside its verdicts (and only then)."""
    same = compare.compare_runs([_blocked_run(1, 1), _blocked_run(2, 2)], cat)
    assert not any("the host ran" in w for w in same.warnings)
    slower = compare.compare_runs([_blocked_run(1, 1), _blocked_run(2, 2, canary=12000)], cat)
    said = [w for w in slower.warnings if "the host ran" in w]
    assert len(said) == 1 and said[0].startswith("the host ran slower in run 2 than in run 1")
    assert "(+20 %)" in said[0]


# ---- real runs ----

ONLY = "method.*,sched.yield.ctx.thread,sem.give.no_waiter"
SLOWED = "sched.yield.ctx.thread"
SPIN_NS = 3000
RUN = ["run", "--only", ONLY, "--samples", "2000", "--warmup", "50", "--budget-ms", "1000",
       "--blocks", "20", "--no-programs"]


@pytest.fixture(scope="module")
def runs(real_cache, tmp_path_factory):
    """Real runs: run 1 plain, run 2 with the busy-wait in SLOWED, run 3 plain again
    (so the identical runs 1 and 3 have another run between them)."""
    home = tmp_path_factory.mktemp("replicates")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(real_cache))
        mp.setenv("XDG_DATA_HOME", str(home / "xdg-data"))
        mp.setenv("RTBENCH_NO_TUNE", "1")
        for var in ("RTBENCH_HARNESS", "RTBENCH_HARNESS_SRC", "RTBENCH_INJECT_FAULT"):
            mp.delenv(var, raising=False)
        mp.chdir(home)
        db = home / "r.db"
        assert main([*RUN, "--db", str(db), "--out", "a"]) == 0
        mp.setenv("RTBENCH_INJECT_FAULT", f"slow:{SLOWED}:{SPIN_NS}")
        assert main([*RUN, "--db", str(db), "--out", "b"]) == 0
        mp.delenv("RTBENCH_INJECT_FAULT")
        assert main([*RUN, "--db", str(db), "--out", "c"]) == 0
    return db


def _compare(db, capsys, *args):
    """(exit code, the JSON comparison, stderr) of `compare ARGS`."""
    capsys.readouterr()
    code = main(["compare", *args, "--db", str(db), "--fail-on-regression"])
    text = capsys.readouterr()
    main(["compare", *args, "--db", str(db), "--format", "json"])
    data = json.loads(capsys.readouterr().out)["detail"]  # the run comparison's model
    return code, data, text


def _p50(data, mid):
    row = next(r for r in data["rows"] if r["id"] == mid)
    return row["cells"][1]["changes"]["p50"]


@real_harness
def test_identical_real_runs_pass_the_gate_where_the_host_does_not_decide(runs, capsys):
    """Runs 1 and 3: the rows that do not depend on the host's state (a
    calibrated 50 µs busy-wait, the empty interval below the counter's
    resolution) are the same, and every verdict rests on the blocks (the
    context switch's own verdict follows the host: see the module's
    docstring). Every block of a metric times the same batch (the first
    block's clock step, --step), so none is left out and every verdict has
    its 20 blocks."""
    _code, data, text = _compare(runs, capsys, "1", "3")
    for mid in ("method.null", "method.busywait"):
        assert _p50(data, mid)["verdict"] in UNCHANGED, (mid, _p50(data, mid))
    for row in data["rows"]:
        assert row["cells"][1]["status"] == "ok", row
        p50 = row["cells"][1]["changes"]["p50"]
        assert "samples tested" not in p50["why"], (row["id"], p50)  # on the blocks


@real_harness
def test_an_injected_busy_wait_is_reported(runs, capsys):
    code, data, text = _compare(runs, capsys, "1", "2")
    slowed = _p50(data, SLOWED)
    assert slowed["verdict"] == "slower", slowed
    assert slowed["p_value"] < 0.01 and BLOCKS_WHY.match(slowed["why"]), slowed
    # the absolute change is about the busy-wait (the host moves the rest)
    assert slowed["value"] - slowed["base"] > SPIN_NS * 0.5
    assert code == 1
    assert f"rtbench: regression: {SLOWED} [rt] run 2: median" in text.err
    # the metrics the hook does not touch are not reported
    for mid in ("method.null", "method.busywait"):
        assert _p50(data, mid)["verdict"] in UNCHANGED, (mid, _p50(data, mid))
        assert f"regression: {mid} " not in text.err
    # and the slowed run against the later plain run: faster
    _code, back, _text = _compare(runs, capsys, "2", "3")
    assert _p50(back, SLOWED)["verdict"] == "faster"


@real_harness
def test_the_busy_wait_is_in_every_block(runs):
    """The hook is passed to every pass, so every block of the slowed run
    is slower than the plain runs' typical block (no block escaped it)."""
    from rtbench.store.db import Store

    with Store(runs) as s:
        recs = {rid: {m["id"]: m for m in s.get_run(rid).metrics} for rid in (1, 2, 3)}
    slow = sorted(b["p50"] for b in recs[2][SLOWED]["blocks"])
    plain = sorted(b["p50"] for rid in (1, 3) for b in recs[rid][SLOWED]["blocks"])
    blocks = int(RUN[RUN.index("--blocks") + 1])
    assert len(slow) == blocks and len(plain) == 2 * blocks
    hz = recs[2][SLOWED]["tick_hz"]
    assert (slow[0] - plain[blocks]) * 1e9 / hz > SPIN_NS * 0.5


@pytest.fixture
def signals_run(real_cache, isolated, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(real_cache))
    assert main(["run", "--only", "xsig.*,irq.*", "--quick", "--no-programs", "--db", "r.db",
                 "--out", "o"]) == 0
    return isolated / "r.db"


@real_harness
def test_reference_sheet_sets_no_signal_row_beside_an_interrupt_row(signals_run, capsys):
    cat = catalog.load()
    xsig = [m for m in cat.metrics if m.id.startswith("xsig.")]
    assert xsig and all(not m.vendor for m in xsig)  # the catalogue claims no vendor row
    capsys.readouterr()
    assert main(["compare", "latest", "--ref", "vxworks", "--db", str(signals_run),
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)["detail"]
    ids = {r["id"] for r in data["rows"]}
    assert not any(i.startswith("xsig.") for i in ids), ids
    irq = [r for r in data["rows"] if r["id"].startswith("irq.")]
    assert irq, "the vendor's interrupt rows are claimed by the irq.* metrics"
    for r in irq:  # ... which Linux user space does not have
        assert r["ours_status"] == "unsupported" and r["ours_ns"] is None, r
        assert all(c is None or not c.get("ratio_time") for c in r["cells"]), r
    ours = {mid for mid, _profile, _title in data["ours_only"]}
    results = json.loads((signals_run.parent / "o" / "results.json").read_text())
    measured = {m["id"] for m in results["metrics"] if m["status"] == "ok"}
    assert {m.id for m in xsig} & measured <= ours  # measured signal rows stand alone
    # the text rendering: the interrupt rows read unsupported, no xsig row among them
    assert main(["compare", "latest", "--ref", "vxworks", "--db", str(signals_run)]) == 0
    out = capsys.readouterr().out
    for line in out.splitlines():
        if "Interrupt response" in line and "│" in line:
            assert "xsig" not in line and "unsupported" in line, line
