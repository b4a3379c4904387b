"""The kernel comparison sheet (rtbench.compare.kernels) on synthetic runs: a
column per kernel with its configuration and the fairness checks, ratios
only within one unit, Thread-Metric's counts beside the kernels, and
`rtbench compare` sending runs of different kernels there (and runs of
one kernel to the run comparison, as before). The real kernels' sheet is
tested in test_thread_metric.py; the HTML in a browser in test_browser.py."""

import json

import pytest

import synth
from rtbench.compare import kernelpage
from rtbench.compare import kernels as kernelsheet
from rtbench.cli import main
from rtbench.sheets import system as sysreport
from rtbench.store import catalog

CAT = catalog.load()
KERNEL_IDS = [m.id for m in CAT.metrics if not sysreport.is_system(m.service)]
NO_PIPE = {"pipe.write.frame": "ThreadX has no byte pipe or stream buffer"}


def two_kernels(**threadx_facts):
    fr = synth.board_run(KERNEL_IDS, "freertos", run_id=1)
    tx = synth.board_run(KERNEL_IDS, "threadx", seed=2, scale=0.5, run_id=2, unsupported=NO_PIPE)
    tx.session["target"].update(threadx_facts)
    return fr, tx


def thread_metric(fr, tx):
    return {fr.id: [synth.thread_metric_run(
                {"basic_processing": 952, "cooperative_scheduling": 134542},
                "FreeRTOS V11.3.0", 3, fr.id,
                {"cooperative_scheduling": "period 3: Invalid counter value(s)."})],
            tx.id: [synth.thread_metric_run(
                {"basic_processing": 952, "cooperative_scheduling": 118231,
                 "interrupt_processing": 130113}, "ThreadX 6.4.2", 4, tx.id)]}


def test_columns_are_kernels_with_their_configuration():
    fr, tx = two_kernels()
    sheet = kernelsheet.build([fr, tx], CAT, {})
    assert [c.title for c in sheet.columns] == ["FreeRTOS V11.3.0", "ThreadX 6.4.2"]
    config = dict(sheet.config)
    assert config["Kernel"] == ["FreeRTOS V11.3.0", "ThreadX 6.4.2"]
    assert config["Asserts / parameter checks"][1].startswith("off (TX_DISABLE_ERROR_CHECKING")
    assert config["Tick (Hz)"] == ["1000", "1000"]
    assert all(c.fair for c in sheet.checks), [c.what for c in sheet.checks if not c.fair]
    md = kernelpage.render(sheet, "md")
    assert "## Configuration" in md and "### What must be equal" in md and "**no**" not in md
    assert ("| ranked by | FreeRTOS min instr | FreeRTOS median instr | FreeRTOS p99 instr "
            "| FreeRTOS p99.9 instr | FreeRTOS max instr | FreeRTOS × fastest |") in md
    assert ("| ThreadX min instr | ThreadX median instr | ThreadX p99 instr "
            "| ThreadX p99.9 instr | ThreadX max instr | ThreadX × fastest |") in md
    assert "µs" not in md


def test_every_row_in_each_unit_with_the_ratio_to_the_fastest_kernel():
    fr, tx = two_kernels()
    sheet = kernelsheet.build([fr, tx], CAT, {})
    rows = {r.id: r for s in sheet.sections for r in s.rows}
    assert set(rows) == set(KERNEL_IDS)  # a row each kernel measured, or either
    row = rows["sched.yield.ctx.thread"]
    a, b = row.cells
    assert a.unit == b.unit == "instructions"
    low = min(a.fig("p50"), b.fig("p50"))
    assert a.ratio == pytest.approx(a.fig("p50") / low)
    assert b.ratio == pytest.approx(b.fig("p50") / low)
    assert 1.0 in (a.ratio, b.ratio)  # the fastest on the row, whichever column it is in
    pipe = rows["pipe.write.frame"]
    assert pipe.cells[1].status == "unsupported" and pipe.cells[1].ratio is None
    assert "ThreadX: ThreadX has no byte pipe" in kernelpage.row_note(pipe, sheet.columns)


