"""Warnings that advise (hyperfine's model): small checks over a stored run,
each returning what it found and what to do about it. The sheet, its first
page and `rtbench run`'s console print the same list.

A check takes a `Facts` (the run read once) and returns Advice items, or
none. Host-only checks (real-time policy, VM, load, another run on the same
CPU) stay silent for a board run, whose figures are counts nothing on the
host changes; imported runs are the source's word and get no checks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from rtbench import importers
from rtbench.store.db import DEFAULT_PROFILE, Run
from rtbench.store.records import MetricRecord, Session

# A p99 resting on fewer samples above it than this is indicative only.
TAIL_SAMPLES = 10
# Rows whose median is within this many counter steps are steps, not times
# (issue 13 flags the same rows in the method).
RESOLUTION_STEPS = 3
# The machine counts as busy when, before the run, the 1-minute load average
# reached this share of its CPUs, or other processes used this much of all
# CPU time while it measured.
BUSY_LOAD_PER_CPU = 0.5
BUSY_OTHERS_PCT = 10.0
# No CPU switches tasks faster than this: a context-switch row below it
# measured something else (an overhead subtracted twice, a switch that did
# not happen).
SWITCH_FLOOR_NS = 100.0
SWITCH_FLOOR_INSTRUCTIONS = 20.0
_SWITCH = re.compile(r"(?<!no)_ctx\b|\.ctx(\.|$)|^sys\.ctx\.")
# How many ids an advice names before "and N more".
SHOWN = 4


@dataclass(frozen=True)
class Advice:
    key: str   # which check ("not_realtime", "vm", "busy", ...)
    what: str  # the finding, in a sentence or two
    do: str    # what to do about it
    ids: tuple[str, ...] = ()  # the metrics it concerns, if any

    @property
    def text(self) -> str:
        return f"{self.what} {self.do}"


@dataclass
class Facts:
    """A run read once for the checks."""

    run: Run
    session: Session = field(init=False)

    def __post_init__(self) -> None:
        self.session = Session(self.run.session or {})

    @property
    def host(self) -> dict:
        return self.run.host

    @property
    def board(self) -> bool:
        return bool(self.host.get("target_kind"))

    @property
    def imported(self) -> bool:
        """Figures another tool printed (`rtbench import KIND`, peers): the
        source's word, not checked here. A results.json import is rtbench's
        own run measured elsewhere, and is."""
        return self.session.source is not None or importers.other_program(self.run.origin)

    @cached_property
    def records(self) -> list[MetricRecord]:
        """The run's own ok records (the harness's; not other programs')."""
        return [MetricRecord(r) for r in self.run.metrics
                if r.get("status") == "ok" and not r.get("origin")]

    @property
    def resolution(self) -> float:
        """The counter's effective step, in ticks: its resolution, or the
        spread of one read's cost (median − min) where that is larger (a
        virtual machine's TSC that mostly advances in steps of ~25 ticks
        while its smallest step is 1)."""
        ts = self.session.ts
        spread = (ts.get("overhead_median") or 0) - (ts.get("overhead_min") or 0)
        return float(max(ts.get("resolution") or 0, spread))


def _ids(ids: list[str]) -> str:
    shown = ", ".join(f"`{i}`" for i in ids[:SHOWN])
    return shown + (f" and {len(ids) - SHOWN} more" if len(ids) > SHOWN else "")


def _profiled(f: Facts, m: MetricRecord) -> str:
    p = m.raw.get("profile", DEFAULT_PROFILE)
    return m.id if len(f.run.profiles) == 1 else f"{m.id} [{p}]"


# ---- the checks ----

def not_realtime(f: Facts) -> list[Advice]:
    if f.board or not f.run.session:
        return []
    rt = f.session.rt
    if len(f.run.profiles) > 1:  # each profile's records say; "default" is untuned on purpose
        recs = [m for m in f.records if m.raw.get("realtime") is False
                and m.raw.get("profile", DEFAULT_PROFILE) != "default"]
        if not recs:
            return []
        profiles = ", ".join(dict.fromkeys(m.raw.get("profile", DEFAULT_PROFILE) for m in recs))
        reason = f" in profile {profiles}: " + (recs[0].raw.get("rt_reason") or "not granted")
    elif rt.get("realtime", True):
        return []
    else:
        reason = ": " + (rt.get("reason") or "not granted")
    return [Advice("not_realtime",
                   f"Not real-time{reason}. The tasks ran under the normal scheduler, so "
                   "any other task could run in the middle of a sample; these are not "
                   "real-time figures.",
                   "Run as root, or grant your user a real-time priority limit (`ulimit -r "
                   "99`; `@realtime - rtprio 99` in /etc/security/limits.conf), without "
                   "`--no-rt`.")]


