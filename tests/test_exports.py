"""Exports beyond `report`: `compare` (every mode), `history` and `hist`
as CSV (and `hist` as JSON) through the same `-o FILE` suffix and
`--format` as `report`, every figure with its unit stated (a time in ns,
counter ticks never called cycles, a board's instructions, the cycle
model's figures as an estimate)."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

import synth
from rtbench.cli import main
from test_compare import _run
from test_compare_schema import _valid
from test_cycles_sheets import LABEL, board_runs
from test_kernel_sheet import two_kernels

SLOW = {"msgq.send.wake_ctx.thread": 1.25}


def _csv(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_compare_writes_csv_in_every_mode_one_line_per_statistic(isolated, capsys):
    synth.store("r.db", _run(1, seed=1))
    synth.store("r.db", _run(2, SLOW, seed=2))
    assert main(["compare", "1", "2", "--db", "r.db", "-o", "c.csv"]) == 0
    rows = _csv((isolated / "c.csv").read_text())
    assert capsys.readouterr().err.splitlines()[-1].startswith("Summary: run 2 vs run 1")
    slow = [r for r in rows if r["metric_id"] == "msgq.send.wake_ctx.thread"]
    assert {(r["source"], r["statistic"]) for r in slow} == {
        (s, st) for s in ("run 1", "run 2") for st in ("p50", "p99", "p999", "max", "mean")}
    med = next(r for r in slow if r["source"] == "run 2" and r["statistic"] == "p50")
    assert med["unit"] == "ns" and med["verdict"] == "slower" and med["against"] == "run 1"
    assert float(med["value"]) == pytest.approx(float(next(
        r for r in slow if r["source"] == "run 1" and r["statistic"] == "p50")["value"]) * (
        1 + float(med["change_pct"]) / 100))
    assert all(r["verdict"] == "" for r in slow if r["source"] == "run 1")  # the baseline
    assert not any("ticks" in r["unit"] or "cycles" in r["unit"] for r in rows)
    # beside a vendor's sheet: its figure in its own unit, its statistic named
    assert main(["compare", "1", "--ref", "dspbios", "--db", "r.db", "--format", "csv"]) == 0
    ref = _csv(capsys.readouterr().out)
    pub = next(r for r in ref if r["source"].startswith("dspbios: ") and r["value"])
    assert pub["unit"] == "cycles" and pub["statistic"] == "path" and pub["mode"] == "reference"


def test_the_kernel_comparison_as_csv_is_in_instructions(isolated, capsys):
    for r in two_kernels():
        synth.store("r.db", r)
    assert main(["compare", "1", "2", "--db", "r.db", "--format", "csv"]) == 0
    rows = _csv(capsys.readouterr().out)
    assert {r["mode"] for r in rows} == {"kernels"}
    ok = [r for r in rows if r["status"] == "ok"]
    assert ok and {r["unit"] for r in ok} == {"instructions"}
    assert {r["source"].split(" (")[0] for r in ok} == {"FreeRTOS V11.3.0", "ThreadX 6.4.2"}


def test_history_as_csv_has_the_reports_columns_one_row_per_run(isolated, capsys):
    synth.store("r.db", _run(1, seed=1))
    synth.store("r.db", _run(2, SLOW, seed=2))
    assert main(["history", "msgq.send.wake_ctx.thread", "--db", "r.db", "-o", "h.csv"]) == 0
    rows = _csv((isolated / "h.csv").read_text())
    assert [r["run_id"] for r in rows] == ["1", "2"]
    assert rows[0]["target"] == "host" and rows[0]["run_origin"] == "measured"
    assert rows[0]["unit"] == "ticks" and "p50_cycles" not in rows[0]  # ticks, not cycles
    assert float(rows[1]["p50_ns"]) > 1.2 * float(rows[0]["p50_ns"])
    assert main(["history", "msgq.send.wake_ctx.thread", "--db", "r.db", "-o", "h.pdf"]) == 2


def test_hist_as_json_and_csv_holds_every_bucket_and_the_overflow(isolated, capsys):
    synth.store("r.db", _run(1, seed=1))
    args = ["hist", "sem.give.no_waiter", "1", "--db", "r.db", "--buckets", "20"]
    assert main([*args, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    m = data["measured"]
    assert data["schema"] == "rtbench-hist" and m["unit"] in ("ns", "µs")
    assert len(m["buckets"]) == 20 and m["overflow"] > 0
    assert sum(b["count"] for b in m["buckets"]) + m["overflow"] + m["underflow"] == data["n"]
    assert all(b["upper"] - b["lower"] == m["bucket_width"] for b in m["buckets"])
    assert m["overflow_at"] == m["buckets"][-1]["upper"] and data["estimate"] is None
    assert main([*args, "-o", "h.csv"]) == 0
    rows = _csv((isolated / "h.csv").read_text())
    assert [r["kind"] for r in rows] == ["bucket"] * 20 + ["overflow"]
    assert [int(r["count"]) for r in rows] == [b["count"] for b in m["buckets"]] + [m["overflow"]]
    assert main([*args, "-o", "h.md"]) == 2  # a format hist does not write


def test_hist_of_a_board_record_keeps_the_estimate_apart_and_labelled(isolated, capsys):
    run = board_runs()[0]
    synth.store("r.db", run)
    assert main(["hist", "sched.yield.ctx.thread", "--db", "r.db", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["measured"]["unit"] == "instructions" and data["summary"]["p50"] == 100
    est = data["estimate"]
    assert est["series"] == "estimate" and est["unit"] == "est. cycles"
    assert est["label"].startswith(LABEL) and est["summary"]["p50"] == 300
    assert main(["hist", "sched.yield.ctx.thread", "--db", "r.db", "--format", "csv"]) == 0
    rows = _csv(capsys.readouterr().out)
    assert {(r["series"], r["unit"]) for r in rows} == {("measured", "instructions"),
                                                         ("estimate", "est. cycles")}
    assert np.sum([int(r["count"]) for r in rows if r["series"] == "estimate"]) == 500


def test_a_boards_estimated_cycles_are_lines_of_their_own_labelled_as_estimates(isolated,
                                                                                 capsys):
    for r in board_runs():  # FreeRTOS and ThreadX, each record priced by the cycle model
        synth.store("r.db", r)
    assert main(["compare", "1", "2", "--db", "r.db", "--format", "csv"]) == 0
    rows = [r for r in _csv(capsys.readouterr().out) if r["metric_id"] == "sched.yield.ctx.thread"
            and r["statistic"] == "p50"]
    measured = {r["source"].split(" (")[0]: r for r in rows if not r["estimate"]}
    est = {r["source"].split(" (")[0]: r for r in rows if r["estimate"]}
    assert {k: float(r["value"]) for k, r in measured.items()} == {
        "FreeRTOS V11.3.0": 100, "ThreadX 6.4.2": 150}
    assert {k: float(r["value"]) for k, r in est.items()} == {
        "FreeRTOS V11.3.0": 300, "ThreadX 6.4.2": 200}
    assert {r["unit"] for r in measured.values()} == {"instructions"}
    assert {r["unit"] for r in est.values()} == {"est. cycles"}
    assert all(r["estimate"].startswith(LABEL) and not r["verdict"] for r in est.values())
    assert main(["compare", "1", "2", "--db", "r.db", "--format", "json"]) == 0
    doc = _valid(json.loads(capsys.readouterr().out))
    (row,) = [r for r in doc["rows"] if r["metric"] == "sched.yield.ctx.thread"]
    assert [f["unit"] for f in row["figures"]] == ["instructions", "est. cycles"] * 2
