"""rtbench qualify (docs/qualify.md): cyclictest on every online CPU, in
stored segments, the worst case's trace kept from a private tracefs
instance, and nothing else on the machine written.

The runs are real and short (a few seconds); nothing here depends on how
fast the machine is: a crossing is made by a competing SCHED_FIFO process
at a higher priority on CPU 0, a delay the measuring thread really suffers.
"""

from __future__ import annotations

import builtins
import os
import pathlib
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rtbench.measure import qualify, qualify_trace, tuning
from rtbench.peers import cyclictest_segment
from rtbench.sheets import qualify_sheet
from rtbench.store.db import Store

needs_cyclictest = pytest.mark.skipif(shutil.which("cyclictest") is None,
                                      reason="cyclictest (Debian rt-tests) not installed")
HOG_MS = 40
THRESHOLD_US = 20000  # the hog's 40 ms at FIFO 99 delays a FIFO 98 wake-up by far more

# A competing real-time process on CPU 0: FIFO 99, busy HOG_MS ms, every 0.3 s.
HOG = f"""
import os, time
os.sched_setaffinity(0, {{0}})
open("/proc/self/comm", "w").write("rtbq-hog")
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(99))
while True:
    end = time.monotonic() + {HOG_MS} / 1000
    while time.monotonic() < end:
        pass
    time.sleep(0.3)
"""


def test_segments_cover_the_duration_in_whole_seconds():
    assert qualify.segments(600) == [60] * 10
    assert qualify.segments(4) == [1, 1, 1, 1]
    assert qualify.segments(7200) == [60] * 120
    assert sum(qualify.segments(95)) == 95


def test_the_command_is_cyclictests_on_every_cpu_and_never_tunes():
    req = qualify.QualifyRequest(threshold_us=100, threads_per_cpu=3)
    argv = cyclictest_segment.command(req, [0, 1], 60, rt=True, trace=True)
    assert argv[:1] == ["cyclictest"] and "--default-system" in argv
    assert argv[argv.index("-t") + 1] == "6" and argv[argv.index("-a") + 1] == "0,1"
    assert argv[argv.index("-b") + 1] == "100" and "--tracemark" in argv
    assert "-b" not in cyclictest_segment.command(req, [0, 1], 60, rt=True, trace=False)
    assert "-p" not in cyclictest_segment.command(req, [0], 1, rt=False, trace=False)


def test_over_threshold_counts_the_overflow_too():
    f = {"n": 10, "buckets": [[5000, 6000, 6], [150000, 151000, 2]]}
    assert qualify.over(f, 100) == 2 + 2


class Writes:
    """Every file rtbench's own process opens for writing."""

    def __init__(self, monkeypatch):
        self.paths: list[str] = []
        real_open, real_write = builtins.open, pathlib.Path.write_text

        def spy_open(file, mode="r", *a, **k):
            if any(c in mode for c in "wax+"):
                self.paths.append(str(file))
            return real_open(file, mode, *a, **k)

        def spy_write(path, *a, **k):
            self.paths.append(str(path))
            return real_write(path, *a, **k)

        def refuse(*a, **k):
            raise AssertionError(f"qualify tuned the machine: {a}")

        monkeypatch.setattr(builtins, "open", spy_open)
        monkeypatch.setattr(pathlib.Path, "write_text", spy_write)
        monkeypatch.setattr(tuning, "_write", refuse)
        monkeypatch.setattr(tuning, "held", refuse)

    def system(self, tmp_path: Path) -> list[str]:
        """Writes outside the test's folder, /tmp scratch and the run's trace instance."""
        inst = f"/sys/kernel/tracing/instances/{qualify_trace.PREFIX}"
        return [p for p in self.paths if not p.startswith((str(tmp_path), "/tmp/"))
                and not (p.startswith("/proc/") and inst in p)]


def _run(tmp_path, **kw) -> tuple[int, object, list[str]]:
    said: list[str] = []
    shown = []
    req = qualify.QualifyRequest(db=tmp_path / "q.db", argv=["rtbench", "qualify"], **kw)
    code = qualify.execute(req, said.append, shown.append)
    return code, shown[0], said


@needs_cyclictest
def test_a_short_run_stores_every_cpu_and_segment_and_writes_nothing(tmp_path, monkeypatch):
    writes = Writes(monkeypatch)
    code, run, said = _run(tmp_path, duration_s=3, threads_per_cpu=2)
    assert code == 0 and run.status == "complete"
    cpus = qualify.online_cpus()
    assert sorted(r["id"] for r in run.metrics) == sorted(f"cyclictest.cpu{c}" for c in cpus)
    assert all(r["n"] > 0 and r["min"] <= r["p50"] <= r["max"] for r in run.metrics)
    s = run.session
    assert len(s["segments"]) == 3 and s["duration_done_s"] == 3
    assert s["conditions"]["threads_per_cpu"] == 2 and s["tracing"]["tracer"] == "none"
    assert len(said) == 3 and "of 0:03" in said[-1] and "samples" in said[-1]
    page = qualify_sheet.first_page(run)
    assert "no threshold given" in page and "Written to the system" in page
    assert writes.system(tmp_path) == []