def virtual_machine(f: Facts) -> list[Advice]:
    hint = f.host.get("hypervisor")
    if f.board or not hint:
        return []
    steal = f.host.get("steal_pct")
    stolen = f" The hypervisor took {steal:g} % of the CPU time while it measured." \
        if steal else ""
    return [Advice("vm",
                   f"Measured in a virtual machine ({hint}): the hypervisor can stop a vCPU "
                   "at any moment and every interrupt or inter-CPU wake-up exits to it, so "
                   "maxima include the host's scheduling." + stolen,
                   "For worst-case figures measure on bare metal; in a VM, pin the vCPUs to "
                   "host CPUs nothing else uses and keep the host idle.")]


def busy_machine(f: Facts) -> list[Advice]:
    h = f.host
    if f.board or h.get("load", "none") != "none":  # --load: the load was asked for
        return []
    cores = h.get("cores_online") or 1
    before, after = h.get("load_before"), h.get("load_after")
    others = h.get("others_cpu_pct")
    busy_before = bool(before) and before[0] >= BUSY_LOAD_PER_CPU * cores
    busy_during = others is not None and others >= BUSY_OTHERS_PCT
    if not (busy_before or busy_during):
        return []
    parts = []
    if before:
        parts.append(f"load average {before[0]:g} before the run"
                     + (f" and {after[0]:g} after it" if after else "") + f" on {cores} CPUs")
    if others is not None:
        parts.append(f"other processes used {others:g} % of all CPU time while it measured")
    return [Advice("busy", "The machine was busy: " + "; ".join(parts) + ". Other work "
                   "shares caches, memory bandwidth and the kernel with the benchmark CPU, "
                   "and standard programs (sysbench, stress-ng) measure less.",
                   "Stop other work (builds, tests, other benchmarks) and run again; "
                   "`uptime` should show a load well below the CPU count before you start.")]


def same_cpu(f: Facts) -> list[Advice]:
    others = [h for h in f.host.get("concurrent_harnesses") or [] if h.get("same_cpu")]
    if f.board or not others:
        return []
    cpu = f.session.rt.get("cpu")
    pids = ", ".join(str(h["pid"]) for h in others)
    return [Advice("same_cpu",
                   f"Another rtbench run measured on CPU {cpu} at the same time (harness pid "
                   f"{pids}): each run's samples include the other's work.",
                   "Measure one run per CPU at a time (`--cpu N` picks another CPU) and run "
                   "this one again alone.")]


def budget_cut(f: Facts) -> list[Advice]:
    cut = [m for m in f.records if m.raw.get("budget_exhausted")]
    if not cut:
        return []
    cfg = f.session.config
    fewest = min(cut, key=lambda m: m.n or 0)
    return [Advice("budget",
                   f"{len(cut)} metric(s) stopped at the time budget ({cfg.get('budget_ms', '?')}"
                   f" ms) before {cfg.get('samples', 'the asked')} samples: "
                   f"{_ids([_profiled(f, m) for m in cut])} (the fewest: {fewest.n} samples, "
                   f"`{fewest.id}`).",
                   "Raise `--budget-ms` or lower `--samples` so they finish; until then their "
                   "tails and maxima rest on fewer samples. For a worst case to qualify a "
                   "kernel by, soak the timer wake-up instead: `rtbench qualify --duration 1h` "
                   "(every CPU, hours if need be, the trace of the worst case; docs/qualify.md).",
                   tuple(m.id for m in cut))]


def few_samples(f: Facts) -> list[Advice]:
    need = TAIL_SAMPLES * 100
    few = [m for m in f.records if m.n is not None and m.n < need]
    if not few:
        return []
    return [Advice("few_samples",
                   f"{len(few)} metric(s) have fewer than {need:,} samples, so their p99 rests "
                   f"on fewer than {TAIL_SAMPLES} samples above it: "
                   f"{_ids([f'{_profiled(f, m)} (n = {m.n})' for m in few])}.",
                   f"Read those p99s as indicative; `--samples {need * 10}` (the default) with "
                   "a budget that lets them finish gives each p99 a hundred samples above it.",
                   tuple(m.id for m in few))]


def at_resolution(f: Facts) -> list[Advice]:
    rows = resolution_rows(f)
    if not rows:
        return []
    step = f.session.ticks_ns(f.resolution)
    step_text = f"{step:.3g} ns" if step is not None else f"{f.resolution:g} ticks"
    return [Advice("resolution",
                   f"{len(rows)} row(s) have a median within {RESOLUTION_STEPS} steps of the "
                   f"counter (one step: {step_text}, its resolution or the spread of one read, "
                   f"whichever is larger): {_ids(rows)}. Their figures are counter "
                   "steps, not the operation's time, and the sheet draws no histogram for "
                   "them.",
                   f"Read them as “below about {RESOLUTION_STEPS} steps”; a finer counter, or "
                   "a sample that times a batch of operations, would resolve them.",
                   tuple(rows))]


