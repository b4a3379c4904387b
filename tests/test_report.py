import json

import pytest

from rtbench.sheets import datasheet as report
from rtbench.store import catalog
from rtbench.store.db import Run

HZ = 1_000_000_000  # 1 tick = 1 ns keeps the expected numbers readable


def _session(realtime=True):
    return {"type": "session", "schema": 1, "harness_version": "0.1.0", "port": "posix",
            "compiler": "GNU 12.2.0", "cflags": "-O2", "build_type": "Release",
            "ts": {"source": "rdtsc+lfence", "hz_nominal": 0, "hz_measured": 2_600_001_234,
                   "resolution": 26, "overhead_min": 0, "overhead_median": 26,
                   "overhead_samples": 10000, "ref_clock": "CLOCK_MONOTONIC_RAW"},
            "rt": {"realtime": realtime, "policy": "SCHED_FIFO" if realtime else "SCHED_OTHER",
                   "reason": "" if realtime else "sched_setscheduler: Operation not permitted",
                   "mlock": realtime, "cpu": 1, "cpus_online": 2},
            "config": {"samples": 10000, "warmup": 100, "budget_ms": 2000}}


def _ok(mid, p50=1234):
    return {"type": "metric", "id": mid, "status": "ok", "reason": "", "unit": "ticks",
            "tick_hz": HZ, "n": 10000, "discarded": 100, "budget_exhausted": False,
            "overhead": 26, "min": p50 - 30, "max": p50 * 3, "mean": p50, "stddev": 2.0,
            "p50": p50, "p90": p50 + 1, "p99": p50 + 2, "p999": p50 + 3,
            "realtime": True, "placement": "pinned", "cpu": 1, "note": ""}


def _run(metrics, pending=(), status="complete", realtime=True):
    return Run(id=7, uuid="uuid-7", started="2024-05-01T10:00:00+00:00",
               finished="2024-05-01T10:01:00+00:00", stored_status=status, label="",
               argv=["rtbench", "run"],
               host={"os": "Linux", "kernel_release": "6.1.0-rt", "cpu_model": "Test CPU 3000",
                     "cores_online": 2, "preemption": "PREEMPT_RT", "clocksource": "tsc"},
               session=_session(realtime), metrics=list(metrics), pending=list(pending))


@pytest.fixture(scope="module")
def cat():
    return catalog.load()


def test_full_sheet(cat):
    metrics = [_ok(i) for i in cat.ids]
    metrics[0] = {**_ok("method.null", 0), "min": -26}
    metrics[3] = {"type": "metric", "id": metrics[3]["id"], "status": "unsupported",
                  "reason": "no such service", "n": 0}
    text = report.render_markdown(_run(metrics), cat)
    assert text.startswith("# rtbench data sheet — Linux 6.1.0-rt on Test CPU 3000\n")
    for service in cat.services:
        assert f"\n### {service}\n" in text
    for mid in cat.ids:
        assert f"`{mid}`" in text
    assert "2600.001 MHz" in text and "SCHED_FIFO" in text and "Not real-time" not in text
    # 1234 ticks at 1 GHz: 1.23 us (the clock's step, 26 ticks, is 0.026 µs: no
    # digit finer) and 1234 counter ticks; one unit per column (the table's, in
    # its header), never the same figure twice in µs and ns.
    assert "| 10000 | 1.20 | 1.23 | 1.24 | 3.70 | 1234 |" in text
    assert "| min µs | median µs | p99 µs | max µs | median ticks |" in text
    assert " ns |" not in text
    assert "| -0.03 |" in text  # a negative minimum keeps its sign
    # a row without a figure is one line under its table, with its reason
    unsupported = metrics[3]["id"]
    assert f"*Unsupported (1):* `{unsupported}` — no such service." in text
    assert f"| {cat.get(unsupported).title}" not in text
    assert "was subtracted from every sample" in text
    # the definitions are a page of their own (glossary.md), not the sheet's bytes
    assert "Clock starts:" not in text and "## Definitions" in text
    glossary = report.render_glossary(_run(metrics), cat)
    assert glossary.count("Clock starts:") == len(cat.ids)


