"""sys.timer.wakeup.* (harness/ports/posix/system/sys_timer.c) against the
real harness: shape and consistency only, never a time threshold."""

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from procs import children

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("cc") is None,
                                reason="cmake and a C compiler are needed for the real harness")

IDS = ("sys.timer.wakeup.idle", "sys.timer.wakeup.load")


@pytest.fixture
def exe(real_exe) -> Path:
    return real_exe


def _metrics(exe: Path, *extra: str) -> dict[str, dict]:
    out = subprocess.run([str(exe), "--only", ",".join(IDS), "--samples", "300",
                          "--warmup", "10", *extra],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    recs = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {r["id"]: r for r in recs if r["type"] == "metric"}


@pytest.mark.parametrize("flags", [(), ("--no-rt", "--no-pin")])
def test_wakeup_measures_late_not_early(exe, flags):
    recs = _metrics(exe, *flags)
    for mid in IDS:
        r = recs[mid]
        assert r["status"] == "ok", r.get("reason")
        assert r["n"] > 0 and r["invalid"] == 0
        # a wake-up from clock_nanosleep is never before its deadline: the
        # overhead subtraction may take min a little below 0, never by a period
        assert r["min"] > -r["tick_hz"] * 200e-6
        assert r["min"] <= r["p50"] <= r["p99"] <= r["max"]
        assert "period 200 us" in r["note"] and "missed deadline" in r["note"]
    assert "load on" in recs["sys.timer.wakeup.load"]["note"]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_load_dies_with_a_killed_harness(exe):
    proc = subprocess.Popen([str(exe), "--only", IDS[1], "--samples", "1000000",
                             "--budget-ms", "30000"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("{")  # session
        line = proc.stdout.readline()
        assert json.loads(line)["type"] == "begin"
        deadline = time.monotonic() + 10
        kids: list[int] = []
        while time.monotonic() < deadline and len(kids) < 3:
            kids = children(proc.pid)
            time.sleep(0.05)
        assert len(kids) >= 3  # a sweeper and a ping-pong pair per CPU at least
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(k) for k in kids):
        time.sleep(0.05)
    assert not any(_alive(k) for k in kids), "load processes outlived the harness"
