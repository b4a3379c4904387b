"""Facts about the host for the data sheet header.

Every probe degrades to a readable "unknown (...)" instead of failing: a data
sheet with one unknown field beats no data sheet.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import re
import socket
import subprocess
from pathlib import Path

import rtbench

_PKG_DIR = Path(rtbench.__file__).resolve().parent


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def cpu_model() -> str:
    text = _read("/proc/cpuinfo") or ""
    for key in ("model name", "Model", "Hardware", "cpu model"):
        m = re.search(rf"^{key}\s*:\s*(.+)$", text, re.MULTILINE)
        if m:
            return m.group(1).strip()
    return platform.processor() or "unknown"


def cores_online() -> int:
    """CPUs online, from the kernel's list (e.g. "0-3,6")."""
    text = _read("/sys/devices/system/cpu/online")
    if not text:
        return os.cpu_count() or 0
    count = 0
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        count += int(hi or lo) - int(lo) + 1
    return count


def preemption(uname_version: str | None = None) -> str:
    """The kernel's preemption model, as precisely as can be found out."""
    version = uname_version if uname_version is not None else os.uname().version
    if "PREEMPT_RT" in version:
        model = "PREEMPT_RT"
    elif "PREEMPT_DYNAMIC" in version:
        model = "PREEMPT_DYNAMIC, " + _dynamic_mode()
    elif re.search(r"\bPREEMPT\b", version):
        model = "PREEMPT"
    else:
        model = "none"
    if _read("/sys/kernel/realtime") == "1":
        model += " (/sys/kernel/realtime = 1)"
    return model


def _dynamic_mode() -> str:
    # debugfs lists the modes with the active one in parentheses,
    # e.g. "none voluntary (full)"; it needs root and a mounted debugfs.
    text = _read("/sys/kernel/debug/sched/preempt")
    m = re.search(r"\((\w+)\)", text or "")
    if m:
        return f"mode {m.group(1)}"
    return "mode unknown (debugfs not readable)"


def git_revision() -> str:
    """The revision of the source tree rtbench runs from, if it is a checkout.

    Only when the package sits in the repository's own src/ (an installed
    copy inside some other git work tree must not report that tree).
    """
    repo = _PKG_DIR.parents[1]
    try:
        top = _git(repo, "rev-parse", "--show-toplevel")
        if Path(top).resolve() != repo.resolve():
            return "unknown"
        rev = _git(repo, "rev-parse", "--short=12", "HEAD")
        dirty = _git(repo, "status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return rev + ("-dirty" if dirty else "")


def _git(cwd: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                         timeout=10, check=True, stdin=subprocess.DEVNULL)
    return out.stdout.strip()


def rt_throttling() -> str:
    """RT throttling: SCHED_FIFO tasks on a CPU may use only runtime/period of
    it; past that they are stopped for the rest of the period, which would show
    as a worst case of tens of ms. Said in the sheet so nobody mistakes it."""
    runtime = _read("/proc/sys/kernel/sched_rt_runtime_us")
    period = _read("/proc/sys/kernel/sched_rt_period_us")
    if runtime is None or period is None:
        return "unknown"
    if runtime.strip() == "-1":
        return "off (sched_rt_runtime_us = -1)"
    return f"{runtime.strip()} µs of every {period.strip()} µs (sched_rt_runtime_us / sched_rt_period_us)"


def caches(cpu: int | None = None) -> list[dict]:
    """The caches of one CPU (default: the last online, the benchmark CPU)
    from sysfs: [{"level": 1, "type": "Data", "size": 32768}, ...]."""
    if cpu is None:
        cpu = max(cores_online() - 1, 0)
    out = []
    for d in sorted(Path(f"/sys/devices/system/cpu/cpu{cpu}/cache").glob("index*")):
        level, kind, size = (_read(str(d / f)) for f in ("level", "type", "size"))
        if not (level and kind and size):
            continue
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(size[-1:].upper(), 1)
        try:
            n = int(size.rstrip("KMGkmg")) * mult
        except ValueError:
            continue
        out.append({"level": int(level), "type": kind, "size": n})
    return out


def collect() -> dict:
    u = os.uname()
    return {
        "cpu_model": cpu_model(),
        "cores_online": cores_online(),
        "os": u.sysname,
        "kernel_release": u.release,
        "kernel_version": u.version,
        "machine": u.machine,
        "preemption": preemption(u.version),
        "clocksource": _read("/sys/devices/system/clocksource/clocksource0/current_clocksource")
        or "unknown",
        "rt_throttling": rt_throttling(),
        "caches": caches(),
        "hostname": socket.gethostname(),
        "python": platform.python_version(),
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "rtbench_version": rtbench.__version__,
        "git_revision": git_revision(),
    }
