"""Fault injection: rtbench as a normal user (no SCHED_FIFO, an 8 MiB
locked-memory limit, file permissions enforced; tests/faults.py, User),
and paths such a user may not write or read.

A normal user gets a complete run whose sheet says "not real-time"; a
database it may not write or a directory it may not read is one line,
exit 2, nothing stored and the earlier runs intact.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from faults import Leftovers, intact, one_line_error, spawn
from rtbench.store.db import Store

ONLY = ("method.null,sem.give.no_waiter,sem.give.wake_ctx.process,"
        "sys.bw.mem.rd.16m")  # a forked task, and 16 MiB buffers mapped after start-up


@pytest.fixture
def exe(real_exe, user_dir) -> Path:
    """The real harness where the user may run it."""
    path = user_dir / "rtbench-harness"
    shutil.copy(real_exe, path)
    path.chmod(0o755)
    return path


@pytest.fixture
def left(user_dir) -> Leftovers:
    """What the test's processes leave behind (the fixture marks the test
    serial: tests/conftest.py)."""
    return Leftovers(user_dir / "tmp")


def _env(left: Leftovers, exe: Path) -> dict[str, str]:
    return {**left.env(), "RTBENCH_HARNESS": str(exe)}


@pytest.mark.parametrize("flags", [[], ["--no-rt"]], ids=["rt", "no-rt"])
def test_a_normal_user_gets_a_sheet_that_says_not_real_time(flags, normal_user, user_dir, exe,
                                                           left):
    r = spawn(["run", "--quick", "--no-programs", "--only", ONLY, "--db", "r.db",
               "--out", "o", *flags], user_dir, _env(left, exe), normal_user)
    rc, out, err = r.finish()
    assert rc == 0, (normal_user.how, out, err)
    env = json.loads((user_dir / "o" / "results.json").read_text())
    assert env["run"]["status"] == "complete"
    rt = env["session"]["rt"]
    assert rt["realtime"] is False and rt["mlock"] is False, rt
    assert [m["status"] for m in env["metrics"]] == ["ok"] * len(ONLY.split(","))
    sheet = (user_dir / "o" / "datasheet.md").read_text()
    assert "**Not real-time:" in sheet and "**Memory locked:** no" in sheet
    left.check()


def test_no_shared_region_is_a_reported_error(real_exe, isolated, monkeypatch, capsys):
    """Were the 4 MiB shared region refused (as a locked-memory limit
    would), the harness says so and the run is stored as failed: never a
    silent exit 0 that measured nothing."""
    from rtbench.cli import main

    monkeypatch.setenv("RTBENCH_HARNESS", str(real_exe))
    monkeypatch.setenv("RTBENCH_INJECT_FAULT", "no-shared-region")
    assert main(["run", "--quick", "--no-programs", "--only", "method.null", "--db", "r.db",
                 "--out", "o"]) == 1
    line = one_line_error(capsys.readouterr().err)
    assert "cannot run: shared region: mmap of 4 MiB: Resource temporarily unavailable" in line
    assert intact(isolated / "r.db") == [(1, "failed")]


# ---- a database the user may not write, a directory it may not read ----

def _earlier_run(db: Path) -> None:
    with Store(db) as s:
        rid = s.create_run("earlier", "2026-01-01T00:00:00+00:00", ["method.null"])
        s.add_metric(rid, {"type": "metric", "id": "method.null", "status": "ok", "n": 1})
        s.finish_run(rid, "complete", "2026-01-01T00:00:01+00:00")


ZEPHYR = "sem.give.no_waiter - Give a semaphore (no waiters) : 100 cycles , 833 ns :\n"


@pytest.mark.parametrize("command", ["run", "import"])
def test_a_read_only_database_is_one_line_and_stays_as_it_was(command, normal_user, user_dir,
                                                              exe, left):
    db = user_dir / "r.db"
    _earlier_run(db)  # by root: the user may read it, not write it
    db.chmod(0o444)
    before = intact(db)
    (user_dir / "z.log").write_text(ZEPHYR)
    args = (["run", "--quick", "--no-programs", "--only", "method.null", "--out", "o"]
            if command == "run" else ["import", "zephyr", "z.log"])
    rc, out, err = spawn([*args, "--db", "r.db"], user_dir, _env(left, exe),
                         normal_user).finish()
    assert rc == 2, (out, err)
    assert "cannot write database" in one_line_error(err)
    assert intact(db) == before and not (user_dir / "o").exists()
    left.check()


@pytest.mark.parametrize("command", ["run", "import", "show", "runs"])
def test_a_database_under_an_unreadable_directory_is_one_line(command, normal_user, user_dir,
                                                               exe, left):
    locked = user_dir / "locked"
    locked.mkdir()
    _earlier_run(locked / "r.db")
    locked.chmod(0o000)
    (user_dir / "z.log").write_text(ZEPHYR)
    args = {"run": ["run", "--quick", "--no-programs", "--only", "method.null", "--out", "o"],
            "import": ["import", "zephyr", "z.log"], "show": ["show", "latest"],
            "runs": ["runs"]}[command]
    try:
        rc, out, err = spawn([*args, "--db", "locked/r.db"], user_dir, _env(left, exe),
                             normal_user).finish()
    finally:
        locked.chmod(0o755)
    assert rc == 2, (out, err)
    assert "Permission denied" in one_line_error(err)
    assert not (user_dir / "o").exists() and intact(locked / "r.db") == [(1, "complete")]
    left.check()


def test_an_out_directory_the_user_may_not_write_is_one_line(normal_user, user_dir, exe, left):
    ro = user_dir / "ro"
    ro.mkdir(mode=0o555)
    rc, out, err = spawn(["run", "--quick", "--no-programs", "--only", "method.null",
                          "--db", "r.db", "--out", "ro/o"], user_dir, _env(left, exe),
                         normal_user).finish()
    assert rc == 2 and "Permission denied" in one_line_error(err), (out, err)
    assert os.listdir(ro) == [] and not (user_dir / "r.db").exists()
    left.check()
