"""Thread-Metric beside an RTOS run: `rtbench run --target mps2-an385
--kernel threadx|freertos --with-peers`.

Thread-Metric (ThreadX's vendor-neutral benchmark, in a ThreadX checkout
under utility/benchmarks/thread_metric) counts how many times a loop of
kernel calls completes in a report period. Its tests are built in place
from the user's checkout, one image per test, with rtbench's board glue
(harness/peers/thread-metric: printf on the console, the run ended after a
few report periods) and each kernel's porting layer: ThreadX's own
(threadx_example/tm_porting_layer_threadx.c), and for FreeRTOS rtbench's
(tm_freertos.c), so the same peer measures both kernels. Each image boots
under the same QEMU and -icount as the harness; the kernel tick is 100 Hz
(Thread-Metric's porting rule 3) and a period is PERIOD_S seconds of
virtual time, i.e. a fixed number of guest instructions.

Each test becomes one record of the shared contract (docs/records.md,
"Records from other sources"): `"origin": "peer"`, unmapped id
`thread-metric:<test>` (no rtbench metric measures a throughput), unit
"count per period", the min / median / max of the periods' totals as
printed (`stats_given`), and every period's total in `source.periods`.
A test Thread-Metric's own check rejects keeps its counts, with the check's
words in the note. The records are stored as a peer run linked to the
rtbench run (linked.py), which `rtbench compare` shows beside the kernel
(rtbench.compare.kernels): there each count is also read as instructions per
count and set beside the rtbench rows whose operations one count performs.
"""

from __future__ import annotations

import os
import re
import shlex
import statistics
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from rtbench.errors import HarnessError, RtbenchError
from rtbench.peers import programs
from rtbench.peers.linked import store_beside
from rtbench.store.db import Store
from rtbench.targets import harness

TOOL = "Thread-Metric"
KEY = "thread-metric"
UNIT = "count per period"
# Fixed by the images (harness/peers/thread-metric/thread_metric.cmake):
PERIOD_S = 1  # RTB_TM_DURATION, Thread-Metric's TM_TEST_DURATION
PERIODS = 3   # RTB_TM_PERIODS: reports before the image ends itself
TICK_HZ = 100
# how it measured beside rtbench: the peer page of `rtbench compare RUN`, and
# the kernel sheet's section on it
WHERE = ("Thread-Metric (the ThreadX distribution's benchmark) through rtbench's porting layer "
         "for the same kernel, built by the same rule and run on the same emulated board, its "
         "counts per report period")
ABOUT = (
    "Thread-Metric's tests, built from the same ThreadX checkout and run under the same QEMU "
    f"(`rtbench run --with-peers`): each count is one pass of a loop of kernel calls, totalled "
    f"per report period of {PERIOD_S} s of virtual time, the kernel tick at {TICK_HZ} Hz as "
    "its porting rules ask. Under -icount a period is a fixed number of instructions, so a "
    "count reads as instructions per count (the period's instructions ÷ the count, the "
    "report thread's own work included), which the last column sets beside the rtbench rows "
    "one count performs (their medians, summed). ThreadX runs ThreadX's own Thread-Metric "
    "layer; FreeRTOS rtbench's (harness/peers/thread-metric/tm_freertos.c).")
TIMEOUT_S = 120.0  # a test takes at most a few seconds of host time
TM_SUBDIR = Path("utility") / "benchmarks" / "thread_metric"


@dataclass(frozen=True)
class Test:
    key: str    # tm_<key>_test.c and the image tm-<key>-<kernel>-<board>.elf
    title: str  # as its report line names it
    count: str  # what one count is
    # The rtbench rows one count performs: (metric id, operations per count).
    related: tuple[tuple[str, float], ...] = ()
    relation: str = ""


