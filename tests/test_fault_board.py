"""Fault injection, class 2 of issue 25: the board output parser, shared by
`rtbench import harness LOG` and every board run (`run --target
mps2-an385|labgrid`), and the run path's reading of a harness.

Material: a real console log of the FreeRTOS image on QEMU's AN385
(tests/data/board/freertos-mps2-an385.log, six metrics, as qemu-system-arm
printed it). A record the contract refuses (rtbench.store.contract) is one
line naming FILE:LINE, nothing stored; what a serial capture does to a log
(CR line ends, timestamps, a cut, a lost line) is read and stored
incomplete where something is missing; inside a run a bad record costs
its metric, the run is incomplete and its sheet written; memory never
grows with a line or a log.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from faults import SRC, intact, one_line_error
from rtbench.cli import main
from rtbench.store.db import Store

LOG = Path(__file__).resolve().parent / "data" / "board" / "freertos-mps2-an385.log"
LINES = LOG.read_text().splitlines()
METRICS = [json.loads(ln)["id"] for ln in LINES if '"type":"metric"' in ln]


def _write(path: Path, lines: list[str], end: str = "\n") -> Path:
    path.write_text(end.join(lines) + end, newline="")
    return path


def _import(path: Path, db: Path, capsys) -> tuple[int, str, str]:
    """(exit status, stderr, stdout) of `rtbench import harness PATH`."""
    rc = main(["import", "harness", str(path), "--db", str(db)])
    out, err = capsys.readouterr()
    return rc, err, out


def _refused(path: Path, db: Path, capsys) -> str:
    before = intact(db) if db.exists() else None
    rc, err, _out = _import(path, db, capsys)
    assert rc == 2, err
    line = one_line_error(err)
    assert (intact(db) if db.exists() else None) == before  # nothing stored
    return line


def _line_of(text: str) -> int:
    return next(i for i, ln in enumerate(LINES, 1) if text in ln)


# ---- figures that are not figures, types that are not the protocol's ----

@pytest.mark.parametrize("old, new, why", [
    ('"p50":55', '"p50":NaN', "NaN is not a number JSON allows"),
    ('"p50":55', '"p50":Infinity', "Infinity is not a number JSON allows"),
    ('"p50":55', '"p50":-50', "p50 -50 is negative"),
    ('"max":89', '"max":1e308', "max 1e+308 is beyond any figure"),
    ('"ops":1', '"ops":-1', "ops -1 is not a count"),
    ('"n":1000', '"n":"1000"', "n '1000' is not a count"),
    ('"hist":{', '"hist":"x","h":{', "hist is the text 'x', not an object"),
    # issue 35: an integer of 309+ digits made math.isfinite raise OverflowError
    ('"max":89', '"max":1' + "0" * 400, "max 100000000000…0000 is beyond any figure"),
    # issue 35: a lone surrogate was stored, then no listing could print it
    ('"reason":""', '"reason":"\\ud800"', "reason: a lone surrogate (U+D800) is no Unicode"),
    ('"hist":{', '"\\udc00":1,"hist":{', "a field name with a lone surrogate (U+DC00)"),
    # issue 35: statistics no sample set gives
    ('"p50":55', '"p50":95', "p50 95 is above p90 55: statistics out of order"),
    ('"mean":55.238', '"mean":1.5', "min 55 is above mean 1.5: statistics out of order"),
    ('"n":1000', '"n":0', "n 0 with statistics (min, max, mean, stddev, p50"),
])
def test_bad_figures_in_a_log_are_one_line_naming_file_and_line(old, new, why, isolated,
                                                                 capsys):
    at = _line_of('"id":"sched.yield.ctx.thread","status"')
    lines = list(LINES)
    lines[at - 1] = lines[at - 1].replace(old, new, 1)
    line = _refused(_write(isolated / "b.log", lines), isolated / "r.db", capsys)
    assert f"b.log:{at}:" in line and why in line, line
    assert not (isolated / "r.db").exists()


def test_deep_nesting_is_one_line(isolated, capsys):
    lines = list(LINES)
    lines.insert(3, '{"type":"metric","id":"x","status":"ok","deep":' + "[" * 30_000
                 + "]" * 30_000 + "}")  # within any line limit
    line = _refused(_write(isolated / "b.log", lines), isolated / "r.db", capsys)
    assert "b.log:4:" in line and "nested too deeply" in line


def _paths(value, path=()):
    """Every (path, value) in a JSON value: objects' fields, a list's first item."""
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list) and value:
        yield from _paths(value[0], (*path, 0))


def _set(rec, path, value):
    out = copy.deepcopy(rec)
    node = out
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return out


# a field turned into another JSON type: text, a number, a negative one, a flag,
# null, a list, an object
SUBSTITUTES = ["x", 7, -1, True, None, [], {}]


def _mutants():
    """One log per single-field type change of the session record and of
    one metric record: the fuzz that gave 18 tracebacks and 64 stored
    records the readers could not show."""
    session_at = _line_of('"type":"session"')
    metric_at = _line_of('"id":"sem.give.no_waiter","status"')
    for at in (session_at, metric_at):
        rec = json.loads(LINES[at - 1])
        for path, value in _paths(rec):
            if not path or path == ("type",):
                continue
            for sub in SUBSTITUTES:
                if type(sub) is not type(value) and sub != value:
                    lines = list(LINES)
                    lines[at - 1] = json.dumps(_set(rec, path, sub))
                    yield f"{'.'.join(map(str, path))}={json.dumps(sub)}", lines


MUTANTS = dict(_mutants())


def test_single_field_type_changes_are_refused_or_shown(isolated, capsys):
    """Each mutant log is refused in one line (nothing stored) or, where the
    change is one the readers take (a fact of the target, a field they do
    not read), stored; every stored run is then listed, shown, reported in
    every format, compared and its histogram printed, without a traceback."""
    db = isolated / "r.db"
    stored, refused = [], 0
    for name, lines in MUTANTS.items():
        path = _write(isolated / "m.log", lines)
        rc, err, _out = _import(path, db, capsys)
        assert "Traceback" not in err, (name, err)
        if rc == 2:
            one_line_error(err)
            refused += 1
        else:
            assert rc == 0, (name, err)
            stored.append(name)
    assert refused and stored  # both kinds occur
    with Store(db) as s:
        ids = [r.id for r in s.list_runs()]
    assert len(ids) == len(stored)
    for args in (["runs"], ["history", "sem.give.no_waiter"]):
        assert main([*args, "--db", str(db)]) == 0, args
    for run_id, name in zip(ids, stored):
        for args in (["show", str(run_id)], ["report", str(run_id), "--format", "csv"],
                     ["report", str(run_id), "--format", "json"],
                     ["compare", str(ids[0]), str(run_id)]):
            rc = main([*args, "--db", str(db)])
            err = capsys.readouterr().err
            assert rc in (0, 1) and "Traceback" not in err, (name, args, err)


def test_a_stored_run_renders_as_html(isolated, capsys):
    """The HTML sheet (plots) of a log that was stored: once, it is slow."""
    db = isolated / "r.db"
    assert _import(LOG, db, capsys)[0] == 0
    assert main(["report", "1", "--db", str(db), "--format", "html", "-o", "s.html"]) == 0


# ---- what serial capture tools write ----

@pytest.mark.parametrize("how", ["CR", "CRLF", "tio timestamps", "ts timestamps",
                                 "grabserial timestamps"])
def test_a_log_as_serial_tools_write_it_imports_whole(how, isolated, capsys):
    prefix = {"tio timestamps": "[2026-11-25 10:00:00.123] ", "ts timestamps":
              "Nov 25 10:00:00 ", "grabserial timestamps": "[0.123456 0.000120] "}.get(how, "")
    lines = [prefix + ln for ln in ["U-Boot-like banner", *LINES]]
    end = {"CR": "\r", "CRLF": "\r\n"}.get(how, "\n")
    rc, err, _out = _import(_write(isolated / "b.log", lines, end), isolated / "r.db", capsys)
    assert rc == 0, err
    with Store(isolated / "r.db") as s:
        run = s.get_run(1)
    assert run.status == "complete" and [m["id"] for m in run.metrics] == METRICS


def test_a_capture_cut_mid_line_is_stored_incomplete_with_that_metric_failed(isolated, capsys):
    at = _line_of('"id":"sem.give.no_waiter","status"')
    text = "\n".join(LINES[:at]) + "\n"
    cut = text[:len(text) - len(LINES[at - 1]) // 2]  # half of that metric's line
    (isolated / "b.log").write_text(cut)
    rc, err, _out = _import(isolated / "b.log", isolated / "r.db", capsys)
    assert rc == 0, err
    with Store(isolated / "r.db") as s:
        run = s.get_run(1)
    assert run.status == "incomplete"
    got = {m["id"]: m for m in run.metrics}
    assert list(got) == METRICS[:METRICS.index("sem.give.no_waiter") + 1]
    assert got["sem.give.no_waiter"]["status"] == "failed"
    assert "the log ends inside this metric" in got["sem.give.no_waiter"]["reason"]


@pytest.mark.parametrize("how", ["lost", "damaged"])
def test_a_lost_metric_line_makes_the_run_incomplete(how, isolated, capsys):
    at = _line_of('"id":"irq.enable","status"')
    lines = list(LINES)
    if how == "lost":
        del lines[at - 1]
    else:  # bytes lost on the serial line: no JSON any more
        lines[at - 1] = lines[at - 1][:40] + lines[at - 1][90:]
    rc, err, out = _import(_write(isolated / "b.log", lines), isolated / "r.db", capsys)
    assert rc == 0, err
    with Store(isolated / "r.db") as s:
        run = s.get_run(1)
    assert run.status == "incomplete" and "incomplete" in out
    got = {m["id"]: m for m in run.metrics}
    assert set(got) == set(METRICS)
    assert got["irq.enable"]["status"] == "failed"
    assert "its result line is missing" in got["irq.enable"]["reason"]


def _moved(order: list[int]) -> list[str]:
    """The log with its lines in this order (1-based; a number twice: that
    line twice)."""
    return [LINES[i - 1] for i in order]


@pytest.mark.parametrize("order, at, why", [
    # a begin printed twice: the result came, yet it was stored failed
    ([1, 2, 2, 3, *range(4, 15)], 3, "metric method.null begins again (it began at line 2)"),
    # two metrics' lines interleaved: both results came, one stored failed
    ([1, 2, 4, 3, 5, *range(6, 15)], 4, "metric method.null reported after another metric "
     "began (it began at line 2)"),
    ([1, 2, 4, 2, 3, 5, *range(6, 15)], 4, "metric method.null begins again (it began at "
     "line 2)"),
], ids=["begin twice", "results out of order", "begins again after another"])
def test_a_repeated_or_out_of_order_begin_is_one_line(order, at, why, isolated, capsys):
    """Issue 35: a metric whose result is in the log was stored failed
    ("its result line is missing") and the import counted it twice. A
    harness prints one metric at a time and a capture loses lines, never
    reorders them: such a log is two runs' outputs, refused."""
    line = _refused(_write(isolated / "b.log", _moved(order)), isolated / "r.db", capsys)
    assert f"b.log:{at}: {why}" in line and "out of order" in line, line
    assert not (isolated / "r.db").exists()


