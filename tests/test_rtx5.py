"""RTX5 beyond the checks every kernel gets (test_board_target.py, the
window audit, test_profiles.py): its second checkout (CMSIS 6), the
reasons it gives for what CMSIS-RTOS2 lacks, its profiles reaching the
image, and the interrupt rows it completes in PendSV labelled so.
(CI sets RTBENCH_REQUIRE_BOARD=1: a missing tool fails there.)"""

import json

import pytest

from conftest import CMSIS6, kernel_env, kernel_of, kernel_src
from rtbench.cli import main
from rtbench.store.records import Session, difference


@pytest.fixture
def rtx5(board_cache, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(board_cache))
    kernel_env(monkeypatch)


@pytest.mark.parametrize("cmsis6, says", [
    (None, "RTX5's build needs cmsis6: set RTBENCH_CMSIS6_SRC to your checkout of it"),
    ("/nonexistent", "RTBENCH_CMSIS6_SRC=/nonexistent: not a checkout of cmsis6 "
                     "(CMSIS/RTOS2/Include/cmsis_os2.h not found)"),
])
def test_cmsis6_missing_or_wrong_is_one_line_and_exit_2(isolated, capsys, monkeypatch, cmsis6, says):
    src = kernel_src("rtx5")
    if src is None:
        pytest.skip("no RTX5 sources")
    monkeypatch.setenv("RTBENCH_RTX5_SRC", str(src))
    if cmsis6:
        monkeypatch.setenv(CMSIS6.env, cmsis6)
    assert main(["run", "--target", "mps2-an385", "--kernel", "rtx5", "--db", "r.db",
                 "--out", "o"]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1, err
    assert not (isolated / "o").exists() and not (isolated / "r.db").exists()


def test_the_version_is_read_from_rtx_os_h(monkeypatch):
    src = kernel_src("rtx5")
    if src is None:
        pytest.skip("no RTX5 sources")
    kernel_env(monkeypatch)  # CMSIS 6 too
    k = kernel_of("rtx5", src)
    assert k.version == "5.9.1"  # rtx_os.h: "Kernel version (5.9.1)"
    assert dict(k.cmake_defs)["RTX5_PATH"] == str(src.resolve())
    assert "CMSIS6_PATH" in dict(k.cmake_defs)


# Rows CMSIS-RTOS2 or RTX5 cannot build, and the words of the reason.
UNSUPPORTED = {
    "task.create.unstarted.thread": "no create-without-starting",
    "task.suspend.pended.thread": "no suspended-while-waiting state",
    "task.resume.pended.thread": "no suspended-while-waiting state",
    "rwlock.rdlock.available": "no reader-writer lock",
    "irq.response.dispatched": "no interrupt dispatcher",
    "irq.handler_to_deferred": "no deferred-work service",
    "heap.malloc.size10": "no general-purpose heap call",
}


def test_a_run_measures_or_says_rtx5s_reason_and_labels_pendsv_rows(isolated, rtx5):
    """One run of the rows that matter here: CMSIS-RTOS2's gaps are
    unsupported in RTX5's words; the interrupt rows whose handler releases
    a semaphore carry the note that PendSV completes the call; the thread
    rows the note of the supervisor call."""
    only = ",".join(["irq.handler_to_task", "irq.response", "sem.give.no_waiter", *UNSUPPORTED])
    assert main(["run", "--target", "mps2-an385", "--kernel", "rtx5", "--samples", "20",
                 "--only", only, "--db", "r.db", "--out", "o"]) == 0
    env = json.loads((isolated / "o" / "results.json").read_text())
    got = {m["id"]: m for m in env["metrics"]}
    for mid, words in UNSUPPORTED.items():
        assert got[mid]["status"] == "unsupported" and words in got[mid]["reason"], got[mid]
    for mid in ("irq.handler_to_task", "irq.response", "sem.give.no_waiter"):
        assert got[mid]["status"] == "ok", got[mid]
    facts = Session(env["session"]).target
    assert "PendSV" in difference(facts, "irq.handler_to_task")
    assert difference(facts, "irq.response") == ""  # a handler that gives nothing queues nothing
    assert "supervisor call" in difference(facts, "sem.give.no_waiter")
    assert facts["kernel"] == "RTX V5.9.1"
    assert facts["setting:EVR_RTX_DISABLE"] == "defined"


def test_each_profiles_settings_reach_the_image_and_the_figures(isolated, rtx5):
    """defaults is RTX5's shipped RTX_Config.h (stack check on), speed turns
    the check off: the image says which, and a switch costs less without it."""
    yields = {}
    for profile, check in (("defaults", "1"), ("speed", "0")):
        out = f"o-{profile}"
        assert main(["run", "--target", "mps2-an385", "--kernel", "rtx5", "--kernel-profile",
                     profile, "--samples", "20", "--only", "sched.yield.ctx.thread",
                     "--db", "r.db", "--out", out]) == 0
        env = json.loads((isolated / out / "results.json").read_text())
        facts = Session(env["session"]).target
        assert facts["setting:OS_STACK_CHECK"] == check
        assert facts["setting:OS_ROBIN_ENABLE"] == "0"  # rtbench's rule, both profiles
        assert facts["setting:OS_TICK_FREQ"] == "1000"
        yields[profile] = env["metrics"][0]["p50"]
    assert yields["defaults"] > yields["speed"]  # the stack check runs at every switch