@needs_cyclictest
def test_under_load_the_load_runs_and_is_a_condition(tmp_path):
    code, run, _said = _run(tmp_path, duration_s=2, load=True)
    assert code == 0 and run.session["conditions"]["load"].startswith("built-in")
    assert "| Load | built-in" in qualify_sheet.first_page(run)


@needs_cyclictest
def test_an_injected_crossing_keeps_the_trace_and_removes_the_instance(tmp_path, monkeypatch):
    why = qualify_trace.unavailable()
    if why:
        pytest.skip(f"no private tracefs instance here: {why}")
    writes = Writes(monkeypatch)
    hog = subprocess.Popen([sys.executable, "-c", HOG])
    try:
        code, run, _said = _run(tmp_path, duration_s=4, threshold_us=THRESHOLD_US)
    finally:
        hog.kill()
        hog.wait()
    s = run.session
    assert code == 1 and run.status == "complete"
    assert s["crossing"]["value_us"] > THRESHOLD_US and s["crossing"]["cpu"] is not None
    assert s["tracing"]["tracer"] in ("timerlat", "function", "events")
    assert f"{qualify_trace.MARK} ({s['crossing']['value_us']} > {THRESHOLD_US})" in s["trace"]
    assert "sched_switch" in s["trace"] or s["tracing"]["tracer"] != "events"
    assert not qualify_trace.exists(s["tracing"]["instance"])
    page = qualify_sheet.first_page(run)
    assert page.count("FAIL") == 1 and "hit latency threshold" in page
    assert f"Tracer: {s['tracing']['tracer']}" in page
    assert any(s["tracing"]["instance"] in p for p in writes.paths)  # the spy sees writes
    assert writes.system(tmp_path) == []


@needs_cyclictest
def test_cyclictest_as_qualify_runs_it_writes_no_system_setting(tmp_path):
    """The child too: cyclictest under strace opens nothing under /proc/sys,
    /proc/irq, cpufreq or /dev/cpu_dma_latency for writing."""
    if shutil.which("strace") is None:
        pytest.skip("strace not installed")
    req = qualify.QualifyRequest()
    argv = cyclictest_segment.command(req, qualify.online_cpus(), 1, rt=os.geteuid() == 0, trace=False)
    log = tmp_path / "strace.log"
    subprocess.run(["strace", "-f", "-e", "trace=openat,open", "-o", str(log), *argv,
                    f"--json={tmp_path / 'c.json'}", f"--histfile={tmp_path / 'h.txt'}"],
                   check=True, capture_output=True)
    written = [ln for ln in log.read_text().splitlines()
               if ("O_WRONLY" in ln or "O_RDWR" in ln) and ln.count('"') >= 2]
    touched = [ln for ln in written if any(p in ln for p in (
        "/proc/sys", "/proc/irq", "cpufreq", "cpu_dma_latency", "/sys/kernel"))]
    assert touched == [] and any("c.json" in ln for ln in written)


def _segments_stored(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            row = conn.execute("SELECT session FROM runs ORDER BY id DESC LIMIT 1").fetchone()
    except sqlite3.Error:
        return 0
    import json

    return len(json.loads(row[0]).get("segments", [])) if row and row[0] else 0


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])


@needs_cyclictest
def test_an_interrupted_run_keeps_its_finished_segments_and_is_partial(tmp_path):
    db = tmp_path / "q.db"
    # as a terminal's foreground job: SIGINT at its default and not blocked,
    # whatever this process inherited (a child keeps an ignored or blocked
    # SIGINT; two full runs saw this test's SIGINT never arrive)
    proc = subprocess.Popen([sys.executable, "-m", "rtbench", "qualify", "--duration", "40",
                             "--db", str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=_sigint_default)
    deadline = time.monotonic() + 120  # a bound on waiting, not on the machine's speed
    while _segments_stored(db) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    with Store(db, create=False) as store:
        run = store.get_run("latest")
    s = run.session
    assert run.status == "incomplete" and s["interrupted"] == "SIGINT"
    assert len(s["segments"]) >= 2 and s["duration_done_s"] < 40
    assert sum(r["n"] for r in run.metrics) == sum(
        f["n"] for seg in s["segments"] for f in seg["cpus"].values())
    assert "partial" in out and "interrupted by SIGINT" in out
    assert "interrupted (SIGINT)" in err


@needs_cyclictest
def test_a_killed_rtbench_keeps_its_segments_and_its_instance_is_removed(tmp_path):
    """SIGKILL: no code of rtbench's runs, its guard ends cyclictest and the
    holder and removes the trace instance; the finished segments stay."""
    why = qualify_trace.unavailable()
    if why:
        pytest.skip(f"no private tracefs instance here: {why}")
    db = tmp_path / "q.db"
    proc = subprocess.Popen([sys.executable, "-m", "rtbench", "qualify", "--duration", "40",
                             "--threshold", "500000", "--db", str(db)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    name = f"{qualify_trace.PREFIX}{proc.pid}"
    deadline = time.monotonic() + 120  # a bound on waiting, not on the machine's speed
    while _segments_stored(db) < 1 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    assert qualify_trace.exists(name)  # armed while it measures
    proc.kill()
    proc.wait()
    while qualify_trace.exists(name) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not qualify_trace.exists(name)
    with Store(db, create=False) as store:
        run = store.get_run("latest")
    assert run.status == "incomplete" and len(run.session["segments"]) >= 1
    assert all(r["n"] > 0 for r in run.metrics)
