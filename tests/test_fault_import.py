"""Fault injection: hostile files for `rtbench import`.

Whatever the file, the answer is one line, exit 2, nothing stored and the
earlier runs intact; never a hang, never memory that grows with the file.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from faults import SRC, intact, one_line_error
from rtbench.cli import main
from rtbench.sheets import export
from rtbench.store import catalog
from rtbench.store.db import Store
from synth import full_run, store


@pytest.fixture
def db(isolated) -> Path:
    """A database with one earlier run in it."""
    path = isolated / "r.db"
    store(path, full_run(catalog.load().ids[:3]))
    return path


@pytest.fixture
def results(isolated, db) -> str:
    """A valid results.json (of another run) as text."""
    env = json.loads(export.to_json(full_run(catalog.load().ids[:3]), catalog.load()))
    env["run"]["uuid"] = "another-run"
    return json.dumps(env, indent=2)


def _refused(args: list[str], db: Path, capsys) -> str:
    before = intact(db)
    assert main([*args, "--db", str(db)]) == 2
    line = one_line_error(capsys.readouterr().err)
    assert intact(db) == before  # nothing stored, the earlier run untouched
    return line


# ---- files that are not files ----

@pytest.mark.parametrize("kind", ["rtbench", "zephyr", "rt-tests", "lmbench"])
@pytest.mark.parametrize("what", ["fifo", "/dev/zero", "directory"])
def test_what_is_not_a_regular_file_is_refused_without_reading(kind, what, isolated, db,
                                                                capsys):
    path = {"fifo": isolated / "fifo", "/dev/zero": Path("/dev/zero"),
            "directory": isolated / "dir"}[what]
    if what == "fifo":
        os.mkfifo(path)  # nobody writes it: a read would wait for ever
    elif what == "directory":
        path.mkdir()
    line = _refused(["import", kind, str(path)], db, capsys)
    assert "not a file" in line or "not a regular file" in line


# ---- text in another encoding (issue 35) ----

DATA = Path(__file__).resolve().parent / "data"
CAPTURES = {"harness": DATA / "board" / "freertos-mps2-an385.log",
            "zephyr": DATA / "import" / "zephyr" / "latency_measure-kernel.txt",
            "rt-tests": DATA / "import" / "rt-tests" / "cyclictest-h200.txt",
            "lmbench": DATA / "import" / "lmbench" / "lat_syscall.txt",
            "rtos-benchmark": DATA / "import" / "rtos-benchmark" /
            "bench_all-freertos-mps2-an385.txt"}


@pytest.mark.parametrize("kind", [*CAPTURES, "rtbench"])
@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-le", "utf-32"])
def test_a_capture_in_another_encoding_is_read_or_named(kind, encoding, isolated, db, results,
                                                        capsys):
    """A Windows tool's capture: UTF-8 with a byte-order mark is read as
    UTF-8; UTF-16 or UTF-32 is one line that names it (it was "no harness
    session record", "begin record before the session record", "binary
    data (NUL byte)", "not valid JSON"), nothing stored."""
    text = results if kind == "rtbench" else CAPTURES[kind].read_text()
    path = isolated / f"capture.{kind}"
    path.write_bytes(text.encode(encoding))
    args = ["import", str(path)] if kind == "rtbench" else ["import", kind, str(path)]
    if encoding == "utf-8-sig":
        assert main([*args, "--db", str(db)]) == 0, capsys.readouterr().err
        return
    line = _refused(args, db, capsys)
    want = encoding.upper().replace("-LE", "LE")
    assert f"{want} text, not UTF-8: convert it first (iconv -f {want} -t UTF-8)" in line, line


# ---- results files: JSON that breaks parsers, figures that are not figures ----

HOSTILE_JSON = {
    "deeply nested": "[" * 100_000 + "]" * 100_000,
    "nested inside the envelope": '{"schema_version": 2, "x": ' + "[" * 100_000
                                  + "]" * 100_000 + "}",
    "5000-digit number": '{"schema_version": ' + "9" * 5000 + "}",
    "not UTF-8": b'{"schema_version": 2, "x": "\xff\xfe"}',
    "truncated": '{"schema_version": 2, "metrics": [{"id": "x"',
    "empty": "",
}


@pytest.mark.parametrize("text", HOSTILE_JSON.values(), ids=HOSTILE_JSON.keys())
def test_hostile_json_is_one_line(text, isolated, db, capsys):
    path = isolated / "bad.json"
    (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)
    _refused(["import", str(path)], db, capsys)


@pytest.mark.parametrize("value, why", [
    ("NaN", "NaN is not a number JSON allows"),
    ("Infinity", "Infinity is not a number JSON allows"),
    ("1e400", "beyond a floating-point number"),
    ("1e308", "is beyond any figure"),
    ("-5000", "p50 -5000 is negative"),  # the harness's floor is -overhead
])
def test_figures_that_are_not_figures_are_refused(value, why, isolated, db, results, capsys):
    text = re.sub(r'"p50": [-0-9.e]+', f'"p50": {value}', results, count=1)
    (isolated / "bad.json").write_text(text)
    assert why in _refused(["import", str(isolated / "bad.json")], db, capsys)


def test_a_slightly_negative_harness_time_is_kept(isolated, db, results):
    """Below the read cost by less than the read cost: what the harness
    reports for operations shorter than a counter read (records.md)."""
    env = json.loads(results)
    rec = env["metrics"][0]
    rec["min"] = -rec["overhead"]
    (isolated / "ok.json").write_text(json.dumps(env))
    assert main(["import", str(isolated / "ok.json"), "--db", str(db)]) == 0


@pytest.mark.parametrize("kind, text, why", [
    ("zephyr", "sem.give.no_waiter - Give : 329 cycles , 27\n", "z.txt:1: a latency_measure "
     "result line that cannot be read"),
    ("lmbench", "Simple syscall: 0.1 microseconds\nSimple read: 0.2\n",
     "z.txt:2: a labelled figure without its unit"),
    ("lmbench", "Simple syscall: -0.1 microseconds\n", "z.txt:1: Simple syscall: mean -100.0 "
     "is negative"),
    ("lmbench", "Simple syscall: 1e308 microseconds\n", "z.txt:1: Simple syscall: mean inf is "
     "not a finite number"),
    ("rt-tests", '{"cmdline": "cyclictest", "thread": {"0": {"min": -5, "avg": 3, "max": 9}}}',
     "z.txt:1: cyclictest: min -5000 is negative"),
    ("rt-tests", '{"cmdline": "cyclictest", "thread": {"0": {"min": ' + "9" * 5000 + "}}}",
     "z.txt:1: not valid JSON"),
    # issue 35: what the file says of its machine passes the contract too
    ("rt-tests", '{"cmdline": "cyclictest", "sysinfo": {"release": "6.1\\ud800"}, "thread": '
     '{"0": {"min": 5, "avg": 6, "max": 9}}}',
     "z.txt:0: source.files[0].host.release: a lone surrogate (U+D800) is no Unicode"),
])
def test_mangled_tool_output_names_its_line(kind, text, why, isolated, db, capsys):
    (isolated / "z.txt").write_text(text)
    assert why in _refused(["import", kind, str(isolated / "z.txt")], db, capsys)


def test_a_refused_import_into_a_new_database_creates_none(isolated, capsys):
    (isolated / "bad.json").write_text('{"schema_version": 2, "metrics": [NaN]}')
    assert main(["import", str(isolated / "bad.json"), "--db", "new.db"]) == 2
    assert not (isolated / "new.db").exists()


# ---- memory does not grow with the file ----

# The peak of what Python allocated during the import (tracemalloc): exact,
# unlike the process's RSS, whose peak may come from start-up.
_PEAK = r"""
import sys, tracemalloc
from rtbench.cli import main
tracemalloc.start()
rc = main(sys.argv[1:])
print(rc, tracemalloc.get_traced_memory()[1] // 1024)
"""


def _peak_kib(args: list[str], cwd: Path) -> tuple[int, int]:
    out = subprocess.run([sys.executable, "-c", _PEAK, *args], cwd=cwd, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(SRC)}, timeout=600)
    rc, peak = out.stdout.split()[-2:]
    return int(rc), int(peak)


