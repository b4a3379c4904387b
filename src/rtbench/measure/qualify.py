"""`rtbench qualify`: RT-Linux qualification, the workflow people use
cyclictest and rtla for — timer wake-up latency on every online CPU,
several threads per CPU, optionally under rtbench's load, for a long
time, checkpointed, with the kernel's trace of the worst case.

Why cyclictest and not the harness's timer row: cyclictest is what
practitioners qualify with and what TI's RT-Linux guide quotes; its
per-thread histograms are read by importers/rttests (here per CPU:
importers/segment.py); its `-b` stops a trace from the measuring
thread at the crossing; and its figures are the ones a reader can check
with the same command line. The harness's timer row stays `rtbench run`'s.

Soak, checkpointed: the run is measured in segments (cyclictest -D each,
up to SEGMENT_MAX_S); after each, every CPU's figures and histogram (the
segment's and the run's so far) are stored at once — the run stays
`running` until the end, so Ctrl-C, SIGTERM or a killed rtbench keep every
finished segment, and the run reads `incomplete` (partial). The segment
measuring when an interrupt came is not kept (cyclictest's figures for it
would be cut at an unknown point).

Observing without touching: nothing here writes /proc/sys, /proc/irq,
cpufreq or /dev/cpu_dma_latency (cyclictest runs with --default-system);
the conditions are read (targets/sysinfo.py) and shown. The one write is
the trace instance (qualify_trace.py), made and removed by the run.
"""

from __future__ import annotations

import contextlib
import math
import os
import shlex
import shutil
import time
import uuid as uuid_mod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from rtbench.errors import RtbenchError
from rtbench.measure import load, qualify_trace
from rtbench.measure.progress import clock_text
from rtbench.peers import cyclictest_segment as segment
from rtbench.peers.rttests import realtime_allowed
from rtbench.process import lifetime, locks
from rtbench.store.db import Store, now_utc
from rtbench.targets import sysinfo

SEGMENT_MAX_S = 60
PROFILE = "rt"
WROTE = ("nothing but its own tracefs instance (made at the start, removed at the end); "
         "no sysctl, IRQ affinity, governor or PM QoS setting (cyclictest --default-system)")


@dataclass
class QualifyRequest:
    duration_s: float = 600.0
    threshold_us: int | None = None
    threads_per_cpu: int = 1
    priority: int = 98
    interval_us: int = 200
    load: bool = False
    db: Path | None = None
    label: str = ""
    argv: list[str] = field(default_factory=list)


