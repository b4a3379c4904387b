"""Fault injection: signals at several moments of `rtbench run`.

SIGINT, SIGTERM and SIGHUP end a run the way Ctrl-C does (the run kept,
marked incomplete, its sheet written; exit 130, 143, 129); SIGKILL of
rtbench still takes the harness, its helpers and the standard programs
down (rtbench.process.lifetime's guard); a closed stdout stops the run like
SIGPIPE. Each time nothing is left behind: no process, temporary
directory, message queue, shared-memory object or System V IPC object
(tests/faults.py, Leftovers).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
from pathlib import Path

import pytest

from faults import SIGNALS, Leftovers, intact, spawn, stored, wait_for
from rtbench.process import locks
from rtbench.targets import harness

pytestmark = pytest.mark.usefixtures("fake")


SOME = "method.*,sem.*,mutex.*"  # a few dozen metrics: a short sheet to write


def _env(left: Leftovers, **extra: str) -> dict[str, str]:
    return {**left.env(), **extra}


def _check_interrupted_run(cwd: Path, rc: int, code: int, out: str, err: str) -> dict:
    """The promise of an interrupted run, whatever interrupted it."""
    assert rc == code, (rc, out, err)
    assert "Traceback" not in err, err
    assert intact(cwd / "r.db") == [(1, "incomplete")]
    env = json.loads((cwd / "o" / "results.json").read_text())
    assert env["run"]["status"] == "incomplete" and env["metrics"]
    assert "**Incomplete run:**" in (cwd / "o" / "datasheet.md").read_text()
    assert (cwd / "o" / "datasheet.html").read_text().rstrip().endswith("</html>")
    return env


# ---- while the harness measures ----

@pytest.mark.parametrize("name", SIGNALS)
def test_a_signal_while_measuring_ends_the_run_like_ctrl_c(name, isolated, left):
    sig, code = SIGNALS[name]
    r = spawn(["run", "--quick", "--only", SOME, "--db", "r.db", "--out", "o"], isolated,
              _env(left, FAKE_HARNESS_DELAY="0.2"))
    wait_for("a stored record", lambda: stored(isolated / "r.db"), proc=r.proc)
    r.signal(sig)
    rc, out, err = r.finish()
    env = _check_interrupted_run(isolated, rc, code, out, err)
    assert env["not_measured"] and f"interrupted ({name})" in out
    left.check()


def test_sigkill_of_rtbench_takes_the_harness_down(isolated, left):
    """The harness hangs in its second metric, so it writes nothing that
    could kill it with SIGPIPE: only rtbench's guard can end it."""
    r = spawn(["run", "--quick", "--only", "method.*", "--timeout", "600", "--db", "r.db",
               "--out", "o"], isolated,
              _env(left, RTBENCH_INJECT_FAULT="hang:method.busywait"))
    wait_for("a stored record", lambda: stored(isolated / "r.db"), proc=r.proc)
    r.signal(signal.SIGKILL)
    r.finish()
    left.check()  # the fake harness is gone, though nobody stopped it in order
    assert intact(isolated / "r.db") == [(1, "running")]  # nobody could finish it
    from rtbench.store.db import Store
    with Store(isolated / "r.db", create=False) as s:
        assert s.get_run(1).status == "incomplete"  # its process is gone: not "running"


def test_a_closed_stdout_stops_the_run_and_keeps_it(isolated, left):
    """`rtbench run | head`: the reader goes away once the second block
    begins (so the first block's figures exist, and are kept)."""
    head = subprocess.Popen(["sh", "-c", 'while read -r l; do case "$l" in "progress: block 2/"*)'
                             ' exit 0;; esac; done'], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL)
    r = spawn(["run", "--quick", "--only", SOME, "--db", "r.db", "--out", "o"], isolated,
              _env(left, FAKE_HARNESS_DELAY="0.05"), stdout=head.stdin)
    head.stdin.close()
    head.wait()
    rc, out, err = r.finish()
    _check_interrupted_run(isolated, rc, 141, out, err)
    assert "output closed: run 1 kept as incomplete" in err and "Traceback" not in err
    left.check()


# ---- before the run exists: waiting for the benchmark CPU ----

@pytest.mark.parametrize("name", SIGNALS)
def test_a_signal_before_the_run_exists_stores_nothing(name, isolated, left):
    sig, code = SIGNALS[name]
    cpu = max(os.sched_getaffinity(0))
    with locks.benchmark_cpu(cpu, lambda _: None):  # as if another run measured there
        r = spawn(["run", "--quick", "--only", SOME, "--db", "r.db", "--out", "o"], isolated, _env(left))
        wait_for("the wait for the CPU", lambda: "is in use by another rtbench run"
                 in r.out.read_text(), proc=r.proc)
        r.signal(sig)
        rc, out, err = r.finish()
    assert rc == code and f"rtbench: error: interrupted ({name})" in err, (out, err)
    assert not (isolated / "o").exists() and not (isolated / "r.db").exists()
    left.check()


