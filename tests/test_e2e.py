"""End to end against the real harness (built from harness/ with CMake).

No assertion here depends on how fast this machine is: the figures are
checked for shape and consistency, never against a time threshold.
"""

import json
import os
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from rtbench.cli import main
from rtbench.store import catalog
from rtbench.targets import harness

from procs import children

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("cc") is None,
                                reason="cmake and a C compiler are needed for the real harness")


@pytest.fixture
def real(real_cache, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(real_cache))
    return harness.build()  # cached: same sources, same hash


def test_catalogue_and_registry_agree(real):
    registered = harness.registry(real)
    ids = catalog.load().harness_ids  # measured_by "external": standard programs, not registered
    assert len(registered) == len(set(registered))
    assert sorted(set(registered) - set(ids)) == [], "registered but not in the catalogue"
    assert sorted(set(ids) - set(registered)) == [], "in the catalogue but not registered"


def test_quick_run(real, isolated, capsys):
    assert main(["run", "--quick", "--db", "r.db", "--out", "o"]) == 0
    env = json.loads((isolated / "o" / "results.json").read_text())
    ids = catalog.load().ids
    assert env["run"]["status"] == "complete"
    assert sorted(m["id"] for m in env["metrics"]) == sorted(ids)
    session = env["session"]
    assert session["schema"] == 2 and session["ts"]["hz_measured"] > 0
    # --quick in all, cut into 6 blocks (rtbench.store.blocks)
    assert session["config"] == {"samples": 1000, "warmup": 50, "budget_ms": 500,
                                 "profile": "rt", "cold": False, "blocks": 6,
                                 "block_samples": 167, "block_warmup": 10,
                                 "block_budget_ms": 83}
    for m in env["metrics"]:
        if m.get("origin") == "external":  # a standard program (stress-ng, ...) if installed
            assert m["status"] in ("ok", "unsupported", "failed"), m
            if m["status"] == "ok":  # the records contract: only what the program gave
                assert m["stats_given"] and all(k in m for k in m["stats_given"]), m
            else:
                assert m["reason"], m
            continue
        assert m["status"] in ("ok", "unsupported"), m
        if m["status"] == "ok":
            assert m["unit"] == "ticks" and m["tick_hz"] > 0 and 1 <= m["n"] <= 1000
            assert m["min"] <= m["p50"] <= m["p99"] <= m["max"], m["id"]
            counted = sum(b[2] for b in m["hist"]["buckets"])
            assert counted + m["hist"].get("overflow", 0) == m["n"], m["id"]
    _check_method(env)
    sheet = (isolated / "o" / "datasheet.md").read_text()
    for mid in ids:
        assert f"`{mid}`" in sheet
    assert sqlite3.connect(isolated / "r.db").execute(
        "SELECT status FROM runs").fetchall() == [("complete",)]


def _check_method(env):
    """The method checks: correctness of the measurement, not speed. The null
    measurement's median is 0 within one step of the counter (on a VM the TSC
    moves in steps of ~10 ns) and a few ns; the 50 us busy-wait, timed by an
    independent clock, is measured within 5 %."""
    by_id = {m["id"]: m for m in env["metrics"]}
    ts = env["session"]["ts"]
    hz = ts["hz_measured"]
    step_ns = ts["resolution"] * 1e9 / hz
    null_ns = by_id["method.null"]["p50"] * 1e9 / hz
    assert abs(null_ns) <= max(3.0, step_ns) + 0.5, (null_ns, step_ns)
    busy_ns = by_id["method.busywait"]["p50"] * 1e9 / hz
    assert abs(busy_ns - 50_000) <= 0.05 * 50_000, busy_ns


def test_no_rt_run_is_flagged(real, isolated):
    assert main(["run", "--quick", "--no-rt", "--only", "method.null", "--db", "r.db",
                 "--out", "o"]) == 0
    env = json.loads((isolated / "o" / "results.json").read_text())
    assert env["session"]["rt"]["realtime"] is False
    assert "**Not real-time:" in (isolated / "o" / "datasheet.md").read_text()


@pytest.mark.skipif(os.uname().machine not in ("x86_64", "aarch64"),
                    reason="the POSIX port has an add chain for x86-64 and AArch64 only")
