"""`rtbench compare`: run against run (significance, thresholds, CI exit
code) and run against a vendor's published sheet."""

import json

import numpy as np
import pytest

from rtbench import compare
from rtbench.cli import main
from rtbench.store import catalog, reference
from synth import HZ, latency, record, run, store

IDS = ["sem.give.no_waiter", "sem.take.block_ctx.thread", "sem.give.wake_ctx.thread",
       "msgq.send.wake_ctx.thread"]


@pytest.fixture(scope="module")
def cat():
    return catalog.load()


def _run(run_id, scale=None, seed=0, ids=IDS, profiles=("rt",)):
    """Medians 1-4 µs; `scale` multiplies one metric's samples."""
    rng = np.random.default_rng(seed)
    scale = scale or {}
    metrics = [record(mid, latency(rng, (i + 1) * 2600 * scale.get(mid, 1.0)), profile=p)
               for i, mid in enumerate(ids) for p in profiles]
    return run(metrics, run_id=run_id, label=f"r{run_id}")


def test_noise_is_not_a_regression(cat):
    cmp = compare.compare_runs([_run(1, seed=1), _run(2, seed=2)], cat)
    assert cmp.regressions() == []
    verdicts = {r.id: r.cells[1].verdict for r in cmp.rows}
    assert set(verdicts.values()) == {"same"}


def test_slow_down_beyond_threshold_is_a_regression(cat):
    slow = {"sem.give.wake_ctx.thread": 1.2}
    cmp = compare.compare_runs([_run(1, seed=1), _run(2, slow, seed=2)], cat)
    (row, i, stat), = cmp.regressions()
    cell = row.cells[i]
    assert row.id == "sem.give.wake_ctx.thread" and i == 1
    assert cell.change_pct == pytest.approx(20, abs=2) and cell.p_value < 1e-10
    assert compare.compare_runs([_run(1, seed=1), _run(2, slow, seed=2)], cat,
                                threshold_pct=30).regressions() == []


def test_improvement_and_missing_metrics(cat):
    fast = {"sem.take.block_ctx.thread": 0.7}
    cmp = compare.compare_runs([_run(1, seed=1), _run(2, fast, seed=2, ids=IDS[:3]),
                                _run(3, seed=3)], cat)
    by_id = {r.id: r for r in cmp.rows}
    assert by_id["sem.take.block_ctx.thread"].cells[1].verdict == "faster"
    assert by_id["msgq.send.wake_ctx.thread"].cells[1].status == "absent"
    assert by_id["msgq.send.wake_ctx.thread"].cells[1].verdict == "not compared"
    assert len(by_id["sem.give.no_waiter"].cells) == 3


def test_tiny_samples_and_resolution(cat):
    # 10 vs 20 ns: +100 %, but only one counter step (26 ticks = 10 ns).
    a = run([record("sem.give.no_waiter", [26] * 500)], run_id=1)
    b = run([record("sem.give.no_waiter", [52] * 500)], run_id=2)
    (row,) = compare.compare_runs([a, b], cat).rows
    assert row.cells[1].verdict == "same" and "resolution" in row.cells[1].why
    # Each run measures its own counter frequency: one step stays one step.
    b = run([record("sem.give.no_waiter", [52] * 500, hz=HZ - 8000)], run_id=2)
    (row,) = compare.compare_runs([a, b], cat).rows
    assert row.cells[1].verdict == "same" and "resolution" in row.cells[1].why


def test_profiles_are_matched_by_name(cat):
    a = _run(1, seed=1, profiles=("rt", "cold"))
    b = _run(2, {"sem.give.no_waiter": 1.5}, seed=2, profiles=("cold",))
    cmp = compare.compare_runs([a, b], cat)
    keys = [(r.id, r.profile) for r in cmp.rows]
    assert ("sem.give.no_waiter", "cold") in keys and ("sem.give.no_waiter", "rt") in keys
    regressed = {(r.id, r.profile) for r, _i, _s in cmp.regressions()}
    assert regressed == {("sem.give.no_waiter", "cold")}


def test_environment_differences_are_warned(cat):
    a, b = _run(1), _run(2)
    b.host = dict(b.host, cpu_model="Other CPU")
    assert any("different CPU models" in w for w in compare.compare_runs([a, b], cat).warnings)