def segments(duration_s: float) -> list[int]:
    """Whole-second segments covering the duration: a tenth of it each, 1 to
    SEGMENT_MAX_S s (a 10 min run: ten of 60 s; a 4 s run: four of 1 s)."""
    total = max(1, int(round(duration_s)))
    each = max(1, min(SEGMENT_MAX_S, total // 10 or 1))
    out = [each] * (total // each)
    return out + ([total % each] if total % each else [])


def online_cpus() -> list[int]:
    allowed = os.sched_getaffinity(0)
    text = sysinfo.online_text()
    cpus = set()
    for part in text.strip().split(","):
        if "-" in part:
            a, b = part.split("-")
            cpus.update(range(int(a), int(b) + 1))
        elif part.isdigit():
            cpus.add(int(part))
    return sorted(cpus & allowed) or sorted(allowed)


@dataclass
class Soak:
    """The run so far: each CPU's figures (the whole run), the segments, the crossing."""
    cpus: dict[int, dict[str, Any]] = field(default_factory=dict)
    segments: list[dict[str, Any]] = field(default_factory=list)
    done_s: float = 0.0
    crossing: dict[str, Any] | None = None
    trace: str = ""

    def add(self, seg: dict[str, Any]) -> None:
        self.segments.append(seg)
        self.done_s += seg["length_s"]
        for cpu, f in seg["cpus"].items():
            segment.merge(self.cpus.setdefault(cpu, segment.empty()), f["n"],
                               f["min"], f["mean"], f["max"], f["buckets"])

    def worst(self) -> tuple[int, dict[str, Any]] | None:
        have = [(c, f) for c, f in self.cpus.items() if f["n"]]
        return max(have, key=lambda cf: cf[1]["max"]) if have else None

    def samples(self) -> int:
        return sum(f["n"] for f in self.cpus.values())


def record(cpu: int, f: dict[str, Any], threshold_us: int | None) -> dict[str, Any]:
    """The run's figures on one CPU so far, as a stored metric record (ns)."""
    rec = {"type": "metric", "id": f"cyclictest.cpu{cpu}", "status": "ok", "origin": "qualify",
           "profile": PROFILE, "unit": "ns", "n": f["n"], "min": f["min"], "mean": f["mean"],
           "max": f["max"], **segment.percentiles(f),
           "hist": {"scheme": "linear", "offset": 0, "buckets": f["buckets"],
                    "overflow": f["n"] - sum(b[2] for b in f["buckets"])}}
    if threshold_us:
        rec["over_threshold"] = over(f, threshold_us)
    return rec


def over(f: dict[str, Any], threshold_us: int) -> int:
    """Samples above the threshold (the buckets' overflow included)."""
    limit = threshold_us * 1000
    placed = sum(b[2] for b in f["buckets"])
    return sum(b[2] for b in f["buckets"] if b[0] > limit) + (f["n"] - placed)


def conditions(req: QualifyRequest, cpus: list[int], rt: tuple[bool, str]) -> dict[str, Any]:
    """What the run measured under, read only (docs/qualify.md)."""
    return {"threads_per_cpu": req.threads_per_cpu, "cpus": cpus,
            "priority": f"SCHED_FIFO {req.priority}" if rt[0] else f"SCHED_OTHER ({rt[1]})",
            "memory_locked": rt[0], "interval_us": req.interval_us,
            "governors": sysinfo.governors(), "changed": WROTE,
            "power_management": "not suppressed (cyclictest --default-system: "
                                "/dev/cpu_dma_latency left alone)"}


def execute(req: QualifyRequest, say: Callable[[str], None],
            show: Callable[[Any], None]) -> int:
    """The whole command: 0 within the threshold (or none given), 1 crossed,
    130/143 interrupted (what was measured kept)."""
    if shutil.which("cyclictest") is None:
        raise RtbenchError("cyclictest is not installed (Debian package rt-tests)")
    cpus = online_cpus()
    rt = realtime_allowed(False)
    host = {**sysinfo.collect(), "target": "host"}
    session: dict[str, Any] = {
        "kind": "qualify", "tool": "cyclictest", "threshold_us": req.threshold_us,
        "duration_planned_s": round(req.duration_s),
        "conditions": conditions(req, cpus, rt), "segments": [], "status": "running"}
    run_uuid = str(uuid_mod.uuid4())
    store = Store(req.db)
    inst = qualify_trace.Instance()
    soak = Soak()
    status, code = "incomplete", 2
    with store, locks.hold_run(run_uuid), lifetime.guarded():
        run_id = store.create_run(run_uuid, now_utc(), [f"cyclictest.cpu{c}" for c in cpus],
                                  req.label, req.argv, host, [PROFILE])
        try:
            tracing = inst.start() if req.threshold_us else qualify_trace.Tracing(
                "none", "no --threshold: nothing to stop a trace at")
            session["tracing"] = vars(tracing)
            with _load(req, cpus) as load_text:
                session["conditions"]["load"] = load_text
                store.set_session(run_id, session)
                _soak(req, cpus, rt[0], inst, soak, store, run_id, session, say)
            status = "complete"
            code = 1 if req.threshold_us and soak.crossing or _crossed(soak, req) else 0
        except KeyboardInterrupt:
            session["interrupted"] = lifetime.signal_name()
            raise
        except RtbenchError:
            status = "failed"
            raise
        finally:
            with lifetime.interrupts_deferred():
                inst.close()
                session["status"] = status
                _checkpoint(store, run_id, soak, session, req)
                store.finish_run(run_id, status, now_utc())
                show(store.get_run(run_id))
    return code


def _crossed(soak: Soak, req: QualifyRequest) -> bool:
    w = soak.worst()
    return bool(req.threshold_us and w and w[1]["max"] > req.threshold_us * 1000)


@contextlib.contextmanager
def _load(req: QualifyRequest, cpus: list[int]):
    if not req.load:
        yield "none"
        return
    with load.background(cpus[0]) as text:
        yield text


def _soak(req: QualifyRequest, cpus: list[int], rt: bool, inst: qualify_trace.Instance,
          soak: Soak, store: Store, run_id: int, session: dict, say: Callable[[str], None]
          ) -> None:
    t0 = time.monotonic()
    total = round(req.duration_s)
    plan = segments(req.duration_s)
    live = LiveLine(say, total)
    i = 0
    while total - soak.done_s > 0.01:
        # cyclictest -D takes whole seconds (0: forever): what a -b segment left
        # over is measured to the full second
        length = max(1, min(plan[min(i, len(plan) - 1)], math.ceil(total - soak.done_s)))
        tracing = soak.crossing is None and inst.usable()
        argv = segment.command(req, cpus, length, rt, tracing)
        session["command"] = shlex.join(argv)
        if tracing:
            inst.arm()
        start_s = soak.done_s
        per, brk, raw = segment.run(argv, inst.wrap,
                                        lambda: live.tick(time.monotonic() - t0, soak))
        cycles = max((t.get("cycles", 0) for t in raw.values()), default=0)
        seg_len = length if brk is None else min(length, cycles * req.interval_us / 1e6)
        soak.add({"i": i, "start_s": round(start_s, 3), "length_s": round(seg_len, 3),
                  "cpus": per, "break": brk is not None})
        if brk is not None and soak.crossing is None:
            idx, value = brk
            thread = raw.get(str(idx), {})
            soak.crossing = {"cpu": thread.get("cpu"), "value_us": value, "thread": idx,
                             "at_s": round(start_s + thread.get("cycles", 0)
                                           * req.interval_us / 1e6, 3),
                             "segment": i}
            soak.trace = inst.kept() if tracing else ""
        _checkpoint(store, run_id, soak, session, req)
        live.segment_done(i, time.monotonic() - t0, soak)
        i += 1
    live.close()


def _checkpoint(store: Store, run_id: int, soak: Soak, session: dict,
                req: QualifyRequest) -> None:
    """Every CPU's figures so far and the session (segments, crossing, trace), stored."""
    for cpu, f in sorted(soak.cpus.items()):
        store.add_metric(run_id, record(cpu, f, req.threshold_us))
    session["segments"] = [{**s, "cpus": {str(c): f for c, f in s["cpus"].items()}}
                           for s in soak.segments]
    session["duration_done_s"] = round(soak.done_s, 3)
    session["crossing"] = soak.crossing
    session["trace"] = soak.trace
    store.set_session(run_id, session)


class LiveLine:
    """elapsed/total, the max so far and its CPU, the samples: a line per
    segment, and on a terminal the same line redrawn every second."""

    def __init__(self, say: Callable[[str], None], total_s: int) -> None:
        self.say, self.total = say, total_s
        self.tty = os.isatty(1)

    def text(self, elapsed: float, soak: Soak) -> str:
        w = soak.worst()
        worst = f"max {w[1]['max'] / 1000:,.0f} µs on CPU {w[0]}" if w else "max —"
        return (f"qualify: {clock_text(elapsed)} of {clock_text(self.total)}, {worst}, "
                f"{soak.samples():,} samples")

    def tick(self, elapsed: float, soak: Soak) -> None:
        if self.tty:
            print("\r" + self.text(elapsed, soak) + "\x1b[K", end="", flush=True)

    def segment_done(self, i: int, elapsed: float, soak: Soak) -> None:
        if self.tty:
            print("\r\x1b[K", end="", flush=True)
        self.say(self.text(elapsed, soak) + f" (segment {i + 1} stored)")

    def close(self) -> None:
        if self.tty:
            print("\r\x1b[K", end="", flush=True)
