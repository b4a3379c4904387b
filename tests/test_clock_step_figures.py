"""No figure finer than the clock's step (issue 34, item 4): a figure below
one step of the counter reads "< step", no digit finer than the step is
printed, and a max/median ratio whose median is near the step leads
nothing. The synthetic session's counter: 26 ticks at 2.6 GHz, 10 ns."""

import numpy as np

from rtbench.compare import views as compare_views
from rtbench.compare.runs import compare_runs
from rtbench.sheets import datasheet, firstpage
from rtbench.sheets.units import fmt_scaled
from rtbench.store import catalog
from synth import latency, record, run

STEP_NS = 10.0  # synth.session: resolution 26 ticks at 2.6 GHz


def _cat():
    return catalog.load()


def _host_run(run_id: int = 1):
    rng = np.random.default_rng(3)
    return run([
        # 2 ticks: 0.77 ns, below one step (the host's rmutex.lock.unavailable_nowait)
        record("sem.give.no_waiter", np.full(2000, 2)),
        # 2,011 ticks, 773.5 ns: known to within 10 ns
        record("sem.take.available", np.full(2000, 2011)),
        # a median of five steps with a far max: a ratio of the counter's steps
        record("rmutex.unlock.uncontended", np.concatenate([np.full(1999, 130), [200_000]])),
        # a median of many steps with a far max: a ratio worth ranking
        record("sched.yield.ctx.thread", latency(rng, 3000)),
    ], run_id=run_id)


def test_the_format_prints_no_digit_finer_than_the_step():
    assert fmt_scaled(0.7703, 1.0, res=STEP_NS) == "< 10"
    assert fmt_scaled(0.7703, 1e3, res=STEP_NS) == "< 0.01"
    assert fmt_scaled(773.46, 1.0, res=STEP_NS) == "773"
    assert fmt_scaled(773.46, 1.0) == "773.5"  # no step known: as before


def test_the_sheet_says_below_one_step_in_markdown_and_html():
    cat = _cat()
    r = _host_run()
    md = datasheet.render_markdown(r, cat)
    row = next(line for line in md.splitlines()
               if "`sem.give.no_waiter`" in line and line.startswith("| Binary"))
    assert "< 10" in row.replace("\\<", "<") and "0.769" not in row and "0.77" not in row
    html = datasheet.render_html(r, cat)
    assert "&lt; 10" in html or "&lt; 0.01" in html


def test_the_first_page_shows_below_one_step_and_ranks_no_ratio_of_steps():
    page = firstpage.build(_host_run(), _cat())
    row = next(r for g in page.groups for r in g.rows if r.id == "sem.give.no_waiter")
    assert page.fmt(row.values["p50"], row.steps["p50"]).startswith("< ")
    ratios = [w.id for w in page.worst_ratio]
    assert "rmutex.unlock.uncontended" not in ratios
    assert "sched.yield.ctx.thread" in ratios
    assert "rmutex.unlock.uncontended" in page.unresolved
    assert "within 10 steps of the counter" in page.unresolved_note
    text = "\n".join(firstpage.summary_lines(page))
    assert "rmutex.unlock.uncontended ×" not in text and "No max/median ratio" in text


def test_the_run_comparison_table_shows_below_one_step():
    cat = _cat()
    cmp = compare_runs([_host_run(1), _host_run(2)], cat)
    page = compare_views.run_comparison(cmp)
    table = next(b.table for b in page.blocks if b.kind == "table")
    row = next(r for r in table.rows if r[0] == "sem.give.no_waiter")
    assert row[2].startswith("< ") and row[3].startswith("< ")


def test_a_vendors_sheet_shows_ours_no_finer_than_the_step():
    from rtbench.compare import compare_reference
    from rtbench.store import reference

    cmp = compare_reference(_host_run(), reference.get("vxworks"), _cat())
    row = next(r for r in cmp.rows if r.id == "sem.give.no_waiter" and r.ours_status == "ok")
    assert compare_views._ours(row) == "< 10 ns"  # 0.77 ns with a 10 ns step
    take = next(r for r in cmp.rows if r.id == "sem.take.available" and r.ours_status == "ok")
    assert compare_views._ours(take) == "773 ns"  # not 773.5


def test_the_kernel_comparison_shows_a_time_no_finer_than_its_step():
    from rtbench.compare import kernelpage
    from rtbench.compare import kernels as kernelsheet

    a, b = _host_run(1), _host_run(2)
    b.host = {**b.host, "kernel_release": "6.12.0-rt"}  # another kernel: a column each
    sheet = kernelsheet.build([a, b], _cat(), {})
    row = next(r for s in sheet.sections for r in s.rows if r.id == "sem.give.no_waiter")
    assert kernelpage.cell_text(row.cells[0], "p50") == "< 10 ns"
    take = next(r for s in sheet.sections for r in s.rows if r.id == "sem.take.available")
    assert kernelpage.cell_text(take.cells[1], "p50") == "773 ns"
