"""The passes of a blocked run (rtbench.store.blocks): the harness over every
metric, again and again, each pass one block per metric; the blocks merged
as they arrive.

Each pass is an ordinary `Runner` (watchdog, restarts, Ctrl-C), so a hang
or a crash costs that metric, never the run: a metric that failed or is
unsupported in a block is not measured again and keeps that status. After
every block the metric's merged record is handed to `on_block` (the
caller stores it at once, so a killed run keeps what it had), with `final`
when no more blocks of it will come. The run's overhead (the mean of every
pass's calibration) is settled only at the end, when every record is handed
to `on_settled` once more (also after an interrupt).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from rtbench.measure.runner import Outcome, RunOptions, Runner
from rtbench.store import blocks
from rtbench.targets import sysinfo
from rtbench.targets.base import Target

Record = dict[str, Any]


@dataclass
class Interleaved:
    target: Target
    plan: blocks.Plan
    opts: RunOptions  # ids, cpu, timeout, extra; samples/warmup/budget come from the plan
    on_session: Callable[[Record], None]
    on_block: Callable[[Record, bool], None]  # (merged record so far, its last block?)
    on_settled: Callable[[Record], None]      # the record as it stays
    on_begin: Callable[[str], None] = lambda _id: None
    on_pass: Callable[[int, list[str]], None] = lambda _k, _ids: None  # (pass, its metrics)
    probe_cpu: int | None = None  # the benchmark CPU whose steal and interrupts are counted
    pass_hz: bool = True  # later passes take the first's clocks (--hz, --core-hz, --step)
    acc: dict[str, blocks.Accumulator] = field(default_factory=dict)
    means: list[float] = field(default_factory=list)  # every pass's calibrated overhead mean
    passes: int = 0
    _session: Record | None = None
    _t0: float = 0.0
    _probe: tuple[float, dict | None] | None = None

    def run(self) -> Outcome:
        out = Outcome()
        active = list(self.opts.ids)
        self._t0 = time.monotonic()
        self.acc = {i: blocks.Accumulator() for i in active}
        while active and self.plan.more(self.passes, time.monotonic() - self._t0):
            self.on_pass(self.passes, active)
            runner = Runner(self.target, self._pass_options(active),
                            on_session=self._on_session, on_begin=self.on_begin,
                            on_metric=self._on_metric)
            got = runner.run()
            out.restarts += got.restarts
            out.bad += got.bad
            if out.session is None:
                out.session = got.session
            self.passes += 1
            self._store_session()
            if got.interrupted:
                out.interrupted = True
                break
            active = [i for i in active if not self.acc[i].done]
        o = self.overhead
        for mid, acc in self.acc.items():  # the run's overhead is settled now
            rec = acc.record(o)
            if rec is not None:
                self.target.annotate(rec)
                out.metrics[mid] = rec
                self.on_settled(rec)
        return out

    @property
    def overhead(self) -> int:
        first = next((a.first for a in self.acc.values() if a.first), None)
        return blocks.run_overhead(self.means, (first or {}).get("overhead") or 0)

    def _pass_options(self, ids: list[str]) -> RunOptions:
        k, p = self.passes, self.plan
        extra = list(self.opts.extra)
        ts = (self._session or {}).get("ts", {})
        hz, core_hz = ts.get("hz_measured"), ts.get("core_hz")
        if self.pass_hz and k > 0 and hz:
            extra += ["--hz", str(int(hz))]
        if self.pass_hz and k > 0 and core_hz:  # the core clock too: 25 ms a block saved
            extra += ["--core-hz", str(int(core_hz))]
        step = ts.get("step") if ts.get("unit") != "instructions" else None  # exact: never batched
        if self.pass_hz and k > 0 and step:  # and its step: every block batches alike
            extra += ["--step", str(int(step))]
        return replace(self.opts, ids=ids, samples=p.block_samples(k), warmup=p.block_warmup,
                       budget_ms=p.block_budget_ms, extra=extra)

    def _on_session(self, rec: Record) -> None:
        mean = rec.get("ts", {}).get("overhead_mean")
        if mean is not None:
            self.means.append(float(mean))
        if self._session is None:
            self._session = rec
            # stored the moment it arrives, as without blocks: a run stopped
            # in its first pass keeps its session (what was measured, how)
            self._store_session(self.passes + 1)
        self._probe = self._read_probe()

    def _store_session(self, passes: int | None = None) -> None:
        if self._session is not None:
            self.on_session(blocks.merged_session(
                self._session, self.plan, self.passes if passes is None else passes,
                self.means, self.overhead))

    def _read_probe(self) -> tuple[float, dict | None]:
        probe = sysinfo.cpu_probe(self.probe_cpu) if self.probe_cpu is not None else None
        return time.monotonic(), probe

    def _on_metric(self, rec: Record) -> None:
        before, now = self._probe, self._read_probe()
        self._probe = now
        info: dict[str, Any] = {}
        if before is not None:
            info["t"] = before[0] - self._t0
            if before[1] and now[1]:
                tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
                info["steal_ms"] = (now[1]["steal"] - before[1]["steal"]) * 1000 / tick
                info["irqs"] = now[1]["irqs"] - before[1]["irqs"]
        acc = self.acc[rec["id"]]
        acc.add(rec, info)
        final = acc.done or (self.plan.duration_s is None
                             and self.passes == self.plan.blocks - 1)
        merged = acc.record(self.overhead)
        if merged is not None:
            self.target.annotate(merged)  # e.g. a board's estimated cycles, by sample
            self.on_block(merged, final)
