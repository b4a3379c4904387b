"""The window audit: what a board image really runs between the two stamps
of every sample, instruction by instruction, and whose code it is.

A figure on the emulated board is instructions counted by the board's
timer between two reads of it. This module does not trust that count: it
runs the same image under QEMU's instruction trace (`-singlestep -d
exec,nochain,int`: every guest instruction executed, and every exception
taken), finds each recorded sample's window in the trace, and sorts each
instruction in it by the function it belongs to:

  kernel   the kernel's own functions (and the C library they call)
  call     rtb_kapi_* shims: a kernel API that is a macro or inline code,
           written as an application writes it, one call of it
           (rtb/kcall.h); a shim that enters the kernel more than once in a
           window is an emulation built from several calls, and rtbench's;
           rtb_kisr_* interrupt handlers written in the kernel's own
           convention (rtb/irq_isr.h), less their stamps' stores
  harness, port, board   rtbench's own code wherever it runs: scenarios,
           port glue, emulations, a stamp's store in a handler (listed in
           .rtb_stamps, kind 3), any device acknowledgement, vectors a port
           provides; the budget a window may hold
  stamp    the two stamps' own instructions (their calibrated cost, which
           the harness subtracts)

Which instructions a sample's window is comes from the sample itself: the
harness, run with --stamp-log, writes the two raw stamps of every sample it
records (harness/core/stamplog.h), and under -icount a counter value names
the instruction that read it (stamplog.py). Every stamp lists the address
of its counter load in the ELF section `.rtb_stamps` with its kind (0 opens
a window, 1 closes one) and its shape (instructions before and after the
load). Whose code a function is comes from the link map: the object file it
was linked from.

The audit's count of each window (its instructions less the stamps') is
the harness's figure for that sample, so the two are compared: a metric
whose windows disagree with its record is reported, as is a sample whose
stamps the trace does not show, and any window that holds more of
rtbench's code than its budget.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import threading
from array import array
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from rtbench.errors import HarnessError
from rtbench.process import lifetime
from rtbench.targets import qemu, stamplog
from rtbench.targets.trace import Span, open_fifo, release_reader, spans, trace_events

OURS = ("harness", "port", "board")
# The kernel's API as an application writes it: a shim (one call of a macro
# API, rtb/kcall.h) or an interrupt handler in the kernel's own convention
# (rtb/irq_isr.h); the stamps' stores in a handler are rtbench's (kind 3).
SHIM, KERNEL_ISR = "rtb_kapi_", "rtb_kisr_"
API_PREFIXES = (SHIM, KERNEL_ISR)
# Kernel functions a single API call enters besides its own: Zephyr's
# system-call wrapper asks whether the caller runs in user mode before it
# calls z_impl_* (or traps), in every call an application makes.
PART_OF_ONE_CALL = frozenset({"z_arm_thread_is_in_user_mode"})
# Exception handlers a caller enters on purpose (a system call's SVC): an
# exception taken into one of these is a call of the code it left, not an
# interrupt of it (Zephyr's user-mode threads enter the kernel this way).
SYSCALL_HANDLERS = frozenset({"z_arm_svc"})
KERNEL_SIDE = ("kernel", "libc", "call")

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
# Rows whose samples the scenario computes from other intervals or from
# single counter loads (rtb_add_net: no window of their own), in words for
# the table; the stamp log says which rows they are (samples, none logged).
COMPUTED = {
    "irq.kernel_latency": "each sample is an interrupt's response minus the unloaded one",
    "irq.prolog.minimum": "read from single counter loads in a bare handler (no stamps)",
    "irq.prolog.c_call": "read from single counter loads in a bare handler (no stamps)",
    "irq.epilog.minimum": "read from single counter loads in a bare handler (no stamps)",
    "irq.epilog.c_call": "read from single counter loads in a bare handler (no stamps)",
}
COMPUTED_WHY = "computed by the scenario from other intervals: no window of its own"
# Rows allowed more than BUDGET of rtbench's code, with the reason the
# audit prints beside them. Keys are metric ids or prefixes ending in '.'.
# None today: a row that holds more of rtbench's code is marked by the
# harness instead (its record's `unranked`), and kept out of every ranking.
EXCEPTIONS: dict[str, tuple[int, str]] = {}


@dataclass(frozen=True)
class Func:
    name: str
    owner: str  # kernel, libc, call, harness, port, board


@dataclass
class Window:
    net: int                       # instructions less the stamps': the harness's figure
    owners: Counter = field(default_factory=Counter)
    funcs: Counter = field(default_factory=Counter)
    foreign_stamps: int = 0        # other stamps' loads inside (a window must have none)
    raised: bool = False           # opened at an instant the port computed (an interrupt's raise)
    entry_gap: int | None = None   # raised: instructions from that instant to an exception entry
    shim_calls: int = 0            # times a shim entered the kernel
    calls_from_ours: int = 0       # times rtbench's code entered the kernel (an emulation's calls)

    @property
    def composite(self) -> bool:
        """A shim entered the kernel more than once: an emulation, rtbench's."""
        return self.shim_calls > 1

    def ours(self) -> int:
        return sum(self.owners[o] for o in OURS) + (self.owners["call"] if self.composite else 0)

    def kernel(self) -> int:
        return self.owners["kernel"] + self.owners["libc"]

    def api(self) -> int:
        return 0 if self.composite else self.owners["call"]


