"""Estimated cycles beside instructions wherever a board run is shown (the
records' `cycles`, docs/records.md; docs/cycles.md): the data sheet
(Markdown and HTML), the kernel comparison with its verdicts in both units
and where they disagree, `compare` of runs, and the exports; each labelled
with the model's own words, µs at the board's clock. Synthetic runs: the
figures are chosen so that the two units disagree. `rtbench hist` prints
the estimates' histogram after the instructions'."""

import csv
import io
import json

import numpy as np
import pytest

import synth
from rtbench.compare import kernelpage, runs as runs_mod, views
from rtbench.compare import kernels as kernelsheet
from rtbench.sheets import datasheet, export, firstpage, pages
from rtbench.store import catalog
from rtbench.targets import cycles

CAT = catalog.load()
LABEL = ("est. cycles: Cortex-M3 TRM model, zero wait states; [lo, hi] is the model's own "
         "uncertainty, not a spread")


def esc(text: str) -> str:
    """As Markdown shows it (brackets escaped)."""
    return text.replace("[", "\\[").replace("]", "\\]")


def with_cycles(rec: dict, est: int) -> dict:
    """`rec` with every sample priced at `est` cycles (range est-5 .. est+20)."""
    n = rec["n"]
    s = np.zeros(n, cycles.SAMPLE)
    s["est"], s["lo"], s["hi"] = est, est - 5, est + 20
    return {**rec, "cycles": cycles.summary(s, "mps2-an385")}


# (FreeRTOS instructions, cycles), (ThreadX instructions, cycles): FreeRTOS
# runs fewer instructions on the yield, ThreadX fewer cycles.
FIGURES = {"sched.yield.ctx.thread": ((100, 300), (150, 200)),
           "sem.give.no_waiter": ((50, 100), (80, 160))}


def board_runs(priced: bool = True):
    out = []
    for k, kernel in enumerate(("freertos", "threadx")):
        run = synth.board_run([], kernel, run_id=k + 1)
        for mid, per in FIGURES.items():
            ins, est = per[k]
            rec = {**synth.count_record(mid, np.full(500, ins)), "profile": "rt"}
            run.metrics.append(with_cycles(rec, est) if priced else rec)
        out.append(run)
    return out


def test_the_kernel_comparison_gives_its_verdicts_in_both_units_and_where_they_disagree():
    sheet = kernelsheet.build(board_runs(), CAT, {})
    assert sheet.est_label == LABEL
    by_unit = {v.section: v for v in sheet.verdicts}
    est = {v.section: v for v in sheet.est_verdicts}
    assert by_unit["Task context switches"].order[0][0] == "FreeRTOS"
    assert est["Task context switches"].order[0][0] == "ThreadX"
    assert est["Task context switches"].unit == kernelsheet.EST_UNIT
    assert est["Semaphores"].order == [("FreeRTOS", 1.0), ("ThreadX", pytest.approx(1.6))]
    assert any(line.startswith("Task context switches: instructions rank FreeRTOS")
               for line in sheet.disagree)
    assert any("`sched.yield.ctx.thread` (FreeRTOS in instructions, ThreadX in est. cycles)"
               in line for line in sheet.disagree)
    assert not any(line.startswith("Semaphores") for line in sheet.disagree)
    md = kernelpage.render(sheet, "md")
    assert "## Fastest in estimated cycles" in md and "disagree" in md
    assert "est. cycles: Cortex-M3 TRM model, zero wait states" in md
    assert "300 \\[295, 320\\]" in md and "12.00" in md  # 300 cycles at 25 MHz: 12 µs
    html = kernelpage.render(sheet, "html")
    assert "Fastest in estimated cycles" in html and "300 [295, 320]" in html
    text = pages.render(kernelpage.page(sheet), "md")  # the terminal's page
    assert "Fastest in estimated cycles" in text and esc("300 [295, 320]") in text


def test_without_the_model_no_sheet_speaks_of_cycles():
    sheet = kernelsheet.build(board_runs(priced=False), CAT, {})
    assert not sheet.est_verdicts and not sheet.disagree and not sheet.est_label
    assert "est. cycles" not in kernelpage.render(sheet, "md")
    assert "est. cycles" not in datasheet.render_markdown(board_runs(priced=False)[0], CAT)


