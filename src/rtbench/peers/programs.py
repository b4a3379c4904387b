"""Standard benchmark programs `rtbench run` runs beside its own metrics.

The TI RT-Linux guide's System part quotes figures of standard programs
(STREAM, Dhrystone, Whetstone, Linpack) and rt-tests' hackbench is the usual
scheduler-throughput figure. rtbench does not re-implement them: a
catalogue entry with `measured_by = "external"` (data/catalog/97-*.toml) is
answered by the program named here when it is installed, run bounded after
the harness finished, its output parsed into a record by the contract of
docs/records.md ("Records from other sources": `"origin": "external"`,
`source.tool/version/command/label`, `stats_given`). A program that is not
installed gives an `unsupported` record naming its package; a benchmark no
Debian or PyPI package provides gives an `unsupported` record saying so.
Nothing is ever invented: a figure the output lacks makes the record
`failed` with what was missing.

Every program runs pinned to the benchmark CPU (the CPU of rtbench's own
metrics) at normal priority (SCHED_OTHER), in its own session so that it
and every process it forked are ended on a timeout or Ctrl-C (SIGTERM, then
SIGKILL), and watched by rtbench.process.lifetime's guard, which ends them and
removes their scratch directory if rtbench itself is killed.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Callable, Iterable

from rtbench.process import lifetime
from rtbench.store import contract
from rtbench.store.catalog import Catalog

TICK_HZ = 1_000_000_000  # times are given in ns (ticks at 1 GHz)
GRACE_S = 2.0  # a stopped program's time to clean up after SIGTERM, before SIGKILL


@dataclass
class Figure:
    """One figure an output gave: statistics in `unit`, as printed."""

    stats: dict[str, float]
    unit: str
    label: str
    n: int | None = None
    note: str = ""
    extra: dict = field(default_factory=dict)  # more record keys (e.g. ops)


Parser = Callable[[str], dict[str, Figure]]


@dataclass(frozen=True)
class Program:
    tool: str  # source.tool
    exe: str | None  # executable looked up on PATH; None: exists as no package
    package: str  # where it comes from, or (exe None) why it is not run
    ids: tuple[str, ...]  # catalogue ids its output answers
    argv: Callable[[bool], list[str]] = lambda quick: []  # quick -> the command
    parse: Parser = lambda text: {}
    timeout: float = 15.0
    version: tuple[tuple[str, ...], str] | None = None  # (args, regex with one group)
    # what the kernel must have for it (None: nothing), checked first: why not, or None
    kernel: Callable[[], str | None] | None = None
    cpu_option: str | None = None  # the option that names the benchmark CPU to it

    def unavailable(self) -> str | None:
        """Why it cannot run here, or None."""
        if self.exe is None:
            return self.package
        if self.kernel is not None and (why := self.kernel()) is not None:
            return why
        if shutil.which(self.exe) is None:
            return f"{self.exe} not installed ({self.package})"
        return None


# ---- parsers (each from a real output; tests/data/external/) ----

_NUM = r"([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)"


def _search(pattern: str, text: str) -> re.Match | None:
    return re.search(pattern, text, re.MULTILINE)


def parse_stream(text: str) -> dict[str, Figure]:
    """McCalpin's STREAM: `Copy:  12345.6  0.0131  0.0129  0.0135` per kernel
    (Best Rate MB/s, Avg time, Min time, Max time). The best rate is the
    maximum over the iterations of the rate: `max`, in MB/s (10^6 bytes)."""
    out = {}
    for kernel in ("Copy", "Scale", "Add", "Triad"):
        m = _search(rf"^{kernel}:\s+{_NUM}\s+{_NUM}\s+{_NUM}\s+{_NUM}\s*$", text)
        if m:
            out[f"sys.prog.stream.{kernel.lower()}"] = Figure(
                {"max": float(m.group(1))}, "MB/s", f"{kernel} Best Rate MB/s",
                note=f"STREAM times: avg {m.group(2)} s, min {m.group(3)} s, "
                     f"max {m.group(4)} s")
    return out


def parse_stress_ng_stream(text: str) -> dict[str, Figure]:
    """stress-ng --stream --metrics-brief: `stream 7775.11 memory read rate (MB
    per sec)` and the write rate; the rate over the whole run (`mean`)."""
    out = {}
    for what in ("read", "write"):
        m = _search(rf"stream\s+{_NUM} memory {what} rate \(MB per sec\)", text)
        if m:
            out[f"sys.prog.stressng.stream.{what}"] = Figure(
                {"mean": float(m.group(1))}, "MB/s", f"memory {what} rate (MB per sec)",
                note="stress-ng's stream stressor (loosely based on STREAM; its four kernels "
                     "together, not STREAM's per-kernel rates)")
    return out


def parse_sysbench_cpu(text: str) -> dict[str, Figure]:
    """sysbench cpu: `events per second:  2429.85` (prime search up to the
    limit, one event per search) and `total number of events: 4862`."""
    m = _search(rf"events per second:\s+{_NUM}", text)
    if not m:
        return {}
    n = _search(r"total number of events:\s+([0-9]+)", text)
    limit = _search(r"Prime numbers limit:\s+([0-9]+)", text)
    return {"sys.prog.sysbench.cpu": Figure(
        {"mean": float(m.group(1))}, "events/s", "CPU speed: events per second",
        n=int(n.group(1)) if n else None,
        note=f"prime numbers limit {limit.group(1)}" if limit else "")}


def _hackbench(metric_id: str) -> Parser:
    def parse(text: str) -> dict[str, Figure]:
        """hackbench: `Running in process mode with G groups using 2F file
        descriptors each`, `Each sender will pass L messages`, `Time: 0.253`.
        Every sender writes L messages to each of the F receivers of its
        group: G·F·F·L messages per run; the record gives the run's time
        (one sample) and `ops` = messages, so readers show time per message."""
        t = _search(rf"^Time:\s+{_NUM}\s*$", text)
        g = _search(r"with ([0-9]+) groups using ([0-9]+) file descriptors", text)
        loops = _search(r"will pass ([0-9]+) messages", text)
        if not (t and g and loops):
            return {}
        fds = int(g.group(2)) // 2
        messages = int(g.group(1)) * fds * fds * int(loops.group(1))
        return {metric_id: Figure(
            {"mean": float(t.group(1)) * 1e9}, "ticks", "Time", n=1,
            note=f"one run of {messages} messages; per message = Time / messages",
            extra={"ops": messages})}
    return parse


def _timerlat_kernel() -> str | None:
    """The timerlat tracer is the kernel's: without it there is nothing to
    run (and nothing is faked in its place)."""
    from rtbench.targets import sysinfo

    found = sysinfo.timerlat()
    if found["available"] is False:
        return found["why"]
    if found["available"] is None:
        return f"cannot tell whether the kernel has the timerlat tracer ({found['why']})"
    return None


def parse_timerlat_hist(text: str) -> dict[str, Figure]:
    """`rtla timerlat hist -c CPU`: a histogram of 1 µs rows (`Index IRQ-001
    Thr-001`), then `over:`, `count:`, `min:`, `avg:`, `max:` per column
    (Documentation/tools/rtla/rtla-timerlat-hist.rst). The first IRQ and
    Thr columns are the benchmark CPU's: the timer interrupt's latency at
    its handler, and at the timerlat thread it wakes."""
    lines = [ln.split() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    head = next((ln for ln in lines if ln and ln[0] == "Index"), None)
    if head is None:
        return {}
    out = {}
    for prefix, mid, what in (("IRQ-", "sys.timer.timerlat.irq", "timer IRQ handler"),
                              ("Thr-", "sys.timer.timerlat.thread", "timerlat thread")):
        col = next((i for i, name in enumerate(head) if name.startswith(prefix)), None)
        if col is None:
            continue
        rows, summary = [], {}
        for ln in lines:
            if len(ln) <= col:
                continue
            if ln[0].isdigit():
                rows.append((int(ln[0]), int(ln[col])))
            elif ln[0].endswith(":") and ln[col].isdigit():
                summary[ln[0][:-1]] = int(ln[col])
        if not all(k in summary for k in ("count", "min", "avg", "max")) or not summary["count"]:
            continue
        n = summary["count"]
        stats = {"min": summary["min"] * 1000.0, "mean": summary["avg"] * 1000.0,
                 "max": summary["max"] * 1000.0}
        cum, beyond = 0, []
        for key, q in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999)):
            hit = None
            cum = 0
            for us, count in rows:
                cum += count
                if cum >= q * n:
                    hit = us
                    break
            if hit is None:
                beyond.append(key)
            else:
                stats[key] = hit * 1000.0
        note = f"timerlat tracer, {what}; percentiles from rtla's 1 µs histogram"
        if beyond:
            note += f" ({', '.join(beyond)} beyond its range: not given)"
        hist = {"scheme": "linear", "offset": 0, "overflow": summary.get("over", 0),
                "buckets": [[us * 1000, (us + 1) * 1000, c] for us, c in rows if c]}
        out[mid] = Figure(stats, "ticks", f"{prefix}CPU", n=n, note=note, extra={"hist": hist})
    return out


# ---- the programs ----

def _hackbench_argv(pipe: bool) -> Callable[[bool], list[str]]:
    return lambda quick: ["hackbench", *(["-p"] if pipe else []), "-s", "100", "-g", "4",
                          "-f", "10", "-l", "200" if quick else "500"]


NO_PACKAGE = "no Debian or PyPI package; not run"

PROGRAMS: tuple[Program, ...] = (
    Program("stream", "stream",
            "McCalpin's STREAM has no Debian or PyPI package: build stream.c and put it "
            "on PATH as `stream` to have it run",
            ("sys.prog.stream.copy", "sys.prog.stream.scale", "sys.prog.stream.add",
             "sys.prog.stream.triad"),
            lambda quick: ["stream"], parse_stream, timeout=60.0),
    Program("stress-ng", "stress-ng", "Debian package stress-ng",
            ("sys.prog.stressng.stream.read", "sys.prog.stressng.stream.write"),
            # stress-ng needs ~5 s of run to print its rates
            lambda quick: ["stress-ng", "--stream", "1", "-t", "8", "--metrics-brief", "-v"],
            parse_stress_ng_stream, timeout=30.0,
            version=(("--version",), r"version ([0-9][^ ]*)")),
    Program("sysbench", "sysbench", "Debian package sysbench", ("sys.prog.sysbench.cpu",),
            lambda quick: ["sysbench", "cpu", "--threads=1", f"--time={1 if quick else 2}",
                           "run"],
            parse_sysbench_cpu, version=(("--version",), r"sysbench ([0-9][^ \n]*)")),
    Program("hackbench", "hackbench", "Debian package rt-tests", ("sys.prog.hackbench.socket",),
            _hackbench_argv(False), _hackbench("sys.prog.hackbench.socket"),
            version=(("--help",), r"hackbench V ([0-9][^ \n]*)")),
    Program("hackbench", "hackbench", "Debian package rt-tests", ("sys.prog.hackbench.pipe",),
            _hackbench_argv(True), _hackbench("sys.prog.hackbench.pipe"),
            version=(("--help",), r"hackbench V ([0-9][^ \n]*)")),
    Program("rtla timerlat", "rtla", "Debian package rtla",
            ("sys.timer.timerlat.irq", "sys.timer.timerlat.thread"),
            lambda quick: ["rtla", "timerlat", "hist", "-d", "5s" if quick else "20s",
                           "--no-aa"],
            parse_timerlat_hist, timeout=60.0, kernel=_timerlat_kernel, cpu_option="-c",
            version=(("--version",), r"rtla version ([0-9][^ \n]*)")),
    Program("dhrystone", None, f"Dhrystone: {NO_PACKAGE}", ("sys.prog.dhrystone",)),
    Program("whetstone", None, f"Whetstone: {NO_PACKAGE}", ("sys.prog.whetstone",)),
    Program("linpack", None, "Linpack: no standalone Debian or PyPI package (Debian's hpcc "
            "bundles HPL with MPI); not run", ("sys.prog.linpack",)),
    Program("coremark", None, f"CoreMark: {NO_PACKAGE}", ("sys.prog.coremark",)),
)


def support() -> dict[str, tuple[bool, str]]:
    """Each program metric id -> (its program is installed here, why not): the
    standard programs' part of what `rtbench list --coverage` reports."""
    out = {}
    for prog in PROGRAMS:
        why = prog.unavailable()
        out.update({mid: (why is None, why or "") for mid in prog.ids})
    return out