def test_cli_gate_exit_codes(isolated, capsys):
    store(isolated / "r.db", _run(1, seed=1))
    store(isolated / "r.db", _run(2, {"msgq.send.wake_ctx.thread": 1.25}, seed=2))
    assert main(["compare", "1", "2", "--db", "r.db"]) == 0  # no gate: report only
    out = capsys.readouterr().out
    assert "msgq.send.wake_ctx.thread" in out and "slower" in out
    assert main(["compare", "1", "2", "--db", "r.db", "--fail-on-regression"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("rtbench: regression: msgq.send.wake_ctx.thread [rt] run 2: median")
    assert err.count("rtbench: regression:") == 1
    assert capsys.readouterr  # the summary closes the table on stdout:
    assert main(["compare", "1", "2", "--db", "r.db", "--fail-on-regression"]) == 1
    assert capsys.readouterr().out.rstrip().splitlines()[-1].startswith(
        "Summary: run 2 vs run 1:")
    assert main(["compare", "1", "2", "--db", "r.db", "--fail-on-regression",
                 "--threshold", "40"]) == 0
    capsys.readouterr()
    assert main(["compare", "1", "2", "--db", "r.db", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["threshold_pct"] == 5.0 and [r["id"] for r in data["runs"]] == [1, 2]
    for fmt, marker in (("md", "| metric |"), ("html", "<table class=\"fit\">")):
        assert main(["compare", "1", "2", "--db", "r.db", "--format", fmt]) == 0
        assert marker in capsys.readouterr().out


# ---- the tail: p99, p99.9 and max, each with its own verdict ----

def _tailed(run_id, seed, tail_scale=1.0, n=20000):
    """sem.give.wake_ctx.thread around 2.6 µs; `tail_scale` stretches the
    slowest 2 % of its samples (the body, and so the median, stays)."""
    rng = np.random.default_rng(seed)
    x = np.sort(rng.lognormal(np.log(6760), 0.03, n))  # ticks at 2.6 GHz: 2.6 µs
    k = n // 50
    x[-k:] = x[-k:] * tail_scale
    x[-1] = 13_520 if tail_scale == 1.0 else 160_940  # max 5.2 µs -> 61.9 µs
    return run([record("sem.give.wake_ctx.thread", np.round(x))], run_id=run_id)


def test_tail_regression_the_median_hides(cat):
    cmp = compare.compare_runs([_tailed(1, 1), _tailed(2, 2, tail_scale=1.6)], cat)
    (row,) = cmp.rows
    ch = row.cells[1].changes
    assert ch["p50"].verdict == "same" and abs(ch["p50"].change_pct) < 1
    assert ch["p99"].verdict == "slower" and ch["p99"].change_pct > 25
    assert ch["p99"].p_value < 1e-10  # the share beyond the first run's p99: tested
    assert ch["max"].verdict == "slower" and ch["max"].p_value is None  # one sample: no test
    assert ch["max"].base == pytest.approx(5200, rel=0.01)
    assert ch["max"].value == pytest.approx(61900, rel=0.01)
    assert cmp.regressions(("p50",)) == []
    # a gate fails only on what a test backs: the untested max is said, not gated
    every = ("p50", "p99", "p999", "max")
    assert {s for _r, _i, s in cmp.regressions(every)} == {"p99", "p999"}
    assert {s for _r, _i, s in cmp.untested(every)} == {"max"}


def test_same_is_never_said_of_a_tail_beyond_the_threshold(cat):
    """Two runs of one set-up: whatever moved beyond the threshold is
    slower, faster or not significant, never "same"."""
    cmp = compare.compare_runs([_run(1, seed=1), _run(2, seed=2)], cat)
    moved = [ch for r in cmp.rows for ch in r.cells[1].changes.values()
             if ch.change_pct is not None and abs(ch.change_pct) > cmp.threshold_pct
             and abs(ch.value - ch.base) > 10.001]  # beyond one counter step (26 ticks)
    assert moved and all(ch.verdict != "same" for ch in moved)
    assert {ch.verdict for ch in moved} <= {"slower", "faster", "not significant"}


def test_cli_fail_on_max_gates_a_tail_regression(isolated, capsys):
    store(isolated / "r.db", _tailed(1, 1))
    store(isolated / "r.db", _tailed(2, 2, tail_scale=1.6))
    assert main(["compare", "1", "2", "--db", "r.db", "--fail-on-regression"]) == 0
    out = capsys.readouterr().out
    # the table's row (the verdict, above the table, names it first)
    row = next(line for line in out.splitlines() if "sem.give.wake_ctx.thread" in line
               and "│" in line)
    assert "slower" in row and "same" not in row  # the tail moved: said on the row
    assert out.rstrip().splitlines()[-1].startswith("Summary: run 2 vs run 1: 1 metrics "
                                                    "compared; median no change; p99 1 slower")
    assert "gate (p50): pass" in out
    # the max of runs without blocks is one sample each: said, never gated
    assert main(["compare", "1", "2", "--db", "r.db", "--fail-on", "max"]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith("rtbench: not gated (no test): sem.give.wake_ctx.thread "
                                   "[rt] run 2: max 5.2 µs → 61.9 µs (+")
    assert "gate (max): pass, 1 slower without a test, not gated" in captured.out
    assert main(["compare", "1", "2", "--db", "r.db", "--fail-on", "p50,p99,max"]) == 1
    err = capsys.readouterr().err
    assert err.count("rtbench: regression:") == 1 and err.count("not gated (no test)") == 1
    assert main(["compare", "1", "2", "--db", "r.db", "--fail-on", "p95"]) == 2
    assert "unknown statistic 'p95'" in capsys.readouterr().err
    # JSON: every statistic's verdict, the summary and the gate
    assert main(["compare", "1", "2", "--db", "r.db", "--format", "json", "--fail-on",
                 "p99.9"]) == 1
    data = json.loads(capsys.readouterr().out)
    changes = data["detail"]["rows"][0]["cells"][1]["changes"]
    assert set(changes) == {"p50", "p99", "p999", "max"} and data["fail_on"] == ["p999"]
    assert changes["p999"]["verdict"] == "slower" and "samples" not in data
    # HTML: the two runs' distributions overlaid, the verdicts under the plot
    assert main(["compare", "1", "2", "--db", "r.db", "--format", "html"]) == 0
    html = capsys.readouterr().out
    plot = html[html.index('<figure id="d-sem.give.wake_ctx.thread-rt">'):]
    plot = plot[:plot.index("</figure>")]
    assert plot.count("<svg") == 1 and "#0072b2" in plot and "#e69f00" in plot
    assert "p99 +" in plot and "% slower" in plot


def test_cli_absolute_limits(isolated, capsys, tmp_path):
    store(isolated / "r.db", _tailed(1, 1))
    store(isolated / "r.db", _tailed(2, 2, tail_scale=1.6))
    # one run against a budget (the later runs are checked; one run alone is)
    assert main(["compare", "1", "--db", "r.db", "--limit", "sem.give.wake_ctx.thread<=10us"]) == 0
    assert "limits: 0 exceeded of 1 checked" in capsys.readouterr().out
    assert main(["compare", "1", "2", "--db", "r.db", "--limit",
                 "sem.give.wake_ctx.thread <= 10 us", "--limit", "sem.*:p99<=5us"]) == 1
    captured = capsys.readouterr()
    assert ("rtbench: limit exceeded: sem.give.wake_ctx.thread <= 10 us: "
            "sem.give.wake_ctx.thread [rt] run 2: 61.9 µs") in captured.err
    assert "limits: 1 exceeded of 2 checked" in captured.out
    # a limits file: every target, and a board's section that a host run skips
    f = tmp_path / "limits.toml"
    f.write_text('[limits]\n"sem.give.*" = ["p99 <= 5us", "max<=100us"]\n'
                 '[target.mps2-an385.limits]\n"sem.give.*" = "max <= 300 instructions"\n')
    assert main(["compare", "1", "2", "--db", "r.db", "--limits", str(f)]) == 0
    assert "limits: 0 exceeded of 2 checked" in capsys.readouterr().out
    for bad, why in (("irq.respons<=1us", "did you mean irq.response"),
                     ("irq.response<=1", "write METRIC[:STAT]<=VALUE UNIT"),
                     ("irq.response:p95<=1us", "unknown statistic 'p95'"),
                     ("irq.response<=1 furlongs", "unknown unit 'furlongs'")):
        assert main(["compare", "1", "--db", "r.db", "--limit", bad]) == 2
        assert why in capsys.readouterr().err


def test_a_limit_in_time_does_not_apply_to_a_count_run(cat):
    counts = run([{**record("sem.give.wake_ctx.thread", [222] * 50), "unit": "instructions"}])
    lim = compare.parse_limit("sem.give.wake_ctx.thread<=1us")
    (check,) = compare.check_limit(lim, counts)
    assert check.passed is None and "instructions" in check.why
    lim = compare.parse_limit("sem.give.wake_ctx.thread<=200instructions")
    (check,) = compare.check_limit(lim, counts)
    assert check.passed is False and check.value == 222


# ---- against a reference sheet ----

def test_vxworks_columns_ratios_and_unmatched_rows(cat):
    r = _run(1)
    cmp = compare.compare_reference(r, reference.get("vxworks"), cat)
    assert cmp.columns == ["kernel / Default Build", "kernel / Maximal Performance",
                           "user / Default Build"]
    row = next(x for x in cmp.rows if x.key == "Task blocked by unavailable semaphore")
    cell = row.cells[0]
    assert cell.figures == [("1.40", "us")] and cell.cycles == pytest.approx(840)
    assert cell.ratio_cycles == pytest.approx(row.ours_cycles / 840)
    assert cell.ratio_time == pytest.approx(row.ours_ns / 1400)
    assert row.ours_cycles == pytest.approx(row.ours_ns * HZ / 1e9, rel=1e-9)
    # A user-mode row is claimed by the .thread metric too, in its own column.
    assert any(x.key.endswith("/ Within an RTP") and x.cells[2] for x in cmp.rows)
    why = dict(cmp.published_only)
    assert why["Interrupt response"].startswith("claimed by irq.response")
    assert ("sem.give.no_waiter", "rt", "Semaphore give, no task waiting") not in cmp.ours_only


def test_dspbios_has_no_clock_and_zephyr_has_both_units(cat):
    r = _run(1)
    dsp = compare.compare_reference(r, reference.get("dspbios"), cat)
    cell = next(c for x in dsp.rows for c in x.cells if c)
    assert cell.time_ns is None and cell.ratio_time is None and cell.ratio_cycles
    why = dict(dsp.published_only)
    assert why["Instructions per timer tick"].startswith("not applicable")
    zep = compare.compare_reference(r, reference.get("zephyr"), cat)
    cell = next(c for x in zep.rows for c in x.cells if c)
    assert {u for _v, u in cell.figures} == {"cycles", "ns"}
    assert cell.ratio_time and cell.ratio_cycles


def test_cli_reference_sheet_and_list(isolated, capsys):
    store(isolated / "r.db", _run(1))
    assert main(["compare", "1", "--ref", "dspbios", "--db", "r.db"]) == 0
    out = capsys.readouterr().out
    assert "guide, not a verdict" in out and "Published, not measured by this run" in out
    assert main(["compare", "1", "--ref", "dspbios", "--db", "r.db", "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert "| 393 cycles (clock not stated) → ×" in md
    assert main(["compare", "latest", "--ref", "vxworks", "--db", "r.db", "--format",
                 "html"]) == 0
    html = capsys.readouterr().out
    assert "1.40 us" in html and "kernel / Maximal Performance" in html
    assert main(["reference", "list"]) == 0
    out = capsys.readouterr().out
    for name in ("dspbios", "vxworks", "zephyr", "amx", "ti-am654x", "keil-rtx"):
        assert name in out
    assert main(["reference", "list", "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert ("| vxworks | VxWorks 6.8 Benchmark Data Sheet | wrSbc8560 MPC8560 | 600 MHz | us "
            "| 211 | Wind River: VxWorks Benchmark Data Sheet, VxWorks 6.8 (seed "
            "001_bb873d1024e26479.txt) |") in md
    assert "| dspbios |" in md and "| not stated | instructions/tick, cycles |" in md


# ---- our cycles beside theirs: core cycles where the run measured the core clock ----

CORE_HZ = 3_490_000_000  # the core's clock; the synthetic counter (HZ) is a 2.6 GHz TSC


def _with_core_clock(r, core_hz=CORE_HZ):
    r.session["ts"]["core_hz"] = core_hz
    r.session["ts"]["core_hz_method"] = ("dependent-add chain of 17000000 adds, best of 5, "
                                         "timed by CLOCK_MONOTONIC_RAW")
    return r


def test_reference_cycles_are_core_cycles_when_the_run_measured_the_core_clock(cat):
    r = _with_core_clock(_run(1))
    cmp = compare.compare_reference(r, reference.get("dspbios"), cat)  # theirs: cycles
    row = next(x for x in cmp.rows if x.ours_status == "ok")
    cell = next(c for c in row.cells if c)
    assert {u for _v, u in cell.figures} == {"cycles"}
    assert row.ours_cycles == pytest.approx(row.ours_ns * CORE_HZ / 1e9, rel=1e-9)
    assert cell.ratio_cycles == pytest.approx(row.ours_cycles / cell.cycles)
    assert cmp.our_core_hz == CORE_HZ
    assert cmp.cycles_note.startswith("core cycles: ns × 3.49 GHz")
    assert "dependent-add chain" in cmp.cycles_note


def test_reference_cycles_stay_counter_ticks_without_a_core_clock_and_say_so(cat):
    cmp = compare.compare_reference(_run(1), reference.get("dspbios"), cat)
    row = next(x for x in cmp.rows if x.ours_status == "ok")
    assert row.ours_cycles == pytest.approx(row.ours_ns * HZ / 1e9, rel=1e-9)
    assert cmp.our_core_hz == 0
    assert cmp.cycles_note.startswith("counter ticks at 2.600 GHz, not core cycles")


def test_cli_reference_states_core_cycles(isolated, capsys):
    store(isolated / "r.db", _with_core_clock(_run(1)))
    assert main(["compare", "1", "--ref", "dspbios", "--db", "r.db", "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert "our core cycles" in md and "our ticks" not in md
    assert "core cycles: ns × 3.49 GHz, the core clock ≈ 3.49 GHz (dependent-add chain" in md
    assert main(["compare", "1", "--ref", "dspbios", "--db", "r.db", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["detail"]["our_core_hz"] == CORE_HZ and data["detail"]["cycles_note"].startswith("core cycles")
    store(isolated / "t.db", _run(1))
    assert main(["compare", "1", "--ref", "dspbios", "--db", "t.db"]) == 0
    out = capsys.readouterr().out
    assert "our ticks" in out and "counter ticks at 2.600 GHz, not core cycles" in out


# ---- like with like: the vendor's statistic, no ratio across units ----

def test_a_worst_case_stands_beside_our_max_and_an_average_beside_our_mean(cat):
    from synth import board_run

    r = board_run(["irq.kernel_latency", "sem.give.no_waiter", "sched.yield.ctx.thread"],
                  "freertos")
    dsp = compare.compare_reference(r, reference.get("dspbios"), cat)
    lat = next(x for x in dsp.rows if x.id == "irq.kernel_latency")
    rec = next(m for m in r.metrics if m["id"] == "irq.kernel_latency")
    assert lat.their_stat == "max" and lat.ours_stat == "max"
    assert lat.ours_count == rec["max"]  # the maximum, not the median
    give = next(x for x in dsp.rows if x.id == "sem.give.no_waiter")
    assert give.their_stat == "path" and give.ours_stat == "p50"
    zep = compare.compare_reference(r, reference.get("zephyr"), cat)
    assert {x.ours_stat for x in zep.rows if x.ours_status == "ok"} == {"mean"}
    # instructions beside cycles: no ratio of any kind
    for cmp in (dsp, zep):
        assert all(c.ratio_cycles is None and c.ratio_time is None
                   for x in cmp.rows for c in x.cells if c)


def test_cli_reference_of_a_board_run_pairs_statistics_and_prints_no_ratio(isolated, capsys):
    from synth import board_run

    store(isolated / "r.db", board_run(["irq.kernel_latency", "sem.give.no_waiter"], "freertos"))
    assert main(["compare", "1", "--ref", "dspbios", "--db", "r.db", "--format", "md"]) == 0
    md = capsys.readouterr().out
    row = next(line for line in md.splitlines() if line.startswith("| irq.kernel_latency"))
    assert "| max ~ maximum |" in row and "×" not in row
    assert "×" not in md.split("Published, not measured")[0].split("| metric")[1]
    assert "no ratio" in md and "instr/cyc" not in md


def test_an_import_without_the_published_statistic_gets_no_ratio(cat):
    r = _run(1, ids=["irq.kernel_latency"])
    for m in r.metrics:  # an imported average: no max
        for st in ("max", "p50", "p99"):
            m.pop(st, None)
    cmp = compare.compare_reference(r, reference.get("dspbios"), cat)
    row = cmp.rows[0]
    assert row.ours_stat == "mean" and row.their_stat == "max"
    assert all(c.ratio_cycles is None and c.ratio_time is None for c in row.cells if c)
