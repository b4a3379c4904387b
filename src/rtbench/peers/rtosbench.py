"""`rtbench run --target mps2-an385 --kernel freertos --with-peers`:
rtos-benchmark beside rtbench on the same emulated board.

After the harness image has measured, rtos-benchmark's FreeRTOS port is
built for the same board (harness/peers/rtos-benchmark: its sources
compiled in place from the user's checkout, with the kernel checkout,
FreeRTOSConfig.h and board code of the harness image) and booted in the
same QEMU with the same `-icount`, bounded by a host-side timeout. Its
console output is read by rtbench.importers.rtosbench; the records become
`"origin": "peer"` with `source.command` and are stored as a run linked
to the rtbench run (linked.py), so `rtbench compare RUN`
shows both figures, in instructions, with why their definitions differ
(WHY, below).

Where the sources come from: `--peer-src DIR`, else $RTBENCH_RTOS_BENCHMARK_SRC.
No sources, no peer for the kernel, a failed build or run: one record
(`unsupported` or `failed`, with the reason) and a console line, never an
error of the run.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from rtbench.errors import RtbenchError
from rtbench.importers import rtosbench
from rtbench.peers import programs
from rtbench.peers.linked import line, store_beside
from rtbench.store.catalog import Catalog
from rtbench.store.db import Store
from rtbench.targets import harness

PEER = "rtos-benchmark"  # harness/peers/<PEER>
SRC_ENV = "RTBENCH_RTOS_BENCHMARK_SRC"
MARKERS = ("h/bench_api.h", "src/freertos/bench_porting_layer_freertos.c")
KERNELS = {"freertos": "its FreeRTOS port"}  # the kernels rtos-benchmark has a port for here
# rtos-benchmark's own default (its CMake's ITERATIONS); rtbench's sample
# count when smaller (--quick, --samples), so both sides have the same n.
MAX_ITERATIONS = 10000
TIMEOUT_S = 180.0  # a 10 000-iteration run takes ~13 s here; a hung image never exits
GIVE_SOURCES = (f"pass --peer-src DIR (your checkout of zephyrproject-rtos/rtos-benchmark) "
                f"or set {SRC_ENV}")


@dataclass
class Context:
    src: Path | None  # --peer-src; None: the environment variable
    iterations: int
    profile: str = "rt"


def sources(given: Path | None) -> tuple[Path | None, str]:
    """The rtos-benchmark checkout to build, or None and why not."""
    if given is None:
        env = os.environ.get(SRC_ENV)
        if not env:
            return None, f"rtos-benchmark sources not given: {GIVE_SOURCES}"
        given = Path(env)
    given = given.expanduser()
    missing = [m for m in MARKERS if not (given / m).is_file()]
    if missing:
        return None, (f"{given} is not an rtos-benchmark checkout ({missing[0]} not found): "
                      f"{GIVE_SOURCES}")
    return given.resolve(), ""


def measure(target, catalog: Catalog, ctx: Context) -> tuple[list[dict], dict | None]:
    """Build and run the peer on `target` (a QemuTarget); its records and
    the session of the peer run (None when it did not run)."""
    from rtbench.targets import qemu

    base = {"type": "metric", "origin": "peer", "profile": ctx.profile,
            "id": f"{rtosbench.TOOL_KEY}:bench_all", "mapped": False,
            "source": {"tool": PEER}}

    def failed(status: str, reason: str, **source) -> tuple[list[dict], None]:
        return [{**base, "status": status, "reason": reason,
                 "source": {**base["source"], **source}}], None

    if target.kernel.name not in KERNELS:
        return failed("unsupported", f"rtos-benchmark has no {target.kernel.title} port")
    src, why = sources(ctx.src)
    if src is None:
        return failed("unsupported", why)
    iterations = max(1, min(ctx.iterations, MAX_ITERATIONS))
    defs = {**dict(target.kernel.cmake_defs), "RTB_ICOUNT_SHIFT": str(qemu.ICOUNT_SHIFT),
            "RTOS_BENCHMARK_PATH": str(src), "RTOSBENCH_ITERATIONS": str(iterations)}
    image_name = f"rtos-benchmark-{target.kernel.name}-{target.name}.elf"
    try:
        image = harness.build_peer_image(PEER, target.name, defs, image_name)
    except RtbenchError as exc:
        return failed("failed", f"the rtos-benchmark image did not build: {exc}")
    argv = qemu.boot_command(target.name, image)
    command = shlex.join(argv)
    try:
        code, text = programs.execute(argv, None, TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return failed("failed", f"the rtos-benchmark image did not finish in {TIMEOUT_S:g} s "
                                "(QEMU killed)", command=command)
    except OSError as exc:
        return failed("failed", f"{qemu.QEMU}: {exc.strerror or exc}", command=command)
    if code != 0:
        last = next((ln.strip() for ln in reversed(text.splitlines()) if ln.strip()), "")
        return failed("failed", f"the rtos-benchmark image exited with status {code}: "
                                f"{last[:200]}", command=command)
    try:
        result = rtosbench.parse(text, name="rtos-benchmark console", catalog=catalog)
    except RtbenchError as exc:
        return failed("failed", f"rtos-benchmark's output not understood: {exc}",
                      command=command)
    if not result.info.get("complete"):
        return failed("failed", "rtos-benchmark's output ends before `*** Done! ***`",
                      command=command)
    recs = []
    for rec in result.records:
        rec["origin"], rec["profile"] = "peer", ctx.profile
        src_info = {k: v for k, v in rec["source"].items() if k not in ("file", "line")}
        rec["source"] = {**src_info, "command": command}
        recs.append(rec)
    info = {k: v for k, v in result.info.items() if k not in ("format",)}
    session = {"type": "session", "origin": "peer",
               "source": {"kind": PEER, **info, "command": command, "src": str(src),
                          "stats_given": sorted({s for r in recs
                                                 for s in r.get("stats_given", ())})}}
    return recs, session


def beside(store: Store, run_id: int, catalog: Catalog, target, ctx: Context,
           say: Callable[[str], None]) -> int:
    """Measure the peer and store it as a run linked to `run_id`; the peer
    run's id."""
    say(f"peer rtos-benchmark: building and running {KERNELS.get(target.kernel.name, '')} "
        f"on {target.name}…")
    recs, session = measure(target, catalog, ctx)
    for rec in recs:
        if rec["status"] != "ok" or rec.get("mapped", True):
            say(line(rec))
    unmapped = [r for r in recs if r["status"] == "ok" and r.get("mapped") is False]
    if unmapped:
        say(f"  peer rtos-benchmark: {len(unmapped)} more figures rtbench has no metric for "
            "(kept as rtosbench:<name>)")
    return store_beside(store, run_id, recs, f"rtos-benchmark beside run {run_id}", say, session)


