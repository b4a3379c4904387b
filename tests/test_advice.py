"""Warnings that advise: each check fires on what it looks for, says what
to do, and stays silent on a clean run (and on a board, for host checks)."""

import numpy as np

from rtbench.sheets import advice, firstpage
from rtbench.store import catalog
from synth import HZ, latency, record, run


def _keys(r):
    return {a.key for a in advice.check(r)}


def _clean(ids=("sem.give.wake_ctx.thread", "sys.ctx.p16.k0")):
    rng = np.random.default_rng(1)
    r = run([record(i, latency(rng, 6500, n=2000)) for i in ids])
    r.host.update(hypervisor="", isolated_cpus={"isolated": "1", "nohz_full": "1"},
                  load_before=[0.1, 0.1, 0.1], load_after=[0.9, 0.3, 0.1], others_cpu_pct=1.0,
                  concurrent_harnesses=[], rt_throttling="off (sched_rt_runtime_us = -1)")
    return r


def test_a_clean_run_has_no_warning_and_green_badges():
    r = _clean()
    assert advice.check(r) == []
    page = firstpage.build(r, catalog.load())
    assert {b.label: b.state for b in page.badges} == {
        "Real-time policy": "good", "Preemption": "good", "Machine": "good",
        "Isolated CPUs": "good", "Load": "good", "RT throttling": "good"}


def test_each_condition_is_called_out_with_advice():
    r = _clean()
    r.session["rt"].update(realtime=False, reason="sched_setscheduler: EPERM")
    r.host.update(hypervisor="KVM (kvm-clock clocksource)", load_before=[3.0, 2, 1],
                  others_cpu_pct=40.0,
                  concurrent_harnesses=[{"pid": 99, "pinned": [1], "same_cpu": True}])
    found = {a.key: a for a in advice.check(r)}
    assert {"not_realtime", "vm", "busy", "same_cpu"} <= set(found)
    assert "ulimit -r 99" in found["not_realtime"].do
    assert "bare metal" in found["vm"].do
    assert "load average 3 before the run" in found["busy"].what and "uptime" in found["busy"].do
    assert "CPU 1" in found["same_cpu"].what and "--cpu N" in found["same_cpu"].do
    r.host["load"] = "a memory sweep"  # --load: the load was asked for
    assert "busy" not in _keys(r)


def test_samples_budget_resolution_and_implausible_values():
    r = _clean()
    fast_switch = record("sys.ctx.p16.k0", [130] * 500)  # 51 ns at 2.6 GHz: implausible
    cut = {**record("sem.give.wake_ctx.thread", [6500] * 300), "budget_exhausted": True}
    flat = record("sem.give.no_waiter", [26] * 2000)  # one counter step
    r.metrics = [fast_switch, cut, flat]
    found = {a.key: a for a in advice.check(r)}
    assert found["implausible"].ids == ("sys.ctx.p16.k0",)
    assert "50 ns" in found["implausible"].what and "--only sys.ctx.p16.k0" in found["implausible"].do
    assert found["budget"].ids == ("sem.give.wake_ctx.thread",) and "--budget-ms" in found["budget"].do
    assert set(found["few_samples"].ids) == {"sys.ctx.p16.k0", "sem.give.wake_ctx.thread"}
    assert found["resolution"].ids == ("sem.give.no_waiter",)
    assert round(26 / HZ * 1e9, 1) == 10.0


def test_host_checks_stay_silent_on_a_board():
    r = _clean()
    r.host = {"target": "mps2-an385", "target_kind": "emulator", "hypervisor": "KVM",
              "load_before": [9, 9, 9], "others_cpu_pct": 90.0}
    r.session["rt"]["realtime"] = False
    assert not _keys(r) & {"not_realtime", "vm", "busy", "same_cpu"}


def test_a_boards_badges_read_the_kernels_facts_however_detailed():
    """"off (CONFIG_ASSERT=n, …)" is off: a kernel's detail in parentheses
    never turns a good condition into a warning."""
    r = _clean()
    r.host = {"target": "mps2-an385", "target_kind": "emulator"}
    r.session["target"] = {"kernel": "Zephyr 4.0.0", "preemption": "on",
                           "asserts": "off (CONFIG_ASSERT=n, CONFIG_FORCE_NO_ASSERT=y)"}
    states = {b.label: b.state for b in firstpage.build(r, catalog.load()).badges}
    assert states["Asserts"] == states["Preemption"] == "good"
    r.session["target"]["asserts"] = "on (CONFIG_ASSERT=y)"
    assert {b.label: b.state for b in firstpage.build(r, catalog.load()).badges}["Asserts"] == "warn"


def test_a_budget_cut_flag_says_what_was_cut_and_points_to_qualify():
    r = _clean(("sys.timer.wakeup.idle",))
    r.metrics = [{**record("sys.timer.wakeup.idle", [6500] * 300), "budget_exhausted": True}]
    r.session["config"] = {"samples": 20000, "budget_ms": 2000}
    page = firstpage.build(r, catalog.load())
    flags = [f for g in page.groups for row in g.rows for f in row.flags]
    assert "budget cut: 300 of 20,000 samples in 2,000 ms" in flags
    found = {a.key: a for a in advice.check(r)}
    assert "rtbench qualify --duration" in found["budget"].do