def test_run_measures_the_core_clock(real, isolated):
    """The session carries the core clock from the dependent-add chain, and the
    sheet states it and gives core cycles. The range only checks the method
    gave a sane frequency (any core from 0.2 to 10 GHz), not this machine's speed."""
    assert main(["run", "--quick", "--only", "method.null", "--db", "r.db", "--out", "o"]) == 0
    ts = json.loads((isolated / "o" / "results.json").read_text())["session"]["ts"]
    assert 0.2e9 <= ts["core_hz"] <= 10e9, ts
    assert ts["core_hz_method"].startswith("dependent-add chain of ")
    assert ts["core_hz_method"].endswith(", best of 5, timed by CLOCK_MONOTONIC_RAW")
    sheet = (isolated / "o" / "datasheet.md").read_text()
    assert "**Core clock (measured):** ≈ " in sheet and "median core cycles" in sheet


@pytest.mark.parametrize("fault, reason", [
    ("hang:sem.give.no_waiter", "timeout after 3s"),
    ("crash:sem.give.no_waiter", "harness crashed (signal SIGSEGV)"),
])
def test_real_harness_faults(fault, reason, real, isolated, monkeypatch):
    monkeypatch.setenv("RTBENCH_INJECT_FAULT", fault)
    assert main(["run", "--quick", "--only", "sem.*", "--timeout", "3", "--db", "r.db",
                 "--out", "o"]) == 0
    env = json.loads((isolated / "o" / "results.json").read_text())
    by_id = {m["id"]: m for m in env["metrics"]}
    assert env["run"]["status"] == "complete"
    assert by_id["sem.give.no_waiter"]["status"] == "failed"
    assert by_id["sem.give.no_waiter"]["reason"] == reason
    assert len(by_id) == len(catalog.load().match("sem.*"))


# ---- nothing left behind -----------------------------------------------------

def _ipc_objects() -> set[str]:
    """Named POSIX message queues and shared-memory objects, where the
    system shows them (/dev/mqueue is mounted on demand when we are root)."""
    mq = Path("/dev/mqueue")
    if not os.path.ismount(mq) and os.geteuid() == 0:
        mq.mkdir(exist_ok=True)
        subprocess.run(["mount", "-t", "mqueue", "none", str(mq)], check=False)
    found = {f"shm:{p.name}" for p in Path("/dev/shm").iterdir()}
    if os.path.ismount(mq):
        found |= {f"mq:{p.name}" for p in mq.iterdir()}
    return found


@pytest.mark.serial  # compares the machine's IPC objects before and after
def test_a_killed_run_leaves_no_process_queue_or_shared_memory(real):
    before = _ipc_objects()
    ids = "msgq.send.wake_ctx.process,sem.give.wake_ctx.process,amx.mailbox.t3.process"
    proc = subprocess.Popen([str(real), "--only", ids, "--samples", "10000000",
                             "--budget-ms", "60000"], stdout=subprocess.PIPE, text=True)
    try:
        for line in proc.stdout:  # wait until a process-mode scenario is running
            if '"begin"' in line and ".process" in line:
                break
        deadline = time.monotonic() + 10
        while not children(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        kids = children(proc.pid)
        assert kids, "the process-mode scenario should have forked its tasks"
        during = _ipc_objects()
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{k}").exists() for k in kids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [k for k in kids if Path(f"/proc/{k}").exists()], "task processes outlived the harness"
    # queues are unlinked right after opening and the shared region is anonymous.
    # Only new objects count: one of an earlier test (a cyclictest peer's
    # /dev/shm object) may vanish meanwhile.
    assert during - before == set() and _ipc_objects() - before == set()


def test_coverage_with_the_real_port(real):
    """Every kernel row is measured or unsupported on this port, with a reason."""
    from rtbench.compare import coverage
    cat = catalog.load()
    for sheet in coverage.compute(cat, harness.registry_support(real)):
        assert sheet.count(coverage.MISSING) == 0, sheet.sheet.name
        for row in sheet.rows:
            if row.status == coverage.UNSUPPORTED:
                # the interrupt rows on Linux say where their stand-in is (xsig.*)
                assert row.why.startswith(("port has no ",
                                           "Linux user space has no interrupt",
                                           "every Linux task rtbench can create runs in user "
                                           "mode")), row
