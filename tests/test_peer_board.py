"""rtos-benchmark beside rtbench on QEMU's AN385 (rtbench.peers.rtosbench):
the comparison page in instructions (from the real capture, no emulator),
the peer's failure modes as records, and the whole thing end to end under
QEMU: `rtbench run --target mps2-an385 --kernel freertos --with-peers`.

The end-to-end tests need qemu-system-arm, arm-none-eabi-gcc, cmake and the
two checkouts (FreeRTOS-Kernel, rtos-benchmark; by default the shared test
material, else $RTBENCH_FREERTOS_SRC / $RTBENCH_RTOS_BENCHMARK_SRC) and skip
without them; CI has them all. Each QEMU run is bounded, a hundred
iterations take a fraction of a second, and no QEMU may outlive a test."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import shutil
import sqlite3
from pathlib import Path

import pytest

from procs import children
from rtbench import compare
from rtbench.cli import main
from rtbench.importers import rtosbench
from rtbench.peers import linked as peers, rtosbench as peers_board
from rtbench.compare import views
from rtbench.sheets import pages
from rtbench.store import catalog
from rtbench.store.db import Run, Store

SHARED = Path("/work/shared/third_party")
KERNEL = Path(os.environ.get("RTBENCH_FREERTOS_SRC") or SHARED / "FreeRTOS-Kernel")
PEER = Path(os.environ.get("RTBENCH_RTOS_BENCHMARK_SRC") or SHARED / "rtos-benchmark")
CAPTURE = (Path(__file__).resolve().parent / "data" / "import" / "rtos-benchmark"
           / "bench_all-freertos-mps2-an385.txt")
TOOLS = ("qemu-system-arm", "arm-none-eabi-gcc", "cmake")


def _missing() -> str:
    tools = [t for t in TOOLS if shutil.which(t) is None]
    if tools:
        return f"not installed: {', '.join(tools)}"
    if not (KERNEL / "tasks.c").is_file():
        return f"no FreeRTOS-Kernel checkout at {KERNEL}"
    if not (PEER / "h" / "bench_api.h").is_file():
        return f"no rtos-benchmark checkout at {PEER}"
    return ""


needs_board = pytest.mark.skipif(bool(_missing()), reason=_missing() or "-")


@pytest.fixture(scope="module")
def board_cache(tmp_path_factory) -> Path:
    """One build cache for the module: the harness and peer images are built once."""
    return tmp_path_factory.mktemp("board-cache")


@pytest.fixture
def board(board_cache, monkeypatch):
    """The shared build cache; afterwards, pass or fail, no process this test
    started (QEMU, a build) may be left: any is killed by its pid, then the
    test fails."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(board_cache))
    monkeypatch.delenv(peers_board.SRC_ENV, raising=False)
    before = children(os.getpid())
    yield
    left = children(os.getpid()) - before
    for pid in left:
        with contextlib.suppress(ProcessLookupError, ChildProcessError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    assert not left, f"processes outlived the test: {sorted(left)}"


def _target():
    from rtbench import targets

    return targets.make("mps2-an385", "freertos", KERNEL)


# ---- the comparison page, in instructions (no emulator) ----

def _ours(mid: str, p50: int, mean: float, lo: int, hi: int) -> dict:
    return {"type": "metric", "id": mid, "status": "ok", "reason": "", "unit": "instructions",
            "n": 100, "min": lo, "max": hi, "mean": mean, "stddev": 1.0, "p50": p50, "p90": p50,
            "p99": hi, "p999": hi, "profile": "rt"}


def _runs(capture: Path = CAPTURE, ours: list[dict] | None = None) -> tuple[Run, Run]:
    result = rtosbench.parse(capture)
    recs = []
    for rec in result.records:
        rec["origin"], rec["profile"] = "peer", "rt"
        rec["source"] = {k: v for k, v in rec["source"].items() if k not in ("file", "line")}
        rec["source"]["command"] = "qemu-system-arm -M mps2-an385 … -icount shift=7 …"
        recs.append(rec)
    ours = Run(1, "u1", "2026-11-24T00:00:00+00:00", None, "complete", "", ["rtbench", "run"],
               {"target": "mps2-an385", "target_kind": "emulator"},
               {"type": "session", "ts": {"unit": "instructions", "overhead_median": 10}},
               ours or [_ours("sem.give.wake_ctx.thread", 222, 223.0, 222, 256),
                        _ours("sched.yield.ctx.thread", 57, 57.3, 57, 91)])
    peer = Run(2, "u2", "2026-11-24T00:00:00+00:00", None, "complete", "", ["rtbench", "run"],
               {}, {"type": "session", "origin": "peer", "source": {"kind": "rtos-benchmark",
                                                                   **result.info}},
               recs, linked_to=1)
    return ours, peer


def test_comparison_page_sets_both_in_instructions_with_a_why_per_row():
    ours, peer = _runs()
    cmp = compare.compare_peers(ours, [peer], catalog.load())
    assert cmp.families == ["rtos-benchmark"] and cmp.units == ["instructions"]
    row = next(r for r in cmp.rows if r.id == "sem.give.wake_ctx.thread")
    assert row.label == "Semaphore stats / Give (context switch)"
    assert row.peer_unit == row.ours_unit == "instructions"
    assert row.peer == {"min": 233, "p50": None, "mean": 234, "p99": None, "max": 267}
    assert row.ours["p50"] == 222 and row.peer_ns["mean"] is None  # a count is never a time
    assert "xSemaphoreGive()" in row.why and "take returns" in row.why
    for r in cmp.rows:  # every row of rtos-benchmark says why it differs
        assert r.why, r.label
    unpend = next(r for r in cmp.rows if r.label.startswith("Mutex Stats / Unlock with unpend (no"))
    assert unpend.ours_status == "none" and "nobody waits" in unpend.why
    text = pages.render(views.peer_comparison(cmp), "md")
    assert "beside rtos-benchmark" in text and "figures in instructions" in text
    assert "| sem.give.wake_ctx.thread | Semaphore stats / Give (context switch) | 10000 | 233 | — | " \
           "234 | — | 267 | 100 | 222 | 222 | 223 | 256 | 256 |" in text
    assert "µs" not in text.split("## How")[0]
    assert "read 17 instructions in this build" in text and "(10 instructions)" in text
    data = json.loads(json.dumps(compare.to_jsonable(cmp)))
    jrow = next(r for r in data["rows"] if r["id"] == "sched.yield.ctx.thread")
    assert jrow["peer_unit"] == "instructions" and jrow["peer"]["mean"] == 72
    assert jrow["peer_ns"]["mean"] is None and jrow["ours"]["p50"] == 57


def test_on_zephyr_each_row_agrees_or_differs_once_its_empty_window_is_out():
    """rtos-benchmark's Zephyr port subtracts nothing: its average less its
    empty window (36.875 instructions in the capture) is set beside
    rtbench's mean; the interrupt row has no read pair and is compared as it is."""
    ours, peer = _runs(CAPTURE.with_name("bench_all-zephyr-mps2-an385.txt"), [
        _ours("csem.give.no_waiter", 18, 18.143, 18, 93),
        _ours("rmutex.unlock.wake_ctx.thread", 222, 224.3, 222, 301),
        _ours("irq.prolog.c_call", 3, 3.924, 3, 73)])
    cmp = compare.compare_peers(ours, [peer], catalog.load())
    rows = {r.id: r for r in cmp.rows}
    give = rows["csem.give.no_waiter"]  # 7720 ns / 128 = 60.3125; less 36.875 = 23.4375
    assert give.peer["mean"] == 60.3125 and give.peer_unit == give.ours_unit == "instructions"
    assert give.why.startswith("differs by -5.3 instructions") and "bench_sem_give" in give.why
    assert rows["rmutex.unlock.wake_ctx.thread"].why.startswith(
        "agrees: rtbench's mean is within 1.3 instructions of rtos-benchmark's average less "
        "its empty window (36.875 instructions")
    irq = rows["irq.prolog.c_call"].why  # 640 ns = 5 instructions, nothing taken out
    assert irq.startswith("agrees: rtbench's mean is within 1.1 instructions of "
                          "rtos-benchmark's average. ") and "SysTick" in irq
    create = rows["task.create.unstarted.thread"]
    assert create.ours_status == "not in this run" and "k_thread_create()" in create.why
    assert "xTaskCreate" not in " ".join(r.why for r in cmp.rows)
    for r in cmp.rows:  # every row of rtos-benchmark says why it differs
        assert r.why, r.label
    (method,) = cmp.methods
    assert method.startswith("rtos-benchmark's Zephyr port ran") and "FreeRTOS" not in method
    assert "read 36.875 instructions in this build" in method and "128 of them" in method


# ---- the peer's failure modes: records, never an error of the run ----

@pytest.mark.skipif(not (KERNEL / "tasks.c").is_file(), reason=f"no FreeRTOS-Kernel at {KERNEL}")
def test_missing_or_wrong_sources_are_unsupported_with_how_to_give_them(tmp_path, monkeypatch):
    monkeypatch.delenv(peers_board.SRC_ENV, raising=False)
    recs, session = peers_board.measure(_target(), catalog.load(), peers_board.Context(None, 100))
    (rec,) = recs
    assert session is None and rec["status"] == "unsupported" and rec["origin"] == "peer"
    assert "--peer-src DIR" in rec["reason"] and peers_board.SRC_ENV in rec["reason"]
    assert rec["id"] == "rtosbench:bench_all" and rec["mapped"] is False
    (rec,), _ = peers_board.measure(_target(), catalog.load(),
                                    peers_board.Context(tmp_path, 100))
    assert rec["status"] == "unsupported" and "is not an rtos-benchmark checkout" in rec["reason"]
    monkeypatch.setenv(peers_board.SRC_ENV, str(tmp_path / "absent"))
    (rec,), _ = peers_board.measure(_target(), catalog.load(), peers_board.Context(None, 100))
    assert "absent is not an rtos-benchmark checkout" in rec["reason"]


@pytest.mark.skipif(bool(_missing()), reason=_missing() or "-")
def test_an_image_that_faults_in_a_test_keeps_the_rows_before_it(monkeypatch):
    """The image ends QEMU with a fault's status inside the interrupt test
    (as rtos-benchmark's Zephyr port did on MPU null-pointer detection):
    the rows printed are stored, that test is one failed record."""
    text = CAPTURE.read_text()
    cut = text[:text.index(" Latency")] + "rtbench-shim fatal: Zephyr fatal error 19\n"
    monkeypatch.setattr(peers_board, "_build", lambda target, defs: Path("image.elf"))
    monkeypatch.setattr(peers_board.programs, "execute", lambda argv, cpu, timeout: (83, cut))
    recs, session = peers_board.measure(_target(), catalog.load(),
                                        peers_board.Context(PEER, 100))
    stopped = recs[-1]
    assert stopped["id"] == "rtosbench:Interrupt Stats" and stopped["status"] == "failed"
    assert ("stopped in its 'Interrupt Stats' test" in stopped["reason"]
            and "exited with status 83: rtbench-shim fatal: Zephyr fatal error 19"
            in stopped["reason"])
    ok = [r for r in recs if r["status"] == "ok"]
    assert len(ok) == 28 and "irq.prolog.c_call" not in {r["id"] for r in recs}
    assert session["source"]["stopped_in"] == "Interrupt Stats"


@needs_board
def test_a_build_failure_is_a_failed_record(board, tmp_path):
    broken = tmp_path / "rtos-benchmark"  # the markers, and nothing to build
    for marker in peers_board.markers("freertos"):
        (broken / marker).parent.mkdir(parents=True, exist_ok=True)
        (broken / marker).write_text("#error not a real checkout\n")
    (rec,), session = peers_board.measure(_target(), catalog.load(),
                                          peers_board.Context(broken, 100))
    assert rec["status"] == "failed" and "did not build" in rec["reason"]
    assert "build.log" in rec["reason"] and session is None


@needs_board
def test_a_hung_peer_is_killed_at_the_timeout(board, monkeypatch):
    monkeypatch.setattr(peers_board, "TIMEOUT_S", 0.05)
    (rec,), _ = peers_board.measure(_target(), catalog.load(), peers_board.Context(PEER, 100))
    assert rec["status"] == "failed" and "did not finish in 0.05 s" in rec["reason"]
    assert "-icount shift=7" in rec["source"]["command"]


def test_peer_src_is_for_a_board_run_with_peers(isolated, capsys):
    assert main(["run", "--peer-src", str(isolated), "--with-peers", "--db", "r.db"]) == 2
    assert "--peer-src: the rtos-benchmark checkout for --with-peers on a board" in \
        capsys.readouterr().err
    assert not (isolated / "r.db").exists()


# ---- end to end under QEMU ----

@needs_board
def test_run_with_peers_on_the_board_stores_a_linked_run_compare_shows_it(board, isolated,
                                                                          capsys):
    only = "sem.give.wake_ctx.thread,sched.yield.ctx.thread,irq.prolog.c_call,rmutex.lock.nested"
    assert main(["run", "--target", "mps2-an385", "--kernel", "freertos", "--kernel-src",
                 str(KERNEL), "--with-peers", "--peer-src", str(PEER), "--samples", "100",
                 "--only", only, "--db", "r.db", "--out", "o"]) == 0
    out = capsys.readouterr().out
    assert "peer Semaphore stats / Give (context switch) ok" in out
    assert "linked to run 1" in out
    conn = sqlite3.connect(isolated / "r.db")
    assert conn.execute("SELECT id, origin, linked_to FROM runs ORDER BY id").fetchall() == [
        (1, None, None), (2, "peer", 1)]
    with Store(isolated / "r.db", create=False) as store:
        (peer,) = peers.linked_runs(store, 1)
        recs = {r["id"]: r for r in peer.metrics}
        assert peer.session["source"]["unit"] == "instructions"
        assert peer.session["source"]["iterations"] == 100
    give = recs["sem.give.wake_ctx.thread"]
    assert give["status"] == "ok" and give["origin"] == "peer" and give["unit"] == "instructions"
    assert "tick_hz" not in give and give["stats_given"] == ["min", "max", "mean"]
    assert give["n"] == 100 and 100 < give["min"] <= give["mean"] <= give["max"] < 1000
    assert "-icount shift=7" in give["source"]["command"] and "file" not in give["source"]
    assert recs["task.create.unstarted.thread"]["status"] == "unsupported"
    assert recs["rtosbench:Allocation stats / Malloc"]["mapped"] is False
    assert main(["compare", "1", "--db", "r.db", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)["detail"]
    rows = {r["id"]: r for r in data["rows"]}
    for mid in ("sem.give.wake_ctx.thread", "sched.yield.ctx.thread", "irq.prolog.c_call",
                "rmutex.lock.nested"):
        row = rows[mid]
        assert row["peer_unit"] == row["ours_unit"] == "instructions", mid
        assert row["ours_status"] == "ok" and row["ours"]["p50"] > 0 and row["peer"]["mean"] > 0
        assert row["peer"]["p50"] is None and row["why"]
    # rtos-benchmark subtracts nothing, rtbench its read cost: its figure is the larger
    assert rows["sem.give.wake_ctx.thread"]["peer"]["min"] > rows[
        "sem.give.wake_ctx.thread"]["ours"]["min"]
    assert main(["compare", "latest", "--db", "r.db", "--format", "md"]) == 0  # the peer run
    md = capsys.readouterr().out
    assert "beside rtos-benchmark" in md and "figures in instructions" in md
    assert "why the figures differ" in md and "It ran 100 iterations per figure" in md