# ---- while a standard program runs ----

def _slow_program(bin_dir: Path, started: Path) -> None:
    """A fake sysbench that forks a child, says so, and runs on."""
    path = bin_dir / "sysbench"
    path.write_text(f"#!/bin/sh\n/bin/sleep 300 &\necho $$ $! > '{started}'\n"
                    "exec /bin/sleep 300\n")
    path.chmod(0o755)


@pytest.mark.parametrize("name", ["SIGINT", "SIGKILL"])
def test_a_signal_during_a_standard_program(name, isolated, left, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    started = tmp_path / "started"
    _slow_program(bin_dir, started)
    r = spawn(["run", "--quick", "--only", "method.null,sys.prog.sysbench.cpu", "--db", "r.db",
               "--out", "o"], isolated, _env(left, PATH=f"{bin_dir}:/usr/bin:/bin"))
    wait_for("the program", started.exists, proc=r.proc)
    assert any(p.name.startswith("rtbench-prog-") for p in left.tmpdir.iterdir())
    if name == "SIGKILL":
        r.signal(signal.SIGKILL)
        r.finish()
        left.check()  # program, its child and its scratch directory: the guard's work
        return
    r.signal(signal.SIGINT)
    rc, out, err = r.finish()
    env = _check_interrupted_run(isolated, rc, 130, out, err)
    assert [m["id"] for m in env["metrics"]] == ["method.null"]
    left.check()


# ---- while the end is written: Ctrl-C pressed again and again ----

def test_more_ctrl_c_while_the_sheet_is_written_lose_nothing(isolated, left):
    r = spawn(["run", "--quick", "--db", "r.db", "--out", "o"], isolated,
              _env(left, FAKE_HARNESS_DELAY="0.1"))
    wait_for("a stored record", lambda: stored(isolated / "r.db"), proc=r.proc)
    r.signal(signal.SIGINT)
    # The run's end is stored first, then the three files are written: the
    # next two Ctrl-C land while they are.
    wait_for("the run's end", lambda: stored(isolated / "r.db", "SELECT COUNT(*) FROM runs "
                                             "WHERE status != 'running'"), proc=r.proc)
    r.signal(signal.SIGINT)
    r.signal(signal.SIGINT)
    rc, out, err = r.finish()
    _check_interrupted_run(isolated, rc, 130, out, err)
    assert sorted(p.name for p in (isolated / "o").iterdir()) == [
        "datasheet.html", "datasheet.md", "glossary.md", "results.json"]
    left.check()


# ---- the real harness: a SCHED_FIFO spinner and the System part's clean-up ----

@pytest.fixture
def real(real_cache, monkeypatch):
    if shutil.which("cmake") is None:
        pytest.skip("cmake is needed for the real harness")
    monkeypatch.setenv("XDG_CACHE_HOME", str(real_cache))
    monkeypatch.delenv("RTBENCH_HARNESS", raising=False)
    return harness.build()


def _long(only: str) -> list[str]:
    """A run whose metrics last an hour unless stopped (the harness writes
    nothing meanwhile, so no SIGPIPE could end it)."""
    return ["run", "--only", only, "--samples", "10000000", "--budget-ms", "3600000",
            "--timeout", "7200", "--no-programs", "--db", "r.db", "--out", "o"]


@pytest.mark.parametrize("name", ["SIGTERM", "SIGKILL"])
def test_killing_rtbench_ends_the_real_time_harness(name, real, isolated, left):
    """The harness busy-waits under SCHED_FIFO for an hour; rtbench goes
    away. The session record is stored the moment the harness sends it, and
    the harness then begins the metric at once: from there it writes
    nothing, so no SIGPIPE could end it."""
    r = spawn(_long("method.busywait"), isolated,
              _env(left, XDG_CACHE_HOME=os.environ["XDG_CACHE_HOME"]))
    wait_for("the harness's session record", lambda: stored(
        isolated / "r.db", "SELECT COUNT(*) FROM runs WHERE session IS NOT NULL"), proc=r.proc)
    r.signal(signal.SIGTERM if name == "SIGTERM" else signal.SIGKILL)
    rc, out, err = r.finish()
    if name == "SIGTERM":
        assert rc == 143 and "Traceback" not in err, (out, err)
        env = json.loads((isolated / "o" / "results.json").read_text())
        assert env["run"]["status"] == "incomplete"
        assert env["not_measured"] == [{"id": "method.busywait", "profile": "rt"}]
    left.check()


def _tmp_dirs(left: Leftovers) -> list[str]:
    return [p.name for p in left.tmpdir.iterdir() if p.name.startswith("rtbench-sys-")]


def _new_semaphore_sets(left: Leftovers) -> list[str]:
    from faults import ipc_objects
    return sorted(o for o in ipc_objects() - left.before if o.startswith("sysv-sem"))


@pytest.mark.parametrize("metric, made", [
    ("sys.syscall.stat", _tmp_dirs),                       # a temporary directory
    ("sys.ipc.sysvsem.handoff", _new_semaphore_sets),      # a System V semaphore set
])
def test_ctrl_c_during_a_system_metric_leaves_nothing(metric, made, real, isolated, left):
    r = spawn(_long(metric), isolated, _env(left, XDG_CACHE_HOME=os.environ["XDG_CACHE_HOME"]))
    wait_for(f"what {metric} makes", lambda: made(left), proc=r.proc)
    r.signal(signal.SIGINT)
    rc, out, err = r.finish()
    assert rc == 130 and "Traceback" not in err, (out, err)
    assert intact(isolated / "r.db") == [(1, "incomplete")]
    left.check()


@pytest.mark.parametrize("metric, made", [
    ("sys.syscall.stat", _tmp_dirs),
    ("sys.ipc.sysvsem.handoff", _new_semaphore_sets),
])
def test_killing_the_harness_group_leaves_nothing(metric, made, real, left):
    """What the watchdog and Ctrl-C do to a harness: SIGKILL to its whole
    process group. The janitor is not in that group and cleans up."""
    proc = subprocess.Popen([str(real), "--only", metric, "--samples", "10000000",
                             "--budget-ms", "60000"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            env={**os.environ, **left.env()})
    try:
        wait_for(f"what {metric} makes", lambda: made(left), proc=proc)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    left.check()


def test_sigkill_while_the_database_is_written_keeps_it_whole(isolated, left):
    """Earlier runs survive a run killed at any moment (integrity_check)."""
    spawn(["run", "--quick", "--only", "method.null", "--db", "r.db", "--out", "o0"], isolated,
          _env(left)).finish()
    r = spawn(["run", "--quick", "--db", "r.db", "--out", "o"], isolated,
              _env(left, FAKE_HARNESS_DELAY="0.01"))
    wait_for("records of the second run", lambda: stored(
        isolated / "r.db", "SELECT COUNT(*) FROM metrics WHERE run_id = 2 AND record "
        "IS NOT NULL") > 20, proc=r.proc)
    r.signal(signal.SIGKILL)
    r.finish()
    assert intact(isolated / "r.db") == [(1, "complete"), (2, "running")]
    conn = sqlite3.connect(isolated / "r.db")
    assert conn.execute("SELECT COUNT(*) FROM metrics WHERE run_id = 1 AND record IS NULL"
                        ).fetchone()[0] == 0
    left.check()


# ---- the shoot-out's children (issue 35, 6) ----

# The shoot-out's parent (kernelset.run_kernels: farm.run_children) over
# host runs with the fake harness, as a background job of a script starts
# it: SIGINT ignored, inherited by the children.
_SHOOTOUT = r"""
import json, sys
from rich.console import Console
from rtbench.measure import farm
from rtbench.process import lifetime
SOME = "method.*,sem.*,mutex.*"
argvs = {k: ["run", "--quick", "--no-programs", "--only", SOME, "--db", k + ".db",
             "--out", k] for k in ("a", "b", "c")}
with lifetime.signals_as_interrupts():
    codes = farm.run_children(argvs, Console(file=sys.stderr))
print(json.dumps({"codes": codes, "exit": farm.interrupted_code(codes)}))
"""


def test_sigterm_to_the_shootout_reaches_its_children(isolated, left):
    """SIGTERM to the parent of `run --kernel a,b,c` with SIGINT ignored:
    the children were told with SIGINT (ignored) 15 s later, measured on,
    were SIGKILLed after 45 s, their runs left `running`, no sheet, exit
    130. Now they are told at once with SIGTERM: the run measuring is
    stored incomplete with its sheet, those waiting for the CPU store
    nothing, 143 all round."""
    import sys

    proc = subprocess.Popen([sys.executable, "-c", _SHOOTOUT], cwd=isolated,
                            env={**os.environ, **_env(left, FAKE_HARNESS_DELAY="0.2"),
                                 "PYTHONPATH": str(Path(harness.__file__).parents[2])},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        # the children take turns on the benchmark CPU: one measures, the
        # others wait for its lock
        wait_for("a child's record", lambda: any(stored(isolated / f"{k}.db") for k in "abc"),
                 proc=proc)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    got = json.loads(out.strip().splitlines()[-1])
    assert got["exit"] == 143 and set(got["codes"].values()) == {143}, got
    measured = [k for k in "abc" if (isolated / f"{k}.db").exists()
                and intact(isolated / f"{k}.db")]
    assert measured
    for k in measured:  # the one measuring: kept incomplete, with its sheet
        assert intact(isolated / f"{k}.db") == [(1, "incomplete")]
        env = json.loads((isolated / k / "results.json").read_text())
        assert env["run"]["status"] == "incomplete" and env["metrics"]
    for k in set("abc") - set(measured):  # waiting for the CPU: nothing stored
        assert not (isolated / k / "results.json").exists()
    left.check()