def test_a_setting_that_differs_is_flagged():
    fr, tx = two_kernels(tick_hz="100", asserts="on (_txe_ parameter and caller checks)")
    sheet = kernelsheet.build([fr, tx], CAT, {})
    unfair = {c.what for c in sheet.checks if not c.fair}
    assert "the same kernel tick" in unfair
    assert any(w.startswith("every kernel's debug checks off") for w in unfair)
    assert "| the same kernel tick | **no** |" in kernelpage.render(sheet, "md")


def test_no_ratio_across_units():
    """Instructions on the board beside ns on Linux: side by side only."""
    linux = synth.full_run(KERNEL_IDS, run_id=1)
    fr = synth.board_run(KERNEL_IDS, "freertos", run_id=2)
    sheet = kernelsheet.build([linux, fr], CAT, {})
    assert [c.unit for c in sheet.columns] == ["ns", "instructions"]
    assert not sheet.has_ratio(0) and not sheet.has_ratio(1)
    assert all(c.ratio is None for s in sheet.sections for r in s.rows for c in r.cells)
    assert any(w.startswith("Different units") for w in sheet.warnings)
    md = kernelpage.render(sheet, "md")
    tables = [ln for ln in md.splitlines() if ln.startswith("|")]
    assert tables and not any("×" in ln for ln in tables)
    assert "Linux 6.1.0-rt" in md and "FreeRTOS median instr" in md
    assert not next(c for c in sheet.checks if c.what == "the same unit").fair


def test_thread_metric_counts_read_as_instructions_beside_the_rtbench_rows():
    fr, tx = two_kernels()
    sheet = kernelsheet.build([fr, tx], CAT, thread_metric(fr, tx))
    rows = {r.test.key: r for r in sheet.peer_rows}
    coop_fr, coop_tx = rows["cooperative_scheduling"].cells
    assert coop_fr.count == 134542 and coop_tx.count == 118231
    assert coop_fr.per_count == pytest.approx(7_812_500 / 134542)  # 1 s at -icount shift=7
    yield_fr = next(r for s in sheet.sections for r in s.rows if r.id == "sched.yield.ctx.thread")
    assert coop_fr.estimate == yield_fr.cells[0].fig("p50")  # one relinquish per count
    assert coop_tx.ratio == pytest.approx(118231 / 134542)
    assert coop_fr.check.startswith("period 3")
    basic = rows["basic_processing"].cells
    assert basic[0].count == basic[1].count and basic[1].estimate is None
    irq_fr, irq_tx = rows["interrupt_processing"].cells
    assert irq_fr.status == "unsupported" and irq_tx.ratio is None  # no first kernel's count
    md = kernelpage.render(sheet, "md")
    assert "## Thread-Metric beside the kernels (peer)" in md
    assert "| Cooperative Scheduling | 134,542 (check failed) | 58.1 |" in md
    assert "Thread-Metric's own check failed" in md


def test_one_run_with_thread_metric_beside_it():
    fr, tx = two_kernels()
    linked = thread_metric(fr, tx)
    assert kernelsheet.applies([tx], linked) and not kernelsheet.applies([tx], {})
    sheet = kernelsheet.build([tx], CAT, linked)
    md = kernelpage.render(sheet, "md")
    assert "×" not in md  # one kernel: nothing to divide by
    assert "| Cooperative Scheduling | 118,231 | 66.1 |" in md


