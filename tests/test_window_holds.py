"""A row whose window, on a port, holds no service of the name it carries
(issue 34, item 5): Linux's `task.start.no_ctx.thread` is a sem_post of a
start gate, `task.resume.ready.thread` a flag, `sem.create` a sem_init of
user memory. The port says so (rtb_port_window_holds), the record carries
it (`window_holds`), and a vendor's sheet and the kernel comparison show
the row as not comparable, with what it holds, with no ratio and out of
every verdict. No Python list of names: the text is the harness's."""

import json
import subprocess

import numpy as np
import pytest

import synth
from rtbench.compare import kernelpage
from rtbench.compare import kernels as kernelsheet
from rtbench.compare import compare_reference
from rtbench.compare import views as compare_views
from rtbench.sheets import datasheet, listing
from rtbench.sheets.pages import render
from rtbench.store import catalog, contract, reference
from rtbench.targets import harness
from synth import latency, record, run

CAT = catalog.load()
HOLDS = ("a sem_post of the start gate the created task has not reached yet (it has not "
         "run): a counter in user memory, no kernel call; Linux has no task start")


def _lines(exe, *args) -> list[dict]:
    out = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120,
                         check=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def test_the_linux_port_says_which_windows_hold_no_service_of_their_name(real_exe):
    listed = {r["id"]: r for r in _lines(real_exe, "--list") if r["type"] == "registry"}
    for mid in ("task.start.no_ctx.thread", "task.resume.ready.thread", "sem.create",
                "rmutex.delete", "task.suspend.suspended.thread"):
        assert listed[mid].get("window_holds"), mid
    # the service itself: a kernel call, or a process's kill(2)
    for mid in ("task.create.no_ctx.thread", "task.resume.ready.process",
                "task.resume.suspended.thread", "sem.give.no_waiter", "msgq.create"):
        assert "window_holds" not in listed[mid], mid
    assert listed["task.start.no_ctx.thread"]["window_holds"] == HOLDS
    # the catalogue's listing on this harness says it (`rtbench list`)
    support = harness.registry_support(real_exe)
    assert support["task.start.no_ctx.thread"] == (True, f"not comparable: {HOLDS}")
    assert support["sem.give.no_waiter"] == (True, "")
    assert listing.status(CAT.get("task.start.no_ctx.thread"), support) == \
        f"supported; not comparable: {HOLDS}"
    (rec,) = [r for r in _lines(real_exe, "--only", "task.start.no_ctx.thread",
                                "--samples", "20", "--warmup", "1") if r["type"] == "metric"]
    assert rec["window_holds"] == HOLDS
    contract.check(rec)


def _linux_run():
    rng = np.random.default_rng(5)
    return run([{**record("task.start.no_ctx.thread", latency(rng, 30)), "window_holds": HOLDS},
                record("sem.take.block_ctx.thread", latency(rng, 2600))])


def test_a_vendors_sheet_shows_it_not_comparable_with_what_it_holds_and_no_ratio():
    cmp = compare_reference(_linux_run(), reference.get("vxworks"), CAT)
    start = [r for r in cmp.rows if r.id == "task.start.no_ctx.thread"]
    assert start and all(c is None or (c.ratio_time is None and c.ratio_cycles is None)
                         for r in start for c in r.cells)
    block = next(r for r in cmp.rows if r.id == "sem.take.block_ctx.thread")
    assert any(c is not None and c.ratio_time is not None for c in block.cells)  # the control
    page = compare_views.ref_comparison(cmp)
    for fmt in ("md", "html"):
        text = render(page, fmt).replace("&#39;", "'")
        assert f"not comparable: {HOLDS}" in text
        line = next(ln for ln in text.splitlines() if "taskActivate" in ln and "|" in ln) \
            if fmt == "md" else ""
        assert "×" not in line and ("not comparable" in line or fmt == "html")
    assert "of them not comparable" in compare_views.ref_summary(cmp)


def test_the_data_sheet_says_what_the_window_holds():
    md = datasheet.render_markdown(_linux_run(), CAT)
    line = next(ln for ln in md.splitlines() if "`task.start.no_ctx.thread`" in ln
                and ln.startswith("| Start"))
    assert f"not comparable: the window holds {HOLDS}" in line


def test_the_kernel_comparison_shows_it_not_comparable_and_out_of_the_verdict():
    figures = {"sched.yield.ctx.thread": (np.full(50, 100), np.full(50, 150)),
               "sem.give.wake_ctx.thread": (np.full(50, 300), np.full(50, 200))}
    runs = []
    for k, kernel in enumerate(("freertos", "threadx")):
        r = synth.board_run([], kernel, run_id=k + 1)
        for mid, per_kernel in figures.items():
            rec = {**synth.count_record(mid, per_kernel[k]), "profile": "rt"}
            if k == 0 and mid == "sched.yield.ctx.thread":
                rec["window_holds"] = "a flag in rtbench's port"
            r.metrics.append(rec)
        runs.append(r)
    sheet = kernelsheet.build(runs, CAT, {})
    row = next(r for s in sheet.sections for r in s.rows if r.id == "sched.yield.ctx.thread")
    fr, tx = row.cells
    assert fr.ratio is None and tx.ratio is None and fr.fig("p50") == 100  # shown, not ranked
    assert kernelpage.ratio_text(fr, sheet) == "not comparable"
    assert "FreeRTOS: not comparable: a flag in rtbench's port" in \
        kernelpage.row_note(row, sheet.columns)
    v = next(v for v in sheet.verdicts if v.section == row_section(sheet, row))
    assert v.left_out_unranked == 1
    md = kernelpage.render(sheet, "md")
    assert "not comparable: a flag in rtbench's port" in md


def row_section(sheet, row) -> str:
    return next(s.name for s in sheet.sections if row in s.rows)


@pytest.mark.parametrize("text", ["two\nlines", "x" * 600])
def test_the_contract_holds_it_to_one_sentence(text):
    assert "window_holds" in contract.problem(
        {**synth.record("sem.create", [5] * 10), "window_holds": text})