def program_ids(catalog: Catalog, ids: Iterable[str]) -> list[str]:
    """The ids among `ids` that a standard program answers (measured_by "external")."""
    return [i for i in ids if (m := catalog.get(i)) and m.measured_by == "external"]


def selected(ids: Iterable[str]) -> list[Program]:
    wanted = set(ids)
    return [p for p in PROGRAMS if wanted & set(p.ids)]


# ---- running ----

@dataclass
class Context:
    cpu: int | None  # the benchmark CPU (None: unpinned)
    quick: bool = False
    profile: str = "rt"


def run(ids: Iterable[str], ctx: Context, on_record: Callable[[dict], None]) -> None:
    """Run the programs answering `ids`, one record per id to `on_record`.
    KeyboardInterrupt: the running program (its whole session) is killed
    first, then the interrupt goes on; records already given stay given."""
    wanted = list(ids)
    for prog in selected(wanted):
        for rec in run_program(prog, ctx):
            if rec["id"] in wanted:
                on_record(_checked(prog, rec, ctx))


def _checked(prog: Program, rec: dict, ctx: Context) -> dict:
    """`rec`, or its metric failed where it breaks the record contract
    (rtbench.store.contract: a figure that reads as infinity, a count beyond
    any): what a program printed is stored only as a record may be."""
    why = contract.problem(rec)
    if why is None:
        return rec
    source = rec.get("source") or {}
    return _record(prog, rec["id"], ctx, "failed",
                   f"{prog.exe} printed a figure no record may hold: {why}",
                   source.get("command", ""), source.get("version"))