TESTS = (
    Test("basic_processing", "Basic Single Thread Processing",
         "one pass of a loop over a 1024-word array, no kernel call",
         (), "No kernel call: the same code on every kernel, so equal counts say the images "
             "run at the same speed and the other tests compare kernels, not boards."),
    Test("cooperative_scheduling", "Cooperative Scheduling",
         "one of five equal-priority threads increments its counter and relinquishes to the next",
         (("sched.yield.ctx.thread", 1.0),),
         "Each count is one relinquish that switches to the next thread: rtbench's yield "
         "switch plus the thread's loop."),
    Test("preemptive_scheduling", "Preemptive Scheduling",
         "one of five threads of rising priority runs: each resumes the next, the most urgent "
         "suspends itself and the chain unwinds",
         (("task.resume.ctx.thread", 0.8), ("task.suspend.self_ctx.thread", 0.8)),
         "Five counts take four resumes that switch to a more urgent thread and four "
         "self-suspends that switch back: 0.8 of each per count."),
    Test("interrupt_processing", "Interrupt Processing",
         "a thread traps (SVC), the handler puts a semaphore, the thread gets it",
         (("sem.give.no_waiter", 1.0), ("sem.take.available", 1.0)),
         "A software trap, taken at a known instruction (rtbench's interrupt rows use a "
         "hardware timer instead), around a semaphore put in the handler and a get in the "
         "thread: rtbench's give and take, plus the trap."),
    Test("interrupt_preemption_processing", "Interrupt Preemption Processing",
         "a thread traps (SVC), the handler resumes a more urgent thread, which preempts and "
         "suspends itself",
         (("task.resume.ctx.thread", 1.0), ("task.suspend.self_ctx.thread", 1.0)),
         "A resume that switches to the more urgent thread (made in the trap's handler, the "
         "switch when it returns) and that thread's self-suspend that switches back: about "
         "rtbench's resume-with-switch and self-suspend-with-switch, plus the trap."),
    Test("message_processing", "Message Processing",
         "a thread sends a 16-byte message to a queue and receives it back",
         (("msgq.send.no_waiter", 1.0), ("msgq.receive.available", 1.0)),
         "A send with room and no waiter and a receive with the message there, of 16 bytes "
         "(rtbench's message rows copy 4)."),
    Test("synchronization_processing", "Synchronization Processing",
         "a thread gets an available semaphore and puts it back",
         (("sem.take.available", 1.0), ("sem.give.no_waiter", 1.0)),
         "A take of an available semaphore and a give with no waiter (rtbench's binary "
         "semaphore on ThreadX is put with tx_semaphore_ceiling_put; Thread-Metric's with "
         "tx_semaphore_put)."),
    Test("memory_allocation", "Memory Allocation",
         "a thread allocates a 128-byte block and releases it",
         (("heap.malloc.size256", 1.0), ("heap.free.size256", 1.0)),
         "ThreadX allocates from a block pool (fixed 128-byte blocks), FreeRTOS from heap_4 "
         "(it has no block pool); rtbench's heap rows use the byte pool and heap_4."),
)
BY_KEY = {t.key: t for t in TESTS}

# Why Thread-Metric's own check fails on a kernel, where it is the kernel's
# documented behaviour rather than a broken run: (kernel, test) -> words.
CHECK_WHY = {
    ("freertos", "cooperative_scheduling"):
        "FreeRTOS takes the next task of a priority's ready list in turn whenever it "
        "schedules (listGET_OWNER_OF_NEXT_ENTRY), so when the report thread has preempted one "
        "of the five threads and blocks again, the next thread runs and the preempted one "
        "waits a round: the counters drift apart by one per period, and Thread-Metric's "
        "within-one check fails once they differ by two (ThreadX resumes the preempted thread)",
}

# Tests a kernel's layer cannot run, and why.
UNSUPPORTED = {
    "freertos": {
        key: "Thread-Metric's interrupt tests trap with SVC, which FreeRTOS's Cortex-M port "
             "owns (it starts the first task), and call the ordinary kernel services in the "
             "handler, which FreeRTOS forbids there (its ...FromISR calls are separate)"
        for key in ("interrupt_processing", "interrupt_preemption_processing")},
    "zephyr": {
        key: "Thread-Metric's interrupt tests trap with SVC, which Zephyr owns (its system calls "
             "and irq_offload go through it): rtbench's Zephyr layer (tm_zephyr.c) leaves them out"
        for key in ("interrupt_processing", "interrupt_preemption_processing")},
}


def instructions_per_period(shift: int, period_s: float = PERIOD_S) -> float:
    """Guest instructions in one report period: QEMU -icount shift=N makes
    one instruction 2^N ns of virtual time."""
    return period_s * 1e9 / (1 << shift)


# ---- the report ----

_HEADER = re.compile(r"\*\*\*\* Thread-Metric (?P<title>.+?) Test \*\*\*\* Relative Time: (?P<t>\d+)")
_TOTAL = re.compile(r"Time Period Total:\s+(?P<n>\d+)")
_ERROR = re.compile(r"^ERROR: (?P<what>.*)$")


@dataclass
class Report:
    title: str
    periods: list[int]   # each period's total, in order
    errors: list[str]    # "period 3: Invalid counter value(s)..."


