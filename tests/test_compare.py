"""`rtbench compare`: run against run (significance, thresholds, CI exit
code) and run against a vendor's published sheet."""

import json

import numpy as np
import pytest

from rtbench import catalog, compare, reference
from rtbench.cli import main
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
    (row, i), = cmp.regressions()
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
    regressed = {(r.id, r.profile) for r, _i in cmp.regressions()}
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
    assert err.startswith("rtbench: regression: msgq.send.wake_ctx.thread [rt] run 2:")
    assert err.count("\n") == 1
    assert main(["compare", "1", "2", "--db", "r.db", "--fail-on-regression",
                 "--threshold", "40"]) == 0
    capsys.readouterr()
    assert main(["compare", "1", "2", "--db", "r.db", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["threshold_pct"] == 5.0 and [r["id"] for r in data["runs"]] == [1, 2]
    for fmt, marker in (("md", "| metric |"), ("html", "<table>")):
        assert main(["compare", "1", "2", "--db", "r.db", "--format", fmt]) == 0
        assert marker in capsys.readouterr().out


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
    for name in ("dspbios", "vxworks", "zephyr", "amx", "ti-am654x"):
        assert name in out
    assert main(["reference", "list", "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert ("| vxworks | VxWorks 6.8 Benchmark Data Sheet | wrSbc8560 MPC8560 | 600 MHz | us "
            "| 211 | Wind River: VxWorks Benchmark Data Sheet, VxWorks 6.8 (seed "
            "001_bb873d1024e26479.txt) |") in md
    assert "| dspbios |" in md and "| not stated | instructions/tick, cycles |" in md
