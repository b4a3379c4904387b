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
from rtbench.store.host import cpu_list

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


def kernel_config() -> dict[str, str] | None:
    """The running kernel's build configuration (/proc/config.gz, else
    /boot/config-RELEASE): {"CONFIG_X": "y", ...}, a "# CONFIG_X is not
    set" line as "n"; None when neither is readable."""
    import gzip

    text = None
    try:
        with gzip.open("/proc/config.gz", "rt", encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        text = _read(f"/boot/config-{os.uname().release}")
    if text is None:
        return None
    out = {}
    for line in text.splitlines():
        m = re.match(r"^(CONFIG_\w+)=(.*)$", line) or re.match(r"^# (CONFIG_\w+) is not set", line)
        if m:
            out[m.group(1)] = m.group(2).strip('"') if m.lastindex == 2 else "n"
    return out


def preemption_model(config: dict[str, str] | None = None, cmdline: str | None = None,
                     uname_version: str | None = None, debugfs: str | None = None) -> dict:
    """The effective preemption model and how it was found: the build's
    model (CONFIG_PREEMPT_RT / _PREEMPT / _VOLUNTARY / _NONE), and for a
    PREEMPT_DYNAMIC kernel the boot's `preempt=` (else the build's default)
    or, when root can read it, debugfs's current mode (which a later
    write may have changed). {"model": "none", "how": "...", "dynamic": bool}."""
    version = uname_version if uname_version is not None else os.uname().version
    cfg = kernel_config() if config is None else config
    cmd = (_read("/proc/cmdline") or "") if cmdline is None else cmdline
    dbg = _read("/sys/kernel/debug/sched/preempt") if debugfs is None else debugfs
    built = None
    if cfg:
        for key, name in (("CONFIG_PREEMPT_RT", "PREEMPT_RT"), ("CONFIG_PREEMPT", "full"),
                          ("CONFIG_PREEMPT_LAZY", "lazy"), ("CONFIG_PREEMPT_VOLUNTARY", "voluntary"),
                          ("CONFIG_PREEMPT_NONE", "none")):
            if cfg.get(key) == "y":
                built = name
                break
    dynamic = (cfg or {}).get("CONFIG_PREEMPT_DYNAMIC") == "y" or "PREEMPT_DYNAMIC" in version
    if "PREEMPT_RT" in version:
        return {"model": "PREEMPT_RT", "how": "uname -v says PREEMPT_RT", "dynamic": False}
    m = re.search(r"\((\w+)\)", dbg or "")
    if dynamic and m:
        return {"model": m.group(1), "dynamic": True,
                "how": "the current mode in /sys/kernel/debug/sched/preempt"}
    arg = re.search(r"(?:^|\s)preempt=(\w+)", cmd)
    if dynamic and arg:
        return {"model": arg.group(1), "dynamic": True,
                "how": f"preempt={arg.group(1)} on the kernel command line"}
    if built:
        key = {"none": "NONE", "voluntary": "VOLUNTARY", "full": "", "lazy": "LAZY"}[built]
        how = (f"no preempt= on the kernel command line: the build's default, "
               f"CONFIG_PREEMPT{'_' + key if key else ''}=y" if dynamic
               else "the kernel's configuration")
        return {"model": built, "how": how, "dynamic": dynamic}
    if re.search(r"\bPREEMPT\b", version):
        return {"model": "full", "how": "uname -v says PREEMPT (no configuration readable)",
                "dynamic": dynamic}
    if not dynamic:
        return {"model": "none", "dynamic": False,
                "how": "uname -v names no preemption (no configuration readable)"}
    return {"model": "unknown", "dynamic": True,
            "how": "no kernel configuration readable (/proc/config.gz, /boot/config-*) and "
                   "the mode not readable (debugfs)"}


def timerlat(config: dict[str, str] | None = None) -> dict:
    """Whether the kernel has the timerlat tracer: tracefs's list of
    tracers where mounted, else the configuration. {"available": True /
    False / None (unknown), "why": "..."}."""
    for base in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"):
        tracers = _read(f"{base}/available_tracers")
        if tracers is not None:
            there = "timerlat" in tracers.split()
            return {"available": there, "why": f"{base}/available_tracers "
                    + ("lists timerlat" if there else f"lists only: {tracers}")}
    cfg = kernel_config() if config is None else config
    if cfg is None:
        return {"available": None, "why": "no tracefs mounted and no kernel configuration readable"}
    value = cfg.get("CONFIG_TIMERLAT_TRACER", "n")
    if value == "y":
        return {"available": True, "why": "CONFIG_TIMERLAT_TRACER=y"}
    return {"available": False, "why": "this kernel has no timerlat tracer "
            "(CONFIG_TIMERLAT_TRACER is not set)"}


def preemption(uname_version: str | None = None, **sources) -> str:
    """The kernel's preemption model in words, as precisely as can be
    found out (preemption_model: configuration, command line, debugfs;
    `sources` passes them in, as the tests do)."""
    version = uname_version if uname_version is not None else os.uname().version
    found = preemption_model(uname_version=version, **sources)
    if found["model"] == "PREEMPT_RT":
        model = "PREEMPT_RT"
    elif found["dynamic"]:
        model = f"PREEMPT_DYNAMIC, {found['model']} ({found['how']})"
    else:
        model = f"{found['model']} ({found['how']})"
    if _read("/sys/kernel/realtime") == "1":
        model += " (/sys/kernel/realtime = 1)"
    return model


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


def online_text() -> str:
    """The kernel's list of online CPUs ("0-3,6"), "" if unreadable."""
    return _read("/sys/devices/system/cpu/online") or ""


def governors() -> dict[str, str]:
    """Each CPU's cpufreq governor ("" when the CPU has no cpufreq: a VM): read only."""
    out = {}
    for p in sorted(Path("/sys/devices/system/cpu").glob("cpu[0-9]*")):
        out[p.name] = _read(str(p / "cpufreq" / "scaling_governor")) or ""
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


def cpu_probe(cpu: int) -> dict[str, int] | None:
    """What the machine did to one CPU so far: its steal time (/proc/stat,
    USER_HZ ticks the hypervisor ran something else on that vCPU) and the
    interrupts it took (/proc/interrupts, every line's count in its column:
    devices, the local timer, rescheduling and function-call IPIs...).
    Differences of two probes are a block's (rtbench.store.blocks)."""
    steal = None
    for line in (_read("/proc/stat") or "").splitlines():
        if line.startswith(f"cpu{cpu} "):
            fields = line.split()
            steal = int(fields[8]) if len(fields) > 8 else 0
            break
    if steal is None:
        return None
    irqs = 0
    lines = (_read("/proc/interrupts") or "").splitlines()
    if lines:
        cols = lines[0].split()
        col = cols.index(f"CPU{cpu}") + 1 if f"CPU{cpu}" in cols else None
        for line in lines[1:] if col else ():
            fields = line.split()
            if len(fields) > col and fields[col].isdigit():
                irqs += int(fields[col])
    return {"steal": steal, "irqs": irqs}


def own_cpu_seconds() -> float:
    """CPU time of this process and its waited-for children (the harness,
    the standard programs and peers once they are reaped)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def other_harnesses(exclude: set[int] | None = None, proc: Path = Path("/proc")) -> list[dict]:
    """Other rtbench harnesses measuring on this machine now: their pid and
    the CPUs their tasks are pinned to (a task allowed on one CPU only).

    Processes come and go while /proc is read (a harness ending, its
    threads exiting, a Ctrl-C that ends them all): one that vanishes half
    read is left out (its name unread) or listed with the tasks read before
    it went, never an error (`proc`: the folder to read, for the tests)."""
    from rtbench.targets import harness

    out = []
    own = exclude or set()
    for d in _entries(proc):
        if not d.name.isdigit() or int(d.name) in own \
                or _read(str(d / "comm")) != harness.EXE_NAME[:15]:
            continue
        if _ancestor(int(d.name), os.getpid(), proc):
            continue
        pinned = set()
        for task in _entries(d / "task"):
            m = re.search(r"^Cpus_allowed_list:\s*(\S+)", _read(str(task / "status")) or "",
                          re.MULTILINE)
            cpus = cpu_list(m.group(1)) if m else []
            if len(cpus) == 1:
                pinned.add(cpus[0])
        out.append({"pid": int(d.name), "pinned": sorted(pinned)})
    return out


def _entries(folder: Path) -> list[Path]:
    """The entries of a /proc folder, [] once its process has gone (the
    folder vanished, or its task list with it: ENOENT, ESRCH)."""
    try:
        with os.scandir(folder) as it:
            return [Path(e.path) for e in it]
    except (FileNotFoundError, ProcessLookupError, NotADirectoryError):
        return []


def _ancestor(pid: int, ancestor: int, proc: Path = Path("/proc")) -> bool:
    """Whether `ancestor` is `pid` or one of its parents (False for a
    process that has gone)."""
    for _ in range(64):
        if pid == ancestor:
            return True
        m = re.search(r"^PPid:\s*(\d+)", _read(str(proc / str(pid) / "status")) or "",
                      re.MULTILINE)
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
        "preemption_model": preemption_model(uname_version=u.version),
        "timerlat": timerlat(),
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