def run_program(prog: Program, ctx: Context) -> list[dict]:
    why = prog.unavailable()
    if why is not None:
        return [_record(prog, mid, ctx, status="unsupported", reason=why) for mid in prog.ids]
    argv = prog.argv(ctx.quick)
    if prog.cpu_option and ctx.cpu is not None:
        argv += [prog.cpu_option, str(ctx.cpu)]
    command = shlex.join(argv)
    version = _version(prog)
    try:
        code, text = execute(argv, ctx.cpu, prog.timeout)
    except subprocess.TimeoutExpired:
        return [_record(prog, mid, ctx, "failed", f"{prog.exe} did not finish in "
                        f"{prog.timeout:g} s (killed)", command, version) for mid in prog.ids]
    except OSError as exc:
        return [_record(prog, mid, ctx, "failed", f"{prog.exe}: {exc.strerror or exc}",
                        command, version) for mid in prog.ids]
    if code != 0:
        last = next((ln for ln in reversed(text.splitlines()) if ln.strip()), "")
        return [_record(prog, mid, ctx, "failed", f"{prog.exe} exited {code}: {last[:200]}",
                        command, version) for mid in prog.ids]
    figures = prog.parse(text)
    hint = re.search(r"[^\n:]*too short[^\n]*", text)  # stress-ng: too little CPU time
    out = []
    for mid in prog.ids:
        fig = figures.get(mid)
        if fig is None:
            why = f": {hint.group(0).strip()}" if hint else " (output not understood)"
            out.append(_record(prog, mid, ctx, "failed",
                               f"{prog.exe} printed no figure for {mid}{why}",
                               command, version))
        else:
            out.append(_record(prog, mid, ctx, "ok", "", command, version, fig))
    return out


