"""`rtbench run --target mps2-an385 --kernel zephyr --with-peers`: Zephyr's
own `latency_measure` (the seed's tool) beside rtbench's Zephyr port, on
the same emulated board.

latency_measure is built from the user's Zephyr tree
(tests/benchmarks/latency_measure) with the same modules, board and
compiler as rtbench's image, and the same kernel configuration where its
own prj.conf differs (harness/peers/latency_measure/rtbench.conf: tick,
asserts, stack checks, optimisation); the userspace run builds its
userspace configuration (CONFIG_USERSPACE, as its testcase.yaml does).
It runs in the same QEMU with the same -icount and never exits: rtbench
stops it at `PROJECT EXECUTION SUCCESSFUL` (or a host-side timeout).

Its console is read by the Zephyr importer (rtbench.importers.zephyr).
latency_measure prints each row's average in cycles of Zephyr's timing
counter (SysTick at 25 MHz here) and in ns; under -icount shift N an
instruction is 2^N ns of virtual time, so a cycle is 2^N × f / 1e9
instructions' worth: the records carry the average in instructions
(cycles ÷ 3.2 at shift 7 and 25 MHz; the printed cycles and ns are kept
in `source`), set beside rtbench's mean for the same metric with the
agreement stated (lm_causes.agreement: why a row differs, each cause
checked against instruction traces by lm_trace.py).

No sources, a failed build or run: one record (`unsupported` or
`failed`, with the reason) and a console line, never an error of the run.
"""

from __future__ import annotations

import select
import shlex
import subprocess
import time
from pathlib import Path
from typing import Callable

from rtbench.errors import RtbenchError
from rtbench.importers import zephyr as importer
from rtbench.importers.base import Figure, map_figures, source_of
from rtbench.peers.linked import line, store_beside
from rtbench.peers.lm_causes import AGREE, agreement, why  # noqa: F401 (the peer's API)
from rtbench.process import lifetime
from rtbench.store.catalog import Catalog
from rtbench.store.db import Store
from rtbench.targets import harness

PEER = "latency_measure"  # harness/peers/<PEER>: rtbench's configuration for it
TOOL = importer.TOOL
APP = Path("tests/benchmarks/latency_measure")  # in the user's Zephyr tree
DONE = "PROJECT EXECUTION SUCCESSFUL"
TIMEOUT_S = 300.0  # the userspace build takes ~10 s of host time here; a hang never ends
COUNTER_HZ = 25_000_000  # the MPS2's SysTick, Zephyr's timing counter on this board


def measure(target, catalog: Catalog, profile: str = "rt") -> tuple[list[dict], dict | None]:
    """Build and run latency_measure for `target` (a QemuTarget carrying
    Zephyr): its records and the peer run's session (None if it did not run)."""
    from rtbench.targets import qemu

    base = {"type": "metric", "origin": "peer", "profile": profile,
            "id": f"{importer.TOOL_KEY}:latency_measure", "mapped": False,
            "source": {"tool": TOOL}}

    def failed(status: str, reason: str, **source) -> tuple[list[dict], None]:
        return [{**base, "status": status, "reason": reason,
                 "source": {**base["source"], **source}}], None

    kernel = target.kernel
    app = kernel.src / APP
    if not (app / "CMakeLists.txt").is_file():
        return failed("unsupported", f"this Zephyr tree has no {APP} (latency_measure)")
    conf = [harness.source_dir() / "peers" / PEER / "rtbench.conf"]
    if kernel.userspace:
        conf.append(app / "prj.userspace.conf")
    defs = {"EXTRA_CONF_FILE": ";".join(str(c) for c in conf)}
    try:
        image = harness.build_zephyr_app(kernel, qemu.zephyr_board(kernel, target.name), app,
                                         "latency_measure", defs, "latency_measure image")
    except RtbenchError as exc:
        return failed("failed", f"latency_measure did not build: {exc}")
    argv = qemu.boot_command(target.name, image)
    command = shlex.join(argv)
    try:
        text, done = run_until(argv, DONE, TIMEOUT_S)
    except OSError as exc:
        return failed("failed", f"{qemu.QEMU}: {exc.strerror or exc}", command=command)
    if not done:
        return failed("failed", f"latency_measure did not print {DONE!r} within {TIMEOUT_S:g} s "
                                "(QEMU stopped)", command=command)
    try:
        figures, info = importer.read(source_of(text, "latency_measure console"))
    except RtbenchError as exc:
        return failed("failed", f"latency_measure's output not understood: {exc}",
                      command=command)
    per_cycle = instructions_per_cycle(qemu.ICOUNT_SHIFT, COUNTER_HZ)
    recs = map_figures([_in_instructions(f, per_cycle, command) for f in figures], catalog)
    if kernel.userspace:
        _user_rows_to_process(recs, catalog)
    for rec in recs:
        rec["origin"], rec["profile"] = "peer", profile
        if kernel.userspace and isinstance(rec.get("source"), dict):
            rec["source"]["build"] = "userspace"  # which causes apply (why())
    session = {"type": "session", "origin": "peer",
               "source": {"kind": PEER, **info, "command": command, "app": str(app),
                          "config": [str(c) for c in conf], "counter_hz": COUNTER_HZ,
                          "icount_shift": qemu.ICOUNT_SHIFT,
                          "instructions_per_cycle": per_cycle, "stats_given": ["mean"]}}
    return recs, session


