"""Zephyr beyond the checks every kernel gets (test_board_target.py, the
window audit): the userspace build, whose .process rows run in user-mode
threads, and three kernels in one command, stored as three runs and
compared. (CI sets RTBENCH_REQUIRE_BOARD=1: a missing tool fails there.)"""

import json
import os

import pytest

from conftest import kernel_env, zephyr_missing
from rtbench.cli import main
from rtbench.store.db import Store


@pytest.fixture
def zephyr(board_cache, monkeypatch):
    why = zephyr_missing()
    if why:
        if os.environ.get("RTBENCH_REQUIRE_BOARD") == "1":
            pytest.fail(f"the Zephyr image cannot be built: {why}")
        pytest.skip(f"Zephyr: {why}")
    monkeypatch.setenv("XDG_CACHE_HOME", str(board_cache))
    kernel_env(monkeypatch)


def test_the_userspace_build_runs_process_rows_in_user_mode(isolated, zephyr):
    only = "sem.give.no_waiter,sched.yield.ctx.*,sem.give.wake_ctx.*"
    assert main(["run", "--target", "mps2-an385", "--kernel", "zephyr", "--userspace", "--quick",
                 "--only", only, "--db", "r.db", "--out", "o"]) == 0
    env = json.loads((isolated / "o" / "results.json").read_text())
    got = {m["id"]: m for m in env["metrics"]}
    assert env["host"]["os"] == "Zephyr (userspace)"
    assert env["session"]["target"]["userspace"].startswith("on")
    for mid in ("sched.yield.ctx.process", "sem.give.wake_ctx.process"):
        assert got[mid]["status"] == "ok" and got[mid]["unit"] == "instructions", got[mid]
    # a user thread's switch goes through the MPU's reprogramming and the system-call
    # layer: dearer than a kernel thread's in the same image
    assert got["sched.yield.ctx.process"]["p50"] > got["sched.yield.ctx.thread"]["p50"]


def test_three_kernels_in_one_command_are_three_runs_and_their_comparison(isolated, zephyr,
                                                                          capsys):
    only = "sched.yield.ctx.thread,sem.give.no_waiter,sem.take.available"
    assert main(["run", "--target", "mps2-an385", "--kernel", "freertos,threadx,zephyr",
                 "--quick", "--only", only, "--db", "r.db", "--out", "k"]) == 0
    out = capsys.readouterr().out
    with Store(isolated / "r.db") as store:
        runs = [store.get_run(i) for i in (1, 2, 3)]
    assert sorted(r.host["os"] for r in runs) == ["FreeRTOS", "ThreadX", "Zephyr"]
    assert all(r.status == "complete" for r in runs)
    for kernel in ("freertos", "threadx", "zephyr"):
        assert (isolated / "k" / kernel / "results.json").is_file()
    md = (isolated / "k" / "compare.md").read_text()
    # the first screen: the key rows, then the verdict, then the configuration
    assert md.index("## Key rows (instructions)") < md.index("## Fastest, section by section") \
        < md.index("## Configuration")
    assert "| Context switch via yield |" in md.split("## Fastest")[0]
    for title in ("FreeRTOS V11", "ThreadX 6.4.2", "Zephyr 4.0.0"):
        assert title in md
    assert "kernel comparison of runs" in out and "kernels measured in" in out


@pytest.mark.parametrize("args, says", [
    (["--target", "mps2-an385", "--kernel", "freertos,freertos"], "a kernel is listed twice"),
    (["--target", "mps2-an385", "--kernel", "freertos,vxworks"], "unknown --kernel 'vxworks'"),
    (["--kernel", "freertos,threadx"], "several kernels run on an emulated board"),
    (["--target", "mps2-an385", "--kernel", "freertos,threadx", "--kernel-src", "/x"],
     "--kernel-src names one kernel's checkout"),
    (["--target", "mps2-an385", "--kernel", "freertos,threadx", "--userspace"],
     "--zephyr-modules and --userspace are for zephyr"),
])
def test_several_kernels_refuse_bad_input_in_one_line(isolated, capsys, args, says):
    assert main(["run", *args, "--db", "r.db", "--out", "o"]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1
    assert not (isolated / "o").exists() and not (isolated / "r.db").exists()