def resolution_rows(f: Facts) -> list[str]:
    """Time rows whose median is within RESOLUTION_STEPS counter steps
    (method.null is meant to be 0)."""
    if f.resolution <= 0:
        return []
    return list(dict.fromkeys(
        m.id for m in f.records if m.is_time and m.id != "method.null" and m.has("p50")
        and abs(float(m.raw["p50"])) <= RESOLUTION_STEPS * f.resolution))


def implausible(f: Facts) -> list[Advice]:
    out = []
    for m in f.records:
        v = m.value("p50")
        if v is None or not (m.is_time or m.is_count):
            continue
        floor, unit = ((SWITCH_FLOOR_NS, "ns") if m.is_time
                       else (SWITCH_FLOOR_INSTRUCTIONS, "instructions"))
        if _SWITCH.search(m.id) and v < floor:
            out.append(Advice(
                "implausible",
                f"`{_profiled(f, m)}`: a context switch of {v:.3g} {unit} at the median is "
                f"implausible (no kernel switches tasks in under about {floor:g} {unit}): "
                "the sample did not contain the switch, or the overhead subtracted from it "
                "is larger than in the timed path.",
                f"Do not quote it; check its note and run it alone (`rtbench run --only "
                f"{m.id}`).", (m.id,)))
        elif m.is_time and m.id != "method.null" and f.resolution and \
                float(m.raw["p50"]) < -f.resolution:
            out.append(Advice(
                "implausible",
                f"`{_profiled(f, m)}`: a median below zero ({v:.3g} ns) means more overhead "
                "was subtracted than the operation costs.",
                f"Do not quote it; run it alone (`rtbench run --only {m.id}`) and check the "
                "counter's overhead in the Methodology.", (m.id,)))
    return out


def failures(f: Facts) -> list[Advice]:
    failed = [r for r in f.run.metrics if r.get("status") == "failed"]
    if not failed:
        return []
    first = failed[0]
    return [Advice("failed",
                   f"{len(failed)} metric(s) failed: {_ids([r['id'] for r in failed])} "
                   f"(`{first['id']}`: {first.get('reason') or 'no reason given'}).",
                   "Each reason is in its section; run one alone with `rtbench run --only ID` "
                   "(a timeout: raise `--timeout`).", tuple(r["id"] for r in failed))]


def method_check(f: Facts) -> list[Advice]:
    bad = [c for c in self_checks(f) if c.passed is False]
    return [Advice("method",
                   f"The method's self-check failed: {c.name} {c.text}.",
                   "The counter or its calibration was disturbed (the machine was busy "
                   "during start-up, or the counter is not constant-rate); run again on an "
                   "idle machine before trusting any figure.", (c.id,)) for c in bad]


CHECKS = (not_realtime, virtual_machine, busy_machine, same_cpu, method_check, failures,
          budget_cut, few_samples, at_resolution, implausible)


def check(run: Run) -> list[Advice]:
    """Every check's advice for this run, in CHECKS order."""
    f = Facts(run)
    if f.imported:
        return []
    return [a for c in CHECKS for a in c(f)]


# ---- the method's self-check (the first page shows it as pass/fail) ----

BUSYWAIT_TOLERANCE = 0.05  # the end-to-end test's ±5 %


@dataclass(frozen=True)
class SelfCheck:
    id: str
    name: str
    passed: bool | None  # None: not measured
    text: str


def self_checks(f: Facts) -> list[SelfCheck]:
    """method.null must be 0 within one counter step; method.busywait its
    known length within 5 % (exact on an instruction-counting target)."""
    by_id = {}
    for m in f.records:
        by_id.setdefault(m.id, m)
    out = []
    step = max(f.resolution, 1.0)
    null = by_id.get("method.null")
    if null is None or not null.has("p50"):
        out.append(SelfCheck("method.null", "null measurement", None, "not measured"))
    else:
        v = float(null.raw["p50"])
        shown = _fmt(null, "p50")
        out.append(SelfCheck("method.null", "null measurement", abs(v) <= step,
                             f"median {shown} (must be 0 within one counter step)"))
    busy = by_id.get("method.busywait")
    expected = busy.raw.get("expected") if busy else None
    if busy is None or not busy.has("p50") or not expected:
        out.append(SelfCheck("method.busywait", "busy-wait", None, "not measured"))
    else:
        err = (float(busy.raw["p50"]) - expected) / expected
        exp_text = (f"{expected:g} instructions" if busy.is_count
                    else f"{expected * 1e6 / busy.raw['tick_hz']:.4g} µs")
        out.append(SelfCheck("method.busywait", "busy-wait", abs(err) <= BUSYWAIT_TOLERANCE,
                             f"median {_fmt(busy, 'p50')} for {exp_text} ({err * 100:+.2f} %)"))
    return out


def _fmt(m: MetricRecord, stat: str) -> str:
    from rtbench.sheets.plots import fmt_value

    v = m.value(stat)
    return "—" if v is None else fmt_value(v, m.base_unit)
