"""rtbench import rtos-benchmark: the importer on real captures of
rtos-benchmark's FreeRTOS and Zephyr ports on QEMU's AN385 (tests/data/
import/rtos-benchmark/), its own ns form, an output cut short, malformed
input, and the CLI."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rtbench.cli import main
from rtbench.importers import ImportFormatError, rtosbench
from rtbench.store import catalog
from rtbench.store.db import Store

CAPTURE = (Path(__file__).resolve().parent / "data" / "import" / "rtos-benchmark"
           / "bench_all-freertos-mps2-an385.txt")
ZEPHYR_CAPTURE = CAPTURE.with_name("bench_all-zephyr-mps2-an385.txt")
# Rows whose definitions correspond to a catalogue metric (the `rtosbench`
# vendor names); the others are kept as rtosbench:<name>.
MAPPED = {
    "Thread stats / Spawn (no context switch)": "task.create.no_ctx.thread",
    "Thread stats / Suspend (no context switch)": "task.suspend.ready.thread",
    "Thread stats / Resume (no context switch)": "task.resume.suspended.thread",
    "Thread stats / Spawn (context switch)": "task.create.ctx.thread",
    "Thread stats / Suspend (context switch)": "task.suspend.self_ctx.thread",
    "Thread stats / Resume (context switch)": "task.resume.ctx.thread",
    "Mutex Stats / Lock (no owner)": "rmutex.lock.uncontended",
    "Mutex Stats / Unlock (no waiters)": "rmutex.unlock.uncontended",
    "Mutex Stats / Recursive lock": "rmutex.lock.nested",
    "Mutex Stats / Recursive unlock": "rmutex.unlock.nested",
    "Mutex Stats / Unlock with unpend (context switch)": "rmutex.unlock.wake_ctx.thread",
    "Mutex Stats / Pend (priority inheritance)": "rmutex.lock.block_ctx.thread",
    "Semaphore stats / Take (context switch)": "sem.take.block_ctx.thread",
    "Semaphore stats / Give (context switch)": "sem.give.wake_ctx.thread",
    "Semaphore stats / Give (no context switch)": "csem.give.no_waiter",
    "Semaphore stats / Take (no context switch)": "csem.take.available",
    "Yield stats / Yield (context switch)": "sched.yield.ctx.thread",
    "Message queue stats / Create": "msgq.create",
    "Message queue stats / Send (no context switch)": "msgq.send.no_waiter",
    "Message queue stats / Receive (no context switch)": "msgq.receive.available",
    "Message queue stats / Send (context switch)": "msgq.send.wake_ctx.thread",
    "Interrupt Stats / Latency": "irq.prolog.c_call",
}
NOT_AVAILABLE = {  # printed as n/a: FreeRTOS's port has no create-without-start
    "Thread stats / Create (no context switch)": "task.create.unstarted.thread",
    "Thread stats / Start (no context switch)": "task.start.no_ctx.thread",
    "Thread stats / Start (context switch)": "task.start.ctx.thread",
}
UNMAPPED = {"Thread stats / Terminate (context switch)",
            "Mutex Stats / Unlock with unpend (no context switch)",
            "Mutex Stats / Pend (no priority inheritance)",
            "Yield stats / Yield (no context switch)", "Allocation stats / Malloc",
            "Allocation stats / Free", "Message queue stats / Receive (context switch)"}


@pytest.fixture(scope="module")
def cat():
    return catalog.load()


def _by_label(records: list[dict]) -> dict[str, dict]:
    return {r["source"]["label"]: r for r in records}


def test_capture_maps_every_corresponding_row_and_keeps_the_rest(cat):
    result = rtosbench.parse(CAPTURE, catalog=cat)
    recs = _by_label(result.records)
    assert len(recs) == len(MAPPED) + len(NOT_AVAILABLE) + len(UNMAPPED) == 32
    for label, metric in {**MAPPED, **NOT_AVAILABLE}.items():
        assert recs[label]["id"] == metric and recs[label].get("mapped", True)
    for label in UNMAPPED:
        assert recs[label]["id"] == f"rtosbench:{label}" and recs[label]["mapped"] is False


def test_records_give_exactly_what_it_printed_in_instructions(cat):
    result = rtosbench.parse(CAPTURE, catalog=cat)
    rec = _by_label(result.records)["Semaphore stats / Give (context switch)"]
    # ` Give (context switch)                   :    234,    233,    267`
    assert (rec["mean"], rec["min"], rec["max"]) == (234, 233, 267)
    assert rec["stats_given"] == ["min", "max", "mean"]
    assert not {"p50", "p90", "p99", "p999", "stddev"} & set(rec)
    assert rec["unit"] == "instructions" and "tick_hz" not in rec
    assert rec["n"] == 10000 and rec["status"] == "ok" and rec["origin"] == "import"
    src = rec["source"]
    assert src["tool"] == "rtos-benchmark" and src["line"] == 36
    assert src["label"] == "Semaphore stats / Give (context switch)"
    assert "empty window reads 17 instructions" in rec["note"]
    na = _by_label(result.records)["Thread stats / Create (no context switch)"]
    assert na["status"] == "unsupported" and "n/a" in na["reason"]
    assert not {"min", "max", "mean"} & set(na) and na["stats_given"] == []
    info = result.info
    assert info["unit"] == "instructions" and info["iterations"] == 10000
    assert info["empty_window"] == 17 and info["complete"] and info["kernel"] == "FreeRTOS V11.3.0"


def test_its_own_output_without_rtbench_lines_is_in_ns(cat):
    """rtos-benchmark's output as its K64F build prints it: no rtbench-shim
    lines, so the title's nanoseconds hold and no sample count is known."""
    text = "".join(line for line in CAPTURE.read_text().splitlines(keepends=True)
                   if not line.startswith("rtbench-shim"))
    result = rtosbench.parse(text, name="k64f.txt", catalog=cat)
    rec = _by_label(result.records)["Mutex Stats / Lock (no owner)"]
    assert rec["unit"] == "ticks" and rec["tick_hz"] == 1_000_000_000
    assert (rec["mean"], rec["min"], rec["max"]) == (92, 92, 126) and "n" not in rec
    assert rec["source"]["file"] == "k64f.txt"