def test_a_lossy_log_counts_each_metric_once(isolated, capsys):
    """A lost result line and a damaged one: six metrics arrived, two of
    them failed, each counted once (the end record's six match)."""
    lines = list(LINES)
    lines[_line_of('"id":"irq.enable","status"') - 1] = "{damaged"
    del lines[_line_of('"id":"sem.give.no_waiter","status"') - 1]
    rc, err, out = _import(_write(isolated / "b.log", lines), isolated / "r.db", capsys)
    assert rc == 0, err
    assert "(6 metric records; incomplete: 1 damaged line(s) (7); 2 metric(s) without " \
           "their result)" in out, out
    with Store(isolated / "r.db") as s:
        got = {m["id"]: m["status"] for m in s.get_run(1).metrics}
    assert got == {**dict.fromkeys(METRICS, "ok"), "irq.enable": "failed",
                   "sem.give.no_waiter": "failed"}


def test_an_end_record_that_counts_other_metrics_makes_the_run_incomplete(isolated, capsys):
    """A metric lost with its begin line leaves no trace but the end
    record's count."""
    lines = [ln for ln in LINES if '"id":"irq.enable"' not in ln]
    assert _import(_write(isolated / "b.log", lines), isolated / "r.db", capsys)[0] == 0
    with Store(isolated / "r.db") as s:
        assert s.get_run(1).status == "incomplete"


