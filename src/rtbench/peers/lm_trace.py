"""latency_measure's windows in an instruction trace: what Zephyr's own
benchmark really runs between two of its timestamps, instruction by
instruction, and in which function (the window audit's method,
rtbench.targets.audit, applied to an image rtbench did not write), and the
check of a row's stated causes (lm_causes.py) against the two traces.

latency_measure has no stamp table: every timestamp ends in the timing
API's counter read (arch_timing_counter_get on this board, through
z_impl_timing_timestamp_get or timing_counter_get), which reads the counter
a fixed number of instructions after its entry. So a window runs from one
entry of that function to the next (the instructions between the two
counter reads, shifted alike) and splits in two:

  stamp  latency_measure's own timestamp calls: the first call until it
         returns to the benchmark's code (from a user thread, the system
         call's return path), and the second from the benchmark's call
         site to the entry (from a user thread, the system call's entry)
  body   everything else, by function: the benchmark's code between the
         calls and the kernel's work it times

A window is named by its two call sites, each the benchmark's source line
of the `timing_timestamp_get()` call (read from the image's line tables by
addr2line, which follows inlining) and the mode of the thread that made it
("k" kernel, "u" user: a user thread's call is a supervisor call), and by
the test main.c's test_thread was running (and which call of it).
"""

from __future__ import annotations

import bisect
import fnmatch
import os
import re
import subprocess
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from rtbench.peers.latency_measure import run_until
from rtbench.process import lifetime
from rtbench.peers.lm_causes import AGREE, LM_CODE
from rtbench.targets import audit
from rtbench.targets.trace import open_fifo, release_reader

# The counter read every timestamp of latency_measure reaches (its
# timing_timestamp_get() through z_impl_timing_timestamp_get, its heap rows
# through timing_counter_get()): Zephyr's timing API takes a board's, else a
# SoC's, else the architecture's (subsys/timing/timing.c).
STAMPS = ("board_timing_counter_get", "soc_timing_counter_get", "arch_timing_counter_get")
_STAMP_NAMES = ("timing_timestamp_get", "timing_counter_get")  # the stamp's own functions
_TEXT = re.compile(r"^ (\.text\S*)\s*(?:\n\s+)?0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+(\S.*)$",
                   re.MULTILINE)
_APP = re.compile(r"(^|/)libapp\.a\(")  # the application's objects: latency_measure's src/*.c
MAIN = "test_thread"  # main.c's thread that calls each test in turn


@dataclass(frozen=True)
class Site:
    """Where latency_measure called timing_timestamp_get()."""
    file: str   # its source file ("condvar.c")
    line: int
    mode: str   # "k": a kernel thread called it; "u": a user thread (a system call)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}{'' if self.mode == 'k' else ' (user)'}"


@dataclass
class Window:
    test: tuple[str, int]      # the test function main.c's test_thread called, and which call of it
    start: int                 # the call sites' addresses (named by Program.site)
    end: int
    total: int                 # instructions from one counter read to the next
    stamp: int                 # of which latency_measure's timestamp calls
    body: Counter = field(default_factory=Counter)  # the rest, by function
    pcs: list[int] | None = field(default=None, repr=False)  # every instruction (keep=True)


