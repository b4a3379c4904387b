"""The cycle model against a cycle counter (sheets/calibration.py): an
emulated run's estimated cycles beside a run of the same image counted in
core cycles on a chip, model ÷ measured per row, in `compare` and on the
emulated run's sheet.

No chip is attached here, so the counted run is made from a real emulated
run's own records: the same image (sha256), every figure in `cycles` at a
known factor of the model's median — the arithmetic and the pairing are
what these tests check, never a figure of a chip."""

from __future__ import annotations

import copy
import json
import uuid
from pathlib import Path

import jsonschema
import pytest

from rtbench.cli import main
from rtbench.sheets import calibration
from rtbench.store.db import Run, Store



SCHEMA = Path(__file__).parent.parent / "docs" / "compare-schema.json"


def run_of(rid: int, host: dict, metrics: list[dict]) -> Run:
    return Run(rid, f"u{rid}", "now", "now", "complete", "", [], host, None, metrics)


EMU = {"target_kind": "emulator", "image_sha256": "ab" * 32}
CHIP = {"target_kind": "board", "image_sha256": "ab" * 32, "board": "Nucleo-F446RE",
        "counter": "DWT CYCCNT"}


def estimated(mid: str, ins: int, est: int, lo: int, hi: int) -> dict:
    return {"id": mid, "profile": "rt", "status": "ok", "unit": "instructions", "p50": ins,
            "cycles": {"status": "ok", "p50": est, "p50_lo": lo, "p50_hi": hi, "hz": 16e6,
                       "label": "est. cycles: …", "unit": "est. cycles"}}


def counted(mid: str, cyc: int, ops: int = 1) -> dict:
    return {"id": mid, "profile": "rt", "status": "ok", "unit": "cycles", "tick_hz": 16e6,
            "p50": cyc, "ops": ops}


def test_model_over_measured_per_row_with_the_models_range():
    emu = run_of(1, EMU, [estimated("a", 50, 100, 90, 120), estimated("b", 10, 30, 28, 34),
                          estimated("c", 5, 20, 20, 22)])
    chip = run_of(2, CHIP, [counted("a", 125), counted("b", 30), counted("c", 40, ops=8)])
    cal = calibration.pair([chip, emu])  # either order
    assert cal is not None and cal.emulated is emu and cal.measured is chip
    a, b = cal.rows
    assert (a.id, a.ratio, a.covered) == ("a", 0.8, False)  # 125 lies above [90, 120]
    assert (b.ratio, b.covered) == (1.0, True)
    assert cal.geomean == pytest.approx(0.8 ** 0.5)
    assert cal.covered == 1 and cal.same_image
    assert cal.left_out == [("c", "1 calls per window emulated, 8 measured")]
    row = calibration.table(cal).rows[0]
    assert row[3:5] == ["125", "×0.80 [0.72, 0.96]"]


def test_only_an_estimate_and_a_chips_count_make_a_calibration():
    emu = run_of(1, EMU, [estimated("a", 50, 100, 90, 120)])
    qemu_tim2 = run_of(2, EMU | {"image_sha256": "cd" * 32},
                       [counted("a", 125)])  # an emulator's count is no chip's
    assert calibration.pair([emu, qemu_tim2]) is None
    assert calibration.pair([emu, run_of(3, EMU, [estimated("a", 50, 100, 90, 120)])]) is None
    other = calibration.pair([emu, run_of(4, CHIP | {"image_sha256": "ef" * 32},
                                         [counted("a", 125)])])
    assert other is not None and not other.same_image
    assert "calibrates nothing" in calibration.summary(other)


@pytest.fixture
def pair_of_runs(isolated, board_cache, board_runs):
    """A real FreeRTOS AN385 run (the model's estimates) and its twin
    counted in cycles: every median 1.25 × the model's (a chip that spends
    a quarter more than zero wait states), as if imported from a lab."""
    env = board_runs("freertos")[0]
    assert len(env["host"]["image_sha256"]) == 64
    chip = copy.deepcopy(env)
    chip["run"]["uuid"] = str(uuid.uuid4())
    chip["host"] |= {"target_kind": "board", "board": "a Cortex-M3 with DWT",
                     "counter": "DWT CYCCNT"}
    for rec in chip["metrics"]:
        c = rec.pop("cycles", None)
        if rec.get("status") == "ok" and c and c.get("status") == "ok":
            scaled = {s: round(c[s] * 1.25) for s in ("min", "p50", "p90", "p99", "p999", "max")}
            rec |= scaled | {"unit": "cycles", "tick_hz": 25e6, "mean": c["mean"] * 1.25}
            rec.pop("hist", None)
            rec.pop("blocks", None)
    with Store(isolated / "r.db") as store:
        store.import_run(env, "emulated", "now")
        store.import_run(chip, "chip", "now")
    return env


def test_compare_and_the_emulated_sheet_show_the_calibration(pair_of_runs, capsys):
    ok = [m for m in pair_of_runs["metrics"] if (m.get("cycles") or {}).get("status") == "ok"
          and m["cycles"]["p50"] > 0]  # method.null: 0 cycles take no ratio
    assert main(["compare", "1", "2", "--db", "r.db", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    cal = doc["calibration"]
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
    assert cal["same_image"] and len(cal["rows"]) == len(ok), cal["left_out"]
    assert {"id": "method.null", "why": "a measured median of 0 cycles takes no ratio"} in \
        cal["left_out"]
    for row in cal["rows"]:
        assert row["model_over_measured"] == pytest.approx(
            row["est_cycles"] / row["measured_cycles"])
        assert row["model_over_measured"] == pytest.approx(0.8, abs=0.2)  # rounding of few cycles
    assert main(["compare", "1", "2", "--db", "r.db"]) == 0
    assert "The cycle model against measured cycles" in capsys.readouterr().out
    assert main(["report", "1", "--db", "r.db"]) == 0
    sheet = capsys.readouterr().out
    assert "## The cycle model against measured cycles: run 1" in sheet
    assert "| `sched.yield.ctx.thread` |" in sheet
    assert main(["show", "1", "--db", "r.db", "--format", "text", "--width", "200"]) == 0
    assert "The cycle model against measured cycles: run 1" in capsys.readouterr().out
    assert main(["report", "1", "--db", "r.db", "--format", "html"]) == 0
    assert 'id="calibration"' in capsys.readouterr().out
    assert main(["report", "2", "--db", "r.db"]) == 0  # the chip's own sheet: no model to calibrate
    assert "cycle model against measured" not in capsys.readouterr().out
