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


# ---- what a run measured, in a listing's words (rtbench runs, history) ----

def target_name(host: dict, measured_here: bool = True) -> str:
    """Where the run measured: "host" (this machine's kernel), a board
    target ("mps2-an385"), a lab's place ("labgrid:NAME"), a board's serial
    log; "—" for an import that does not say."""
    if host.get("target"):
        return str(host["target"])
    return "host" if measured_here else "—"


def kernel_name(host: dict) -> str:
    """The kernel measured with its version: "Linux 6.1.0-rt (PREEMPT_RT)",
    "FreeRTOS V11.3.0", "Zephyr 3.7.0"; "—" when the source does not say."""
    os_name = str(host.get("os") or "")
    version = str(host.get("kernel_version") if host.get("target_kind")
                  else host.get("kernel_release") or host.get("kernel_version") or "")
    if not host.get("target_kind") and not os_name and version:
        os_name = "Linux"
    text = " ".join(x for x in (os_name, version) if x) or "—"
    model = (host.get("preemption_model") or {}).get("model") \
        or str(host.get("preemption") or "").split(",")[0].split(" (")[0]
    if model and model != "unknown" and not host.get("target_kind"):
        text += f" ({model})" if model.startswith("PREEMPT") else f" (preempt={model})"
    return text


def board_name(host: dict) -> str:
    """What it ran on: a board's name (without the emulator, which the
    target says), else the CPU model; "—" when unknown."""
    board = str(host.get("board") or "")
    if board:
        return board.split(", emulated by")[0]
    return str(host.get("cpu_model") or "—")
