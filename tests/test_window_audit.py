"""The window audit (rtbench.audit) of every row of FreeRTOS, ThreadX,
Zephyr (its kernel and its userspace build) and RTX5 on the emulated AN385, run
under QEMU's instruction trace: each recorded sample's window, found by its
stamps' values, holds at most audit.BUDGET instructions of rtbench's own
code between its two stamps, or its record keeps the row out of every
ranking (`unranked`); no window holds another stamp; and the trace's count
of each window is the harness's figure for it. The headline rows are held
to it over 20 samples, every row over 3.

These are the checks of the issues "windows that hold only the kernel" and
"a kernel comparison each kernel's maintainers would sign": a scenario
loop, an id lookup or a port wrapper that crept back between the stamps
fails here, naming the row and the functions."""

import pytest

from conftest import kernel_of, kernel_src
from rtbench.targets import audit

BUILDS = ["freertos", "threadx", "zephyr", "zephyr-userspace", "rtx5"]


def _kernel(request, tmp_path_factory):
    from conftest import board_tools_missing, zephyr_missing, zephyr_modules
    import os

    name, _, build = request.param.partition("-")  # zephyr-userspace: --userspace
    zephyr = name == "zephyr"
    why = zephyr_missing() if zephyr else board_tools_missing()
    if why:
        if os.environ.get("RTBENCH_REQUIRE_BOARD") == "1":
            pytest.fail(f"the board target cannot run: {why}")
        pytest.skip(f"board target: {why}")
    return kernel_of(name, kernel_src(name), zephyr_modules() if zephyr else None,
                       build == "userspace")


@pytest.fixture(scope="module", params=BUILDS)
def build_cache(request, tmp_path_factory, board_cache):
    """Each kernel build in the session's board cache: the image the other
    board tests run is the one audited, built once for the session."""
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_CACHE_HOME", str(board_cache))
    from conftest import kernel_env
    kernel_env(mp)  # a kernel's further checkouts (RTX5's CMSIS 6: its descriptor reads the variable)
    try:
        yield request.param, _kernel(request, tmp_path_factory)
    finally:
        mp.undo()


@pytest.fixture(scope="module")
def audited(build_cache):
    name, kernel = build_cache
    return name, audit.audit_board("mps2-an385", kernel, list(audit.HEADLINE))


@pytest.fixture(scope="module")
def every_row(build_cache):
    """Every row the image supports, 3 samples each."""
    from rtbench.targets import qemu

    name, kernel = build_cache
    target = qemu.QemuTarget("mps2-an385", kernel)
    target.prepare()
    ids = [i for i, (ok, _why) in target.registry().items() if ok]
    return name, ids, audit.audit_target(target, ids, samples=3, timeout=1800)


# The reason a row's record gives when it measures the core, not the kernel.
NOTHING = "the kernel adds nothing"


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
        # headline rows are ranked, unless the kernel adds nothing to them
        assert not a.marked or a.marked.startswith(NOTHING), (kernel, a.id, a.marked)
        assert max(w.ours() for w in a.windows) <= audit.BUDGET, (kernel, a.id)
        assert all(w.foreign_stamps == 0 for w in a.windows), (kernel, a.id)


def test_every_row_is_within_the_budget_or_kept_out_of_rankings(every_row):
    """The whole catalogue: no problem the audit knows (a window over its
    budget that its record does not mark, another stamp inside, a sample
    the trace does not show, a count the harness did not record)."""
    kernel, ids, audits = every_row
    assert [a.id for a in audits] == ids, kernel
    assert audit.problems(audits) == [], kernel
    for a in audits:
        assert a.computed or len(a.windows) == a.logged == a.recorded, (kernel, a.id)


def test_a_port_built_row_is_built_as_its_port_says(every_row):
    """A row the harness marks "built by rtbench's port from N kernel calls"
    holds at least one and at most N entries into the kernel from
    rtbench's code in its windows (a window that ends in another task holds
    the emulation up to the switch), and more of rtbench's code than a
    call."""
    kernel, _ids, audits = every_row
    built = [a for a in audits if (a.record or {}).get("kernel_calls", 0) >= 2]
    for a in built:
        n = a.record["kernel_calls"]
        assert a.marked.startswith(f"built by rtbench's port from {n} kernel calls"), a.id
        w = a.median()
        assert 1 <= w.calls_from_ours <= n, (kernel, a.id, n, w.calls_from_ours, dict(w.funcs))
        assert w.ours() > audit.BUDGET or w.composite, (kernel, a.id)


