"""Every listing and chart says what it holds (issue 24): `runs` names each
run's target, kernel and board; `history` keeps one table and one chart per
unit and never calls instructions a time; a limit in another unit than the
run's is an error, never a pass; every comparison ends with a Summary line
that accounts for every row."""

import json

import numpy as np
import pytest

import synth
from rtbench.cli import main
from rtbench.compare import kernels as kernelsheet
from rtbench.sheets import plots
from rtbench.sheets import system as sysreport
from rtbench.store import catalog

CAT = catalog.load()
KERNEL_IDS = [m.id for m in CAT.metrics if not sysreport.is_system(m.service)]
WAKE = "sem.give.wake_ctx.thread"


def _host_run(run_id: int, median: float, unsupported: str | None = None) -> object:
    rng = np.random.default_rng(run_id)
    recs = [synth.record(WAKE, synth.latency(rng, median), profile="rt"),
            synth.record("sem.give.no_waiter", synth.latency(rng, 60), profile="rt")]
    if unsupported:
        recs.append({"type": "metric", "id": unsupported, "status": "unsupported",
                     "reason": "not here", "n": 0, "profile": "rt"})
    return synth.run(recs, run_id=run_id)


@pytest.fixture
def mixed(isolated):
    """Runs 1 and 4 on Linux (ticks), 2 FreeRTOS and 3 ThreadX on the board
    (instructions), in that order."""
    db = isolated / "r.db"
    synth.store(db, _host_run(1, 6500))
    synth.store(db, synth.board_run([WAKE, "sem.give.no_waiter"], "freertos", run_id=2))
    synth.store(db, synth.board_run([WAKE, "sem.give.no_waiter"], "threadx", seed=2, run_id=3))
    synth.store(db, _host_run(4, 7000))
    return db


def _rows(text: str) -> list[str]:
    """A terminal table's rows (rich's box lines left out)."""
    return [line.strip("│ ") for line in text.splitlines() if line.strip("│ ")[:1].isdigit()]


def test_runs_name_the_target_the_kernel_and_the_board(mixed, capsys):
    assert main(["runs", "--db", str(mixed)]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in _rows(out)}
    assert "mps2-an385" in lines["2"] and "FreeRTOS V11.3.0" in lines["2"]
    assert "mps2-an385" in lines["3"] and "ThreadX 6.4.2" in lines["3"]
    assert "Arm MPS2 AN385 (Cortex-M3, 25 MHz)" in lines["2"]
    assert "host" in lines["1"] and "Linux 6.1.0-rt (PREEMPT_RT)" in lines["1"]
    assert "Test CPU 3000" in lines["1"]
    assert main(["runs", "--db", str(mixed), "--format", "json"]) == 0
    data = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert (data[2]["target"], data[2]["kernel"]) == ("mps2-an385", "FreeRTOS V11.3.0")
    assert (data[3]["target"], data[3]["kernel"]) == ("mps2-an385", "ThreadX 6.4.2")
    assert data[3]["board"] == "Arm MPS2 AN385 (Cortex-M3, 25 MHz)"
    assert (data[1]["target"], data[1]["board"]) == ("host", "Test CPU 3000")