def test_unit_cycles_needs_the_counter_frequency(cat):
    text = CAPTURE.read_text().replace("unit: instructions", "unit: cycles")
    rec = _by_label(rtosbench.parse(text, catalog=cat).records)["Interrupt Stats / Latency"]
    assert rec["unit"] == "cycles" and rec["tick_hz"] == 25_000_000
    text = text.replace("rtbench-shim counter_hz: 25000000\n", "")
    with pytest.raises(ImportFormatError, match=r"<text>:0: .*counter_hz"):
        rtosbench.parse(text, catalog=cat)


def test_the_zephyr_build_prints_virtual_ns_which_are_read_as_instructions(cat):
    """Zephyr's timing API prints ns of QEMU's virtual clock; the shim's
    icount_shift says how many make an instruction (2^7 = 128)."""
    result = rtosbench.parse(ZEPHYR_CAPTURE, catalog=cat)
    recs = _by_label(result.records)
    rec = recs["Mutex Stats / Lock (no owner)"]
    # ` Lock (no owner)                         :   9040,   8960,  18560`
    assert rec["source"]["ns"] == {"mean": 9040, "min": 8960, "max": 18560}
    assert (rec["mean"], rec["min"], rec["max"]) == (70.625, 70.0, 145.0)
    assert rec["unit"] == "instructions" and "tick_hz" not in rec and rec["n"] == 10000
    assert "128 per instruction under -icount shift 7" in rec["note"]
    assert "an empty window reads 36.875 instructions" in rec["note"]
    info = result.info
    assert info["empty_window"] == 36.875 and info["kernel"] == "Zephyr 4.0.0"
    assert info["complete"] and "stopped_in" not in info
    # its port creates a thread without starting it: those rows answer metrics here
    assert recs["Thread stats / Create (no context switch)"]["id"] == "task.create.unstarted.thread"
    assert recs["Interrupt Stats / Latency"]["mean"] == 5.0  # 640 ns
    queue = [r for label, r in recs.items() if label.startswith("Message queue")]
    assert len(queue) == 5 and all(r["status"] == "unsupported" for r in queue)
    # without the shift the ns stay ns
    text = ZEPHYR_CAPTURE.read_text().replace("rtbench-shim icount_shift: 7\n", "")
    rec = _by_label(rtosbench.parse(text, catalog=cat).records)["Mutex Stats / Lock (no owner)"]
    assert rec["unit"] == "ticks" and rec["tick_hz"] == 1_000_000_000 and rec["mean"] == 9040


