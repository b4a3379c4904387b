"""Terminal output that fits: `list` compact by default, `hist` as
cyclictest prints it (overflows counted), ids never broken mid-token,
did-you-mean, reference names in any case, no raw Markdown marks on a
terminal, a closed pipe is not an error."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from rtbench.cli import main
from rtbench.sheets import pages
from rtbench.store import catalog
from synth import latency, record, run, store

DATA = Path(__file__).parent / "data" / "import" / "rt-tests"
RTBENCH = [sys.executable, "-m", "rtbench"]


def test_list_is_compact_long_has_definitions_json_has_fields(isolated, fake, capsys):
    cat = catalog.load()
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("sem.give.no_waiter "))
    assert cat.get("sem.give.no_waiter").title in line
    assert "supported" in line  # the fake harness says so
    assert "Clock starts" not in out and len(out.splitlines()) < len(cat.ids) + 60
    assert main(["list", "--long", "--service", "semaphores"]) == 0
    assert "Clock starts:" in capsys.readouterr().out
    assert main(["list", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data) == len(cat.ids) and {"id", "title", "definition", "vendor"} <= set(data[0])
    assert main(["list", "--service", "semaphore"]) == 2
    assert "did you mean Semaphores?" in capsys.readouterr().err


def test_hist_prints_buckets_and_overflows(isolated, capsys):
    rng = np.random.default_rng(1)
    samples = np.concatenate([latency(rng, 6500, n=5000, tail=0), [6500 * 400] * 3])
    store(isolated / "r.db", run([record("sem.give.wake_ctx.thread", samples)]))
    assert main(["hist", "sem.give.wake_ctx.thread", "--db", "r.db"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "# rtbench hist sem.give.wake_ctx.thread, run 1 [rt]: 5003 samples"
    assert out[2] == "# Histogram"
    rows = [line for line in out if not line.startswith("#")]
    assert sum(int(r.split()[1]) for r in rows) == 5000
    assert "# Total: 000005003" in out
    assert "# Histogram Overflows: 000000003 (at or above" in "\n".join(out)
    assert main(["hist", "sem.give.wake_ctx.thread", "latest", "--db", "r.db", "--width",
                 "2us", "--buckets", "1000"]) == 0
    out = capsys.readouterr().out
    assert "# buckets of 2 µs" in out and "# Histogram Overflows: 000000000" in out
    assert main(["hist", "sem.give.wake_ctx.threa", "--db", "r.db"]) == 2
    assert "did you mean sem.give.wake_ctx.thread" in capsys.readouterr().err


def test_cyclictest_import_keeps_histogram_overflows(isolated, capsys):
    assert main(["import", "rt-tests", str(DATA / "cyclictest-h200.txt"), "--db", "r.db"]) == 0
    capsys.readouterr()
    assert main(["hist", "sys.timer.wakeup.idle", "--db", "r.db", "--width", "1us",
                 "--buckets", "200"]) == 0
    out = capsys.readouterr().out
    assert "# of which beyond the source's own histogram: 000000004" in out


def test_tables_never_break_an_id(isolated, capsys):
    table = pages.Table(["metric", "text"], [["rwlock.unlock.write_reader_readied.process",
                                              "a few words " * 8]])
    page = pages.Page("t")
    page.table(table)
    from rich.console import Console

    console = Console(width=70, record=True)
    pages.print_rich(page, console)
    assert "rwlock.unlock.write_reader_readied.process" in console.export_text()


def test_no_raw_markdown_on_a_terminal():
    from rich.console import Console

    console = Console(width=100, record=True)
    page = pages.Page("t")
    page.bullets(["**cyclictest** (`cyclictest -p 70`): why"])
    pages.print_rich(page, console)
    text = console.export_text()
    assert "cyclictest (cyclictest -p 70): why" in text and "**" not in text and "`" not in text


def test_reference_names_any_case_and_list_to_a_file(isolated, capsys):
    store(isolated / "r.db", run([record("sem.give.no_waiter", [26] * 50)]))
    assert main(["compare", "1", "--ref", "VxWorks", "--db", "r.db"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-1].startswith("Summary: vxworks: 93 published rows")
    assert "Measured, not in this sheet" not in out  # a count, not a list of every metric
    assert main(["compare", "1", "--ref", "ti-am654x", "--db", "r.db"]) == 0
    assert "unlabelled" not in capsys.readouterr().out  # no parser wording in a header
    assert main(["reference", "list", "-o", "refs.md"]) == 0
    assert "| vxworks |" in (isolated / "refs.md").read_text()


def test_a_closed_pipe_is_not_an_error(isolated, fake):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    p = subprocess.run(" ".join(RTBENCH) + " list --long | head -3", shell=True,
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0 and len(p.stdout.splitlines()) == 3
    assert "Traceback" not in p.stderr and "Error" not in p.stderr