def test_a_row_the_kernel_adds_nothing_to_says_so_and_no_other(every_row):
    """A row whose record says "the kernel adds nothing" holds no kernel
    instruction in its median window (the port's rtb_port_irq_kernel_code
    is true), and a row whose median window holds neither a kernel
    instruction nor a call of the kernel's API says why it is not ranked."""
    kernel, _ids, audits = every_row
    for a in audits:
        w = a.median()
        if w is None:
            continue
        if a.marked.startswith(NOTHING):
            assert w.kernel() == 0, (kernel, a.id, dict(w.funcs))
        if w.kernel() + w.api() == 0:
            assert a.marked, (kernel, a.id, dict(w.funcs))


def test_a_fairness_note_is_on_rows_whose_windows_hold_what_it_says(every_row):
    """A port's definition difference with evidence (a kernel function the
    trace shows it by) is on a row only where most of the row's windows
    hold that function."""
    from rtbench.store.records import Session, difference, evidences

    kernel, _ids, audits = every_row
    facts = Session(audits[0].session or {}).target
    for patterns, funcs in evidences(facts):
        note = next(v for k, v in facts.items() if k == "differs:" + ",".join(patterns))
        on = [a for a in audits if a.windows and difference(facts, a.id) == note]
        assert on, (kernel, patterns)
        for a in on:
            held = sum(any(f in w.funcs for f in funcs) for w in a.windows)
            assert 2 * held > len(a.windows), (kernel, a.id, funcs, note)


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


def test_a_marked_row_over_the_budget_is_no_problem():
    w = audit.Window(net=10)
    w.owners.update({"kernel": 4, "port": 6})
    a = audit.MetricAudit("task.delete.ready.thread", windows=[w],
                          record={"unranked": "built by rtbench's port from 2 kernel calls"})
    assert a.problems() == []


def test_samples_are_found_by_value_not_by_order():
    """A loop whose every pass has the same shape names a load only by
    value: the anchor places the counter, and a sample names the load of
    its own pass, not the first of its kind."""
    from rtbench.targets import stamplog

    tpi = 3.2
    anchor_at, anchor_value = 5, 1000
    # four passes of 50 instructions: an opening load, a closing load 20 later
    loads = [stamplog.Load(anchor_at, stamplog.ANCHOR)]
    for k in range(4):
        loads += [stamplog.Load(100 + 50 * k, 0), stamplog.Load(120 + 50 * k, 1)]
    value = lambda i: round(anchor_value + tpi * (i - anchor_at))
    # the harness recorded only the third pass (the others were not samples)
    block = stamplog.Block("x", anchor_value, ((value(200), value(220)),), 1)
    clock = stamplog.anchored(block, loads, tpi)
    found, missing = stamplog.locate(block, loads, clock, head=2, tail=1)
    assert missing == [] and len(found) == 1
    assert (found[0].start, found[0].end, found[0].computed) == (202, 218, False)
    # a closing value no load read is reported, not paired with a neighbour
    odd = stamplog.Block("x", anchor_value, ((value(200), value(220) + 9),), 1)
    assert stamplog.locate(odd, loads, clock, head=2, tail=1)[1]


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


def test_the_traced_image_is_given_no_path_that_follows_the_machine(monkeypatch, tmp_path):
    """The harness reads its arguments, so their length moves the kernel
    tick's phase: the audit's stamp log is named relative to QEMU's working
    directory, the same words as a run's, wherever $TMPDIR lies (a long
    TMPDIR put a tick into a different window: a CI failure nobody else saw)."""
    import os

    from rtbench.errors import HarnessError
    from rtbench.process import lifetime
    from rtbench.targets import qemu

    seen = {}

    def popen(cmd, **kw):
        seen.update(cmd=cmd, cwd=kw.get("cwd"))
        raise OSError(2, "not started")

    monkeypatch.setattr(lifetime, "popen", popen)
    cmd = qemu.boot_command("mps2-an385", tmp_path / "image.elf", ["--samples", "3"])
    with pytest.raises(HarnessError):
        audit.run(None, cmd, 1.0)
    guest = seen["cmd"][seen["cmd"].index("-semihosting-config") + 1]
    assert f"arg={qemu.STAMP_LOG}" in guest and "/" not in guest.split("arg=", 1)[1], guest
    assert seen["cwd"] and os.path.basename(seen["cwd"]).startswith("rtbench-audit-")