# ---- memory that does not grow with the input ----

_PEAK = r"""
import sys, tracemalloc
from rtbench.cli import main
tracemalloc.start()
rc = main(sys.argv[1:])
print(rc, tracemalloc.get_traced_memory()[1] // 1024)
"""


def _peak_kib(args: list[str], cwd: Path, env: dict | None = None) -> tuple[int, int]:
    out = subprocess.run([sys.executable, "-c", _PEAK, *args], cwd=cwd, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(SRC), **(env or {})},
                         timeout=600)
    rc, peak = out.stdout.split()[-2:]
    return int(rc), int(peak)


def test_a_big_log_is_imported_a_line_at_a_time(isolated):
    """20 and 200 metrics of 60 KB each (the note): the peak memory the
    import allocates is the same within a few records' worth; it held
    every record (the issue: 916 MB for a 127 MB log)."""
    session = LINES[0]
    rec = json.loads(LINES[2])
    rec["note"] = "x" * 60_000

    def write(n: int) -> Path:
        lines = [session]
        for i in range(n):
            lines += [json.dumps({"type": "begin", "id": f"x.big.{i}"}),
                      json.dumps({**rec, "id": f"x.big.{i}"})]
        return _write(isolated / f"big{n}.log", [*lines, json.dumps({"type": "end"})])

    small, big = write(20), write(200)
    rc_small, kib_small = _peak_kib(["import", "harness", str(small), "--db", "s.db"], isolated)
    rc_big, kib_big = _peak_kib(["import", "harness", str(big), "--db", "b.db"], isolated)
    assert rc_small == 0 and rc_big == 0
    assert kib_big - kib_small < big.stat().st_size / 1024 / 4, (kib_small, kib_big)
    with Store(isolated / "b.db") as s:
        assert len(s.get_run(1).metrics) == 200


