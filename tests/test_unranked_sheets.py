"""A row a record keeps out of every ranking (`unranked`, docs/records.md)
on every page of one run and of its comparisons: the figure stays, the
mark and the reason come with it, and it ranks nothing (no worst case, no
ratio against another run's or a vendor's figure). The kernel comparison's
side is test_kernel_ranking.py; the exports' is test_export.py."""

import io

import numpy as np
import pytest
from rich.console import Console

import synth
from rtbench.sheets import datasheet, firstpage
from rtbench.store import catalog

CAT = catalog.load()
TICK = "holds the tick's phase: the routine runs at the next tick, wherever the timer expired"
IDS = ["timer.expiry.to_routine", "sem.give.no_waiter", "sched.yield.ctx.thread",
       "irq.response", "sem.take.available"]


def board(unranked: dict[str, str], seed: int = 1, run_id: int = 1):
    """A FreeRTOS run of IDS whose timer row is far the largest (the tick's
    phase) and whose records in `unranked` say so."""
    run = synth.board_run([], "freertos", run_id=run_id, seed=seed)
    rng = np.random.default_rng(seed)
    medians = {"timer.expiry.to_routine": 6200, "sem.give.no_waiter": 40,
               "sched.yield.ctx.thread": 140, "irq.response": 30, "sem.take.available": 45}
    for mid in IDS:
        rec = {**synth.count_record(mid, synth.latency(rng, medians[mid], n=300)),
               "profile": "rt"}
        if mid in unranked:
            rec["unranked"] = unranked[mid]
        run.metrics.append(rec)
    return run


def test_the_first_page_leaves_an_unranked_row_out_of_the_worst_cases():
    ranked = firstpage.build(board({}), CAT)
    assert ranked.worst_max[0].id == "timer.expiry.to_routine"  # the tick's phase tops it
    page = firstpage.build(board({"timer.expiry.to_routine": TICK,
                                  "irq.response": "the kernel adds nothing"}), CAT)
    worst = {w.id for w in page.worst_max} | {w.id for w in page.worst_ratio}
    assert "timer.expiry.to_routine" not in worst and "irq.response" not in worst
    assert worst  # the ranked rows still are
    assert page.unranked == [("timer.expiry.to_routine", TICK),
                             ("irq.response", "the kernel adds nothing")]
    key = {r.id: r for g in page.groups for r in g.rows}
    assert "not ranked: the kernel adds nothing" in key["irq.response"].flags
    assert key["irq.response"].values["p50"] is not None  # the figure stays
    line = firstpage.summary_lines(page)[-1]
    assert line.startswith("Not ranked, so not among the worst cases: ")
    assert f"timer.expiry.to_routine ({TICK})" in line
    console = Console(width=100, file=io.StringIO(), record=True)
    firstpage.print_console(page, console)
    text = " ".join(console.export_text().split())
    assert "not ranked: the kernel adds nothing" in text and TICK in text


def test_the_data_sheet_marks_the_row_and_says_why_in_markdown_and_html():
    run = board({"timer.expiry.to_routine": TICK})
    md = datasheet.render_markdown(run, CAT)
    worst = md.split("**Worst cases**")[1].split("## ")[0]
    assert "`timer.expiry.to_routine`" not in worst.split("*Not ranked")[0]
    assert f"*Not ranked, so not among the worst cases:* `timer.expiry.to_routine` ({TICK})" \
        in worst
    key, line = [ln for ln in md.splitlines() if ln.startswith("| Timer expiry to timer routine")]
    assert f"not ranked: {TICK}" in key  # the first page's key figures flag it
    assert "`timer.expiry.to_routine` · *not ranked* |" in line
    assert f"not ranked: {TICK}" in line
    median = next(m for m in run.metrics if m["id"] == "timer.expiry.to_routine")["p50"]
    assert f"| {datasheet.fmt_count(median)} |" in line  # the figure is shown
    other = next(ln for ln in md.splitlines() if "`sem.give.no_waiter` |" in ln)
    assert "not ranked" not in other
    html = datasheet.render_html(run, CAT)
    assert 'class="unranked"' in html and '<span class="flag">not ranked</span>' in html
    assert "Not ranked, so not among the worst cases" in html
    assert TICK.replace("'", "&#39;") in html
    assert "- **not ranked** — The figure is real and shown" in \
        datasheet.render_glossary(run, CAT)


# ---- comparisons: run against run, against a vendor's sheet ----

def test_run_against_run_marks_an_unranked_row_and_says_why(isolated, capsys):
    import json

    from rtbench.cli import main

    why = "the kernel adds nothing: the handler is the interrupt's vector"
    for r in (board({"irq.response": why}, run_id=1), board({"irq.response": why}, seed=2,
                                                           run_id=2)):
        synth.store(isolated / "r.db", r)
    assert main(["compare", "1", "2", "--db", "r.db", "--format", "md"]) == 0
    md = capsys.readouterr().out.replace("\\[", "[").replace("\\]", "]")  # Markdown's escapes
    row = next(ln for ln in md.splitlines() if ln.startswith("| irq.response"))
    assert row.startswith("| irq.response · not ranked | rt |")
    assert f"irq.response [rt], runs 1, 2: {why}" in md
    other = next(ln for ln in md.splitlines() if ln.startswith("| sem.give.no_waiter"))
    assert "not ranked" not in other
    assert main(["compare", "1", "2", "--db", "r.db", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)["detail"]
    cells = next(r for r in data["rows"] if r["id"] == "irq.response")["cells"]
    assert [c["unranked"] for c in cells] == [why, why]


def test_a_vendors_figure_beside_an_unranked_row_takes_no_ratio():
    """On the host a time stands beside VxWorks's µs with a ratio; the same
    row unranked stands beside it with none, and the page says why."""
    from rtbench.compare import compare_reference, views
    from rtbench.sheets.pages import render
    from rtbench.store import reference

    why = "built by rtbench's port from 2 kernel calls: 22 of its 52 instructions are rtbench's"
    recs = [synth.record("sem.give.no_waiter", [260] * 50), synth.record("sem.create", [2600] * 50)]
    ranked = compare_reference(synth.run(recs), reference.get("vxworks"), CAT)
    assert any(c and c.ratio_time for r in ranked.rows if r.id == "sem.give.no_waiter"
               for c in r.cells)
    recs[0]["unranked"] = why
    cmp = compare_reference(synth.run(recs), reference.get("vxworks"), CAT)
    give = [r for r in cmp.rows if r.id == "sem.give.no_waiter"]
    assert give and all(r.unranked == why for r in give)
    assert all(c.ratio_time is None and c.ratio_cycles is None
               for r in give for c in r.cells if c)
    assert any(c and c.ratio_time for r in cmp.rows if r.id == "sem.create" for c in r.cells)
    text = render(views.ref_comparison(cmp), "md").replace("\\[", "[").replace("\\]", "]")
    line = next(ln for ln in text.splitlines() if ln.startswith("| sem.give.no_waiter"))
    assert "(not ranked)" in line and "×" not in line
    assert f"sem.give.no_waiter [rt] beside “{give[0].key}”: {why}" in text
