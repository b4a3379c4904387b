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
import time
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


def hypervisor() -> str:
    """What says this machine is a virtual machine, or "" if nothing does:
    the CPU's hypervisor flag (/proc/cpuinfo: CPUID says a hypervisor runs
    it), /sys/hypervisor/type (Xen), a paravirtual clocksource, DMI names."""
    hints = []
    kind = _read("/sys/hypervisor/type")
    if kind:
        hints.append(f"{kind} (/sys/hypervisor/type)")
    if re.search(r"^flags\s*:.*\bhypervisor\b", _read("/proc/cpuinfo") or "", re.MULTILINE):
        hints.append("hypervisor flag in /proc/cpuinfo")
    clocks = (_read("/sys/devices/system/clocksource/clocksource0/available_clocksource")
              or "").split()
    for clock, name in (("kvm-clock", "KVM"), ("xen", "Xen"), ("hyperv_clocksource_tsc_page",
                                                              "Hyper-V")):
        if clock in clocks:
            hints.append(f"{name} ({clock} clocksource)")
    product = " ".join(x for x in (_read("/sys/class/dmi/id/sys_vendor"),
                                   _read("/sys/class/dmi/id/product_name")) if x)
    if re.search(r"KVM|QEMU|VMware|VirtualBox|Virtual Machine|Xen|Bochs|Amazon EC2",
                 product):
        hints.append(f"DMI: {product}")
    return "; ".join(hints)


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


def isolated_cpus() -> dict:
    """CPUs kept from the scheduler's general use: isolcpus= (isolated) and
    tickless (nohz_full); None for a list the kernel does not offer."""
    return {"isolated": _read("/sys/devices/system/cpu/isolated"),
            "nohz_full": _read("/sys/devices/system/cpu/nohz_full")}


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages."""
    try:
        return [float(x) for x in (_read("/proc/loadavg") or "").split()[:3]]
    except ValueError:
        return None


def cpu_jiffies() -> dict[str, int] | None:
    """The machine's CPU time so far (/proc/stat, all CPUs, in USER_HZ
    ticks): busy (user, nice, system, irq, softirq), steal (taken by the
    hypervisor) and total."""
    line = (_read("/proc/stat") or "").split("\n", 1)[0].split()
    if len(line) < 9 or line[0] != "cpu":
        return None
    v = [int(x) for x in line[1:9]]
    user, nice, system, idle, iowait, irq, softirq, steal = v
    return {"busy": user + nice + system + irq + softirq, "steal": steal, "total": sum(v)}


def own_cpu_seconds() -> float:
    """CPU time of this process and its waited-for children (the harness,
    the standard programs and peers once they are reaped)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def other_harnesses(exclude: set[int] | None = None) -> list[dict]:
    """Other rtbench harnesses measuring on this machine now: their pid and
    the CPUs their tasks are pinned to (a task allowed on one CPU only)."""
    from rtbench import harness

    out = []
    own = exclude or set()
    for d in Path("/proc").glob("[0-9]*"):
        if _read(str(d / "comm")) != harness.EXE_NAME[:15] or int(d.name) in own:
            continue
        if _ancestor(int(d.name), os.getpid()):
            continue
        pinned = set()
        for task in d.glob("task/*"):
            m = re.search(r"^Cpus_allowed_list:\s*(\S+)", _read(str(task / "status")) or "",
                          re.MULTILINE)
            cpus = cpu_list(m.group(1)) if m else []
            if len(cpus) == 1:
                pinned.add(cpus[0])
        out.append({"pid": int(d.name), "pinned": sorted(pinned)})
    return out


def _ancestor(pid: int, ancestor: int) -> bool:
    """Whether `ancestor` is `pid` or one of its parents."""
    for _ in range(64):
        if pid == ancestor:
            return True
        m = re.search(r"^PPid:\s*(\d+)", _read(f"/proc/{pid}/status") or "", re.MULTILINE)
        if not m or int(m.group(1)) <= 1:
            return False
        pid = int(m.group(1))
    return False


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
        "hypervisor": hypervisor(),
        "isolated_cpus": isolated_cpus(),
        "load_before": load_average(),
        "hostname": socket.gethostname(),
        "python": platform.python_version(),
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "rtbench_version": rtbench.__version__,
        "git_revision": git_revision(),
    }


class RunWatch:
    """What else the machine did while a run measured: the load average
    before and after, the share of all CPU time other processes used (the
    machine's busy time less this process and its reaped children), the
    share the hypervisor stole, and other rtbench harnesses seen measuring
    (sampled at most once a second through `sample`)."""

    def __init__(self, cpu: int | None = None) -> None:
        self.cpu = cpu
        self.t0 = time.monotonic()
        self.j0 = cpu_jiffies()
        self.own0 = own_cpu_seconds()
        self.seen: dict[int, dict] = {}
        self.last = 0.0
        self.sample(force=True)

    def sample(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < 1.0:
            return
        self.last = now
        for h in other_harnesses():
            seen = self.seen.setdefault(h["pid"], {"pid": h["pid"], "pinned": []})
            seen["pinned"] = sorted(set(seen["pinned"]) | set(h["pinned"]))

    def finish(self) -> dict:
        self.sample(force=True)
        out: dict = {"load_after": load_average(), "concurrent_harnesses": [
            {**h, "same_cpu": self.cpu in h["pinned"]} for h in self.seen.values()]}
        j1, wall = cpu_jiffies(), time.monotonic() - self.t0
        hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        cores = cores_online() or 1
        if self.j0 and j1 and wall > 0:
            busy = (j1["busy"] - self.j0["busy"]) / hz
            own = own_cpu_seconds() - self.own0
            out["others_cpu_pct"] = round(max(0.0, busy - own) / (wall * cores) * 100, 1)
            out["steal_pct"] = round((j1["steal"] - self.j0["steal"]) / hz / (wall * cores)
                                     * 100, 1)
        return out