def method(session: dict | None, ours_session: dict | None) -> str:
    """How rtos-benchmark measured, beside how rtbench did: one paragraph for
    the comparison page (rtbench.compare.peers)."""
    src = (session or {}).get("source") or {}
    ts = (ours_session or {}).get("ts") or {}
    empty = src.get("empty_window")
    ours = ts.get("overhead_median")
    parts = (
        "rtos-benchmark's FreeRTOS port ran in the same QEMU with the same -icount as the "
        "harness image, built against the same kernel checkout with the harness's own "
        "FreeRTOSConfig.h, flags and board code, and timed with the same TIMER0 counter, "
        "converted to guest instructions the same way: the unit and the kernel are "
        "identical, the method is not.",
        f"It ran {src['iterations']} iterations per figure" if src.get("iterations") else
        "It ran its iterations",
        "and prints their average (an integer division of counter ticks), minimum and "
        "maximum only; no median or percentile exists to set beside rtbench's.",
        f"It subtracts nothing: two back-to-back reads through its timing calls "
        f"(bench_timing_counter_get → arch_timing_counter_get → the counter) read {empty} "
        "instructions in this build, and a part of that is inside each of its windows."
        if empty is not None else "It subtracts no read cost.",
        f"rtbench subtracts its own calibrated read cost ({ours} instructions) from every "
        "sample." if ours is not None else "rtbench subtracts its calibrated read cost.",
        f"Its capability switches: {src['capabilities']}." if src.get("capabilities") else "")
    return " ".join(x for x in parts if x)


# ---- why a row's figure differs from rtbench's (shown by `rtbench compare RUN`) ----
# Where rtos-benchmark's clock starts and stops (its src/common/*_test.c on
# its FreeRTOS porting layer) against the catalogue's definition of the
# metric; by rtos-benchmark's name of the row (importers.rtosbench).

_CREATE = ("its bench_thread_spawn() is xTaskCreateStatic() on a TCB and a 456-word stack "
           "the port owns, where rtbench's port calls xTaskCreate(), which takes a TCB and a "
           "512-word stack from heap_4 inside the window; both fill the new stack with the "
           "kernel's marker (INCLUDE_uxTaskGetStackHighWaterMark), so the stack sizes count.")