def test_compare_sends_different_kernels_to_the_kernel_sheet(isolated, capsys):
    fr, tx = two_kernels()
    for r in (fr, tx):
        synth.store(isolated / "r.db", r)
    assert main(["compare", "1", "2", "--db", "r.db", "--fail-on-regression"]) == 0
    out = capsys.readouterr().out
    assert "rtbench kernel comparison — FreeRTOS V11.3.0 · ThreadX 6.4.2" in out
    assert "Key rows (instructions)" in out.split("Configuration")[0]  # the first screen
    assert "median instr" in out and "× fastest" in out
    assert "Verdict" not in out and "slower" not in out
    assert main(["compare", "1", "2", "--db", "r.db", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)["detail"]
    assert [c["title"] for c in data["columns"]] == ["FreeRTOS V11.3.0", "ThreadX 6.4.2"]
    for fmt in ("md", "html"):
        assert main(["compare", "1", "2", "--db", "r.db", "-o", f"k.{fmt}"]) == 0
        assert "ThreadX 6.4.2" in (isolated / f"k.{fmt}").read_text()


def test_runs_of_one_kernel_keep_the_run_comparison(isolated, capsys):
    a = synth.board_run(KERNEL_IDS[:5], "threadx", run_id=1)
    b = synth.board_run(KERNEL_IDS[:5], "threadx", seed=3, run_id=2)
    for r in (a, b):
        synth.store(isolated / "r.db", r)
    assert main(["compare", "1", "2", "--db", "r.db"]) == 0
    out = capsys.readouterr().out
    assert "rtbench comparison" in out and "Verdict" in out and "kernel comparison" not in out


def test_a_kernels_own_convention_is_a_fairness_note_and_on_its_rows():
    """A port's "differs:" facts (rtb/port.h): the configuration lists each
    as a fairness note, and every matching row says it for that kernel; the
    most specific pattern wins (the timer daemon's .caller rows)."""
    fr, tx = two_kernels(**{"differs:sem.give.*": "notify callbacks compiled in"})
    fr.session["target"].update({
        "differs:timer.start.*,timer.cancel": "the timer daemon's round trip",
        "differs:timer.*.caller": "the call alone, the daemon below the caller"})
    sheet = kernelsheet.build([fr, tx], CAT, {})
    config = dict(sheet.config)
    assert config["Fairness note: timer.start.*, timer.cancel"] == [
        "the timer daemon's round trip", "—"]
    assert config["Fairness note: sem.give.*"] == ["—", "notify callbacks compiled in"]
    assert not any(k.startswith("Differs") for k in config)  # not a plain fact row
    rows = {r.id: r for s in sheet.sections for r in s.rows}
    note = lambda mid: kernelpage.row_note(rows[mid], sheet.columns)  # noqa: E731
    assert "FreeRTOS: the timer daemon's round trip" in note("timer.start.empty_queue")
    assert "FreeRTOS: the call alone" in note("timer.start.empty_queue.caller")
    assert "round trip" not in note("timer.start.empty_queue.caller")
    assert "ThreadX: notify callbacks compiled in" in note("sem.give.no_waiter")
    assert "notify" not in note("sem.take.available")
    md = kernelpage.render(sheet, "md")
    assert "Fairness note: sem.give.\\*" in md  # a star, not emphasis
    # a single kernel's data sheet says it on the row too
    from rtbench.sheets.datasheet import render_markdown

    sheet_md = render_markdown(fr, CAT)
    line = next(x for x in sheet_md.splitlines() if "`timer.start.empty_queue` |" in x
                and x.startswith("| Start a timer"))
    assert "the timer daemon's round trip" in line
    assert "Fairness note: timer.start.*, timer.cancel" in sheet_md
    assert "differs:" not in sheet_md


def test_an_imported_zephyr_log_shows_its_means_under_its_kernel_and_board(isolated, capsys):
    """Zephyr's latency_measure prints averages only: in a kernel comparison
    its cells show the mean, marked, with no ratio (a mean is not a
    median), and its column is named by kernel and board, never "host"."""
    from pathlib import Path

    log = Path(__file__).parent / "data" / "import" / "zephyr" / "latency_measure-kernel.txt"
    (isolated / "console.log").write_text(
        "*** Booting Zephyr OS build v3.6.0 ***\nBoard: frdm_k64f\n" + log.read_text())
    synth.store(isolated / "r.db", synth.board_run(KERNEL_IDS, "freertos", run_id=1))
    assert main(["import", "zephyr", "console.log", "--db", "r.db"]) == 0
    capsys.readouterr()
    assert main(["compare", "1", "2", "--db", "r.db", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)["detail"]
    assert [c["title"] for c in data["columns"]] == ["FreeRTOS V11.3.0", "Zephyr v3.6.0"]
    assert data["columns"][1]["target"] == "frdm_k64f, imported"

    from rtbench.store.db import Store

    with Store(isolated / "r.db", create=False) as store:
        runs = [store.get_run(1), store.get_run(2)]
    sheet = kernelsheet.build(runs, CAT, {})
    zephyr = sheet.columns[1]
    assert zephyr.label == "Zephyr v3.6.0 (frdm_k64f, imported, run 2)"
    mean = next(r["mean"] for r in runs[1].metrics if r["id"] == "sched.yield.ctx.thread")
    yield_row = next(r for s in sheet.sections for r in s.rows
                     if r.id == "sched.yield.ctx.thread")
    cell = yield_row.cells[1]
    assert cell.mean_only and cell.ratio is None
    shown = f"mean {kernelpage.fmt(mean, 'ns')}"
    assert kernelpage.cell_text(cell, "p50") == shown
    key = {r.id: r for g in sheet.key for r in g.rows}
    assert key["sched.yield.ctx.thread"] is yield_row  # on the first screen too
    config = dict(sheet.config)
    assert config["Target"][1] == "frdm_k64f; imported from zephyr latency_measure output"
    assert config["Unit"][1].endswith("means only)")
    md = kernelpage.render(sheet, "md")
    assert "host" not in md.split("## Configuration")[0]
    line = next(ln for ln in md.splitlines() if ln.startswith("| Context switch via yield |"))
    assert shown in line
    assert main(["compare", "1", "2", "--db", "r.db"]) == 0
    out = capsys.readouterr().out
    assert shown in out and "(host" not in out


def test_the_sheet_opens_on_the_key_rows_then_the_verdict():
    """The first screen: the catalogue's key rows by title, each kernel's
    median, p99.9 and max and its ratio to the row's fastest; then the verdict per
    section; configuration and fairness after. In every rendering."""
    fr, tx = two_kernels(interrupt_masking="BASEPRI 5 << 5: kernel sections mask below it")
    sheet = kernelsheet.build([fr, tx], CAT, {})
    key_ids = [i for _g, ids in CAT.first_page for i in ids if i in KERNEL_IDS]
    assert [r.id for g in sheet.key for r in g.rows] == key_ids
    for r in (r for g in sheet.key for r in g.rows):
        assert r.title == CAT.get(r.id).title
        figures = [c.fig(r.stat) for c in r.cells]  # the row's defining statistic
        assert [c.ratio for c in r.cells] == pytest.approx([m / min(figures) for m in figures])
    first = sheet.key[0].rows[0]
    md = kernelpage.render(sheet, "md")
    order = [md.index(h) for h in ("## Key rows (instructions)", "## Fastest, section by section",
                                   "## Configuration", "## Kernel rows")]
    assert order == sorted(order)
    key_part = md[order[0]:order[1]]
    assert f"| **{sheet.key[0].name}** |" in key_part
    row = next(ln for ln in key_part.splitlines() if ln.startswith(f"| {first.title} |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells == [first.title, *[x for c in first.cells for x in (
        kernelpage.fmt(c.fig("p50"), c.unit), kernelpage.fmt(c.fig("p999"), c.unit),
        kernelpage.fmt(c.fig("max"), c.unit), kernelpage.fmt_ratio(c.ratio))]]
    assert first.id not in key_part  # titles, not ids
    # Markdown escapes, no HTML entities: "5 << 5" reads as itself raw and rendered
    assert "&lt;" not in md and "5 \\<\\< 5" in md
    html = kernelpage.render(sheet, "html")
    assert html.index('id="key-rows"') < html.index('id="fastest"') < html.index(
        'id="configuration"')
    import io

    from rich.console import Console

    from rtbench.sheets.pages import print_rich

    console = Console(width=160, record=True, file=io.StringIO())
    print_rich(kernelpage.page(sheet), console)
    lines = console.export_text().splitlines()
    assert lines[3].startswith("Key rows (instructions)")
    assert any(ln.startswith(f"│{first.title} ") for ln in lines[4:12])
    assert "Configuration" not in "\n".join(lines[:30])
