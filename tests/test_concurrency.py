"""The store under concurrent writers and killed processes (WAL mode, one
short transaction per write): every run lands, and a process killed with
SIGKILL mid-write leaves a readable database with its run absent or
incomplete, never half a record."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from rtbench.store.db import Store

# A stand-in for `rtbench run`'s write pattern: create the run with its
# pending rows, commit one (histogram-sized) record at a time, finish.
WRITER = r"""
import sys, time
from rtbench.store.db import Store
db, uuid, n, delay = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
hist = {"buckets": [[j, j + 1, 1] for j in range(400)]}
with Store(db) as s:
    rid = s.create_run(uuid, "t", [f"m{i}" for i in range(n)], label=uuid)
    print(rid, flush=True)
    for i in range(n):
        s.add_metric(rid, {"type": "metric", "id": f"m{i}", "status": "ok", "n": 1,
                           "hist": hist})
        time.sleep(delay)
    s.finish_run(rid, "complete", "t2")
"""

# `rtbench import` of a large file: one transaction.
IMPORTER = r"""
import sys
from rtbench.store.db import Store
n = int(sys.argv[2])
env = {"run": {"uuid": "big", "started": "t", "status": "complete", "label": ""},
       "session": None, "host": {},
       "metrics": [{"id": f"m{i}", "status": "ok", "n": 1,
                    "hist": {"buckets": [[j, j + 1, 1] for j in range(300)]}}
                   for i in range(n)],
       "not_measured": []}
with Store(sys.argv[1]) as s:
    print("start", flush=True)
    s.import_run(env, "file", "now")
"""


def _spawn(script: str, *args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", script, *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _check_readable(db) -> list:
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    for (record,) in conn.execute("SELECT record FROM metrics WHERE record IS NOT NULL"):
        json.loads(record)  # never half a record
    conn.close()
    with Store(db, create=False) as s:
        return [s.get_run(r.id) for r in s.list_runs()]


@pytest.mark.parametrize("attempt", range(4))
def test_concurrent_writers_all_land(tmp_path, attempt):
    db = tmp_path / "r.db"  # they all create it: WAL switch and migration must not race
    procs = [_spawn(WRITER, db, f"w{i}", 60, 0.002) for i in range(3)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    runs = _check_readable(db)
    assert sorted(r.label for r in runs) == ["w0", "w1", "w2"]
    for run in runs:
        assert run.status == "complete" and len(run.metrics) == 60 and run.pending == []


@pytest.mark.parametrize("after", [0.0, 0.02, 0.1, 0.25])
def test_sigkill_mid_write_leaves_a_readable_incomplete_run(tmp_path, after):
    db = tmp_path / "r.db"
    with Store(db) as s:  # an earlier, finished run must survive untouched
        rid = s.create_run("earlier", "t", ["x"])
        s.add_metric(rid, {"type": "metric", "id": "x", "status": "ok", "n": 1})
        s.finish_run(rid, "complete", "t")
    p = _spawn(WRITER, db, "killed", 100000, 0)
    assert p.stdout.readline().strip() == "2"  # the run exists, records are streaming in
    time.sleep(after)
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=30)
    earlier, killed = _check_readable(db)
    assert earlier.status == "complete" and len(earlier.metrics) == 1
    assert killed.stored_status == "running" and killed.status == "incomplete"
    assert len(killed.metrics) + len(killed.pending) == 100000


@pytest.mark.parametrize("after", [0.05, 0.3])
def test_sigkill_during_import_leaves_nothing_half_imported(tmp_path, after):
    db = tmp_path / "r.db"
    Store(db).close()
    p = _spawn(IMPORTER, db, 3000)
    assert p.stdout.readline().strip() == "start"
    time.sleep(after)
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=30)
    runs = _check_readable(db)
    assert runs == [] or (len(runs) == 1 and len(runs[0].metrics) == 3000)
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT COUNT(*) FROM metrics").fetchone()[0] in (0, 3000)


def _rtbench(*args, env=None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "rtbench", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_rtbench_runs_at_once_into_one_database(fake, isolated):
    env = dict(os.environ, FAKE_HARNESS_DELAY="0.01")
    procs = [_rtbench("run", "--quick", "--only", "sem.*,mutex.*", "--db", "r.db",
                      "--out", f"o{i}", "--label", f"r{i}", env=env) for i in range(2)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    runs = _check_readable(isolated / "r.db")
    assert sorted(r.label for r in runs) == ["r0", "r1"]
    assert all(r.status == "complete" and not r.pending for r in runs)


def test_sigkill_of_rtbench_run(fake, isolated):
    env = dict(os.environ, FAKE_HARNESS_DELAY="0.2")
    p = _rtbench("run", "--quick", "--db", "r.db", "--out", "o", env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until a record has been committed
        if (isolated / "r.db").exists():
            conn = sqlite3.connect(isolated / "r.db")
            try:
                done = conn.execute(
                    "SELECT COUNT(*) FROM metrics WHERE record IS NOT NULL").fetchone()[0]
            except sqlite3.OperationalError:
                done = 0  # tables not created yet
            conn.close()
            if done:
                break
        time.sleep(0.05)
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=30)
    (run,) = _check_readable(isolated / "r.db")
    assert run.status == "incomplete" and run.metrics and run.pending