_RESUMED_IN_CREATE = ("main was preempted inside xTaskCreateStatic() by the helper it had just "
                      "created, so the rest of that call, the return of bench_thread_create() "
                      "and the empty bench_thread_start() are inside the figure, where "
                      "rtbench's incoming (less urgent) task resumes inside the semaphore give "
                      "it was preempted in and stops once that returns.")

WHY = {
    "Thread stats / Spawn (no context switch)":
        "Both time creating a task less urgent than the caller, between reads just before "
        "and after the call; " + _CREATE,
    "Thread stats / Spawn (context switch)":
        "Both start before the create call and stop at the new, more urgent task's first "
        "statement (rtbench's reaches it through its port's task wrapper); " + _CREATE,
    "Thread stats / Create (no context switch)":
        "Not measured by rtos-benchmark here: its FreeRTOS port says RTOS_HAS_THREAD_CREATE_START "
        "0 (a FreeRTOS task starts when it is created) and prints n/a; rtbench emulates "
        "create-without-start (xTaskCreate and vTaskSuspend with the scheduler locked).",
    "Thread stats / Start (no context switch)":
        "Not measured by rtos-benchmark here (RTOS_HAS_THREAD_CREATE_START 0, n/a); rtbench's "
        "start is the vTaskResume() of a task created suspended.",
    "Thread stats / Start (context switch)":
        "Not measured by rtos-benchmark here (RTOS_HAS_THREAD_CREATE_START 0, n/a); rtbench's "
        "start is the vTaskResume() of a more urgent task created suspended, up to its first "
        "instruction.",
    "Thread stats / Suspend (no context switch)":
        "Both time vTaskSuspend() of a less urgent ready task between reads around the "
        "call; rtos-benchmark's target was created just before and has never run, "
        "rtbench's spins and has run.",
    "Thread stats / Resume (no context switch)":
        "Both time vTaskResume() of a less urgent task suspended just before, between "
        "reads around the call.",
    "Thread stats / Suspend (context switch)":
        "The more urgent helper reads the counter as it starts, then suspends itself; the "
        "clock stops in main after bench_thread_spawn() returns: main had been preempted "
        "inside xTaskCreateStatic() by that helper, so the rest of the create call is inside "
        "the figure. rtbench stops at the runner's first instruction after the switch.",
    "Thread stats / Resume (context switch)":
        "The same points as rtbench's: main reads just before vTaskResume() of the "
        "suspended, more urgent helper, which reads right after its own vTaskSuspend() "
        "returns.",
    "Thread stats / Terminate (context switch)":
        "No rtbench metric: on FreeRTOS bench_thread_exit() does not end the task, it "
        "records the handle and blocks for ever on a semaphore (bench_collect_resources() "
        "deletes the task later, untimed), so this row times a blocking take and the switch "
        "back to main, which stops after its vTaskResume() returns.",
    "Mutex Stats / Lock (no owner)":
        "The same call between reads around it: xSemaphoreTakeRecursive() of a free "
        "recursive mutex (rtos-benchmark waits portMAX_DELAY; rtbench reaches it through "
        "its port's mutex wrapper).",
    "Mutex Stats / Unlock (no waiters)":
        "The same call between reads around it: xSemaphoreGiveRecursive() of the mutex "
        "the caller owns once, no task waiting.",
    "Mutex Stats / Recursive lock":
        "rtos-benchmark locks one mutex once per iteration without unlocking in between "
        "(depth 2 up to the iteration count + 1) and times each lock, rtbench times the step "
        "from depth 1 to 2; FreeRTOS only counts either way.",
    "Mutex Stats / Recursive unlock":
        "rtos-benchmark then unlocks it down to depth 1, keeping ownership each time; "
        "rtbench times depth 2 to 1.",
    "Mutex Stats / Unlock with unpend (no context switch)":
        "No rtbench metric, because on FreeRTOS nobody waits: the helper is created at "
        "main's own priority and main yields to let it pend on the mutex, but main had "
        "raised itself to that priority without a switch, so that ready list's round-robin "
        "index was left at the list's head and taskYIELD() picks main, its first entry, "
        "again; the helper is still ready (eTaskGetState) when the clock runs, and the row "
        "times an unlock with no waiter, the same figure as Unlock (no waiters). rtbench's "
        "rmutex.unlock.waiter_readied.thread has a less urgent task pended.",
    "Mutex Stats / Unlock with unpend (context switch)":
        "The same points as rtbench's: the owner reads just before the unlock (it had "
        "inherited the waiter's priority, and the unlock gives it back), the more urgent "
        "waiter reads right after its lock returns.",
    "Mutex Stats / Pend (priority inheritance)":
        "The more urgent helper reads just before locking the mutex main owns; it blocks, "
        "main inherits its priority and runs, and stops the clock after "
        "bench_thread_create() and bench_thread_start() return: " + _RESUMED_IN_CREATE,
    "Mutex Stats / Pend (no priority inheritance)":
        "No rtbench metric: the task that blocks on the mutex is less urgent than its owner "
        "(main, itself blocked on a semaphore), so nothing is inherited and the switch goes "
        "to a third, least urgent task, whose read after its interrupted xSemaphoreGive() "
        "returns stops the clock; rmutex.lock.block_ctx.thread is the case of a less "
        "urgent owner (the row above).",
    "Semaphore stats / Take (context switch)":
        "The more urgent helper reads just before taking the empty semaphore (a counting "
        "semaphore of maximum 1: in FreeRTOS the same queue of length 1 as rtbench's "
        "binary one) and blocks; main stops the clock after bench_thread_create() and "
        "bench_thread_start() return: " + _RESUMED_IN_CREATE,
    "Semaphore stats / Give (context switch)":
        "The same points as rtbench's: the giver reads just before xSemaphoreGive(), the "
        "more urgent waiter right after its take returns (a counting semaphore of maximum "
        "1, which FreeRTOS implements as rtbench's binary one).",
    "Semaphore stats / Give (no context switch)":
        "Both time xSemaphoreGive() of a counting semaphore nobody waits on, between reads "
        "around the call; rtos-benchmark gives it once per iteration without taking it "
        "(its count climbs from 0), rtbench gives it when empty.",
    "Semaphore stats / Take (no context switch)":
        "Both time xSemaphoreTake() of an available counting semaphore, between reads around "
        "the call; rtos-benchmark then takes its count back down to 0.",
    "Yield stats / Yield (context switch)":
        "The same points as rtbench's: two tasks of equal priority, the yielding one reads "
        "just before taskYIELD(), the other right after its own yield returns.",
    "Yield stats / Yield (no context switch)":
        "No rtbench metric: a yield with only less urgent tasks ready; on FreeRTOS it still "
        "pends PendSV and runs the scheduler, which picks the caller again, so it costs "
        "about what a switch does.",
    "Allocation stats / Malloc":
        "No rtbench metric: the FreeRTOS port's bench_malloc() returns NULL without "
        "allocating (\"Routine not expected to be used\"), so this times an empty call; "
        "rtbench's heap.malloc.* time pvPortMalloc() of heap_4.",
    "Allocation stats / Free":
        "No rtbench metric: the FreeRTOS port's bench_free() does nothing, so this times an "
        "empty call; rtbench's heap.free.* time vPortFree() of heap_4.",
    "Message queue stats / Create":
        "Both time creating a message queue between reads around the call; "
        "rtos-benchmark's is xQueueCreateStatic() of 1 message of 1 byte in storage the port "
        "owns, rtbench's xQueueCreate() of 4 messages of 4 bytes, which takes the queue "
        "from heap_4 inside the window.",
    "Message queue stats / Send (no context switch)":
        "Both time xQueueSend() into a queue with room and no waiter, between reads around "
        "the call; rtos-benchmark's message is 1 byte (queue depth 1), rtbench's 4 bytes "
        "(depth 4).",
    "Message queue stats / Receive (no context switch)":
        "Both time xQueueReceive() of a waiting message, between reads around the call; "
        "1 byte for rtos-benchmark, 4 bytes for rtbench.",
    "Message queue stats / Send (context switch)":
        "The same points as rtbench's: the sender reads just before xQueueSend(), the more "
        "urgent receiver, blocked in xQueueReceive(), right after it returns; 1-byte "
        "messages against rtbench's 4 bytes.",
    "Message queue stats / Receive (context switch)":
        "No rtbench metric: a receive from a full queue that readies a more urgent task "
        "blocked in send; the clock stops in that task after its send returns.",
    "Interrupt Stats / Latency":
        "Both time a C function installed in the vector table that the kernel never sees, "
        "from the timer's expiry: rtos-benchmark swaps one in at SysTick's vector (the "
        "kernel's tick timer, reloaded to expire 1 ms later; the kernel's tick handler is "
        "called at its end) and reads SysTick's own down-count in bench_timer_cycles_get(), "
        "called from the handler's first statement, so the prologue, the call and two "
        "instructions come before that load, and bench_timer_cycles_diff() adds one tick "
        "(0.3 instruction); rtbench's handler is on TIMER1 and loads the counter first "
        "thing in its body. Neither is rtbench's irq.response, which goes through the "
        "port's interrupt wrapper to a hook.",
}
