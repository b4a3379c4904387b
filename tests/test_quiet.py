"""`rtbench run --quiet`: only the run's end (its first page, where its
files are) and errors are printed; what it prints while it measures is
kept in run.log in its output folder, not lost."""

from __future__ import annotations

import io

from rtbench.cli import main
from rtbench.measure import progress


def test_quiet_prints_the_first_page_alone_and_keeps_the_rest_in_run_log(fake, isolated,
                                                                         capsys):
    args = ["run", "--quick", "--only", "method.*,sem.give.*", "--db", "r.db"]
    assert main([*args, "--out", "loud"]) == 0
    loud = capsys.readouterr().out
    assert main([*args, "--out", "quiet", "--quiet"]) == 0
    out = capsys.readouterr()
    metric_lines = [ln for ln in loud.splitlines() if ln.startswith("  sem.give.")]
    assert metric_lines and "progress: block 1/6" in loud  # what a run prints as it goes
    assert not any(ln.startswith("  sem.give.") for ln in out.out.splitlines())
    assert "progress:" not in out.out and "metrics on host" not in out.out
    assert "run 2: the first page of its data sheet" in out.out
    assert "data sheet: quiet/datasheet.md" in out.out
    assert out.out.rstrip().endswith("what --quiet held back: quiet/run.log")
    assert len(out.out.splitlines()) < len(loud.splitlines()) - len(metric_lines)
    log = (isolated / "quiet" / "run.log").read_text()
    assert "progress: block 1/6" in log and "run 2: " in log
    assert [ln for ln in log.splitlines() if ln.startswith("  sem.give.")] \
        and not (isolated / "loud" / "run.log").exists()


def test_aloud_prints_the_end_and_holds_the_rest_again(tmp_path):
    screen = io.StringIO()
    console = progress.QuietConsole(screen)
    console.print("while measuring")
    with progress.aloud(console, tmp_path):
        console.print("the first page")
    console.print("the next kernel's run")  # a set of kernels: held again
    assert screen.getvalue().splitlines() == [
        "the first page", f"what --quiet held back: {tmp_path / progress.RUN_LOG}"]
    assert (tmp_path / progress.RUN_LOG).read_text() == "while measuring\n"
    assert console.held.getvalue() == "the next kernel's run\n"
    plain = io.StringIO()
    console = progress.Console(file=plain)
    with progress.aloud(console, tmp_path):  # no --quiet: as before, nothing written
        console.print("page")
    assert plain.getvalue() == "page\n" and (tmp_path / progress.RUN_LOG).read_text() == \
        "while measuring\n"
