"""The STM32F4 board (harness/boards/stm32f4) on QEMU's netduinoplus2, for
FreeRTOS and ThreadX: the whole catalogue twice (quick: the second without
the cycle model), every row ok or unsupported with a reason, the counter
the image chose named in its records, exact method checks, identical
figures run to run, and the window audit of the headline rows.

Under QEMU the image finds that DWT CYCCNT does not count and stamps with
TIM2, one count per guest instruction: figures are instructions, the same
on every run. The other outcome (silicon: DWT cycles, SysTick at 16 MHz)
is tested on the host (harness/tests/test_stm32f4_counter.c). (CI sets
RTBENCH_REQUIRE_BOARD=1: a missing tool fails there instead of skipping.)
"""

import pytest

from conftest import kernel_env, kernel_src
from rtbench.store import catalog

BOARD = "stm32f4"
PORT = {"freertos": "GCC/ARM_CM4F", "threadx": "cortex_m4/gnu", "rtx5": "GCC/irq_armv7m.S"}
# At least this many ok rows (what each port measures on this board).
OK = {"freertos": 145, "threadx": 130, "rtx5": 121}
# Rows that need what the board does not have, and the words that say so.
NO_TIMER = ("irq.kernel_latency", "irq.prolog.minimum", "irq.epilog.c_call")
NO_ROOM = ("amx.timer.interruption", "amx.delay.wakeup")


@pytest.fixture(scope="module", params=sorted(PORT))
def full(request, board_runs):
    return board_runs(request.param, BOARD)


def _rows(env: dict) -> dict:
    return {m["id"]: m for m in env["metrics"]}


def test_every_row_is_ok_or_unsupported_with_a_reason(full):
    env = full[0]
    assert env["run"]["status"] == "complete"
    got = _rows(env)
    assert set(got) | set(env["host"]["not_applicable"]) == set(catalog.load().ids)
    for m in got.values():
        assert m["status"] in ("ok", "unsupported"), (m["id"], m["status"], m.get("reason"))
        if m["status"] == "unsupported":
            assert m["reason"], m["id"]
        else:
            assert m["unit"] == "instructions", m["id"]
            assert m["min"] <= m["p50"] <= m["p99"] <= m["max"], m["id"]
    kernel = env["session"]["port"]
    assert sum(m["status"] == "ok" for m in got.values()) >= OK[kernel]
    assert env["session"]["target"]["kernel_port"] == PORT[kernel]
    for mid in NO_TIMER:
        assert got[mid]["status"] == "unsupported", mid
        assert "pended from software" in got[mid]["reason"], mid
    for mid in NO_ROOM:
        assert got[mid]["status"] == "unsupported", mid
        assert "96 KiB" in got[mid]["reason"], mid
    # the interrupt rows raised from software are measured
    for mid in ("irq.response", "irq.task_response.resched", "irq.handler_to_task"):
        assert got[mid]["status"] == "ok", mid


def test_the_records_name_the_counter_the_image_chose(full):
    """QEMU's DWT does not count: the image stamps with TIM2, says so, and
    its unit is instructions; the board's facts say its clock."""
    env = full[0]
    ts = env["session"]["ts"]
    assert ts["source"].startswith("TIM2 prescaled by 2^7"), ts["source"]
    assert "DWT CYCCNT did not count" in ts["source"]
    assert ts["unit"] == "instructions" and ts["hz_nominal"] == 7_812_500
    target = env["session"]["target"]
    assert target["board"] == "STM32F4 (Cortex-M4F, 16 MHz HSI, 0 flash wait states)"
    assert target["cpu"] == "Cortex-M4F"
    assert "netduinoplus2" in env["host"]["board"]
    assert env["host"]["icount"].startswith("shift=7")


def test_method_checks_are_exact(full):
    """TIM2 at PSC 127 counts one per instruction: the known loop measures
    its length, the null measurement nothing; SysTick at QEMU's 168 MHz
    gives the 1 kHz tick (a tick delay sleeps one tick's instructions)."""
    got = _rows(full[0])
    assert got["method.null"]["p50"] == 0 and got["method.null"]["min"] == 0
    loop = got["method.busywait"]
    assert loop["expected"] == 2001 and loop["min"] == loop["p50"] == 2001
    assert full[0]["session"]["target"]["tick_hz"] == "1000"


def test_two_runs_give_identical_figures(full):
    """The determinism rows twice, with and without the cycle model (conftest.board_runs)."""
    a, b = (_rows(env) for env in (full[2], full[1]))
    assert a.keys() == b.keys() and sum(m["status"] == "ok" for m in b.values()) >= 15
    for mid in a:
        for key in ("status", "n", "min", "p50", "mean", "p99", "max", "hist"):
            assert a[mid].get(key) == b[mid].get(key), (mid, key)


def test_estimated_cycles_are_at_the_board_clock(full):
    """Priced at 16 MHz, with the exception entries the image's own vector
    table names (linked at 0x08000000 here, not at 0: a switch's PendSV
    entry priced as a branch would be 20 cycles short)."""
    from pathlib import Path

    from rtbench.targets import cycles

    with_model = full[0]
    assert with_model["host"]["cycle_model"].startswith("est. cycles: Cortex-M4 TRM model")
    named = set(cycles.handlers(Path(with_model["host"]["image"])).values())
    assert {"PendSV_Handler", "SysTick_Handler"} <= named  # every kernel switches by PendSV
    got = _rows(with_model)
    for mid in ("sched.yield.ctx.thread", "sem.give.no_waiter", "irq.response"):
        c = got[mid]["cycles"]
        assert c["status"] == "ok" and c["hz"] == 16_000_000, (mid, c)
        assert c["n"] == got[mid]["n"] and c["min"] >= got[mid]["min"], mid


@pytest.mark.parametrize("kernel", sorted(PORT))
def test_the_headline_windows_hold_only_the_kernel(kernel, board_cache, monkeypatch, tmp_path):
    """The window audit (rtbench audit) of the headline rows on this board:
    each window found by its stamps' values (four instructions, three before
    the load), no more of rtbench's code than the budget, the trace's count
    the harness's figure."""
    from conftest import kernel_of
    from rtbench.targets import audit

    import tempfile

    monkeypatch.setenv("XDG_CACHE_HOME", str(board_cache))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # this test's folders only
    kernel_env(monkeypatch)  # a kernel's further checkouts too (RTX5's CMSIS 6)
    audits = audit.audit_board(BOARD, kernel_of(kernel, kernel_src(kernel)),
                               list(audit.HEADLINE), samples=3)
    # the folder of its command-line file (qemu.boot_command) is gone with it
    assert list(tmp_path.glob("rtbench-qemu-*")) == []
    assert {a.id for a in audits} == set(audit.HEADLINE)
    assert audit.problems(audits) == [], kernel
    for a in audits:
        assert len(a.windows) == 3 and max(w.ours() for w in a.windows) <= audit.BUDGET, a.id