def test_a_big_results_file_is_read_a_record_at_a_time(isolated, results):
    """The same run with 20 and with 200 big metric records: the peak memory
    the import allocates is the same within a few records' worth (it was the
    whole file, twice). Compares two sizes, never a time."""
    base = json.loads(results)
    rec = base["metrics"][0]
    rec["note"] = "x" * 60_000  # ~60 KB a record (cheap to parse: time is not the point)

    def write(n: int) -> Path:
        env = dict(base, metrics=[dict(rec, id=f"x.big.{i}") for i in range(n)],
                   run=dict(base["run"], uuid=f"big-{n}"))
        path = isolated / f"big{n}.json"
        path.write_text(json.dumps(env))
        return path

    small, big = write(20), write(200)
    assert big.stat().st_size > 10 * 2**20
    rc_small, kib_small = _peak_kib(["import", str(small), "--db", "s.db"], isolated)
    rc_big, kib_big = _peak_kib(["import", str(big), "--db", "b.db"], isolated)
    assert rc_small == 0 and rc_big == 0
    grown = kib_big - kib_small
    assert grown < big.stat().st_size / 1024 / 4, (kib_small, kib_big)
    with Store(isolated / "b.db") as s:
        assert len(s.get_run(1).metrics) == 200


def test_report_json_is_strict_json_even_for_a_stored_nan(isolated, capsys):
    """A record stored before NaN was refused is written as null, never as
    a bare NaN a strict parser rejects."""
    r = full_run(catalog.load().ids[:2])
    r.metrics[0]["mean"] = float("nan")
    store(isolated / "r.db", r)
    assert main(["report", "1", "--db", "r.db", "--format", "json", "-o", "r.json"]) == 0
    text = (isolated / "r.json").read_text()
    json.loads(text, parse_constant=lambda c: pytest.fail(f"bare {c} in the JSON"))
    assert json.loads(text)["metrics"][0]["mean"] is None
