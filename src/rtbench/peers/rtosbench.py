"""`rtbench run --target mps2-an385 --kernel freertos|zephyr --with-peers`:
rtos-benchmark beside rtbench on the same emulated board.

After the harness image has measured, rtos-benchmark's port for the same
kernel is built for the same board, its sources compiled in place from the
user's checkout, and booted in the same QEMU with the same `-icount`,
bounded by a host-side timeout:

* FreeRTOS (harness/peers/rtos-benchmark): with the kernel checkout,
  FreeRTOSConfig.h and board code of the harness image, timed on TIMER0;
* Zephyr (harness/peers/rtos-benchmark/zephyr): a Zephyr application built
  from the user's Zephyr tree and modules by rtbench's kernel rule, timed
  by its port's own calls (Zephyr's timing API).

Its console output is read by rtbench.importers.rtosbench; the records
become `"origin": "peer"` with `source.command` and are stored as a run
linked to the rtbench run (linked.py), so `rtbench compare RUN` shows
both figures, in instructions, with why their definitions differ
(rtosbench_freertos.WHY, rtosbench_zephyr: also whether they agree).

Where the sources come from: `--peer-src DIR`, else $RTBENCH_RTOS_BENCHMARK_SRC.
No sources, no peer for the kernel, a failed build or run: one record
(`unsupported` or `failed`, with the reason) and a console line, never an
error of the run. An image that stops inside a test (a fault) keeps the
rows it printed, and the test it stopped in is a `failed` record saying so.
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
from rtbench.peers import programs, rtosbench_freertos, rtosbench_zephyr
from rtbench.peers.linked import line, store_beside
from rtbench.store.catalog import Catalog
from rtbench.store.db import Store
from rtbench.targets import harness

PEER = "rtos-benchmark"  # harness/peers/<PEER>
TOOL = rtosbench.TOOL  # the "tool" its records name
# how it measured beside rtbench (the peer page of `rtbench compare RUN`)
WHERE = ("rtos-benchmark's port for the same kernel run in the same session, on the same "
         "emulated board with the same kernel build and -icount")
SRC_ENV = "RTBENCH_RTOS_BENCHMARK_SRC"
KERNELS = {"freertos": "its FreeRTOS port", "zephyr": "its Zephyr port"}  # ports run here
# rtos-benchmark's own default (its CMake's ITERATIONS); rtbench's sample
# count when smaller (--quick, --samples), so both sides have the same n.
MAX_ITERATIONS = 10000
TIMEOUT_S = 180.0  # a 10 000-iteration run takes 6 to 13 s here; a hung image never exits
GIVE_SOURCES = (f"pass --peer-src DIR (your checkout of zephyrproject-rtos/rtos-benchmark) "
                f"or set {SRC_ENV}")


@dataclass
class Context:
    src: Path | None  # --peer-src; None: the environment variable
    iterations: int
    profile: str = "rt"


def markers(kernel: str) -> tuple[str, ...]:
    """The files an rtos-benchmark checkout has for its port of `kernel`."""
    return ("h/bench_api.h", f"src/{kernel}/bench_porting_layer_{kernel}.c")


def sources(given: Path | None, kernel: str = "freertos") -> tuple[Path | None, str]:
    """The rtos-benchmark checkout to build for `kernel`, or None and why not."""
    if given is None:
        env = os.environ.get(SRC_ENV)
        if not env:
            return None, f"rtos-benchmark sources not given: {GIVE_SOURCES}"
        given = Path(env)
    given = given.expanduser()
    missing = [m for m in markers(kernel) if not (given / m).is_file()]
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

    kernel = target.kernel
    if kernel.name not in KERNELS:
        return failed("unsupported", f"rtos-benchmark has no {kernel.title} port")
    src, why = sources(ctx.src, kernel.name)
    if src is None:
        return failed("unsupported", why)
    iterations = max(1, min(ctx.iterations, MAX_ITERATIONS))
    defs = {"RTB_ICOUNT_SHIFT": str(qemu.ICOUNT_SHIFT), "RTOS_BENCHMARK_PATH": str(src),
            "RTOSBENCH_ITERATIONS": str(iterations)}
    try:
        image = _build(target, defs)
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
    last = next((ln.strip() for ln in reversed(text.splitlines()) if ln.strip()), "")
    exited = f"the rtos-benchmark image exited with status {code}: {last[:200]}"
    try:
        result = rtosbench.parse(text, name="rtos-benchmark console", catalog=catalog)
    except RtbenchError as exc:
        return failed("failed", exited if code != 0 else
                      f"rtos-benchmark's output not understood: {exc}", command=command)
    stopped = None
    if code != 0 or not result.info.get("complete"):
        why = exited if code != 0 else "its output ends before `*** Done! ***`"
        test = result.info.get("stopped_in")
        stopped = {**base, "id": f"{rtosbench.TOOL_KEY}:{test or 'bench_all'}",
                   "status": "failed", "source": {**base["source"], "command": command,
                                                  **({"label": test} if test else {})},
                   "reason": (f"rtos-benchmark stopped in its {test!r} test, whose rows and "
                              f"the later tests' are missing: {why}" if test else
                              f"rtos-benchmark stopped before `*** Done! ***`: {why}")}
    recs = []
    for rec in result.records:
        rec["origin"], rec["profile"] = "peer", ctx.profile
        src_info = {k: v for k, v in rec["source"].items() if k not in ("file", "line")}
        rec["source"] = {**src_info, "command": command}
        recs.append(rec)
    if stopped is not None:
        recs.append(stopped)
    info = {k: v for k, v in result.info.items() if k not in ("format",)}
    session = {"type": "session", "origin": "peer",
               "source": {"kind": PEER, **info, "command": command, "src": str(src),
                          "stats_given": sorted({s for r in recs
                                                 for s in r.get("stats_given", ())})}}
    return recs, session


def _build(target, defs: dict[str, str]) -> Path:
    """The image of rtos-benchmark's port for the target's kernel: the
    FreeRTOS build (its CMake project, with the kernel's options) or the
    Zephyr application (Zephyr's build, from the user's tree)."""
    kernel = target.kernel
    if kernel.descriptor.own_project:  # Zephyr
        app = harness.source_dir() / "peers" / PEER / "zephyr"
        return harness.build_project(
            kernel, kernel.descriptor.board_name(kernel, target.name), app, "rtos-benchmark",
            {**defs, "RTB_ZEPHYR_USERSPACE": "ON" if kernel.userspace else "OFF"},
            "rtos-benchmark Zephyr image")
    return harness.build_peer_image(PEER, target.name, {**dict(kernel.cmake_defs), **defs},
                                    f"rtos-benchmark-{kernel.name}-{target.name}.elf")


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
    the comparison page (rtbench.compare.peers), for the port that ran."""
    src = (session or {}).get("source") or {}
    ours = ((ours_session or {}).get("ts") or {}).get("overhead_median")
    built, empty = _port(src.get("kernel", "")).how(src)
    parts = (
        *built,
        f"It ran {src['iterations']} iterations per figure" if src.get("iterations") else
        "It ran its iterations",
        "and prints their average (an integer division of counter ticks), minimum and "
        "maximum only; no median or percentile exists to set beside rtbench's.",
        empty,
        f"rtbench subtracts its own calibrated read cost ({ours} instructions) from every "
        "sample." if ours is not None else "rtbench subtracts its calibrated read cost.",
        f"Its capability switches: {src['capabilities']}." if src.get("capabilities") else "")
    return " ".join(x for x in parts if x)


def why(rec: dict, ours: dict | None, session: dict | None) -> str:
    """Why this rtos-benchmark row's figure differs from rtbench's `ours`
    (on Zephyr, first whether the two agree), for its port."""
    src = rec.get("source") or {}
    if _port(src.get("kernel", "")) is rtosbench_zephyr:
        empty = ((session or {}).get("source") or {}).get("empty_window")
        return rtosbench_zephyr.agreement(rec, ours, empty)
    return rtosbench_freertos.WHY.get(src.get("label", ""), "")


def _port(kernel: str):
    """The module that knows the port named by a `kernel:` shim line
    ("Zephyr 4.0.0", "FreeRTOS V11.1.0"); FreeRTOS's when none is given
    (the first port run here)."""
    return rtosbench_zephyr if kernel.startswith("Zephyr") else rtosbench_freertos