def parse(text: str, name: str = "Thread-Metric output") -> Report:
    """A test's console output: its title, each period's total and the
    errors its own checks printed. RtbenchError if there is no report."""
    title, periods, errors, period = "", [], [], 0
    for line in text.splitlines():
        line = line.strip()
        if m := _HEADER.search(line):
            if title and m["title"] != title:
                raise RtbenchError(f"{name}: two tests in one output ({title!r}, {m['title']!r})")
            title, period = m["title"], period + 1
        elif m := _TOTAL.search(line):
            if not title:
                raise RtbenchError(f"{name}: a period total before any report header")
            periods.append(int(m["n"]))
        elif (m := _ERROR.match(line)) and title:
            errors.append(f"period {period}: {m['what']}")
    if not periods:
        raise RtbenchError(f"{name}: no Thread-Metric report (no 'Time Period Total' line)")
    return Report(title, periods, errors)


def record(test: Test, report: Report, command: str, kernel: str, shift: int,
           kernel_name: str = "") -> dict:
    """The peer record of one test's report."""
    p = report.periods
    note = (f"{len(p)} report periods of {PERIOD_S} s of virtual time "
            f"({instructions_per_period(shift):,.0f} guest instructions at -icount shift={shift}), "
            f"kernel tick {TICK_HZ} Hz (Thread-Metric's porting rules); min / median / max of "
            "the periods' totals as printed; one count: " + test.count)
    if report.errors:
        note += ("; Thread-Metric's own check failed (" + "; ".join(report.errors) + "): the "
                 "counts are kept as printed")
        why = CHECK_WHY.get((kernel_name, test.key))
        if why:
            note += f". Why: {why}"
    return {"type": "metric", "id": f"{KEY}:{test.key}", "mapped": False, "origin": "peer",
            "profile": "rt", "status": "ok", "unit": UNIT, "n": len(p),
            "min": min(p), "p50": statistics.median(p), "max": max(p),
            "stats_given": ["min", "p50", "max"],
            "source": {"tool": TOOL, "label": f"{report.title} Test", "test": test.key,
                       "command": command, "kernel": kernel, "periods": p,
                       "period_s": PERIOD_S, "icount_shift": shift,
                       **({"errors": report.errors} if report.errors else {})},
            "note": note}


# ---- building and running the images ----

def sources(target, given: Path | None = None) -> Path | None:
    """Thread-Metric's sources for the target's kernel: `given`
    (`--thread-metric-src`: a ThreadX checkout or its thread_metric folder),
    else the ThreadX checkout being measured, else (another kernel) the one
    in $RTBENCH_THREADX_SRC."""
    from rtbench import kernels

    if given is not None:
        src = Path(given).expanduser()
        if (src / "tm_api.h").is_file():
            return src
    elif target.kernel.name == "threadx":
        src = target.kernel.src
    else:
        env = os.environ.get(kernels.get("threadx").env)
        if not env:
            return None
        src = Path(env).expanduser()
    path = src / TM_SUBDIR
    return path if (path / "tm_api.h").is_file() else None


def where_sources() -> str:
    """How to give Thread-Metric's sources, for a message."""
    return (f"they come with a ThreadX checkout ({TM_SUBDIR}): pass --thread-metric-src DIR "
            "or set RTBENCH_THREADX_SRC")


def image_name(test: Test, kernel: str, board: str) -> str:
    return f"tm-{test.key}-{kernel}-{board}.elf"


def measure(target, say: Callable[[str], None] = lambda s: None,
            src: Path | None = None) -> list[dict]:
    """Build and run every Thread-Metric test on the target's kernel; one
    record per test (unsupported or failed with the reason where it could
    not run). KeyboardInterrupt: the running QEMU is killed, then it goes on."""
    from rtbench.targets import qemu

    kernel = target.kernel
    base = {"type": "metric", "origin": "peer", "profile": "rt", "mapped": False,
            "source": {"tool": TOOL, "kernel": f"{kernel.title} {kernel.version}"}}
    tm = sources(target, src)
    if tm is None:
        why = f"Thread-Metric's sources not found{f' in {src}' if src else ''}: {where_sources()}"
        return [{**base, "id": f"{KEY}:{t.key}", "status": "unsupported", "reason": why}
                for t in TESTS]
    skip = UNSUPPORTED.get(kernel.name, {})
    tests = [t for t in TESTS if t.key not in skip]
    try:
        images = _build(target, tm, tests)
    except (HarnessError, RtbenchError) as exc:
        return [{**base, "id": f"{KEY}:{t.key}", "status": "failed",
                 "reason": f"Thread-Metric build failed: {exc}"} for t in TESTS]
    out = []
    for t in TESTS:
        if t.key in skip:
            out.append({**base, "id": f"{KEY}:{t.key}", "status": "unsupported",
                        "reason": skip[t.key]})
        else:
            argv = qemu.boot_command(target.name, images[t.key])
            out.append(_run(t, argv, base, kernel))
        say(line(out[-1]))
    return out


