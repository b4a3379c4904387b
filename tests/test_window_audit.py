"""The window audit (rtbench.audit): every headline row of FreeRTOS,
ThreadX and Zephyr (its kernel and its userspace build) on the emulated AN385, run under QEMU's instruction trace, holds
at most audit.BUDGET instructions of rtbench's own code between its two
stamps, no other stamp, and the trace's count of each window is the
harness's figure for it.

These are the checks of the issue "windows that hold only the kernel": a
scenario loop, an id lookup or a port wrapper that crept back between the
stamps fails here, naming the row and the functions."""

import pytest

from conftest import kernel_src
from rtbench.targets import audit
from rtbench.targets import kernels


@pytest.fixture(scope="module", params=["freertos", "threadx", "zephyr", "zephyr-userspace"])
def audited(request, tmp_path_factory):
    from conftest import board_tools_missing, zephyr_missing
    import os

    name, _, build = request.param.partition("-")  # zephyr-userspace: --userspace
    zephyr = name == "zephyr"
    why = zephyr_missing() if zephyr else board_tools_missing()
    if why:
        if os.environ.get("RTBENCH_REQUIRE_BOARD") == "1":
            pytest.fail(f"the board target cannot run: {why}")
        pytest.skip(f"board target: {why}")
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("audit-cache")))
    try:
        from conftest import zephyr_modules

        kernel = kernels.get(name, kernel_src(name), zephyr_modules() if zephyr else None,
                             build == "userspace")
        yield request.param, audit.audit_board("mps2-an385", kernel, list(audit.HEADLINE))
    finally:
        mp.undo()


def test_every_headline_row_was_traced(audited):
    kernel, audits = audited
    got = {a.id: a for a in audits}
    assert set(got) == set(audit.HEADLINE), kernel
    for a in audits:
        assert a.record and a.record["status"] == "ok", (kernel, a.id, a.record)
        assert len(a.windows) == 20, (kernel, a.id, len(a.windows))


def test_no_window_holds_more_than_the_call_of_rtbench(audited):
    kernel, audits = audited
    assert audit.problems(audits) == [], kernel
    for a in audits:
        limit, why = a.budget()
        assert limit == audit.BUDGET or why, a.id  # a row allowed more says why
        assert max(w.ours() for w in a.windows) <= limit, (kernel, a.id)
        assert all(w.foreign_stamps == 0 for w in a.windows), (kernel, a.id)


SWITCHES = ("ctx", "irq.task_response.resched", "irq.return.different", "irq.handler_to_task")


def test_a_switch_is_the_kernels(audited):
    """Every row with a switch spends most of its window in the kernel (the
    switch itself is its code)."""
    kernel, audits = audited
    for a in audits:
        w = a.median()
        if any(s in a.id for s in SWITCHES):
            assert w.owners["kernel"] > w.net // 2, (kernel, a.id, dict(w.funcs))



def test_a_window_with_harness_code_is_caught():
    """The audit itself fails a window that holds rtbench's code: the same
    split applied to a made-up window of a scenario loop."""
    w = audit.Window(net=10)
    w.owners.update({"kernel": 4, "harness": 6})
    a = audit.MetricAudit("sem.give.no_waiter", windows=[w])
    assert any("6 instructions of rtbench's code" in p for p in a.problems())


# ---- `rtbench audit`: the same audit as a command ----

@pytest.fixture
def board(board_cache, monkeypatch):
    from conftest import kernel_env

    monkeypatch.setenv("XDG_CACHE_HOME", str(board_cache))
    kernel_env(monkeypatch)


def test_the_audit_command_prints_the_split_and_exits_0(isolated, board, capsys):
    import json

    from rtbench.cli import main

    assert main(["audit", "--target", "mps2-an385", "--kernel", "threadx", "--only",
                 "sem.give.no_waiter,sched.yield.*", "--samples", "5", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = {r["id"]: r for r in data["rows"]}
    assert set(rows) == {"sem.give.no_waiter", "sched.yield.ctx.thread"}
    assert data["problems"] == []
    for r in rows.values():
        assert r["windows"] == 5 and r["ours_max"] <= audit.BUDGET
        assert r["figure"] == r["harness_p50"]  # the trace's count is the harness's figure
        assert r["kernel"] > r["ours"]


@pytest.mark.parametrize("args, says", [
    (["--target", "host"], "the audit traces an emulated board"),
    (["--target", "mps2-an385", "--kernel", "vxworks"], "unknown --kernel"),
    (["--target", "mps2-an385", "--kernel", "threadx", "--samples", "500"], "--samples"),
])
def test_the_audit_command_refuses_bad_input_in_one_line(isolated, capsys, args, says):
    from rtbench.cli import main

    assert main(["audit", *args]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1
