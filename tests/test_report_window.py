"""Issue 13, item 5: a max is the max of its window. The data sheet (Markdown
and HTML), its first page and the terminal line say the window (samples and
seconds) beside the max; the sheet's notes give each metric's blocks (how
many, their spread, the slow-host ones) and its methodology says how
blocks, the canary and replicates work."""

import numpy as np
import pytest

from rtbench.measure.run import _metric_line
from rtbench.sheets import datasheet as report, firstpage
from rtbench.store import blocks, catalog
from synth import blocked_record, record, run

IDS = ("sched.yield.ctx.thread", "sem.give.wake_ctx.thread", "sem.take.block_ctx.thread")


@pytest.fixture(scope="module")
def cat():
    return catalog.load()


def _run():
    """Three metrics in 8 blocks of 250 samples (each block 2 ms: 16 ms in
    all); the yield's blocks 2 and 5 ran while the canary was slow."""
    rng = np.random.default_rng(3)
    metrics = []
    for i, mid in enumerate(IDS):
        parts = [np.round(rng.lognormal(np.log(4000 * (i + 1)), 0.05, 250)).astype(np.int64)
                 for _k in range(8)]
        canaries = [20000 if (mid == IDS[0] and k in (2, 5)) else 10000 + k for k in range(8)]
        metrics.append(blocked_record(mid, parts, canaries=canaries))
    r = run(metrics)
    r.session["config"].update(blocks=8, block_samples=250, block_warmup=10,
                               block_budget_ms=250)
    return r


def test_the_record_carries_its_window():
    rec = _run().metrics[0]
    assert blocks.window(rec) == (2000, pytest.approx(0.016))
    assert blocks.window_text(rec) == "2,000 samples in 16 ms"
    assert blocks.window_text({"n": 10}) == "10 samples"  # a record that does not say how long
    assert blocks.window_text({"status": "failed"}) == ""
    assert [blocks.fmt_seconds(s) for s in (4e-5, 0.00441, 0.42, 1.5, 600)] == [
        "40 µs", "4.41 ms", "420 ms", "1.5 s", "10 min"]


def test_markdown_sheet_shows_window_blocks_and_slow_host(cat):
    md = report.render_markdown(_run(), cat)
    row = next(line for line in md.splitlines()
               if "`sched.yield.ctx.thread`" in line and "max of" in line)
    assert "max of 2,000 samples in 16 ms" in row
    assert "8 blocks, spread " in row and "2 slow-host" in row
    other = next(line for line in md.splitlines()
                 if "`sem.give.wake_ctx.thread`" in line and "max of" in line)
    assert "slow-host" not in other  # its canaries were all usual
    # the first page's worst cases: the window beside each max
    assert "| largest max | max | median | window |" in md
    assert "| 2,000 samples in 16 ms |" in md
    # the method, once
    assert md.count("Blocks: the run measured every metric in 8 blocks of about 250") == 1
    assert "slow-host block" in md and "Mann–Whitney U test on the" in md


def test_html_sheet_shows_the_window(cat):
    html = report.render_html(_run(), cat)
    assert "<th>window</th>" in html and "<td>2,000 samples in 16 ms</td>" in html
    assert "max of 2,000 samples in 16 ms" in html and "2 slow-host" in html
    assert "Blocks: the run measured every metric in 8 blocks" in html


def test_first_page_and_terminal_line(cat):
    r = _run()
    page = firstpage.build(r, cat)
    assert {w.window for w in page.worst_max} == {"2,000 samples in 16 ms"}
    line = firstpage.summary_lines(page)[0]
    assert line.startswith("Largest max: ") and "; 2,000 samples in 16 ms)" in line
    term = _metric_line(r.metrics[0])
    assert "max" in term and term.endswith("(2,000 in 16 ms)[/dim]")