def test_damaged_lines_are_counted_in_bounded_memory(isolated, capsys):
    """Issue 35: every damaged line's number was kept (2 M lines of `{`:
    127 MB). 5 000 and 100 000 damaged lines: the peak memory of the import
    is the same within 1 MiB, the count right and the first five named.
    Compares two sizes, never a time."""
    def write(n: int) -> Path:
        return _write(isolated / f"d{n}.log", [*LINES[:3], *["{"] * n, *LINES[3:]])

    peaks = {}
    for n in (5_000, 100_000):
        rc, peaks[n] = _peak_kib(["import", "harness", str(write(n)), "--db", f"d{n}.db"],
                                 isolated)
        assert rc == 0
    assert peaks[100_000] - peaks[5_000] < 1024, peaks
    assert main(["import", "harness", str(isolated / "d100000.log"), "--db", "r.db"]) == 0
    out = capsys.readouterr().out
    assert "incomplete: 100000 damaged line(s) (4, 5, 6, 7, 8 …)" in out, out
    with Store(isolated / "r.db") as s:
        assert [m["status"] for m in s.get_run(1).metrics] == ["ok"] * len(METRICS)


def test_a_console_that_never_ends_its_line_is_read_in_bounded_memory(fake, isolated):
    """The harness prints 16 and 160 MiB without a line end inside a metric
    (a console gone wild): the peak memory of the run is the same within a
    record line's worth (it held all of it: 2.8 GB in 19 s); the metric
    fails and the rest is measured. Compares two sizes, never a time."""
    peaks = {}
    for mib in (16, 160):
        out = isolated / f"o{mib}"
        rc, peaks[mib] = _peak_kib(
            ["run", "--no-programs", "--only", "method.null,sem.give.no_waiter", "--quick",
             "--timeout", "3", "--db", "r.db", "--out", str(out)], isolated,
            {"FAKE_HARNESS_ENDLESS": f"method.null:{mib}"})
        assert rc == 0
        env = json.loads((out / "results.json").read_text())
        got = {m["id"]: m["status"] for m in env["metrics"]}
        assert got == {"method.null": "failed", "sem.give.no_waiter": "ok"}
    assert peaks[160] - peaks[16] < 32 * 1024, peaks