def _record(prog: Program, mid: str, ctx: Context, status: str, reason: str,
            command: str = "", version: str | None = None, fig: Figure | None = None) -> dict:
    source: dict = {"tool": prog.tool}
    if version:
        source["version"] = version
    if command:
        source["command"] = command
    rec: dict = {"type": "metric", "id": mid, "status": status, "reason": reason,
                 "origin": "external", "profile": ctx.profile}
    if fig is not None:
        source["label"] = fig.label
        rec["unit"] = fig.unit
        if fig.unit == "ticks":
            rec["tick_hz"] = TICK_HZ
        rec.update(fig.stats)
        rec["stats_given"] = [k for k in ("min", "max", "mean", "stddev", "p50", "p90", "p99",
                                          "p999") if k in fig.stats]
        if fig.n is not None:
            rec["n"] = fig.n
        rec["note"] = fig.note
        rec.update(fig.extra)
        rec["placement"] = "pinned" if ctx.cpu is not None else "unpinned"
        if ctx.cpu is not None:
            rec["cpu"] = ctx.cpu
    rec["source"] = source
    return rec


def line(rec: dict) -> str:
    """The console line of a record (rich markup), like the harness metrics'."""
    from rich.markup import escape

    mid = escape(rec["id"])
    if rec["status"] != "ok":
        colour = "yellow" if rec["status"] == "unsupported" else "red"
        return f"  {mid:<32} [{colour}]{rec['status']:<11}[/{colour}] {escape(rec['reason'])}"
    parts = []
    for stat in rec.get("stats_given", []):
        value = rec[stat]
        if rec.get("unit") == "ticks":
            per = value / (rec.get("ops") or 1) / 1e3
            parts.append(f"{stat} {per:.4g} µs" + (" per op" if rec.get("ops", 1) > 1 else ""))
        else:
            parts.append(f"{stat} {value:,.2f} {escape(rec.get('unit', ''))}")
    return (f"  {mid:<32} [green]ok[/green]          {', '.join(parts)}  "
            f"[dim]({escape(rec['source'].get('tool', ''))})[/dim]")


