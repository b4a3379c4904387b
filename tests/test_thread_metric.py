"""Thread-Metric as a peer (rtbench.peers.threadmetric): its reports read
from captured console output, and end to end on the emulated board: built
from the ThreadX checkout, run on ThreadX and FreeRTOS beside an rtbench
run (`--with-peers`), stored as a linked peer run and shown by `rtbench
compare` beside the kernels, with how each count relates to rtbench's rows."""

import json
from pathlib import Path

import pytest

from conftest import kernel_env
from rtbench.peers import threadmetric as tm
from rtbench.cli import main
from rtbench.errors import RtbenchError
from procs import qemu_children

DATA = Path(__file__).parent / "data" / "thread-metric"


# ---- the report, from captured output ----

def test_a_report_is_read_period_by_period():
    rep = tm.parse((DATA / "threadx-cooperative_scheduling.txt").read_text())
    assert rep.title == "Cooperative Scheduling"
    assert rep.periods == [118179, 118231, 118231] and rep.errors == []


def test_thread_metric_s_own_check_is_kept_with_its_period():
    rep = tm.parse((DATA / "freertos-cooperative_scheduling.txt").read_text())
    assert rep.periods == [134454, 134542, 134543]
    assert rep.errors == ["period 3: Invalid counter value(s). Cooperative counters should not "
                          "be more that 1 different than the average!"]
    rec = tm.record(tm.BY_KEY["cooperative_scheduling"], rep, "qemu …", "FreeRTOS V11.3.0", 7,
                    "freertos")
    assert rec["status"] == "ok" and rec["p50"] == 134542  # the counts, as printed
    assert "own check failed" in rec["note"] and "listGET_OWNER_OF_NEXT_ENTRY" in rec["note"]
    assert rec["source"]["errors"] == rep.errors


def test_a_record_follows_the_contract_for_other_sources():
    rep = tm.parse((DATA / "threadx-interrupt_preemption_processing.txt").read_text())
    rec = tm.record(tm.BY_KEY["interrupt_preemption_processing"], rep, "qemu …",
                    "ThreadX 6.4.2", 7, "threadx")
    assert rec["id"] == "thread-metric:interrupt_preemption_processing"
    assert rec["mapped"] is False and rec["origin"] == "peer"
    assert rec["unit"] == "count per period" and "tick_hz" not in rec
    assert rec["stats_given"] == ["min", "p50", "max"] and "mean" not in rec
    assert (rec["min"], rec["p50"], rec["max"], rec["n"]) == (27773, 27782, 27782, 3)
    assert rec["source"]["periods"] == [27773, 27782, 27782] and rec["source"]["period_s"] == 1
    assert "7,812,500 guest instructions" in rec["note"]


@pytest.mark.parametrize("text, says", [
    ("", "no Thread-Metric report"),
    ("**** Thread-Metric Basic Single Thread Processing Test **** Relative Time: 1\n",
     "no Thread-Metric report"),
    ("Time Period Total:  5\n", "before any report header"),
    ("**** Thread-Metric Basic Single Thread Processing Test **** Relative Time: 1\n"
     "Time Period Total:  5\n"
     "**** Thread-Metric Cooperative Scheduling Test **** Relative Time: 1\n", "two tests"),
])
def test_output_that_is_not_a_report_is_refused(text, says):
    with pytest.raises(RtbenchError, match=says):
        tm.parse(text)


def test_a_cut_report_keeps_the_periods_it_printed():
    text = (DATA / "threadx-basic_processing.txt").read_text()
    rep = tm.parse(text[:text.index("Relative Time: 3")])
    assert rep.periods == [951, 953]


# ---- end to end on the board ----

ONLY = "method.null,sched.yield.ctx.thread,sem.give.no_waiter,sem.take.available"


@pytest.fixture(scope="module")
def with_peers(board_cache, tmp_path_factory):
    """ThreadX and FreeRTOS, each measured (a few rows) with Thread-Metric
    beside it, into one database: runs 1 (ThreadX), 2 (its peers), 3
    (FreeRTOS), 4 (its peers)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_CACHE_HOME", str(board_cache))
    kernel_env(mp)
    work = tmp_path_factory.mktemp("tm")
    mp.chdir(work)
    try:
        for kernel in ("threadx", "freertos"):
            assert main(["run", "--target", "mps2-an385", "--kernel", kernel, "--quick",
                         "--with-peers", "--only", ONLY, "--db", "r.db",
                         "--out", kernel]) == 0
        assert qemu_children() == []
        return work
    finally:
        mp.undo()


def peer_records(work: Path, run_id: int) -> dict[str, dict]:
    from rtbench.store.db import Store

    with Store(work / "r.db") as store:
        run = store.get_run(run_id)
    assert run.origin == "peer" and run.linked_to == run_id - 1
    return {r["id"].split(":", 1)[1]: r for r in run.metrics}


def test_thread_metric_runs_beside_threadx(with_peers):
    recs = peer_records(with_peers, 2)
    assert set(recs) == {t.key for t in tm.TESTS}
    assert all(r["status"] == "ok" and r["n"] == tm.PERIODS for r in recs.values()), recs
    assert all(not r["source"].get("errors") for r in recs.values())
    assert "tm-cooperative_scheduling-threadx-mps2-an385.elf" in \
        recs["cooperative_scheduling"]["source"]["command"]


def test_the_same_peer_measures_freertos(with_peers):
    tx, fr = peer_records(with_peers, 2), peer_records(with_peers, 4)
    assert fr["interrupt_processing"]["status"] == "unsupported"
    assert "FromISR" in fr["interrupt_processing"]["reason"]
    ok = [k for k, r in fr.items() if r["status"] == "ok"]
    assert len(ok) == 6
    # no kernel call: the same count on both kernels, so the others compare kernels
    assert abs(tx["basic_processing"]["p50"] - fr["basic_processing"]["p50"]) <= 1


@pytest.mark.parametrize("run_id", [1, 3])
def test_a_cooperative_count_is_a_yield_switch_and_its_loop(with_peers, run_id):
    """Under -icount a period is 7,812,500 instructions: one count of the
    cooperative test is one relinquish switch, rtbench's yield, plus the
    thread's loop (a few instructions)."""
    env = json.loads((with_peers / ("threadx" if run_id == 1 else "freertos")
                      / "results.json").read_text())
    yield_ = next(m for m in env["metrics"] if m["id"] == "sched.yield.ctx.thread")["p50"]
    coop = peer_records(with_peers, run_id + 1)["cooperative_scheduling"]["p50"]
    per_count = tm.instructions_per_period(7) / coop
    assert yield_ < per_count < yield_ + 10


def test_compare_shows_both_kernels_and_thread_metric(with_peers, capsys, monkeypatch):
    monkeypatch.chdir(with_peers)
    assert main(["compare", "3", "1", "--db", "r.db", "-o", "k.md"]) == 0
    md = (with_peers / "k.md").read_text()
    assert "rtbench kernel comparison — FreeRTOS V11.3.0 · ThreadX 6.4.2" in md
    assert "| Context switch via yield | sched.yield.ctx.thread |" in md
    assert "ThreadX × fastest" in md
    assert "## Thread-Metric beside the kernels (peer)" in md
    assert "| Interrupt Processing | unsupported |" in md
    assert main(["compare", "1", "--db", "r.db"]) == 0  # one kernel and its peer
    out = capsys.readouterr().out
    assert "count / period" in out and "instr / count" in out and "ThreadX" in out