# ---- a harness (a board) that prints bad records during a run ----

@pytest.mark.parametrize("fields", ['{"n": "x"}', '{"p50": NaN}', '{"hist": 5}',
                                    '{"p999": -1e9}', '{"note": "\\ud800"}',
                                    '{"max": 1' + '0' * 400 + '}'],
                         ids=["n text", "NaN", "hist 5", "p999 -1e9", "lone surrogate",
                              "401 digits"])
def test_a_bad_record_during_a_run_fails_its_metric_and_keeps_the_run(fields, fake, isolated,
                                                                      capsys, monkeypatch):
    monkeypatch.setenv("FAKE_HARNESS_BAD", f"sem.give.no_waiter:{fields}")
    rc = main(["run", "--no-programs", "--blocks", "2", "--only",
               "method.null,sem.give.no_waiter,sem.take.available", "--quick", "--db", "r.db",
               "--out", "o"])
    err = capsys.readouterr().err
    assert rc == 1, err
    line = one_line_error(err)
    assert "bad record" in line and "incomplete" in line, line
    assert intact(isolated / "r.db") == [(1, "incomplete")]
    env = json.loads((isolated / "o" / "results.json").read_text())
    got = {m["id"]: m for m in env["metrics"]}
    assert env["run"]["status"] == "incomplete"
    assert got["sem.give.no_waiter"]["status"] == "failed"
    assert got["sem.give.no_waiter"]["reason"].startswith("bad record from the harness")
    assert got["method.null"]["status"] == got["sem.take.available"]["status"] == "ok"
    assert (isolated / "o" / "datasheet.md").is_file()


# ---- another carrier: a standard program's output ----

@pytest.mark.parametrize("line, why", [
    ("events per second: 1" + "9" * 400, "not a finite number"),   # a float: inf
    ("events per second: 5\ntotal number of events: 1" + "0" * 30, "not a count"),
])
def test_a_standard_programs_impossible_figure_fails_its_metric(line, why, tmp_path,
                                                                monkeypatch):
    """A program rtbench runs beside the harness (sysbench here) prints a
    figure no record may hold: its metric is failed with why, never stored
    as a number (the records of standard programs pass the same contract)."""
    from rtbench.peers import programs

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "sysbench"
    exe.write_text(f"#!/bin/sh\nprintf '%s\\n' '{line}'\n")
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    got: list[dict] = []
    programs.run(["sys.prog.sysbench.cpu"], programs.Context(None), got.append)
    (rec,) = got
    assert rec["status"] == "failed" and why in rec["reason"], rec
    assert "sysbench" in rec["reason"] and "mean" not in rec and "n" not in rec


def test_a_lab_console_that_never_ends_its_line_is_read_in_bounded_memory():
    """A labgrid console (a board's UART) printing 40 MiB without a line
    end, then the end record: the text is given as a cut line (read as a
    damaged record) and the end record still arrives; nothing holds the
    40 MiB (it grew rtbench to 2.8 GB in 19 s)."""
    import tracemalloc

    from rtbench.store.records import MAX_LINE
    from rtbench.targets.labgrid import CHUNK, ENDED, ConsoleLines

    class Console:  # labgrid's ConsoleProtocol, as ConsoleLines reads it
        def __init__(self):
            self.chunks = iter([b"x" * CHUNK] * ((40 << 20) // CHUNK)
                               + [b"\r\n", b'{"type":"end","metrics":0}\r\n'])

        def read(self, size, timeout, max_size):
            return next(self.chunks, b"")

    tracemalloc.start()
    try:
        lines = ConsoleLines(Console(), eof_on_empty=True)
        got = [(len(line), line[:20]) for line in lines]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got[0][0] <= MAX_LINE + 2 and got[-1][1].startswith('{"type":"end"'), got[:3]
    assert lines.ended == ENDED
    assert peak < 8 * MAX_LINE, peak
