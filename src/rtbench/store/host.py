"""The run's host record (`runs.host`, the `host` of results.json) read
back: what the targets and measure write into it (targets/sysinfo.py,
measure/tuning.py) in the words the sheets use, and the kernel's CPU-list
format some of its fields are in.
"""

from __future__ import annotations


def cpu_list(text: str | None) -> list[int]:
    """A kernel CPU list ("0-3,6") as numbers; [] for an empty one."""
    out: list[int] = []
    for part in (text or "").strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        try:
            out.extend(range(int(lo), int(hi or lo) + 1))
        except ValueError:
            return out
    return out


def throttling(host: dict) -> str:
    """RT throttling as it was while the run measured. The host facts read
    `rt_throttling` before the run; a run that lifted it says so."""
    before = host.get("rt_throttling", "unknown")
    if (host.get("tuning") or {}).get("rt_runtime") == "lifted":
        return f"off for the run (rtbench set sched_rt_runtime_us = -1 and put it back; before: {before})"
    return before


def irq_steering(host: dict) -> str:
    """What was done with the interrupts that could land on the benchmark CPU."""
    t = host.get("tuning")
    if not t:
        return "not recorded"
    if not t.get("done"):
        return f"left as they were ({t.get('why', 'unknown')})"
    moved, left = t.get("irqs_moved") or [], t.get("irqs_left") or []
    if not moved and not left:
        return "none could land on the benchmark CPU"
    text = f"{len(moved)} steered off the benchmark CPU for the run, put back after"
    if left:
        text += (f"; {len(left)} stayed (managed by the kernel or per-CPU): "
                 + ", ".join(left[:12]) + (" …" if len(left) > 12 else ""))
    return text
