"""Issue 34, item 15: an rt-tests import as a practitioner reads it.

Every thread counts (the qualifying figure is the max over all of them,
each thread's max kept visible); real-time status comes from the output or
its command line and is "unknown" where neither says; sample counts are
never "None"; summary and histogram imports print in the unit cyclictest
printed (µs), its whole µs as whole numbers; and any import of the same
files twice is refused like a results.json's. The files are real outputs
of this VM's rt-tests (tests/data/import/rt-tests/README.md).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rtbench.cli import main
from rtbench.compare import conditions
from rtbench.importers import read_files, rttests
from rtbench.store import catalog
from rtbench.store.db import Store

DATA = Path(__file__).resolve().parent / "data" / "import"
RT = DATA / "rt-tests"
T2 = RT / "cyclictest-p90-t2.txt"  # thread 1's max (121 µs) above thread 0's (113 µs)
H2 = RT / "cyclictest-p90-h400-t2.txt"  # -h 400 of two threads, its command line on top


@pytest.fixture(scope="module")
def cat():
    return catalog.load()


def _rec(path: Path, cat) -> dict:
    return rttests.parse(path, catalog=cat).records[0]


def test_summary_max_is_over_every_thread(cat):
    rec = _rec(T2, cat)
    assert rec["max"] == 121000 and rec["min"] == 19000  # thread 1's max, thread 1's min
    assert rec["n"] == 1000 + 303
    assert rec["mean"] == pytest.approx((38000 * 1000 + 47000 * 303) / 1303, abs=0.001)
    per = rec["source"]["per_thread"]
    assert [p["max"] for p in per] == [113000, 121000] and [p["n"] for p in per] == [1000, 303]
    assert "each thread's max in µs: 113, 121" in rec["note"]


def test_histogram_adds_every_threads_buckets(cat):
    rec = _rec(H2, cat)
    assert rec["n"] == 2000 and sum(b[2] for b in rec["hist"]["buckets"]) == 2000
    assert rec["max"] == 228000 and [p["max"] for p in rec["source"]["per_thread"]] == [228000,
                                                                                          193000]
    old = _rec(RT / "cyclictest-h100-t2.txt", cat)  # 2,000 samples a thread, 28 overflowed
    assert old["n"] == 4000 and old["hist"]["overflow"] == 28
    assert sum(b[2] for b in old["hist"]["buckets"]) == 4000 - 28
    assert "every thread's buckets added" in old["note"]


def test_pair_programs_too(cat):
    rec = _rec(RT / "ptsematest-t2.txt", cat)
    assert rec["max"] == 87000 and len(rec["source"]["per_thread"]) == 2  # pair 1's max


@pytest.mark.parametrize("name, realtime, policy", [
    ("cyclictest-p90-t2.txt", True, "real-time priority 90"),  # the T: lines' P:90
    ("cyclictest-noq.txt", True, "SCHED_FIFO priority 80"),  # P:80 and "policy: fifo"
    ("cyclictest-p90-h400-t2.txt", True, "SCHED_FIFO priority 90"),  # its command line
    ("cyclictest.json", True, "SCHED_FIFO priority 80"),  # the JSON's cmdline
    ("cyclictest-h100-t2.txt", None, None),  # a histogram alone does not say
])
def test_realtime_from_the_output_else_unknown(cat, name, realtime, policy):
    rt = read_files("rt-tests", [RT / name], cat).session["rt"]
    assert rt.get("realtime") is realtime and rt.get("policy") == policy
    assert rt["reason"]


def test_unknown_realtime_is_shown_as_unknown(isolated, capsys):
    db = str(isolated / "r.db")
    assert main(["import", "rt-tests", str(RT / "cyclictest-h100-t2.txt"), "--db", db]) == 0
    assert main(["import", "rt-tests", str(T2), "--db", db]) == 0
    capsys.readouterr()
    assert main(["show", "1", "--db", db]) == 0
    assert "Real-time policy: unknown (the output does not say)" in capsys.readouterr().out
    assert main(["show", "2", "--db", db]) == 0
    assert "✓ Real-time policy: real-time priority 90" in capsys.readouterr().out
    with Store(db, create=False) as store:
        runs = [store.get_run(1), store.get_run(2)]
    said = conditions.warnings(runs)
    assert "not every run had real-time scheduling: run 1: unknown, run 2: yes" in said


def test_sample_counts_never_none(isolated):
    from synth import full_run, store

    db = isolated / "r.db"
    store(db, full_run(["sys.timer.wakeup.idle"]))  # a measured run: its configuration's count
    assert main(["import", "rt-tests", str(T2), "--db", str(db)]) == 0
    assert main(["import", "zephyr", str(DATA / "zephyr" / "latency_measure-kernel.txt"),
                 "--db", str(db)]) == 0  # averages only: no count at all
    with Store(db, create=False) as s:
        runs = [s.get_run(i) for i in (1, 2, 3)]
    line = next(w for w in conditions.warnings(runs) if w.startswith("different sample counts"))
    assert "None" not in line and "run 2: 1,303" in line and "run 3: not recorded" in line


def test_summary_and_histogram_imports_print_whole_us(isolated, capsys):
    db = str(isolated / "r.db")
    assert main(["import", "rt-tests", str(RT / "cyclictest-noq.txt"), "--db", db]) == 0  # max 1,460 µs
    assert main(["import", "rt-tests", str(H2), "--db", db]) == 0
    capsys.readouterr()
    for run, row in (("1", "| — | — | 1,460 | 25 | 500 |"), ("2", "| 72 | 99 | 228 | 2000 |")):
        assert main(["show", run, "--db", db]) == 0
        sheet = capsys.readouterr().out
        assert "## Key figures (µs)" in sheet, sheet
        assert row in sheet
    assert main(["history", "sys.timer.wakeup.idle", "--format", "md", "--db", db]) == 0
    hist = capsys.readouterr().out
    assert "| 9 | — | 25 | — | 1,460 |" in hist and "| 19 | 72 | 71 | 99 | 228 |" in hist
    assert ".000" not in hist


@pytest.mark.parametrize("kind, path", [
    ("zephyr", DATA / "zephyr" / "latency_measure-kernel.txt"),
    ("rt-tests", T2),
    ("lmbench", DATA / "lmbench" / "lat_ctx.txt"),
])
def test_the_same_files_imported_twice_are_refused(isolated, capsys, kind, path):
    db = isolated / "r.db"
    assert main(["import", kind, str(path), "--db", str(db), "--label", "first"]) == 0
    conn = sqlite3.connect(db)
    before = list(conn.iterdump())
    conn.close()
    capsys.readouterr()
    assert main(["import", kind, str(path), "--db", str(db), "--label", "again"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rtbench: error: ") and err.count("\n") == 1, err
    assert f"{path} (the same content, sha256 " in err and "as run 1" in err
    conn = sqlite3.connect(db)
    assert list(conn.iterdump()) == before  # nothing stored
    conn.close()
    copy = isolated / ("copy-" + path.name)  # the same bytes under another name: the same run
    copy.write_bytes(path.read_bytes())
    assert main(["import", kind, str(copy), "--db", str(db)]) == 2
