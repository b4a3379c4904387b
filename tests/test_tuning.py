"""rtbench.measure.tuning: what a run changes on the machine as root, and that it is
put back however the run ends (issue 13, item 7). The machine-wide tests
need root; what the sheet says of it does not."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from rtbench.measure import tuning
from rtbench.process import lifetime

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="tuning changes machine-wide settings: root only")


@pytest.fixture
def state_dir(tmp_path, monkeypatch):
    """A private state file, so a real rtbench run on the machine is not disturbed."""
    d = tmp_path / "tuning-state"
    monkeypatch.setenv("RTBENCH_TUNING_DIR", str(d))
    monkeypatch.setattr(tuning, "STATE_DIR", d)
    monkeypatch.delenv("RTBENCH_NO_TUNE", raising=False)
    return d


@pytest.fixture
def before(state_dir):
    """The machine's values before the test (which must put them back);
    a machine whose throttling is already off cannot show it lifted."""
    values = tuning.current()
    if values["sched_rt_runtime_us"] == "-1":
        pytest.skip("RT throttling is already off on this machine")
    return values


def _benchmark_cpu() -> int:
    return max(os.sched_getaffinity(0))


def test_not_root_or_not_asked_leaves_the_machine(monkeypatch):
    monkeypatch.setenv("RTBENCH_NO_TUNE", "1")
    before = tuning.current()
    with tuning.held(0) as facts:
        assert facts == {"done": False, "why": "not asked (--no-tune)"}
        assert tuning.current() == before
    with tuning.held(0, asked=False) as facts:
        assert facts["done"] is False


@root_only
def test_held_lifts_throttling_steers_irqs_and_puts_them_back(state_dir, before):
    cpu = _benchmark_cpu()
    with tuning.held(cpu) as facts:
        assert facts["done"] is True, facts
        assert facts["rt_runtime"] == "lifted"
        assert tuning.current()["sched_rt_runtime_us"] == "-1"
        now = tuning.irq_affinities()
        for irq in facts["irqs_moved"]:
            assert str(cpu) not in now[irq].replace("-", ",").split(",") or "-" in now[irq], \
                (irq, now[irq])
            assert now[irq] != before["irq"][irq]
    assert tuning.current() == before
    assert not state_dir.exists()  # nothing left behind


@root_only
def test_a_killed_helper_costs_one_run_never_a_permanent_change(state_dir, before):
    cpu = _benchmark_cpu()
    proc = lifetime.popen([sys.executable, "-m", "rtbench.measure.tuning", "hold", str(cpu)],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True)
    try:
        assert tuning._ready(proc)["done"] is True
        os.kill(proc.pid, signal.SIGKILL)  # it cannot put anything back
        proc.wait(timeout=10)
    finally:
        lifetime.end(proc, grace=1.0)
    assert tuning.current()["sched_rt_runtime_us"] == "-1"  # left changed...
    assert (state_dir / "tuning.json").exists()
    # ...until the next holder comes, finds no live holder and restores first
    me = os.getpid()
    done = tuning.join(me, cpu)
    assert done["rt_runtime"] == "lifted"
    tuning.leave(me)
    assert tuning.current() == before
    assert not state_dir.exists()  # nothing left behind


@root_only
def test_two_runs_at_once_the_last_one_out_restores(state_dir, before):
    cpu = _benchmark_cpu()
    with tuning.held(cpu) as first:
        assert first["done"]
        with tuning.held(cpu) as second:
            assert second["done"]
        # the second run ended: the first one's changes still hold
        assert tuning.current()["sched_rt_runtime_us"] == "-1"
    assert tuning.current() == before


@root_only
def test_sigterm_to_the_helper_puts_things_back(state_dir):
    cpu = _benchmark_cpu()
    before = tuning.current()
    proc = subprocess.Popen([sys.executable, "-m", "rtbench.measure.tuning", "hold", str(cpu)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        assert tuning._ready(proc)["done"] is True
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert tuning.current() == before


def test_the_sheet_says_throttling_was_lifted_for_the_run():
    from rtbench.store import host as tuning  # what the sheet says of tuning: the host record

    host = {"rt_throttling": "950000 µs of every 1000000 µs (sched_rt_runtime_us / sched_rt_period_us)",
            "tuning": {"done": True, "rt_runtime": "lifted", "irqs_moved": ["10", "11"],
                       "irqs_left": ["0"]}}
    assert tuning.throttling(host).startswith("off for the run")
    assert "before: 950000" in tuning.throttling(host)
    assert tuning.irq_steering(host).startswith("2 steered off")
    assert "1 stayed" in tuning.irq_steering(host)
    plain = {"rt_throttling": "950000 µs of every 1000000 µs",
             "tuning": {"done": False, "why": "not root"}}
    assert tuning.throttling(plain) == plain["rt_throttling"]
    assert tuning.irq_steering(plain) == "left as they were (not root)"
    assert tuning.irq_steering({}) == "not recorded"


def test_the_first_page_badge_reads_the_run_not_the_moment_before_it():
    from rtbench.sheets import firstpage

    host = {"rt_throttling": "950000 µs of every 1000000 µs",
            "tuning": {"done": True, "rt_runtime": "lifted", "irqs_moved": [], "irqs_left": []}}
    badge = firstpage.throttling_badge(host)
    assert (badge.value, badge.state) == ("off", "good"), badge
    before = firstpage.throttling_badge({"rt_throttling": host["rt_throttling"]})
    assert before.value == "on"