def test_an_output_cut_short_keeps_its_rows_and_names_the_test_it_stopped_in(cat):
    text = ZEPHYR_CAPTURE.read_text()
    cut = text[:text.index(" Latency")] + "rtbench-shim fatal: Zephyr fatal error 19\n"
    result = rtosbench.parse(cut, catalog=cat)
    assert result.info["stopped_in"] == "Interrupt Stats" and not result.info["complete"]
    assert "Zephyr fatal error 19" in result.info["fatal"]
    recs = _by_label(result.records)
    assert "Interrupt Stats / Latency" not in recs and len(recs) == 31
    assert recs["Allocation stats / Free"]["status"] == "ok"
    # cut inside a test's rows: no test without rows, nothing named
    inside = text[:text.index(" Recursive lock")]
    assert "stopped_in" not in rtosbench.parse(inside, catalog=cat).info


TITLE = "** Mutex Stats [avg, min, max] in nanoseconds **\n"


@pytest.mark.parametrize("text, message", [
    (" Lock (no owner) : 92, 92, 126\n", "bad.txt:1: a result row before any"),
    (TITLE + " Lock (no owner) : 92, 9x, 126\n", "bad.txt:2: 'Lock (no owner)' min is not a count"),
    (TITLE + " Lock (no owner) : 92, n/a, 126\n", "bad.txt:2: 'Lock (no owner)': n/a for some"),
    (TITLE + " Lock (no owner) : 92, 126\n", "bad.txt:2: an rtos-benchmark result line that"),
    ("** Mutex Stats [avg, p50, max] in nanoseconds **\n", "bad.txt:1: a title whose statistics"),
    ("** Mutex Stats [avg, min, max] in microseconds **\n", "bad.txt:1: unknown unit 'microsec"),
    ("rtbench-shim unit: furlongs\n" + TITLE + " Lock : 1, 1, 1\n",
     "bad.txt:1: rtbench-shim unit 'furlongs'"),
    ("rtbench-shim iterations: many\n", "bad.txt:1: rtbench-shim iterations is not a count"),
    ("rtbench-shim unit: ns\nrtbench-shim icount_shift: 11\n" + TITLE + " Lock : 1, 1, 1\n",
     "bad.txt:0: rtbench-shim icount_shift 11: QEMU takes 0 to 10"),
    (TITLE + " Lock : 1, 1, 1\n Lock : 2, 2, 2\n", "bad.txt:3: 'Mutex Stats / Lock' appears a "
                                                   "second time"),
    ("hello\n *** Starting! ***\n", "bad.txt:1: no rtos-benchmark result in it"),
])
def test_malformed_input_is_file_line_reason(cat, text, message):
    with pytest.raises(ImportFormatError) as exc:
        rtosbench.parse(text, name="bad.txt", catalog=cat)
    assert str(exc.value).startswith(message)


def test_cli_import_stores_a_run_and_bad_input_stores_nothing(isolated, capsys):
    db = isolated / "r.db"
    assert main(["import", "rtos-benchmark", str(CAPTURE), "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "32 figures" in out and "25 answer an rtbench metric, 7 kept without one" in out
    assert "no rtbench metric: Allocation stats / Malloc" in out
    with Store(db) as s:
        run = s.get_run(1)
    assert run.origin == "rtos-benchmark" and run.host["os"] == "FreeRTOS"
    assert run.session["source"]["unit"] == "instructions"
    rec = next(r for r in run.metrics if r["id"] == "sem.give.wake_ctx.thread")
    assert rec["unit"] == "instructions" and rec["mean"] == 234
    assert main(["show", "1", "--db", str(db)]) == 0
    sheet = capsys.readouterr().out  # counts in their unit, never under a µs header
    assert "| min instr | median instr | mean instr |" in sheet and "min µs" not in sheet
    assert "Figures are instructions executed, not times" in sheet
    # titled by the kernel its log names, not "FreeRTOS unknown kernel"
    assert sheet.startswith("# rtbench data sheet — FreeRTOS V11.3.0 on ")
    bad = isolated / "bad.txt"
    bad.write_text(TITLE + " Lock (no owner) : 92, 9x, 126\n")
    before = sqlite3.connect(db).execute("SELECT COUNT(*) FROM runs").fetchone()
    assert main(["import", "rtos-benchmark", str(bad), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{bad}:2: 'Lock (no owner)' min is not a count" in err
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM runs").fetchone() == before