def test_a_run_without_blocks_says_no_more_than_it_knows(cat):
    """One block (a board, an older run): the window is its sample count;
    no blocks note, no blocks paragraph."""
    rng = np.random.default_rng(1)
    r = run([record(mid, np.round(rng.lognormal(np.log(4000), 0.05, 500))) for mid in IDS])
    md = report.render_markdown(r, cat)
    assert "max of 500 samples |" in md or "max of 500 samples;" in md
    assert " blocks, spread" not in md and "Blocks: the run measured" not in md
    assert "(500 in" not in _metric_line(r.metrics[0])


def test_compare_says_the_window_of_a_max(cat, isolated, capsys):
    from rtbench.cli import main
    from synth import store

    a, b = _run(), _run()
    b.id, b.uuid = 2, "uuid-2"
    rec = b.metrics[0]
    rec["max"] *= 10  # the second run's yield saw one sample ten times longer
    store(isolated / "r.db", a)
    store(isolated / "r.db", b)
    # in blocks, the max is tested on the blocks' maxima: one block's sample is no finding
    assert main(["compare", "1", "2", "--db", "r.db", "--fail-on", "max"]) == 0
    out, err = capsys.readouterr()
    assert "block medians, p99s, p99.9s and maxima" in out and "regression" not in err
    for r in (a, b):  # without blocks: one sample each, said with its window, not gated
        for m in r.metrics:
            m.pop("blocks")
        r.uuid += "-whole"
        store(isolated / "r.db", r)
    assert main(["compare", "3", "4", "--db", "r.db", "--fail-on", "max"]) == 0
    out, err = capsys.readouterr()
    assert "rtbench: not gated (no test): sched.yield.ctx.thread [rt] run 4: max" in err
    assert "windows 2,000 samples in 16 ms → 2,000 samples in 16 ms)" in err
    assert "the max is one sample of each run's window" in out


def test_the_glossary_says_where_a_batched_sample_starts_and_stops(cat):
    """A row timed N calls to a sample (the record's batch): its definition in
    the glossary and the HTML sheet says the clock spans the N calls, the
    median is that span over N and the tails are per batch; a row of one
    call per sample says nothing more."""
    batched = record("sem.give.no_waiter", np.full(500, 240, dtype=np.int64))
    batched["ops"] = batched["batch"] = 8
    single = record("sched.yield.ctx.thread", np.full(500, 4000, dtype=np.int64))
    r = run([batched, single])
    text = report.render_glossary(r, cat)
    give = next(ln for ln in text.splitlines() if ln.startswith("  Clock starts")
                and "8 such calls" in ln)
    assert "started before the first and stopped after the last" in give
    assert "divided by 8" in give and "per batch of 8, not divided" in give
    assert text.count("such calls in a row") == 1  # the yield's definition has none
    assert "8 such calls in a row" in report.render_html(r, cat)


@pytest.mark.parametrize("width", [80, 200])
def test_terminal_first_page_keeps_flags_readable(cat, width):
    """On an 80-column terminal the flag column has a few characters left, and
    rich wrapped "p99 and max per batch of 8" one word per line under the
    figures; there the flags go under the table, one line per flag, and on a
    wide terminal they stay on their rows."""
    import io

    from rich.console import Console

    rng = np.random.default_rng(2)
    give = record("sem.give.no_waiter", np.round(rng.lognormal(np.log(400), 0.05, 500)))
    give["batch"] = 8
    r = run([give, record(IDS[0], np.round(rng.lognormal(np.log(4000), 0.05, 500)))])
    out = io.StringIO()
    firstpage.print_console(firstpage.build(r, cat),
                            Console(file=out, width=width, color_system=None))
    lines = out.getvalue().splitlines()
    table = lines[:next(i for i, line in enumerate(lines) if line.startswith("Largest max"))]
    assert all(len(line) <= width for line in table)
    assert not [line for line in lines if line.strip() in ("and", "max", "per", "batch")]
    flagged = [line for line in lines if "p99 and max per batch of 8" in line]
    assert len(flagged) == 1
    if width == 80:
        assert flagged[0].strip() == "p99 and max per batch of 8: sem.give.no_waiter"
    else:
        assert flagged[0].lstrip().startswith("sem.give.no_waiter ")