class Symbols:
    """An image's functions by address, for naming every instruction of a
    trace (an assembly routine without a size runs to the next symbol:
    z_arm_pendsv, z_arm_svc)."""

    def __init__(self, elf: Path):
        from elftools.elf.elffile import ELFFile  # pyelftools

        self.path = Path(elf)
        funcs: list[tuple[int, int, str]] = []
        with open(self.path, "rb") as f:
            ef = ELFFile(f)
            for sym in ef.get_section_by_name(".symtab").iter_symbols():
                if sym["st_info"]["type"] == "STT_FUNC":
                    start = sym["st_value"] & ~1
                    funcs.append((start, start + sym["st_size"], sym.name))
            self._segments = [(seg["p_vaddr"], seg.data()) for seg in ef.iter_segments()
                              if seg["p_type"] == "PT_LOAD" and seg["p_filesz"]]
        funcs.sort()
        self._funcs = [(a, b if b > a else (funcs[i + 1][0] if i + 1 < len(funcs) else a + 2), n)
                       for i, (a, b, n) in enumerate(funcs)]
        self._starts = [f[0] for f in self._funcs]
        self.entries = set(self._starts)
        self._names: dict[int, str] = {}

    def name(self, pc: int) -> str:
        got = self._names.get(pc)
        if got is None:
            i = bisect.bisect_right(self._starts, pc) - 1
            got = self._funcs[i][2] if i >= 0 and pc < self._funcs[i][1] else f"0x{pc:x}"
            self._names[pc] = got
        return got

    def address(self, name: str) -> int | None:
        return next((a for a, _, n in self._funcs if n == name), None)

    def renamed(self, funcs: Counter) -> Counter:
        """A window's functions as the audit names them (an address for a
        routine without a size), named here."""
        out: Counter = Counter()
        for name, n in funcs.items():
            out[self.name(int(name, 16)) if name.startswith("0x") else name] += n
        return out

    def halfword(self, pc: int) -> int:
        for base, data in self._segments:
            if base <= pc < base + len(data) - 1:
                return int.from_bytes(data[pc - base:pc - base + 2], "little")
        return 0


class Program(Symbols):
    """A latency_measure image: its functions, which of them are the
    benchmark's own code (by the link map), and its call sites' lines."""

    def __init__(self, elf: Path, link_map: Path | None = None):
        super().__init__(elf)
        entries = [a for a in map(self.address, STAMPS) if a is not None]
        if not entries:
            raise ValueError(f"{self.path}: no {STAMPS[-1]} (not an image with Zephyr's "
                             "timing functions)")
        self.stamp_entry = entries[0]
        text = Path(link_map or self.path.with_suffix(".map")).read_text(errors="replace")
        cut = max(text.find("Linker script and memory map"), 0)
        self._app = sorted((int(m[2], 16), int(m[2], 16) + int(m[3], 16))
                           for m in _TEXT.finditer(text, cut)
                           if int(m[3], 16) and _APP.search(m[4]))
        self._app_starts = [a for a, _ in self._app]
        self._is_app: dict[int, bool] = {}
        self._sites: dict[int, Site] = {}

    @property
    def code(self) -> frozenset:
        """The benchmark's own functions, by name."""
        return frozenset(n for a, _, n in self._funcs if self.is_app(a))

    def is_app(self, pc: int) -> bool:
        """The benchmark's own code, not its timestamp functions."""
        got = self._is_app.get(pc)
        if got is None:
            i = bisect.bisect_right(self._app_starts, pc) - 1
            got = self._is_app[pc] = (i >= 0 and pc < self._app[i][1]
                                      and not any(s in self.name(pc) for s in _STAMP_NAMES))
        return got

    def site(self, pc: int) -> Site:
        if pc not in self._sites:
            self.name_sites([pc])
        return self._sites[pc]

    def name_sites(self, pcs: Iterable[int]) -> None:
        """Name call sites by their source lines (addr2line -i, one call for all)."""
        todo = sorted({pc for pc in pcs if pc not in self._sites})
        if not todo:
            return
        out = subprocess.run(["arm-none-eabi-addr2line", "-a", "-i", "-e", str(self.path),
                              *(f"0x{pc:x}" for pc in todo)],
                             capture_output=True, text=True, check=True).stdout
        # -a: each address, then its inline chain (innermost first)
        chains = [c.splitlines()[1:] for c in re.split(r"^(?=0x[0-9a-f]+$)", out, flags=re.M)
                  if c.strip()]
        for pc, chain in zip(todo, chains):
            file, line = _caller(chain)
            mode = "u" if self.halfword(pc) & 0xFF00 == 0xDF00 else "k"  # SVC: a system call
            self._sites[pc] = Site(file, line, mode)


def _caller(chain: list[str]) -> tuple[str, int]:
    """The source line that called the timestamp: the innermost frame of
    the inline chain in a C file (timing_timestamp_get() and the system-call
    stub are inline functions of headers; a static helper of the benchmark
    inlined into its caller keeps its own line)."""
    where = next((c for c in chain if c.split(":")[0].endswith(".c")),
                 chain[-1] if chain else "?:0")
    path, _, line = where.split(" (discriminator")[0].rpartition(":")
    return os.path.basename(path), int(line) if line.isdigit() else 0