def instructions_per_cycle(shift: int, counter_hz: float) -> float:
    """Under -icount shift N an instruction is 2^N ns; a counter cycle is 1e9/f ns."""
    return (1e9 / counter_hz) / 2 ** shift


def _in_instructions(fig: Figure, per_cycle: float, command: str) -> Figure:
    """latency_measure's average, in instructions (its cycles × per_cycle)."""
    cycles = fig.source["cycles"]
    source = {**{k: v for k, v in fig.source.items() if k not in ("file", "line")},
              "ns": fig.stats.get("mean"), "command": command}
    return Figure(fig.tool_key, fig.label, {"mean": cycles * per_cycle}, source,
                  unit="instructions",
                  note=f"latency_measure's average: {cycles} cycles of its 25 MHz timing "
                       f"counter, {1 / per_cycle:g} cycles per instruction under -icount")


def _user_rows_to_process(recs: list[dict], catalog: Catalog) -> None:
    """On the userspace build, a row between two user threads (u_to_u,
    user.from.user) answers the .process row of the metric (rtbench's user
    threads), when the run has no figure for it yet."""
    have = {r["id"] for r in recs}
    for rec in recs:
        label = (rec.get("source") or {}).get("label", "")
        thread = rec.get("variant_of", "")
        if not thread.endswith(".thread") or not label.endswith(("u_to_u", "user.from.user")):
            continue
        process = thread[:-len(".thread")] + ".process"
        if catalog.get(process) is None or process in have:
            continue
        rec["id"] = process
        have.add(process)
        for key in ("mapped", "variant_of"):
            rec.pop(key, None)
        rec["note"] = rec["note"].split("; another variant")[0]


def run_until(argv: list[str], marker: str, timeout: float) -> tuple[str, bool]:
    """Run argv until a line holds `marker` (then stop it), it exits, or
    `timeout` passes: (its output, whether the marker came)."""
    proc = lifetime.popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT)
    out, done = b"", False
    deadline = time.monotonic() + timeout
    try:
        while not done and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 0.5)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            chunk = proc.stdout.read1(65536)
            if not chunk:
                break
            out += chunk
            done = marker.encode() in out
    finally:
        lifetime.end(proc)
    return out.decode("utf-8", "replace"), done


# ---- beside rtbench's figure: lm_causes.py ----


def method(session: dict | None) -> str:
    """How latency_measure measured, beside rtbench: a paragraph for the
    comparison page."""
    src = (session or {}).get("source") or {}
    per = src.get("instructions_per_cycle")
    return (
        "latency_measure (Zephyr's tests/benchmarks/latency_measure, from the same tree) ran in "
        "the same QEMU with the same -icount, built with the same modules, compiler and kernel "
        "configuration as rtbench's image (harness/peers/latency_measure/rtbench.conf: tick "
        "1000 Hz, asserts and stack checks off, -O2). It prints each row's average over its "
        "iterations, its timestamp overhead subtracted, in cycles of Zephyr's timing counter "
        "(SysTick, 25 MHz here) and ns; no median, no percentile, no maximum. Its cycles are "
        + (f"converted to instructions ({per:g} instructions per cycle under -icount)"
           if per else "converted to instructions") +
        " and set beside rtbench's mean for the same metric, so the row says whether the two "
        "agree (within a few instructions: truncated averages, a tick inside some iterations) "
        "or where the definitions differ.")


def beside(store: Store, run_id: int, catalog: Catalog, target,
           say: Callable[[str], None], profile: str = "rt") -> int:
    """Measure latency_measure and store it as a run linked to `run_id`."""
    say(f"peer latency_measure: building Zephyr's own benchmark from {target.kernel.src} and "
        f"running it on {target.name}…")
    recs, session = measure(target, catalog, profile)
    for rec in recs:
        if rec["status"] != "ok":
            say(line(rec))
    mapped = [r for r in recs if r["status"] == "ok" and r.get("mapped", True)]
    say(f"  peer latency_measure: {len(mapped)} rows beside rtbench's, "
        f"{sum(1 for r in recs if r.get('mapped') is False and r['status'] == 'ok')} more kept "
        "as zephyr:<id>")
    return store_beside(store, run_id, recs, f"latency_measure beside run {run_id}", say, session)
