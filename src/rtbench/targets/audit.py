"""The window audit: what a board image really runs between the two stamps
of every sample, instruction by instruction, and whose code it is.

A figure on the emulated board is instructions counted by the board's
timer between two reads of it. This module does not trust that count: it
runs the same image under QEMU's instruction trace (`-singlestep -d
exec,nochain,int`: every guest instruction executed, and every exception
taken), finds each window in the trace from the image itself, and sorts
each instruction in it by the function it belongs to:

  kernel   the kernel's own functions (and the C library they call)
  call     rtb_kapi_* shims: a kernel API that is a macro or inline code,
           written as an application writes it (rtb/kcall.h)
  handler  rtb_isr_* interrupt handlers: what the kernel's rules make an
           application's handler do (acknowledge the device, give, the
           kernel's exit convention); and the vectors a port provides
           because its kernel asks it to (*_Handler: ThreadX's SysTick_Handler
           calling the kernel's tick)
  harness, port, board   rtbench's own code: the budget a window may hold
  stamp    the two stamps' own instructions (their calibrated cost, which
           the harness subtracts)

Where windows start and end comes from the image: every stamp lists the
address of its counter load in the ELF section `.rtb_stamps` with its kind
(0 opens a window, 1 closes one, 2 marks an interrupt handler whose window
opened when the interrupt was taken) and its shape (instructions before and
after the load). Whose code a function is comes from the link map: the
object file it was linked from.

The audit's count of each window (its instructions less the stamps') is
the harness's figure for that sample, so the two are compared: a metric
whose windows disagree with its record is reported, as is any window that
holds more of rtbench's code than its budget.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import tempfile
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

OURS = ("harness", "port", "board")
KERNEL_SIDE = ("kernel", "libc", "call", "handler")

# How many instructions of rtbench's own code a window may hold: the call
# instruction and the store of the first stamp (rtb/kcall.h), with room for
# two more. Rows that keep more, and why, are in EXCEPTIONS.
BUDGET = 4
# The rows a test holds to BUDGET on every kernel (issue: windows that hold
# only the kernel): the switch by yield, the semaphore, mutex and message
# queue without and with a switch, and the interrupt rows.
HEADLINE = (
    "sched.yield.ctx.thread",
    "sem.give.no_waiter", "sem.take.available", "sem.give.wake_ctx.thread", "sem.take.block_ctx.thread",
    "mutex.lock.uncontended", "mutex.unlock.uncontended", "rmutex.lock.block_ctx.thread",
    "rmutex.unlock.wake_ctx.thread",
    "msgq.send.no_waiter", "msgq.receive.available", "msgq.send.wake_ctx.thread",
    "msgq.receive.block_ctx.thread",
    "irq.response", "irq.task_response.no_resched", "irq.task_response.resched",
    "irq.return.interrupted", "irq.return.different", "irq.handler_to_task",
)
# Rows whose figure is not a stamp window (computed from other intervals,
# or from single counter loads): the audit lists them without windows.
COMPUTED = {
    "irq.kernel_latency": "each sample is an interrupt's response minus the unloaded one",
    "irq.prolog.minimum": "read from single counter loads in a bare handler (no stamps)",
    "irq.prolog.c_call": "read from single counter loads in a bare handler (no stamps)",
    "irq.epilog.minimum": "read from single counter loads in a bare handler (no stamps)",
    "irq.epilog.c_call": "read from single counter loads in a bare handler (no stamps)",
    "method.null": "two stamps back to back: nothing between them by definition",
}
# Rows allowed more than BUDGET of rtbench's code, with the reason the
# audit prints beside them. Keys are metric ids or prefixes ending in '.'.
_SPIN = ("the interrupted task learns the handler ran by polling the device (a load, a test, "
         "a branch): after the return it ends the pass the interrupt landed in and makes one "
         "more, 2 to 5 instructions by where it landed")
EXCEPTIONS: dict[str, tuple[int, str]] = {
    "irq.task_response.no_resched": (5, _SPIN),
    "irq.return.interrupted": (5, _SPIN),
    "que.": (200, "DSP/BIOS's QUE is a list library, not a kernel service: rtbench's copy of "
                  "its algorithm is what the row times"),
}


@dataclass(frozen=True)
class Func:
    name: str
    owner: str  # kernel, libc, call, handler, harness, port, board


@dataclass
class Window:
    net: int                       # instructions less the stamps': the harness's figure
    owners: Counter = field(default_factory=Counter)
    funcs: Counter = field(default_factory=Counter)
    foreign_stamps: int = 0        # other stamps' loads inside (a window must have none)
    raised: bool = False           # opened when an interrupt was taken (not by a stamp)

    def ours(self) -> int:
        return sum(self.owners[o] for o in OURS)


@dataclass
class MetricAudit:
    id: str
    windows: list[Window] = field(default_factory=list)
    reopened: int = 0              # windows opened again before they closed
    record: dict | None = None     # the harness's record of the same run

    def median(self) -> Window | None:
        if not self.windows:
            return None
        ranked = sorted(self.windows, key=lambda w: w.net)
        return ranked[(len(ranked) - 1) // 2]

    def budget(self) -> tuple[int, str]:
        for key, (limit, why) in EXCEPTIONS.items():
            if self.id == key or (key.endswith(".") and self.id.startswith(key)):
                return limit, why
        return BUDGET, ""

    def problems(self) -> list[str]:
        out = []
        if self.id in COMPUTED or not self.windows:
            return out
        limit, _ = self.budget()
        worst = max(w.ours() for w in self.windows)
        if worst > limit:
            out.append(f"{self.id}: {worst} instructions of rtbench's code in a window (budget {limit})")
        foreign = max(w.foreign_stamps for w in self.windows)
        if foreign:
            out.append(f"{self.id}: {foreign} other stamp(s) inside a window")
        rec = self.record
        if rec and rec.get("status") == "ok":
            nets = sorted(w.net for w in self.windows)
            got = (nets[0], nets[(len(nets) - 1) // 2], nets[-1])
            want = (rec.get("min"), rec.get("p50"), rec.get("max"))
            # A window that opens at a timer's expiry: the interrupt is
            # taken at the next instruction boundary (3.2 timer ticks
            # apart at shift 7), so the harness, which counts from the
            # expiry itself, may hold one instruction more than the trace,
            # which counts from the handler's entry.
            # Its maximum is compared only for windows a stamp opened: where
            # another interrupt is taken with the timer's (the kernel's tick
            # first, the timer's expiry inside its handler, or after), the
            # trace cannot see the expiry instant to start from.
            raised = any(w.raised for w in self.windows)
            slack = 1 if raised else 0
            pairs = list(zip(got, want))[:2 if raised else 3]
            if any(not isinstance(h, int) or not 0 <= h - t <= slack for t, h in pairs):
                out.append(f"{self.id}: the trace counts min/median/max {got}, the harness "
                           f"recorded {want}")
        return out


# ---- the image: stamps, functions and their owners ----------------------------

_OUR_OBJECTS = re.compile(
    r"(^|[/(])(librtb_core\.a|CMakeFiles/rtb_(core|port|board)\.dir/|CMakeFiles/rtbench-[^/]*\.dir/"
    r"|libapp\.a|CMakeFiles/app\.dir/)")
_LIBS = re.compile(r"(^|/)lib(c|c_nano|gcc|m|nosys|g|g_nano)\.a\(|libgcc|picolibc|/libc\.a")
_MAP_ENTRY = re.compile(r"^ (\.text\S*)\s*(?:\n\s+)?0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+(\S.*)$",
                        re.MULTILINE)


def _harness_files() -> dict[str, str]:
    """Whose each source file of the harness is, by its name: an archive
    member in a link map is named by its file alone (Zephyr's libapp.a)."""
    from rtbench.targets import harness

    owners = {"core": "harness", "scenarios": "harness", "ports": "port", "boards": "board"}
    out: dict[str, str] = {}
    root = harness.source_dir()
    for folder, owner in owners.items():
        for f in (root / folder).rglob("*.[cS]"):
            out.setdefault(f.name, owner)
    return out


def _owner_of_object(obj: str, files: dict[str, str]) -> str:
    if _OUR_OBJECTS.search(obj):
        if "rtb_port" in obj or "/ports/" in obj or "CMakeFiles/rtbench-" in obj:
            return "port"
        if "rtb_board" in obj or "/boards/" in obj:
            return "board"
        if "libapp.a(" in obj:  # an application library: named by its member
            member = obj.split("libapp.a(", 1)[1].rstrip(")")
            return files.get(member.removesuffix(".obj").removesuffix(".o"), "port")
        return "harness"
    if _LIBS.search(obj):
        return "libc"
    return "kernel"


class Image:
    """A board image and its link map: where the stamps are, and whose
    code each instruction address is."""

    def __init__(self, elf: Path, link_map: Path | None = None):
        from elftools.elf.elffile import ELFFile  # pyelftools

        self.path = Path(elf)
        self.stamps: dict[int, tuple[int, int, int]] = {}  # load address -> (kind, head, tail)
        self.raise_marks: set[int] = set()
        self._funcs: list[tuple[int, int, str]] = []
        with open(self.path, "rb") as f:
            ef = ELFFile(f)
            sec = ef.get_section_by_name(".rtb_stamps")
            if sec is None:
                raise ValueError(f"{self.path}: no .rtb_stamps section (an image built before the "
                                 "window audit, or not by rtbench)")
            data = sec.data()
            for off in range(0, len(data) - 7, 8):
                addr = int.from_bytes(data[off:off + 4], "little") & ~1
                word = int.from_bytes(data[off + 4:off + 8], "little")
                kind, head, tail = word & 0xFF, (word >> 8) & 0xFF, (word >> 16) & 0xFF
                if kind == 2:
                    self.raise_marks.add(addr)
                else:
                    self.stamps[addr] = (kind, head, tail)
            for sym in ef.get_section_by_name(".symtab").iter_symbols():
                if sym["st_info"]["type"] == "STT_FUNC" and sym["st_size"] > 0:
                    start = sym["st_value"] & ~1
                    self._funcs.append((start, start + sym["st_size"], sym.name))
        self._funcs.sort()
        self._starts = [f[0] for f in self._funcs]
        self.metric_begin = {s for s, _, n in self._funcs if n == "rtb_port_metric_begin"}
        if link_map is None:  # the harness's builds name it after the image; Zephyr's is zephyr.map
            beside = Path(f"{self.path}.map")
            link_map = beside if beside.exists() else self.path.with_suffix(".map")
        self._objects = self._read_map(Path(link_map))
        self._files = _harness_files()
        self._cache: dict[int, Func] = {}

    @staticmethod
    def _read_map(path: Path) -> list[tuple[int, int, str]]:
        text = path.read_text(errors="replace")
        cut = text.find("Linker script and memory map")
        out = []
        for m in _MAP_ENTRY.finditer(text, cut if cut >= 0 else 0):
            start, size = int(m[2], 16), int(m[3], 16)
            if size:
                out.append((start, start + size, m[4].strip()))
        out.sort()
        return out

    def at(self, pc: int) -> Func:
        got = self._cache.get(pc)
        if got is None:
            got = self._cache[pc] = self._classify(pc)
        return got

    def _classify(self, pc: int) -> Func:
        import bisect

        i = bisect.bisect_right(self._starts, pc) - 1
        name = self._funcs[i][2] if i >= 0 and pc < self._funcs[i][1] else f"0x{pc:x}"
        j = bisect.bisect_right(self._objects, (pc, float("inf"), "")) - 1
        obj = self._objects[j][2] if j >= 0 and pc < self._objects[j][1] else ""
        owner = _owner_of_object(obj, self._files) if obj else "kernel"
        if owner in OURS and name.startswith("rtb_kapi_"):
            owner = "call"
        elif owner in OURS and (name.startswith("rtb_isr_") or name.endswith("_Handler")):
            owner = "handler"  # an interrupt's own handler (ThreadX's SysTick_Handler calls its tick)
        return Func(name, owner)


# ---- the trace: QEMU's -d exec,nochain,int under -singlestep --------------------

def trace_events(lines: Iterable[str]) -> Iterator[int]:
    """The addresses of the instructions executed, in order; -1 for an
    exception taken (the next address is the handler's first), -2 for an
    exception return. QEMU logs
    an instruction when it is about to run it; two kinds of line say it
    did not, and it is then reported once, when it does run: an I/O access
    under -icount is rewound and translated again ("cpu_io_recompile:
    rewound"), and an instruction found an interrupt pending ("Stopped
    execution of TB chain before")."""
    pending: int | None = None
    for line in lines:
        if line.startswith("Trace "):
            b = line.find("[")
            if b < 0:
                continue
            pc = int(line[b + 10:b + 18], 16)
            if pending is not None:
                yield pending
            pending = pc
        elif line.startswith("cpu_io_recompile: rewound"):
            if pending is not None and pending == int(line.rsplit(" ", 1)[1], 16):
                pending = None
        elif line.startswith("Stopped execution of TB chain before"):
            # logged, then not run: an interrupt was pending (it runs after)
            b = line.find("[")
            if pending is not None and b >= 0 and pending == int(line[b + 1:b + 9], 16):
                pending = None
        elif line.startswith("Taking exception"):
            if pending is not None:
                yield pending
                pending = None
            yield -2 if "exception exit" in line else -1
        elif line.startswith("...taking pending"):
            yield -1  # an exception return that enters the next pending one (tail chaining)
    if pending is not None:
        yield pending


def windows(events: Iterable[int], image: Image) -> list[MetricAudit]:
    """The windows of each metric run, in the order the harness ran them
    (ids unknown here: run() names them from the harness's records)."""
    audits: list[MetricAudit] = []
    cur: MetricAudit | None = None
    index = -1
    open_at: tuple[int, int] | None = None  # (the opening stamp's tail to skip, opened by a raise)
    body: list[int] = []
    since_entry: list[int] = []
    in_entry = False
    chained = False  # an exception returned and nothing ran since
    for pc in events:
        if pc == -2:
            chained = True
            continue
        if pc == -1:
            # a handler entered straight from another's return (tail
            # chaining) continues the same interruption of the task
            if not (chained and in_entry):
                since_entry = []
            in_entry = True
            chained = False
            continue
        if chained:  # back in the interrupted code: the interruption is over
            in_entry = False
            chained = False
        if pc in image.metric_begin:
            index += 1
            cur = MetricAudit(f"#{index}")
            audits.append(cur)
            open_at, body = None, []
        if in_entry:
            since_entry.append(pc)
            if len(since_entry) > 4096:
                in_entry = False
        stamp = image.stamps.get(pc)
        if stamp is not None:
            kind, head, tail = stamp
            if kind == 0:
                if open_at is not None and cur is not None:
                    cur.reopened += 1
                open_at, body = (tail, 0), []
                continue
            if open_at is not None and cur is not None:
                w = _window(image, body, open_at[0], head)
                w.raised = bool(open_at[1])
                cur.windows.append(w)
            open_at, body = None, []
            continue
        if pc in image.raise_marks:
            if open_at is not None and cur is not None:
                cur.reopened += 1
            open_at, body = (0, 1), list(since_entry[:-1]) if in_entry else []
        if open_at is not None:
            body.append(pc)
            if len(body) > 1_000_000:  # not a window: something ran away
                open_at, body = None, []
    return audits


def _window(image: Image, body: list[int], skip_tail: int, head: int) -> Window:
    inner = body[skip_tail:len(body) - head if head else None]
    w = Window(net=len(inner))
    for pc in inner:
        if pc in image.stamps:
            w.foreign_stamps += 1
        f = image.at(pc)
        w.owners[f.owner] += 1
        w.funcs[f.name] += 1
    return w


# ---- running an image under the trace ---------------------------------------------

def run(image: Image, command: list[str],
        timeout: float = 600.0) -> tuple[list[MetricAudit], list[dict]]:
    """Boot `command` (a QEMU command line for the image, without trace
    options) under the instruction trace, feed the trace through a FIFO as
    it is written (no trace file: a run is millions of lines), and return
    each metric's windows and the harness's records of the same run."""
    from rtbench.store import records

    with tempfile.TemporaryDirectory(prefix="rtbench-audit-") as tmp:
        fifo = Path(tmp) / "trace"
        os.mkfifo(fifo)
        cmd = [*command, "-singlestep", "-d", "exec,nochain,int", "-D", str(fifo)]
        result: dict[str, object] = {}

        def read_trace() -> None:
            try:
                with open(fifo, errors="replace") as f:
                    result["audits"] = windows(trace_events(f), image)
            except BaseException as exc:  # reported by the caller
                result["error"] = exc

        reader = threading.Thread(target=read_trace, daemon=True)
        reader.start()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, errors="replace")
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise
        finally:
            if reader.is_alive():  # QEMU never opened the FIFO: unblock the reader
                try:
                    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:
                    pass
            reader.join(timeout=60)
        if "error" in result:
            raise result["error"]  # type: ignore[misc]
        recs = [r for r in (records.parse_line(line) for line in out.splitlines()) if r]
        audits: list[MetricAudit] = result.get("audits", [])  # type: ignore[assignment]
        begun = [r["id"] for r in recs if r.get("type") == "begin"]
        by_id = {r["id"]: r for r in recs if r.get("type") == "metric"}
        if len(begun) != len(audits):
            raise RuntimeError(f"the trace shows {len(audits)} metrics begun, the harness "
                               f"printed {len(begun)}")
        for a, mid in zip(audits, begun):
            a.id = mid
            a.record = by_id.get(mid)
        if proc.returncode != 0 and not by_id:
            tail = (err.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
            raise RuntimeError(f"the image under the trace failed: {tail}")
        return audits, recs


def audit_board(board: str, kernel, metrics: list[str] | None = None, samples: int = 20,
                timeout: float = 600.0) -> list[MetricAudit]:
    """Build `kernel`'s image for `board` as a run does, and audit it
    (audit_target)."""
    from rtbench.targets import qemu

    return audit_target(qemu.QemuTarget(board, kernel), metrics, samples, timeout)


def audit_target(target, metrics: list[str] | None = None, samples: int = 20,
                 timeout: float = 600.0) -> list[MetricAudit]:
    """Audit the windows of `metrics` (globs over ids; default: every row the
    image has) in the image of an emulated board `target` (a
    qemu.QemuTarget), `samples` each, no warm-up, the overhead calibrated
    from 16 pairs (a trace of 20 000 pairs is tens of millions of lines;
    under -icount 16 give the same figure)."""
    target.prepare()
    image = Image(target.image)
    args = ["--samples", str(samples), "--warmup", "0", "--calib-pairs", "16"]
    if metrics:
        args += ["--only", ",".join(metrics)]
    audits, _ = run(image, target.command(args), timeout=timeout)
    return audits


# ---- the report -------------------------------------------------------------------

def table(audits: list[MetricAudit]) -> list[dict]:
    """One row per metric: the median window's split, the worst of rtbench's
    code, the harness's median beside the trace's."""
    rows = []
    for a in audits:
        w = a.median()
        limit, why = a.budget()
        row = {"id": a.id, "windows": len(a.windows),
               "harness_p50": a.record.get("p50") if a.record else None}
        if a.id in COMPUTED:
            row["note"] = COMPUTED[a.id]
        if w is not None:
            row.update({
                "figure": w.net,
                "kernel": w.owners["kernel"] + w.owners["libc"],
                "call": w.owners["call"], "handler": w.owners["handler"],
                "ours": w.ours(), "ours_max": max(x.ours() for x in a.windows),
                "harness": w.owners["harness"], "port": w.owners["port"], "board": w.owners["board"],
                "budget": limit, "functions": dict(w.funcs.most_common()),
            })
            if why:
                row["why"] = why
        rows.append(row)
    return rows


def problems(audits: list[MetricAudit]) -> list[str]:
    return [p for a in audits for p in a.problems()]


def median(values: list[int]) -> float:
    return statistics.median(values) if values else 0.0