def windows(events: Iterable[int], prog: Program, keep: bool = False) -> list[Window]:
    """Every window of the run, in order (see the module's docstring);
    `keep`: with every instruction's address (Window.pcs)."""
    out: list[Window] = []
    cur: Window | None = None
    test: tuple[str, int] = ("", 0)
    calls: Counter = Counter()
    in_main = False        # the last instruction was test_thread's (main.c runs the tests)
    last_app = -1          # the last instruction of the benchmark's own code
    returning = None       # the opening stamp's call site, until the call returns to it
    tail: Counter = Counter()  # instructions since last_app (a closing stamp's entry path)
    tail_n = 0
    entry = prog.stamp_entry
    for pc in events:
        if pc < 0:
            continue
        name = prog.name(pc)
        if in_main and name != MAIN and pc in prog.entries:
            test = (name, calls[name])
            calls[name] += 1
        in_main = name == MAIN
        if pc == entry:
            if cur is not None and returning is None:
                cur.body.subtract(tail)
                cur.stamp += tail_n
                cur.end = last_app
                out.append(cur)
            cur = Window(test, last_app, -1, 0, 0, pcs=[] if keep else None)
            returning = last_app
            tail, tail_n = Counter(), 0
        app = prog.is_app(pc)
        if cur is None:
            last_app = pc if app else last_app
            continue
        cur.total += 1
        if keep:
            cur.pcs.append(pc)
        if returning is not None:
            if app and returning < pc <= returning + 4:
                returning = None
            else:
                cur.stamp += 1
                continue
        cur.body[name] += 1
        if app:
            last_app, tail, tail_n = pc, Counter(), 0
        else:
            tail[name] += 1
            tail_n += 1
    for w in out:
        w.body = +w.body  # drop the zeros left by the subtraction
    return out


def trace(prog: Program, command: list[str], until: str, timeout: float = 900.0
          ) -> tuple[list[Window], str]:
    """Run `command` (QEMU booting the image, no trace options) under the
    instruction trace until its console prints `until`: its windows and
    its console text."""
    with lifetime.scratch_dir("rtbench-lm-trace-") as tmp:  # the guard's if rtbench dies
        fifo = Path(tmp) / "trace"
        os.mkfifo(fifo)
        result: dict[str, object] = {}

        def read() -> None:
            try:
                with open_fifo(fifo) as f:
                    events = (pc for block in audit.trace_events(f) for pc in block.tolist())
                    result["windows"] = windows(events, prog)
            except BaseException as exc:  # reported below
                result["error"] = exc

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        argv = [*command, "-singlestep", "-d", "exec,nochain,int", "-D", str(fifo)]
        try:
            text, done = run_until(argv, until, timeout)
        finally:
            release_reader(fifo, reader)
        if "error" in result:
            raise result["error"]  # type: ignore[misc]
        if not done:
            raise RuntimeError(f"latency_measure under the trace did not print {until!r}")
        found: list[Window] = result.get("windows", [])  # type: ignore[assignment]
        prog.name_sites({w.start for w in found} | {w.end for w in found})
        return found, text


# ---- a row of latency_measure beside rtbench's window ----------------------------