def _version(prog: Program) -> str | None:
    if prog.version is None or prog.exe is None:
        return None
    args, pattern = prog.version
    try:
        _code, text = execute([prog.exe, *args], None, 5.0)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(pattern, text)
    return m.group(1) if m else None


def execute(argv: list[str], cpu: int | None, timeout: float) -> tuple[int, str]:
    """Run argv (stdout and stderr together) in its own session, pinned to
    `cpu`, in a scratch directory; kill the session on timeout or Ctrl-C."""
    def pin() -> None:
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})

    # "_" as a shell sets it, the program's path: svsematest takes its SysV IPC key
    # from ftok(getenv("_")), and ours may be a path relative to another directory
    env = {**os.environ, "_": shutil.which(argv[0]) or argv[0]}
    with lifetime.scratch_dir("rtbench-prog-") as scratch:
        proc = lifetime.popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, errors="replace",
                              cwd=scratch, env=env, preexec_fn=pin)
        try:
            out, _ = proc.communicate(timeout=timeout)
        except BaseException:  # timeout, KeyboardInterrupt: nothing of it may outlive us
            _stop(proc)
            raise
        _stop(proc)  # anything it left running in its session
        return proc.returncode, out


def _stop(proc: subprocess.Popen) -> None:
    """End the program's session: SIGTERM first (rt-tests and stress-ng
    remove their IPC objects and files on it), SIGKILL after GRACE_S."""
    lifetime.end(proc, GRACE_S)
    with contextlib.suppress(Exception):
        proc.communicate(timeout=5)
