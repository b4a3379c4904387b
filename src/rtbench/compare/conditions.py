"""Whether runs measured under the same conditions, said above a run
comparison (like pyperf's check of its runs' metadata): the target and
kernel, the unit, the host, the CPU, real-time scheduling, the sample
counts, and whether the host itself ran slower or faster (the canary).
Said, never corrected: the verdicts stand as measured.
"""

from __future__ import annotations

from rtbench.store import blocks as blocks_mod
from rtbench.store import kernel_profile
from rtbench.store.db import Run
from rtbench.store.records import Session


def warnings(runs: list[Run]) -> list[str]:
    """Like pyperf: say when the runs did not measure under the same conditions."""
    out = []
    targets = [f"{r.host.get('target', 'host')} ({r.host.get('os', '?')} "
               f"{r.host.get('kernel_version' if r.host.get('target') else 'kernel_release', '')})"
               for r in runs]
    units = [Session(r.session or {}).unit for r in runs if r.session]
    if len(set(targets)) > 1:
        out.append("different targets and kernels: " + ", ".join(
            f"run {r.id}: {t}" for r, t in zip(runs, targets)))
    if len(set(units)) > 1:
        out.append("different units (instructions on an emulator are not times): their figures "
                   "stand side by side, without a ratio or a verdict")
    for key, what in (("hostname", "hosts"), ("cpu_model", "CPU models"),
                      ("kernel_release", "kernels"), ("preemption", "preemption models")):
        values = [r.host.get(key, "?") for r in runs]
        if len(set(values)) > 1:
            out.append(f"different {what}: " + ", ".join(f"run {r.id}: {v}"
                                                         for r, v in zip(runs, values)))
    # rt-tests beside a run (`rtbench run --with-peers`): no harness session to compare;
    # their priority and sample count are in each record's source.command
    peers = [r for r in runs if r.origin == "peer"]
    out += [f"run {r.id}: rt-tests programs run beside run {r.linked_to} (--with-peers)"
            for r in peers]
    runs = [r for r in runs if r.origin != "peer"]
    rt = [Session(r.session or {}).rt.get("realtime") for r in runs]
    if len(set(rt)) > 1:  # an import whose output does not say: unknown, not "no"
        out.append("not every run had real-time scheduling: " + ", ".join(
            f"run {r.id}: {YES_NO.get(v, 'unknown')}" for r, v in zip(runs, rt)))
    configs = [_kernel_config(r) for r in runs]
    if len(set(configs)) > 1 and len(set(targets)) == 1:  # else said above  # the engineer's own settings on one side: not one kernel build
        out.append("different kernel configurations: " + ", ".join(
            f"run {r.id}: {c}" for r, c in zip(runs, configs)))
    out += _host_speed_warnings(runs)
    cfg = [_samples(r) for r in runs]
    if len(set(cfg)) > 1:
        out.append("different sample counts: " + ", ".join(
            f"run {r.id}: {v}" for r, v in zip(runs, cfg)))
    return out


YES_NO = {True: "yes", False: "no"}


def _kernel_config(run: Run) -> str:
    """A board image's profile and the engineer's settings on top of it."""
    facts = Session(run.session or {}).target
    said = f"{kernel_profile.name(facts) or 'no'} profile"
    user = kernel_profile.differences(facts)
    if user:
        fragment = kernel_profile.config(facts).split(":")[0]
        said += f" + {fragment} ({'; '.join(user)})"
    return said


def _samples(run: Run) -> str:
    """A run's samples per metric: its configuration's, else (an import)
    what its records counted, else "not recorded"."""
    cfg = Session(run.session or {}).config.get("samples")
    if cfg is not None:
        return f"{cfg:,}"
    counts = sorted({m["n"] for m in run.metrics if isinstance(m.get("n"), int)})
    if not counts:
        return "not recorded"
    return f"{counts[0]:,}" if len(counts) == 1 else f"{counts[0]:,} to {counts[-1]:,}"


HOST_SPEED_PCT = 10.0  # canaries further apart than this: the host ran at another speed


def _canary_ns(run: Run) -> float | None:
    """The run's usual canary (blocks.canary_baseline) in ns, or None."""
    base = blocks_mod.canary_baseline(run.metrics)
    hz = next((m.get("tick_hz") for m in run.metrics if m.get("blocks") and m.get("tick_hz")),
              None)
    return base * 1e9 / hz if base and hz else None


def _host_speed_warnings(runs: list[Run]) -> list[str]:
    """The canary (the same fixed work timed around every block) of a later
    run against the first's: when the host itself ran slower or faster
    between the runs, every short operation moves with it, and the verdicts
    may be the host's rather than the kernel's. Said, not corrected."""
    first = _canary_ns(runs[0]) if runs else None
    out = []
    for r in runs[1:]:
        c = _canary_ns(r)
        if first and c and abs(c / first - 1) * 100 > HOST_SPEED_PCT:
            out.append(f"the host ran {'slower' if c > first else 'faster'} in run {r.id} than "
                       f"in run {runs[0].id}: the canary (a fixed pointer chase and null system "
                       f"call timed around every block) took {c / 1e3:.2f} µs against "
                       f"{first / 1e3:.2f} µs ({100 * (c / first - 1):+.0f} %); changes of "
                       "that size in short operations may be the host's, not the kernel's")
    return out