@dataclass
class Beside:
    """One row from the two traces: latency_measure's windows of it and
    rtbench's median window of the same metric, split by function."""

    label: str
    lm: list[Window]        # latency_measure's windows of the row
    calls: int              # calls each window times (1; its iterations for a row timing a loop)
    printed: float          # latency_measure's average, instructions
    ours: Counter           # rtbench's median window, by function
    ours_net: int           # its instructions (the harness's figure for it)
    lm_code: frozenset = frozenset()  # the benchmark's own function names

    @property
    def median(self) -> Window:
        """latency_measure's median window among those no tick entered."""
        return typical(self.lm, lambda w: w.body, lambda w: w.total)

    @property
    def subtracted(self) -> float:
        """What latency_measure takes off its windows on this row: their mean
        less its printed average (0 where it prints the raw sum, its
        timestamp overhead where it subtracts that)."""
        return sum(w.total for w in self.lm) / len(self.lm) / self.calls - self.printed

    def items(self) -> dict[str, float]:
        """rtbench's instructions − latency_measure's, per function, for the
        median windows; STAMP_ITEM: what latency_measure subtracts less its
        timestamp calls inside the window."""
        theirs = self.median
        out = {f: self.ours.get(f, 0) - theirs.body.get(f, 0) / self.calls
               for f in set(self.ours) | set(theirs.body)}
        out[STAMP_ITEM] = self.subtracted - theirs.stamp / self.calls
        return {f: v for f, v in out.items() if v}

    @property
    def gap(self) -> float:
        """rtbench's median window − latency_measure's figure for its median window."""
        return self.ours_net - (self.median.total / self.calls - self.subtracted)


STAMP_ITEM = "<latency_measure's timestamp, less what it subtracts>"
TICK = "sys_clock_isr"  # the tick's handler: a window it entered is not the row's path


def typical(windows: list, funcs, size):
    """The median of `windows` (by `size`) among those the tick did not
    enter (`funcs`: a window's functions), or of all if every one holds it."""
    calm = [w for w in windows if TICK not in funcs(w)] or list(windows)
    ranked = sorted(calm, key=size)
    return ranked[(len(ranked) - 1) // 2]


def unexplained(row: Beside, causes) -> tuple[float, list[str]]:
    """How much of the row's gap its causes (lm_causes.Cause) leave
    unaccounted for, and each of their claims the traces contradict: a
    function named on a side whose window does not run more of it (a cause
    must name at least one that does), latency_measure's subtraction not as
    said."""
    items = row.items()
    named: dict[str, float] = {}
    wrong = []
    for cause in causes:
        for side, patterns in (("rtbench's", cause.ours), ("latency_measure's", cause.theirs)):
            hits = {}
            for pat in patterns:
                for f, v in items.items():
                    if f == STAMP_ITEM or not (f in row.lm_code if pat == LM_CODE
                                               else fnmatch.fnmatchcase(f, pat)):
                        continue
                    if (v > 0) == (side == "rtbench's"):
                        hits[f] = v
                    elif f not in named or pat == f:  # a glob leaves what another cause names
                        wrong.append(f"{row.label}: {f} runs more in the other window than in "
                                     f"{side}, where a cause puts it")
            if patterns and not hits:
                wrong.append(f"{row.label}: none of {', '.join(patterns)} runs more in {side} "
                             f"window ({cause.text[:60]}…)")
            named.update(hits)
        if cause.stamp:
            named[STAMP_ITEM] = items.get(STAMP_ITEM, 0.0)
            sub, stamp = row.subtracted, row.median.stamp / row.calls
            # within 1.5, as the test's own check of a window: whole cycles, 100 iterations
            if cause.stamp == "raw" and abs(sub) > 1.5:
                wrong.append(f"{row.label}: said to subtract nothing; it subtracts {sub:.1f}")
            if cause.stamp == "excess" and not sub > stamp:
                wrong.append(f"{row.label}: said to subtract more than its timestamp call "
                             f"({stamp:.1f}); it subtracts {sub:.1f}")
            if cause.stamp == "user" and not sub > 1:
                wrong.append(f"{row.label}: said to subtract its overhead; it subtracts {sub:.1f}")
    rest = row.gap - sum(named.values())
    if any(c.unexplained for c in causes) != (abs(rest) > AGREE):
        unnamed = sorted(((f, v) for f, v in items.items() if f not in named),
                         key=lambda fv: -abs(fv[1]))[:6]
        wrong.append(f"{row.label}: {rest:+.1f} instructions not accounted for, "
                     + ("yet the row says the rest is unexplained" if abs(rest) <= AGREE
                        else "and the row does not say so")
                     + " (unnamed: " + ", ".join(f"{f} {v:+.1f}" for f, v in unnamed) + ")")
    return rest, wrong