def _build(target, tm: Path, tests: list[Test]) -> dict[str, Path]:
    """One image per test: in the kernel port's CMake project (FreeRTOS,
    ThreadX), or a Zephyr application (harness/peers/thread-metric/zephyr,
    from the user's Zephyr tree) built in one folder for every test, the
    test a variable option: the kernel compiles once and each further
    image costs its test's file and a link (a whole Zephyr build each was
    about 25 s of CPU, the next image 4 s; byte for byte the same image)."""
    kernel = target.kernel
    if kernel.descriptor.own_project:  # Zephyr
        app = harness.source_dir() / "peers" / "thread-metric" / "zephyr"
        board = kernel.descriptor.board_name(kernel, target.name)
        return {t.key: harness.build_project(
            kernel, board, app, "tm", {"THREAD_METRIC_PATH": str(tm)},
            f"Thread-Metric {t.key} image", variable={"RTB_TM_TEST": t.key},
            keep_as=image_name(t, kernel.name, target.name)) for t in tests}
    defs = target.image_defs()
    if kernel.name != "threadx":
        defs["THREAD_METRIC_PATH"] = str(tm)
    return dict(zip((t.key for t in tests), harness.build_images(
        kernel.name, target.name, defs, [image_name(t, kernel.name, target.name) for t in tests])))


def _run(test: Test, argv: list[str], base: dict, kernel) -> dict:
    from rtbench.targets import qemu

    command = shlex.join([*argv[:-1], Path(argv[-1]).name])  # the cache path says nothing
    rec = {**base, "id": f"{KEY}:{test.key}", "source": {**base["source"], "command": command}}
    try:
        code, text = programs.execute(argv, None, TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {**rec, "status": "failed",
                "reason": f"the image did not end within {TIMEOUT_S:g} s (killed)"}
    except OSError as exc:
        return {**rec, "status": "failed", "reason": f"{argv[0]}: {exc.strerror or exc}"}
    if code != 0:
        last = next((ln for ln in reversed(text.splitlines()) if ln.strip()), "")
        return {**rec, "status": "failed", "reason": f"exit status {code}: {last[:200]}"}
    try:
        report = parse(text, f"{test.key} output")
    except RtbenchError as exc:
        return {**rec, "status": "failed", "reason": str(exc)}
    return record(test, report, command, f"{kernel.title} {kernel.version}", qemu.ICOUNT_SHIFT,
                  kernel.name)


def line(rec: dict) -> str:
    """The console line of a Thread-Metric record (rich markup)."""
    from rich.markup import escape

    label = escape(f"Thread-Metric {rec['id'].split(':', 1)[1]}")
    if rec["status"] != "ok":
        colour = "yellow" if rec["status"] == "unsupported" else "red"
        return (f"  peer {label:<48} [{colour}]{rec['status']:<11}[/{colour}] "
                f"{escape(rec['reason'])}")
    flag = " [yellow](its own check failed: see the note)[/yellow]" if rec["source"].get(
        "errors") else ""
    return (f"  peer {label:<48} [green]ok[/green]          median {rec['p50']:,.0f} per "
            f"{PERIOD_S} s period{flag}")


# ---- the peer run, linked to the rtbench run ----

def beside(store: Store, run_id: int, target, say: Callable[[str], None],
           src: Path | None = None) -> int | None:
    """Measure Thread-Metric on the target's kernel and store it as a peer
    run linked to `run_id`; the peer run's id. On Ctrl-C what was measured
    is stored, then the interrupt goes on."""
    say(f"Thread-Metric on {target.kernel.title} (peer; {PERIODS} periods of {PERIOD_S} s each)")
    recs: list[dict] = []
    try:
        recs = measure(target, say, src)
    finally:
        if recs:
            return store_beside(store, run_id, recs, f"Thread-Metric beside run {run_id}", say)
    return None


def is_thread_metric(run) -> bool:
    """A peer run of Thread-Metric's records."""
    return run.origin == "peer" and any((r.get("source") or {}).get("tool") == TOOL
                                        for r in run.metrics)