def test_history_keeps_one_series_per_unit(mixed, capsys, monkeypatch):
    assert main(["history", WAKE, "--db", str(mixed)]) == 0
    out = capsys.readouterr().out
    times, counts = out.split("In instructions")
    assert "In times in µs (runs 1, 4)" in times and "median µs" in times
    assert "(runs 2, 3)" in counts and "median instr" in counts and "µs" not in counts
    rows_t, rows_c = _rows(times), _rows(counts)
    assert [r.split()[0] for r in rows_t] == ["1", "4"]
    assert [r.split()[0] for r in rows_c] == ["2", "3"]
    assert "FreeRTOS V11.3.0" in rows_c[0] and "ThreadX 6.4.2" in rows_c[1]
    plotted = []
    real = plots.line_plot
    monkeypatch.setattr(plots, "line_plot", lambda x, series, label, unit="ns": (
        plotted.append((x, series, label, unit)), real(x, series, label, unit))[1])
    assert main(["history", WAKE, "--db", str(mixed), "--format", "html"]) == 0
    html = capsys.readouterr().out
    assert html.count("<svg") == 2
    (xt, st, lt, ut), (xc, sc, lc, uc) = plotted
    assert (xt, lt, ut) == (["1", "4"], "time", "ns") and (xc, lc, uc) == (
        ["2", "3"], "instructions", "instructions")
    assert all(v is not None for _name, values, _s in st for v in values)  # one kernel: no gaps
    # FreeRTOS and ThreadX: a line each (median, p99), never one from FreeRTOS to ThreadX
    assert [[v is not None for v in values] for _n, values, _s in sc] == \
        [[True, False]] * 2 + [[False, True]] * 2
    assert 2000 < st[0][1][0] < 3000 and sc[0][1][0] < 100  # ns (6,500 ticks at 2.6 GHz); instructions
    assert main(["history", WAKE, "--db", str(mixed), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(p["run"], p["unit"]) for p in data] == [(1, "ns"), (2, "instructions"),
                                                     (3, "instructions"), (4, "ns")]


def test_history_of_one_unit_is_one_table(isolated, capsys):
    synth.store(isolated / "r.db", _host_run(1, 6500))
    synth.store(isolated / "r.db", _host_run(2, 6600))
    assert main(["history", WAKE, "--db", "r.db"]) == 0
    out = capsys.readouterr().out
    assert "In " not in out and "every stored run, oldest first; times in µs." in out


def test_a_line_joins_the_runs_around_one_without_a_figure():
    """A p99 missing in one run (a source that gave none) leaves no gap:
    the dashed line goes from the run before to the run after it."""
    import re

    svg = plots.line_plot(["1", "2", "3"], [("rt p99", [1000.0, None, 1200.0], "--")], "time")
    lines = [d for d, style in re.findall(r'<path d="([^"]*)"[^>]*clip-path[^>]*style="([^"]*)"',
                                          svg) if "dasharray" in style]
    assert len(lines) == 1 and lines[0].split()[0] == "M" and lines[0].split()[3] == "L"


@pytest.mark.parametrize("limit", ["sem.*<=1us", "sem.give.wake_ctx.thread:p99<=500ns"])
def test_a_limit_in_another_unit_than_the_run_is_an_error(isolated, capsys, limit):
    synth.store(isolated / "r.db", synth.board_run([WAKE, "sem.give.no_waiter"], "freertos"))
    assert main(["compare", "1", "--db", "r.db", "--limit", limit]) == 2
    captured = capsys.readouterr()
    assert "gate" not in captured.out and captured.err.count("\n") == 1
    assert "is a time, but run 1 measured" in captured.err and "in instructions" in captured.err
    assert "'sem.*<=300instructions'" in captured.err
    # in the run's unit it is checked
    assert main(["compare", "1", "--db", "r.db", "--limit", "sem.*<=100000instructions"]) == 0
    assert "gate (limits): pass" in capsys.readouterr().out


def test_a_limits_file_for_every_target_in_time_fails_on_a_board_run(isolated, capsys):
    synth.store(isolated / "r.db", synth.board_run([WAKE], "freertos"))
    f = isolated / "limits.toml"
    f.write_text('[limits]\n"sem.*" = "p99 <= 5us"\n')
    assert main(["compare", "1", "--db", "r.db", "--limits", str(f)]) == 2
    assert "[target.mps2-an385.limits]" in capsys.readouterr().err
    f.write_text('[target.host.limits]\n"sem.*" = "p99 <= 5us"\n'
                 '[target.mps2-an385.limits]\n"sem.*" = "p99 <= 100000 instructions"\n')
    assert main(["compare", "1", "--db", "r.db", "--limits", str(f)]) == 0


def test_the_documented_limits_file_holds_a_hosts_times_and_a_boards_instructions(
        isolated, capsys):
    """docs/reports.md's example: [limits] in µs for every run measured in
    time, [target.mps2-an385.limits] in instructions: one file for both
    (issue: it exited 2 on the very board it names)."""
    synth.store(isolated / "r.db", synth.board_run([WAKE], "freertos"))
    synth.store(isolated / "r.db", _host_run(2, 6500))
    f = isolated / "limits.toml"
    f.write_text('[limits]\n"sem.*" = "p99 <= 5us"\n'
                 '[target.mps2-an385.limits]\n"sem.*" = "p99 <= 100000 instructions"\n')
    for rid in ("1", "2"):
        capsys.readouterr()
        assert main(["compare", rid, "--db", "r.db", "--limits", str(f)]) == 0
        assert "limits: 0 exceeded of " in capsys.readouterr().out
    f.write_text('[limits]\n"sem.*" = "p99 <= 5us"\n'
                 '[target.mps2-an385.limits]\n"sem.*" = "p99 <= 10 instructions"\n')
    assert main(["compare", "1", "--db", "r.db", "--limits", str(f)]) == 1
    assert ("rtbench: limit exceeded: sem.*:p99<= 10 instructions: sem.give.wake_ctx.thread"
            in capsys.readouterr().err)


# ---- every comparison ends with its Summary line ----

def _last(out: str) -> str:
    return out.rstrip().splitlines()[-1]


def test_run_comparison_counts_unsupported_and_unmatched_rows(isolated, capsys):
    a = _host_run(1, 6500, unsupported="irq.response")
    b = _host_run(2, 6500)
    b.metrics = [m for m in b.metrics if m["id"] != "sem.give.no_waiter"]
    b.metrics.append({"type": "metric", "id": "irq.response", "status": "unsupported",
                      "reason": "not here", "n": 0, "profile": "rt"})
    for r in (a, b):
        synth.store(isolated / "r.db", r)
    assert main(["compare", "1", "2", "--db", "r.db"]) == 0
    assert _last(capsys.readouterr().out).startswith(
        "Summary: run 2 vs run 1: 1 metrics compared of 3 rows (1 unsupported, "
        "1 in one run only); median")


def test_reference_summary_accounts_for_every_published_row(isolated, capsys):
    synth.store(isolated / "r.db", synth.full_run(CAT.harness_ids[:120]))
    for fmt in ("text", "json"):
        assert main(["compare", "1", "--ref", "dspbios", "--db", "r.db", "--format", fmt]) == 0
        captured = capsys.readouterr()
        line = _last(captured.out) if fmt == "text" else _last(captured.err)
        assert line.startswith("Summary: dspbios: 68 published rows: ")
        counted = line.split(" published rows: ")[1].split(";")[0]
        assert sum(int(part.split()[0]) for part in counted.split(", ")) == 68, line
    assert json.loads(captured.out)["summary"]["text"] == line


def test_kernel_comparison_ends_with_its_summary(isolated, capsys):
    fr = synth.board_run(KERNEL_IDS, "freertos", run_id=1)
    tx = synth.board_run(KERNEL_IDS, "threadx", seed=2, run_id=2,
                         unsupported={"pipe.write.frame": "no byte pipe"})
    sheet = kernelsheet.build([fr, tx], CAT, {})
    line = kernelsheet.summary_line(sheet)
    assert line.startswith(f"Summary: 2 kernels, {len(KERNEL_IDS)} kernel rows with a figure")
    assert f"ThreadX {len(KERNEL_IDS) - 1} measured, 1 unsupported" in line
    for r in (fr, tx):
        synth.store(isolated / "r.db", r)
    assert main(["compare", "1", "2", "--db", "r.db"]) == 0
    assert _last(capsys.readouterr().out) == line
    for fmt in ("md", "html"):
        assert main(["compare", "1", "2", "--db", "r.db", "--format", fmt]) == 0
        captured = capsys.readouterr()
        assert line in captured.out and _last(captured.err) == line
