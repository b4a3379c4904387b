"""Text that fits the terminal (issue 34, item 13): a table laid out for the
width it is given (--width, the terminal's, $COLUMNS) wraps its headers
between words, and where its columns cannot fit it prints a row at a time:
never a line wider than the width, never a word or an id broken. `show`
lays a stored run's sheet out for a terminal, and `show --first-page`
reprints its first page."""

import io
import re

import pytest
from rich.console import Console

import synth
from rtbench.cli import main
from rtbench.compare import kernelpage
from rtbench.compare import kernels as kernelsheet
from rtbench.sheets import pages
from rtbench.sheets import system as sysreport
from rtbench.store import catalog

CAT = catalog.load()
KERNEL_IDS = [m.id for m in CAT.metrics if not sysreport.is_system(m.service)]
VXWORKS_IDS = ["sem.give.no_waiter", "sem.take.block_ctx.thread", "sem.give.wake_ctx.thread",
               "msgq.send.wake_ctx.thread", "task.start.no_ctx.thread", "sched.yield.ctx.thread"]


def _words(text: str) -> set[str]:
    return set(re.split(r"[\s│┃┏┓┗┛┡┩━─╇╈┳┻┼]+", text))


def _printed(page, width: int) -> str:
    console = Console(file=io.StringIO(), width=width, highlight=False)
    pages.print_rich(page, console, soft=False)
    return console.file.getvalue()


@pytest.mark.parametrize("width", [80, 120, 200])
def test_the_kernel_comparison_breaks_no_header_word_at_any_width(width):
    runs = [synth.board_run(KERNEL_IDS, "freertos", run_id=1),
            synth.board_run(KERNEL_IDS, "threadx", seed=2, scale=0.6, run_id=2)]
    page = kernelpage.page(kernelsheet.build(runs, CAT, {}))
    out = _printed(page, width)
    assert max(len(line) for line in out.splitlines()) <= width
    words = _words(out)
    heads = {tok for b in page.blocks if b.kind == "table" for h in b.table.headers
             for tok in h.split()}
    named = {"FreeRTOS", "ThreadX", "median", "p99.9", "max", "fastest"}
    assert named <= heads
    assert named <= words, sorted(named - words)  # each header word whole, never split
    broken = {w for w in words for h in named if len(w) >= 3 and h.startswith(w) and w != h}
    assert not broken  # "fastes" / "t", "media" / "n": a header cut mid-word
    ids = {r.id for s in kernelsheet.build(runs, CAT, {}).sections for r in s.rows}
    assert ids <= words | {w.rstrip(",") for w in words}


@pytest.fixture
def stored(isolated):
    db = isolated / "r.db"
    synth.store(db, synth.full_run(VXWORKS_IDS, scale=10))
    return str(db)


@pytest.mark.parametrize("width", [80, 200])
def test_a_vendor_comparison_fits_its_width_and_crops_nothing(stored, capsys, width):
    assert main(["compare", "1", "--ref", "vxworks", "--db", stored, "--width", str(width)]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= width
    words = _words(out)
    for mid in VXWORKS_IDS:
        if mid != "sched.yield.ctx.thread":  # no row of VxWorks's sheet
            assert mid in words, mid
    assert "taskActivate" in out and "Summary:" in out
    # the table where its columns fit, else a row at a time
    headed = any("┃" in line and "statistic" in line for line in out.splitlines())
    assert headed == (width == 200)


def test_show_lays_the_sheet_out_for_a_terminal_and_reprints_its_first_page(stored, capsys):
    assert main(["show", "1", "--db", stored, "--width", "100"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100
    assert "|:--" not in out and "**" not in out and "`" not in out  # no Markdown mark
    assert "Key figures" in out and "Methodology" in out and "sem.give.no_waiter" in _words(out)
    assert main(["show", "1", "--db", stored, "--first-page", "--width", "100"]) == 0
    first = capsys.readouterr().out
    assert "Key figures" in first and "Methodology" not in first
    assert main(["show", "1", "--db", stored, "--first-page", "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert md.startswith("# rtbench data sheet") and "## Key figures" in md
    assert "## Target configuration" not in md