@dataclass
class MetricAudit:
    id: str
    windows: list[Window] = field(default_factory=list)
    record: dict | None = None     # the harness's record of the same run
    session: dict | None = None    # the run's session record (the port's facts)
    logged: int = 0                # samples whose stamps the harness logged
    recorded: int = 0              # samples it recorded
    unfound: list[str] = field(default_factory=list)  # logged samples the trace does not show

    @property
    def marked(self) -> str:
        """Why the harness keeps the row out of every ranking ("" if not)."""
        return str((self.record or {}).get("unranked") or "")

    @property
    def computed(self) -> bool:
        """Samples, none of them a window (rtb_add_net)."""
        return self.recorded > 0 and self.logged == 0

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
        out = [f"{self.id}: {u}" for u in dict.fromkeys(self.unfound)]
        if not self.windows:
            return out
        limit, _ = self.budget()
        worst = max(w.ours() for w in self.windows)
        if worst > limit and not self.marked:
            out.append(f"{self.id}: {worst} instructions of rtbench's code in a window (budget "
                       f"{limit}), and its record does not say it is kept out of rankings")
        foreign = max(w.foreign_stamps for w in self.windows)
        if foreign:
            out.append(f"{self.id}: {foreign} other stamp(s) inside a window")
        far = [w.entry_gap for w in self.windows if w.raised and (w.entry_gap is None
                                                                   or w.entry_gap > 2)]
        if far:
            out.append(f"{self.id}: a window opened at a computed instant with no interrupt "
                       f"taken there ({far[0]} instructions away)")
        rec = self.record
        if rec and rec.get("status") == "ok" and self.logged == self.recorded:
            nets = sorted(w.net for w in self.windows)
            got = (nets[0], nets[(len(nets) - 1) // 2], nets[-1])
            want = (rec.get("min"), rec.get("p50"), rec.get("max"))
            # A window the port opened at a computed instant (a timer's
            # expiry) is placed by its value, which the counter's rounding
            # leaves within an instruction. The harness's median is its
            # histogram bucket's midpoint: exact below 256, within half a
            # bucket above.
            slack = 1 if any(w.raised for w in self.windows) else 0
            over = int(rec.get("overhead") or 0)
            slacks = (slack, slack + hist_width(got[1] + over) // 2, slack)
            if any(not isinstance(h, int) or abs(h - t) > d
                   for t, h, d in zip(got, want, slacks)):
                out.append(f"{self.id}: the trace counts min/median/max {got}, the harness "
                           f"recorded {want}")
        return out


# The harness's histogram (harness/core/hist.h): one bucket per value below
# 2^(HIST_SUB_BITS + 1), then 2^HIST_SUB_BITS buckets per power of two.
HIST_SUB_BITS = 7


def hist_width(value: int) -> int:
    """The width of the harness's histogram bucket that holds `value`."""
    if value < 1 << (HIST_SUB_BITS + 1):
        return 1
    return 1 << (value.bit_length() - 1 - HIST_SUB_BITS)


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
        self.ours_marks: set[int] = set()
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
                if kind in (0, 1):
                    self.stamps[addr] = (kind, head, tail)
                elif kind == 3:  # an instruction of rtbench's wherever it sits (a stamp's store)
                    self.ours_marks.add(addr)
            labels = []  # assembly functions declared without .size (Zephyr's z_arm_svc)
            for sym in ef.get_section_by_name(".symtab").iter_symbols():
                if sym["st_info"]["type"] == "STT_FUNC":
                    start = sym["st_value"] & ~1
                    if sym["st_size"] > 0:
                        self._funcs.append((start, start + sym["st_size"], sym.name))
                    elif sym.name:
                        labels.append((start, sym.name))
        self._funcs.sort()
        self._starts = [f[0] for f in self._funcs]
        # a sizeless function runs to the next function's start
        self._labels = sorted(set(labels))
        self._label_starts = [a for a, _ in self._labels]
        self.metric_begin = {s for s, _, n in self._funcs if n == "rtb_port_metric_begin"}
        # the stamp log's anchor: the counter load in rtb_stamplog_begin
        self.anchors = {a for a in self.stamps for s, e, n in self._funcs
                        if n == "rtb_stamplog_begin" and s <= a < e}
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

    def window_shape(self) -> tuple[int, int]:
        """The board's stamps as the image lists them: the instructions
        before a closing stamp's load (its head: in the window it closes)
        and after an opening one's (its tail: before the window it opens).
        The MPS2's are 2 and 1 (TIMER0's address, its inversion), the
        STM32F4's 3 and 0 (the counter's address read from a variable, an
        up-count). One of each in an image, or it is not rtbench's."""
        heads = {h for k, h, _t in self.stamps.values() if k == 1}
        tails = {t for k, _h, t in self.stamps.values() if k == 0}
        if len(heads) != 1 or len(tails) != 1:
            raise ValueError(f"{self.path}: its stamps have closing heads {sorted(heads)} and "
                             f"opening tails {sorted(tails)}, not one of each")
        return heads.pop(), tails.pop()

    def at(self, pc: int) -> Func:
        got = self._cache.get(pc)
        if got is None:
            got = self._cache[pc] = self._classify(pc)
        return got

    def _classify(self, pc: int) -> Func:
        import bisect

        i = bisect.bisect_right(self._starts, pc) - 1
        name = self._funcs[i][2] if i >= 0 and pc < self._funcs[i][1] else ""
        j = bisect.bisect_right(self._objects, (pc, float("inf"), "")) - 1
        inside = j >= 0 and pc < self._objects[j][1]
        obj = self._objects[j][2] if inside else ""
        if not name:
            k = bisect.bisect_right(self._label_starts, pc) - 1
            start = self._labels[k][0] if k >= 0 else -1
            after = self._funcs[i][1] if i >= 0 else -1  # where the sized function before pc ends
            # the label is this code's if no sized function or object boundary lies between
            if k >= 0 and start >= after and (not inside or start >= self._objects[j][0]):
                name = self._labels[k][1]
            else:
                name = f"0x{pc:x}"
        owner = _owner_of_object(obj, self._files) if obj else "kernel"
        if pc in self.ours_marks:
            owner = "harness"
        elif owner in OURS and name.startswith(API_PREFIXES):
            owner = "call"
        return Func(name, owner)


def audit_span(span: Span, block: stamplog.Block, image: Image,
               ticks_per_instruction: float) -> MetricAudit:
    """The windows of one metric's recorded samples, each found by its
    stamps' values (stamplog.locate), and split by whose code they hold."""
    a = MetricAudit(block.id, logged=len(block.pairs), recorded=block.recorded)
    if not block.pairs:
        return a
    clock = stamplog.anchored(block, span.loads, ticks_per_instruction)
    if clock is None:
        a.unfound.append("the trace shows no anchor stamp (rtb_stamplog_begin) in the metric")
        return a
    located, a.unfound = stamplog.locate(block, span.loads, clock, *image.window_shape())
    entries = frozenset(span.entries)
    for loc in located:
        w = _window(image, span.pcs, loc.start, loc.end, entries)
        w.raised = loc.computed
        if loc.computed:  # the port computed the instant: the interrupt's entry must be there
            w.entry_gap = min((abs(e - loc.start) for e in span.entries), default=None)
        a.windows.append(w)
    return a


def _window(image: Image, pcs: array, start: int, end: int,
            entries: frozenset[int] = frozenset()) -> Window:
    """The split of pcs[start:end]; `entries`: the indices where an
    exception was taken (an interrupt is no call of the code it lands in)."""
    w = Window(net=end - start)
    prev_shim = prev_ours = False
    for k, pc in enumerate(pcs[start:end], start):
        f = image.at(pc)
        if k in entries:
            prev_shim = False
            prev_ours = prev_ours and f.name in SYSCALL_HANDLERS
        if pc in image.stamps:
            w.foreign_stamps += 1
        w.owners[f.owner] += 1
        w.funcs[f.name] += 1
        entered = f.owner in ("kernel", "libc") and f.name not in PART_OF_ONE_CALL
        if entered and prev_shim:
            w.shim_calls += 1  # a shim entering the kernel (or its C library)
        if entered and prev_ours:
            w.calls_from_ours += 1
        prev_shim = f.owner == "call" and f.name.startswith(SHIM)
        prev_ours = f.owner in OURS
    return w


# ---- running an image under the trace ---------------------------------------------

def run(image: Image, command: list[str], ticks_per_instruction: float,
        timeout: float = 600.0) -> tuple[list[MetricAudit], list[dict]]:
    """Boot `command` (a QEMU command line for the image, its harness
    arguments last, without trace options) under the instruction trace with
    the harness's stamp log on, feed the trace through a FIFO as it is
    written (no trace file: a run is tens of millions of lines), and return
    each metric's audit and the harness's records of the same run. Each
    metric's span is audited as soon as the next one begins (its stamps are
    in the log by then), so only one metric's instructions are held."""
    from rtbench.store import records

    # QEMU single-steps at full speed until it is ended: it and the folder
    # go through rtbench's guard (rtbench.process.lifetime), so that a
    # SIGKILL of rtbench takes them down too
    with lifetime.guarded(), lifetime.scratch_dir("rtbench-audit-") as tmp:
        fifo, log = Path(tmp) / "trace", Path(tmp) / qemu.STAMP_LOG
        os.mkfifo(fifo)
        # The log's name relative to QEMU's working directory, the same
        # words as a run's: the harness reads its arguments, so a path whose
        # length follows $TMPDIR moved the tick's phase, and which windows
        # held a tick, from one machine to another (qemu.boot_command).
        cmd = _with_stamp_log(command, qemu.STAMP_LOG) + [
            "-singlestep", "-d", "exec,nochain,int", "-D", str(fifo)]
        result: dict[str, object] = {"audits": []}

        def read_trace() -> None:
            done: list[MetricAudit] = result["audits"]  # type: ignore[assignment]
            try:
                with open_fifo(fifo) as f:
                    for k, span in enumerate(spans(trace_events(f), image)):
                        done.append(_audit_nth(span, k, log, image, ticks_per_instruction))
            except BaseException as exc:  # reported by the caller
                result["error"] = exc

        reader = threading.Thread(target=read_trace, daemon=True)
        reader.start()
        try:
            proc = lifetime.popen(cmd, cwd=tmp, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  errors="replace")
        except OSError as exc:
            release_reader(fifo, reader)
            raise HarnessError(f"cannot start {command[0]}: {exc.strerror or exc}") from exc
        try:
            out, err = proc.communicate(timeout=timeout)
            lifetime.forget(proc)
        except subprocess.TimeoutExpired:
            lifetime.end(proc)
            raise HarnessError(f"the image under the trace did not end within {timeout:g} s "
                               "(--timeout; fewer --samples or metrics trace faster)") from None
        except BaseException:  # an interrupt: QEMU and its group go first
            lifetime.end(proc)
            raise
        finally:
            release_reader(fifo, reader)
        if "error" in result:
            raise result["error"]  # type: ignore[misc]
        recs = [r for r in (records.parse_line(line) for line in out.splitlines()) if r]
        audits: list[MetricAudit] = result["audits"]  # type: ignore[assignment]
        begun = [r["id"] for r in recs if r.get("type") == "begin"]
        by_id = {r["id"]: r for r in recs if r.get("type") == "metric"}
        if [a.id for a in audits] != begun:
            raise RuntimeError(f"the trace shows {len(audits)} metrics begun, the harness "
                               f"printed {len(begun)}")
        session = next((r for r in recs if r.get("type") == "session"), None)
        for a in audits:
            a.record = by_id.get(a.id)
            a.session = session
        if proc.returncode != 0 and not by_id:
            tail = (err.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
            raise RuntimeError(f"the image under the trace failed: {tail}")
        return audits, recs


def _with_stamp_log(command: list[str], log: Path | str) -> list[str]:
    """The QEMU command with --stamp-log LOG among the harness's arguments."""
    return qemu.with_args(command, ["--stamp-log", str(log)])


def _audit_nth(span: Span, k: int, log: Path, image: Image,
               ticks_per_instruction: float) -> MetricAudit:
    """The k-th metric's audit: its block of the stamp log (written when
    the metric ended, before the trace shows the next one begin)."""
    blocks = stamplog.read(log) if log.exists() else []
    if k >= len(blocks):
        raise RuntimeError(f"the stamp log has no block for metric #{k + 1}: the harness "
                           "wrote fewer metrics than the trace shows")
    return audit_span(span, blocks[k], image, ticks_per_instruction)


def audit_board(board: str, kernel, metrics: list[str] | None = None, samples: int = 20,
                timeout: float = 600.0) -> list[MetricAudit]:
    """Build `kernel`'s image for `board` as a run does, and audit it
    (audit_target)."""

    target = qemu.QemuTarget(board, kernel)
    try:
        return audit_target(target, metrics, samples, timeout)
    finally:
        target.close()  # its scratch folder (an STM32F4 boot's command-line file)


# The overhead's calibration under the trace: a run's 20 000 pairs would be
# millions of traced lines, and under -icount every pair no interrupt lands
# in costs the same. Enough pairs that the harness's trimmed mean (up to the
# 99th percentile) drops the ones a kernel tick lands in: of 400 it drops
# the 4 longest, and a tick lands inside a pair (two counter reads) far
# more rarely than between two (the loop around them). Of 16 it dropped
# none: a tick in one put 3 instructions on every figure of RTX5's once the
# instructions before the first metric changed.
CALIB_PAIRS = 400


def audit_target(target, metrics: list[str] | None = None, samples: int = 20,
                 timeout: float = 600.0) -> list[MetricAudit]:
    """Audit the windows of `metrics` (ids; default: every row the image
    has) in the image of an emulated board `target` (a qemu.QemuTarget),
    `samples` each, no warm-up, the overhead calibrated from CALIB_PAIRS
    pairs (see there)."""
    target.prepare()
    image = Image(target.image)
    args = ["--samples", str(samples), "--warmup", "0", "--calib-pairs", str(CALIB_PAIRS)]
    if metrics:
        args += ["--only", ",".join(metrics)]
    audits, _ = run(image, target.command(args), target.ticks_per_instruction, timeout=timeout)
    return audits


# ---- the report -------------------------------------------------------------------

def table(audits: list[MetricAudit]) -> list[dict]:
    """One row per metric: the median window's split, the worst of rtbench's
    code, the harness's median beside the trace's."""
    rows = []
    for a in audits:
        w = a.median()
        limit, why = a.budget()
        row = {"id": a.id, "windows": len(a.windows), "logged": a.logged,
               "recorded": a.recorded,
               "harness_p50": a.record.get("p50") if a.record else None}
        if a.computed:
            row["note"] = COMPUTED.get(a.id, COMPUTED_WHY)
        if w is not None:
            row.update({
                "figure": w.net, "kernel": w.kernel(), "call": w.api(),
                "ours": w.ours(), "ours_max": max(x.ours() for x in a.windows),
                "harness": w.owners["harness"], "port": w.owners["port"], "board": w.owners["board"],
                "composite": w.composite, "shim_calls": w.shim_calls,
                "calls_from_rtbench": w.calls_from_ours,
                "budget": limit, "functions": dict(w.funcs.most_common()),
            })
            if why:
                row["why"] = why
        if a.marked:
            row["unranked"] = a.marked
        rows.append(row)
    return rows


def problems(audits: list[MetricAudit]) -> list[str]:
    return [p for a in audits for p in a.problems()]


def median(values: list[int]) -> float:
    return statistics.median(values) if values else 0.0