def test_the_data_sheet_shows_cycles_beside_instructions():
    run = board_runs()[0]
    md = datasheet.render_markdown(run, CAT)
    results = md.split("## Results")[1]
    assert "median est. cycles [lo, hi]" in results and esc(LABEL) in results
    assert "25 MHz" in results
    assert "| 300 \\[295, 320\\] | 300 | 12.00 |" in results
    html = datasheet.render_html(run, CAT)
    assert "median est. cycles [lo, hi]" in html and "300 [295, 320]" in html
    # the first page (on top of the sheet, and the terminal's after a run)
    key = md.split("## Key figures")[1].split("## Results")[0]
    assert "| 300 \\[295, 320\\] | 12.00 |" in key and esc(LABEL) in key
    from rich.console import Console

    console = Console(record=True, width=200)
    firstpage.print_console(firstpage.build(run, CAT), console)
    shown = console.export_text()
    assert "median est. cycles [lo, hi]" in shown and "300 [295, 320]" in shown
    assert LABEL in shown


def test_the_exports_carry_the_cycles():
    run = board_runs()[0]
    data = json.loads(export.to_json(run, CAT))
    export.validate(data)
    rec = next(m for m in data["metrics"] if m["id"] == "sched.yield.ctx.thread")
    assert rec["cycles"]["p50"] == 300 and rec["cycles"]["label"] == LABEL
    rows = {r["metric_id"]: r for r in csv.DictReader(io.StringIO(export.to_csv(run, CAT)))}
    row = rows["sched.yield.ctx.thread"]
    assert (row["p50_value"], row["est_cycles_p50"], row["est_cycles_p50_lo"],
            row["est_cycles_p50_hi"], row["est_us_p50"]) == ("100", "300", "295", "320",
                                                             "12.000")
    assert row["est_cycles_model"] == LABEL


def test_history_sets_the_cycles_beside_each_runs_instructions():
    from rich.console import Console

    from rtbench.sheets import views as sheet_views
    from rtbench.store.db import HistoryPoint

    a, b = board_runs()[0], board_runs(priced=False)[0]
    b.id = 2
    points = [HistoryPoint(r, "rt", next(m for m in r.metrics
                                         if m["id"] == "sched.yield.ctx.thread")) for r in (a, b)]
    page = sheet_views.history("sched.yield.ctx.thread", "Context switch via yield", points,
                               False)
    text = pages.render(page, "md")
    assert esc("median est. cycles [lo, hi]") in text and esc("300 [295, 320]") in text
    assert esc(LABEL) in text and "12.00" in text
    console = Console(record=True, width=250)
    pages.print_rich(page, console)  # the brackets of a header are no terminal markup
    assert "median est. cycles [lo, hi]" in console.export_text()


def test_compare_of_runs_sets_the_cycles_beside_the_median():
    a, b = board_runs()[0], board_runs()[0]
    b.id = 2
    cmp = runs_mod.compare_runs([a, b], CAT)
    text = pages.render(views.run_comparison(cmp), "md")
    row = next(r for r in cmp.rows if r.id == "sched.yield.ctx.thread")
    assert row.cells[0].cycles["p50"] == 300
    assert "100 instr · 300 [295, 320] est. cyc, 12.00 µs" in views._value(row.cells[0], 1.0)
    assert esc(LABEL) in text and esc("300 [295, 320] est. cyc") in text


# ---- rtbench hist: the estimated cycles' histogram after the instructions' ----