def test_a_program_record_does_not_change_the_kernel_tables(cat):
    """One external record (sysbench: a mean in events/s) changed every
    table to the mean-column set without cycles or p99; the columns are
    each table's own."""
    sysbench = {"type": "metric", "id": "sys.prog.sysbench.cpu", "status": "ok",
                "origin": "external", "unit": "events/s", "n": 1, "mean": 4267.0,
                "stats_given": ["mean"], "source": {"tool": "sysbench"}}
    text = report.render_markdown(_run([_ok("sem.give.no_waiter"), sysbench]), cat)
    kernel = text[text.index("### Semaphores"):]
    kernel = kernel[:kernel.index("\n\n", kernel.index("| metric"))]
    assert "| metric | n | min µs | median µs | p99 µs | max µs | median ticks | note |" in kernel
    assert "mean" not in kernel
    assert "| 4267 events/s |" in text  # the program's figure, in its own table and unit


def test_placement_notes(cat):
    unpinned = {**_ok("method.null"), "placement": "unpinned", "cpu": -1}
    elsewhere = {**_ok("sem.give.no_waiter"), "cpu": 0}
    text = report.render_markdown(_run([unpinned, elsewhere, _ok("mutex.lock.uncontended")]), cat)
    assert "tasks not pinned to one CPU" in text
    assert "tasks on CPU 0" in text
    assert text.count("tasks on CPU") == 1  # the session's own CPU earns no note


def test_not_real_time_and_incomplete_warnings(cat):
    run = _run([_ok("method.null")], pending=["sem.give.no_waiter"], status="incomplete",
               realtime=False)
    text = report.render_markdown(run, cat)
    assert ("Not real-time: sched_setscheduler: Operation not permitted. The tasks ran under "
            "the normal scheduler") in text
    assert "✗ Real-time policy: not granted" in text  # the first page's badge
    assert "**Incomplete run:**" in text
    assert "*Not measured (1):* `sem.give.no_waiter` — run incomplete." in text


def test_sheet_without_session(cat):
    run = _run([])
    run.session = None
    run.pending = ["method.null"]
    text = report.render_markdown(run, cat)
    assert "no session record" in text


def test_number_formatting():
    assert report.fmt_us(-26) == "-0.026"
    assert report.fmt_ns(12.34) == "12.3" and report.fmt_ns(1234.4) == "1234"
    assert report.fmt_ns(-5.0) == "-5.0"
    assert report.fmt_ticks(26) == "26" and report.fmt_ticks(26.5) == "26.5"


def test_write_outputs_envelope(cat, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    run = _run([_ok("method.null")], pending=["method.busywait"])
    paths = report.write_outputs(run, cat, out)
    sheet, results = paths["datasheet.md"], paths["results.json"]
    assert sheet.read_text().startswith("# rtbench data sheet")
    env = json.loads(results.read_text())
    assert env["schema_version"] == 3 and env["rtbench_version"]
    assert env["run"] == {"id": 7, "uuid": "uuid-7", "label": "", "status": "complete",
                          "started": run.started, "finished": run.finished,
                          "argv": ["rtbench", "run"], "profiles": ["rt"],
                          "imported_from": None}
    assert env["host"]["cpu_model"] == "Test CPU 3000" and env["session"]["schema"] == 1
    assert [(m["id"], m["profile"]) for m in env["metrics"]] == [("method.null", "rt")]
    assert env["not_measured"] == [{"id": "method.busywait", "profile": "rt"}]
    # The HTML sheet is written beside them; atomic writes leave no temporary files.
    assert sorted(p.name for p in out.iterdir()) == ["datasheet.html", "datasheet.md",
                                                     "glossary.md", "results.json"]
    assert "beside\nthis sheet as glossary.md" in sheet.read_text()
