"""The runner against the fake harness: watchdog, crashes, restarts, errors."""

import pytest

from conftest import invocations
from rtbench.errors import HarnessError
from rtbench.measure import runner as runner_mod
from rtbench.measure.runner import HarnessUsageError, RunOptions, Runner
from rtbench.store.records import RecordError

IDS = ["method.null", "sem.give.no_waiter", "sem.take.available", "mutex.lock.uncontended"]


def _run(exe, ids=IDS, timeout=30.0, **kw):
    got = []
    sessions = []
    runner = Runner(exe, RunOptions(ids=list(ids), samples=100, warmup=5, budget_ms=100,
                                    timeout=timeout, **kw),
                    on_session=sessions.append, on_metric=got.append)
    outcome = runner.run()
    return outcome, got, sessions


def test_clean_run_delivers_every_metric(fake, tmp_path):
    outcome, got, sessions = _run(fake, cpu=0, no_rt=True)
    assert [r["id"] for r in got] == IDS and all(r["status"] == "ok" for r in got)
    assert len(sessions) == 1 and outcome.session is sessions[0]
    assert not outcome.interrupted and outcome.restarts == 0
    (argv,) = invocations(tmp_path)
    assert argv == ["--only", ",".join(IDS), "--samples", "100", "--warmup", "5",
                    "--budget-ms", "100", "--cpu", "0", "--no-rt", "--no-mlock"]


def test_hang_is_killed_and_the_rest_measured(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("RTBENCH_INJECT_FAULT", "hang:sem.give.no_waiter")
    outcome, got, sessions = _run(fake, timeout=2)
    by_id = {r["id"]: r for r in got}
    assert set(by_id) == set(IDS)
    assert by_id["sem.give.no_waiter"]["status"] == "failed"
    assert by_id["sem.give.no_waiter"]["reason"] == "timeout after 2s"
    assert all(by_id[i]["status"] == "ok" for i in IDS if i != "sem.give.no_waiter")
    assert len(sessions) == 1 and outcome.restarts == 1
    first, second = invocations(tmp_path)
    assert "--fault" in first and "--fault" not in second  # the restart runs clean
    assert second[1] == "sem.take.available,mutex.lock.uncontended"


def test_crash_names_the_signal(fake, monkeypatch):
    monkeypatch.setenv("RTBENCH_INJECT_FAULT", "crash:sem.take.available")
    outcome, got, _ = _run(fake)
    by_id = {r["id"]: r for r in got}
    assert by_id["sem.take.available"]["reason"] == "harness crashed (signal SIGSEGV)"
    assert by_id["mutex.lock.uncontended"]["status"] == "ok"
    assert outcome.restarts == 1


def test_crash_on_last_metric_needs_no_restart(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("RTBENCH_INJECT_FAULT", "crash:mutex.lock.uncontended")
    outcome, got, _ = _run(fake)
    assert got[-1]["status"] == "failed" and outcome.restarts == 0
    assert len(invocations(tmp_path)) == 1


def test_usage_error_surfaces_stderr(fake, monkeypatch):
    monkeypatch.setenv("RTBENCH_INJECT_FAULT", "explode")
    with pytest.raises(HarnessUsageError, match="bad --fault explode"):
        _run(fake)


def test_exit_without_measuring_is_an_error(fake, monkeypatch):
    monkeypatch.setenv("FAKE_HARNESS_EXIT_EARLY", "3")
    with pytest.raises(HarnessError, match="exit code 3"):
        _run(fake)


def test_silence_outside_a_metric_is_an_error(fake, monkeypatch):
    monkeypatch.setattr(runner_mod, "IDLE_LIMIT", 1.0)
    monkeypatch.setenv("FAKE_HARNESS_STALL", "3600")
    with pytest.raises(HarnessError, match="no record for 1s outside any metric"):
        _run(fake, timeout=0.5)


def test_unexpected_metric_is_a_protocol_error(fake, monkeypatch):
    # The harness registry has an id the runner did not ask for... and the
    # fake measures what --only says, so ask for one and fake a different one.
    monkeypatch.setenv("FAKE_HARNESS_IDS", "x.y,method.null")
    runner = Runner(fake, RunOptions(ids=["x.y"], timeout=30))
    runner.command = lambda ids: ["--only", "method.null"]  # harness args, no program
    with pytest.raises(RecordError, match="unexpected metric method.null"):
        runner.run()


def test_interrupt_stops_and_reports(fake, monkeypatch):
    got = []

    def on_metric(rec):
        got.append(rec)
        raise KeyboardInterrupt  # as if Ctrl-C arrived right after the first metric

    runner = Runner(fake, RunOptions(ids=IDS, timeout=30), on_metric=on_metric)
    outcome = runner.run()
    assert outcome.interrupted and [r["id"] for r in got] == ["method.null"]