def test_hist_prints_the_estimated_cycles_after_the_instructions(capsys):
    from rtbench.cli import main
    from synth import store

    run = board_runs()[0]
    rec = next(m for m in run.metrics if m["id"] == "sched.yield.ctx.thread")
    s = np.zeros(rec["n"], cycles.SAMPLE)  # 400 samples at 300 cycles, 100 at 340
    s["est"], s["lo"], s["hi"] = 300, 280, 330
    s["est"][:100], s["lo"][:100], s["hi"][:100] = 340, 320, 370
    rec["cycles"] = cycles.summary(s, "mps2-an385")
    store("r.db", run)
    assert main(["hist", "sched.yield.ctx.thread", "--db", "r.db"]) == 0
    out = capsys.readouterr().out
    ins, est = out.split("\n\n")
    assert ins.startswith("# rtbench hist sched.yield.ctx.thread, run 1 [rt]: 500 samples")
    assert "# Median: 100 instr" in ins and "est. cycles" not in ins
    lines = est.splitlines()
    assert lines[0].startswith("# est. cycles of the same 500 samples")
    assert lines[1] == f"# {LABEL}. µs at the board's 25 MHz."
    rows = {int(x.split()[0]): int(x.split()[1]) for x in lines if not x.startswith("#")}
    assert rows[300] == 400 and rows[340] == 100 and sum(rows.values()) == 500
    assert "# Median: 300 [280, 330] est. cycles (12.00 µs)" in lines
    assert "# Max: 340 est. cycles (13.60 µs)" in lines
    assert "# Total: 000000500" in lines and "# Histogram Overflows: 000000000" in est
    # --width and --buckets cut both: 20-cycle buckets, the 340s beyond the first one
    assert main(["hist", "sched.yield.ctx.thread", "--db", "r.db", "--width", "20",
                 "--buckets", "1"]) == 0
    est = capsys.readouterr().out.split("\n\n")[1]
    assert "# buckets of 20 est. cycles" in est and "# Histogram Overflows: 000000100" in est


def test_hist_of_a_board_record_without_cycles_says_nothing_is_estimated(capsys):
    from rtbench.cli import main
    from synth import record, run as host_run, store

    unpriced = board_runs(priced=False)[0]
    unpaired = next(m for m in unpriced.metrics if m["id"] == "sem.give.no_waiter")
    unpaired["cycles"] = {"status": "unpaired", "reason": "samples computed from several "
                          "intervals"}
    store("r.db", unpriced)
    assert main(["hist", "sched.yield.ctx.thread", "--db", "r.db"]) == 0
    out = capsys.readouterr().out
    assert "\n\n" not in out and "# Median: 100 instr" in out
    assert out.endswith("# No est. cycles: nothing is estimated for this record; the run was "
                        "made without the cycle model (--no-cycles), or before rtbench had "
                        "one\n")
    assert main(["hist", "sem.give.no_waiter", "--db", "r.db"]) == 0
    assert capsys.readouterr().out.endswith(
        "could not stand beside these: samples computed from several intervals\n")
    # a host's run (a time): nothing of the model, not even its absence
    store("r.db", host_run([record("sem.give.wake_ctx.thread", np.full(50, 6500))], run_id=2))
    assert main(["hist", "sem.give.wake_ctx.thread", "2", "--db", "r.db"]) == 0
    assert "est. cycles" not in capsys.readouterr().out


# ---- compare --ref: the estimate beside a vendor's cycles, model against measurement ----

def _ref(run, name: str):
    from rtbench.compare import vendors
    from rtbench.store import reference

    return vendors.compare_reference(run, reference.get(name), CAT)


def _cell(cmp, mid: str, key: str, column: str):
    row = next(r for r in cmp.rows if r.id == mid and r.key == key)
    return row, row.cells[cmp.columns.index(column)]


def test_ref_sets_the_estimate_beside_a_vendors_cycles_with_the_ranges_ratio():
    cmp = _ref(board_runs()[0], "dspbios")  # cycles, no clock stated; one path: our median
    assert cmp.est_label == LABEL
    row, cell = _cell(cmp, "sem.give.no_waiter", "Post a semaphore, no waiting task",
                      "TMS320C28x (Large)")
    assert (row.est.stat, row.est.cycles, row.est.lo, row.est.hi) == ("p50", 100, 95, 120)
    assert cell.cycles == 52 and cell.time_ns is None
    assert (cell.est_cycles.value, cell.est_cycles.lo, cell.est_cycles.hi) == \
        pytest.approx((100 / 52, 95 / 52, 120 / 52))
    assert cell.est_time is None  # no time of theirs to set µs beside
    # the instructions beside their cycles: still no ratio of any kind
    assert row.ours_count == 50 and cell.ratio_cycles is None and cell.ratio_time is None
    md = pages.render(views.ref_comparison(cmp), "md")
    line = next(x for x in md.splitlines() if x.startswith("| sem.give.no_waiter"))
    assert "| 50 instr | 50 | 100 \\[95, 120\\] (4.000 µs) |" in line
    assert "52 cycles (clock not stated); model ÷ measured ×1.92 \\[1.83, 2.31\\] cyc" in line
    assert line.count("×") == line.count("model ÷ measured ×")  # no ratio of instructions
    assert "our est. cycles \\[lo, hi\\] (a model)" in md and esc(LABEL) in md
    assert "Model against measurement" in md


def test_ref_pairs_the_estimates_statistic_and_converts_at_each_clock():
    run = board_runs()[0]
    amx = _ref(run, "amx")  # averages in µs at 25 MHz: our estimate's mean
    row, cell = _cell(amx, "sched.yield.ctx.thread",
                      "Task switch / instruction and data caches enabled", "MC68EC040 @ 25 MHz")
    assert (row.est.stat, row.est.cycles, row.est.lo, row.est.hi) == ("mean", 300, 295, 320)
    assert cell.cycles == pytest.approx(340)  # 13.6 µs at their 25 MHz
    assert cell.est_cycles.value == pytest.approx(300 / 340)
    # our 300 cycles at the board's 25 MHz are 12 µs: beside their 13.6 µs
    assert (cell.est_time.value, cell.est_time.lo, cell.est_time.hi) == \
        pytest.approx((12 / 13.6, 11.8 / 13.6, 12.8 / 13.6))
    vx = _ref(run, "vxworks")  # µs at 600 MHz, statistic not stated: our median
    row, cell = _cell(vx, "sem.give.no_waiter", "semGive / No tasks in queue / Binary",
                      "kernel / Default Build")
    assert cell.cycles == pytest.approx(0.23 * 600)
    assert cell.est_cycles.value == pytest.approx(100 / 138)
    assert cell.est_time.value == pytest.approx(4.0 / 0.23)  # the two clocks' difference too
    text = pages.render(views.ref_comparison(vx), "md")
    assert "model ÷ measured ×0.72 \\[0.69, 0.87\\] cyc, ×17.39 \\[16.52, 20.87\\] time" in text


def test_ref_gives_the_estimate_no_ratio_where_the_instructions_would_not_have_one():
    run = board_runs()[0]
    give = next(m for m in run.metrics if m["id"] == "sem.give.no_waiter")
    give["unranked"] = "the kernel adds nothing: no kernel instruction runs in the window"
    for m in run.metrics:  # a record stored before the mean's range was: no range to show
        if m["id"] == "sched.yield.ctx.thread":
            m["cycles"] = {k: v for k, v in m["cycles"].items()
                           if k not in ("mean_lo", "mean_hi")}
    cmp = _ref(run, "dspbios")
    row, cell = _cell(cmp, "sem.give.no_waiter", "Post a semaphore, no waiting task",
                      "TMS320C28x (Large)")
    assert row.est.cycles == 100 and cell.est_cycles is None  # shown, never ranked
    amx = _ref(run, "amx")
    row, cell = _cell(amx, "sched.yield.ctx.thread",
                      "Task switch / instruction and data caches enabled", "MC68EC040 @ 25 MHz")
    assert (row.est.lo, cell.est_cycles.lo) == (None, None)
    md = pages.render(views.ref_comparison(amx), "md")
    assert "300 (12.00 µs; no model range stored)" in md and "model ÷ measured ×0.88 cyc" in md


def test_ref_of_a_run_without_the_model_says_nothing_of_it():
    cmp = _ref(board_runs(priced=False)[0], "dspbios")
    assert not cmp.est_label and all(r.est is None for r in cmp.rows)
    assert all(c.est_cycles is None and c.est_time is None for r in cmp.rows for c in r.cells
               if c)
    md = pages.render(views.ref_comparison(cmp), "md")
    assert "est. cycles" not in md and "model ÷ measured" not in md and "×" not in md
