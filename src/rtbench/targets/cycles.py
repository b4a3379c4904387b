"""Estimated Cortex-M cycles beside the instructions of a board run: the
cycle model (a QEMU TCG plugin, harness/qemu_plugin/) built on first use,
the map of the image it needs, the QEMU command that loads it, and its
output read back.

A figure on an emulated board is guest instructions (QEMU -icount): exact,
repeatable, and blind to what the silicon adds (exception stacking, pipeline
refills, two-cycle loads, divides). The plugin prices every instruction the
image executes by the core's Technical Reference Manual (the Cortex-M3's,
ARM DDI 0337I, for the AN385; the Cortex-M4's, DDI 0439B, for the AN386),
infers the exceptions QEMU takes, and for every sample the harness logged
(--stamp-log, harness/core/stamplog.h) writes its instructions, its
estimated cycles with the model's range, its instructions by owner and its
kernel calls, paired with the sample by the values its stamps read, as the
window audit pairs them (stamplog.py, audit.py). What the estimate is and
is not: docs/cycles.md.

    so = cycles.build()                               # cached by the sources' hash
    cycles.write_map(audit.Image(elf), "img.map", board)
    cmd = qemu.with_args(qemu_cmd, ["--stamp-log", "stamps.bin"])
    cmd = cycles.load(cmd, so, "img.map", "stamps.bin", "cycles.bin", board, shift)
    run = cycles.read("cycles.bin")                   # run.metrics[i].samples: numpy records

On a board target's boots, BoardCycles does all of it (QemuTarget calls
it; targets.make gives it unless --no-cycles) and puts each ok record's
`cycles` object in it (docs/records.md).

The plugin needs Debian's host compiler and libglib2.0-dev (its glib
headers; the symbols resolve against QEMU's own glib), and QEMU 7.2's
plugin API (version 1).
"""

from __future__ import annotations

import bisect
import hashlib
import os
import shutil
import struct
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import platformdirs
from numpy.lib.recfunctions import repack_fields

from rtbench.errors import RtbenchError
from rtbench.targets import harness

PLUGIN = "rtb_cycles.so"
BUILT = ".built"
MAP_MAGIC = "rtbench cycles map 1"
# The stamp log's mark (harness/core/stamplog.c): the plugin writes a
# metric's samples when it runs, before the metric's record is printed.
WRITTEN = "rtb_stamplog_written"
OUT_MAGIC = b"rtbench cycles 1\n"
# The unit's words, wherever a figure of the model is shown.
UNIT = ("est. cycles: {core} TRM model, zero wait states; [lo, hi] is the model's own "
        "uncertainty, not a spread")
CORES = {"mps2-an385": ("m3", "Cortex-M3"), "mps2-an386": ("m4", "Cortex-M4"),
         "stm32f4": ("m4", "Cortex-M4")}
# The core clock µs are given at: the MPS2 FPGA images' 25 MHz; the
# STM32F4's reset clock, the 16 MHz HSI (zero flash wait states, as the model).
CORE_HZ = {"mps2-an385": 25_000_000, "mps2-an386": 25_000_000, "stm32f4": 16_000_000}
# The board counter's tick in ns of virtual time, which pairs a stamp's
# value with its load: the MPS2's 25 MHz TIMER0, 40; the STM32F4's TIM2,
# prescaled by 2^shift so that a tick is an instruction (None: 2^shift).
TICK_NS = {"mps2-an385": 40, "mps2-an386": 40, "stm32f4": None}


def tick_ns(board: str, shift: int) -> int:
    ns = TICK_NS[board]
    return 2 ** shift if ns is None else ns
AN385_IRQS = 32  # the MPS2 boards' vector table: 16 system vectors and 32 interrupts
# Functions rtbench installs as handlers at run time (rtb_board_vector_set,
# rtb_board_tick_stamps, the ports' interrupt tables), by the names its
# conventions give them: invisible in any vector table of the image.
RUNTIME_HANDLERS = ("rtb_kisr_", "bare_", "rtb_board_tick_entry")

# One record a logged sample (windows.c documents the layout).
SAMPLE = np.dtype([
    ("t0", "<u4"), ("t1", "<u4"), ("instructions", "<u4"),
    ("est", "<u4"), ("lo", "<u4"), ("hi", "<u4"),
    ("kernel", "<u4"), ("api", "<u4"), ("ours", "<u4"),
    ("kernel_calls", "<u2"), ("entries", "u1"), ("returns", "u1"), ("tail_chains", "u1"),
    ("flags", "u1"), ("reserved", "<u2"),
])
assert SAMPLE.itemsize == 44
# what a board run holds of each sample
KEPT = ("instructions", "est", "lo", "hi", "kernel", "api", "ours", "flags")
# Record flags.
UNFOUND, COMPUTED, UNPLACED, LATE, UNKNOWN_BRANCH, NEGATIVE = 1, 2, 4, 8, 16, 32
NO_FIGURE = UNFOUND | UNPLACED | NEGATIVE
TOTALS = ("instructions", "est", "lo", "hi", "entries", "returns", "tail_chains", "late",
          "unknown_branches", "kernel_calls", "handler_calls", "retro_exceptions",
          "handler_jumps", "unexplained_flows", "unknown_opcodes", "metrics")


class CyclesError(RtbenchError):
    pass


# ---- the plugin's build ------------------------------------------------------------

def source_dir() -> Path:
    """The plugin's C sources, beside the harness's."""
    return harness.source_dir() / harness.PLUGIN_DIR


def source_hash(src: Path | None = None) -> str:
    src = src or source_dir()
    digest = hashlib.sha256()
    for path in sorted(p for p in src.iterdir() if p.suffix in (".c", ".h")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def build(src: Path | None = None) -> Path:
    """Build the plugin if need be (once per change of its sources, into the
    user's cache, under a lock); its path."""
    src = src or source_dir()
    cache = Path(platformdirs.user_cache_dir("rtbench"))
    outdir = cache / f"qemu-plugin-{source_hash(src)}"
    so = outdir / PLUGIN
    # QEMU loads the plugin as code: the cache must be this user's alone
    with harness._cache_lock(cache, outdir, "cycle model plugin"):
        if not (so.is_file() and (outdir / BUILT).is_file()):
            _compile(src, outdir, so)
    return so


def _compile(src: Path, outdir: Path, so: Path) -> None:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise CyclesError("no C compiler (cc) to build the cycle model's QEMU plugin: install gcc")
    try:
        flags = subprocess.run(["pkg-config", "--cflags", "glib-2.0"], capture_output=True,
                               text=True, timeout=30)
    except OSError:
        flags = None
    if flags is None or flags.returncode != 0:
        raise CyclesError("the cycle model's QEMU plugin needs glib's headers: install "
                          "libglib2.0-dev and pkg-config (as root: apt-get install "
                          "libglib2.0-dev pkg-config)")
    outdir.mkdir(parents=True, exist_ok=True, mode=0o755)
    (outdir / BUILT).unlink(missing_ok=True)
    harness._announce(f"building the cycle model's QEMU plugin into {outdir} (once per change "
                      "of its sources)")
    tmp = outdir / f".{PLUGIN}.tmp"
    sources = sorted(str(p) for p in src.glob("*.c"))
    cmd = [cc, "-shared", "-fPIC", "-O2", "-fvisibility=hidden", *flags.stdout.split(),
           "-o", str(tmp), *sources]
    proc = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    (outdir / "build.log").write_text("$ " + " ".join(cmd) + "\n" + proc.stdout + proc.stderr)
    if proc.returncode != 0:
        first = next((ln for ln in proc.stderr.splitlines() if "error" in ln), "")
        raise CyclesError(f"the cycle model's plugin did not build: {first[:200]}; see "
                          f"{outdir / 'build.log'}")
    os.replace(tmp, so)
    (outdir / BUILT).write_text("")


# ---- the image's map ---------------------------------------------------------------

def core(board: str) -> tuple[str, str]:
    """The plugin's cpu= and the core's name for `board`."""
    try:
        return CORES[board]
    except KeyError:
        raise CyclesError(f"no cycle model for the board {board!r} (one of: "
                          f"{', '.join(CORES)})") from None


def _owner(image, pc: int) -> str:
    """Whose code `pc` is, as the audit classifies it (audit.Image), the
    kind-3 marks left out (the map lists them apart): kernel, api or ours."""
    from rtbench.targets import audit

    i = bisect.bisect_right(image._starts, pc) - 1
    name = image._funcs[i][2] if i >= 0 and pc < image._funcs[i][1] else ""
    j = bisect.bisect_right(image._objects, (pc, float("inf"), "")) - 1
    obj = image._objects[j][2] if j >= 0 and pc < image._objects[j][1] else ""
    owner = audit._owner_of_object(obj, image._files) if obj else "kernel"
    if owner in audit.OURS:
        return "api" if name.startswith(audit.API_PREFIXES) else "ours"
    return "kernel"


def ranges(image) -> list[tuple[int, int, str]]:
    """[start, end) ranges of code by owner, adjacent ones of one owner
    merged; what lies in none is the kernel's."""
    cuts = sorted({p for s, e, _ in image._funcs for p in (s, e)}
                  | {p for s, e, _ in image._objects for p in (s, e)})
    out: list[tuple[int, int, str]] = []
    for a, b in zip(cuts, cuts[1:]):
        owner = _owner(image, a)
        if out and out[-1][1] == a and out[-1][2] == owner:
            out[-1] = (out[-1][0], b, owner)
        else:
            out.append((a, b, owner))
    return [r for r in out if r[2] != "kernel"]


def handlers(elf: Path, irqs: int = AN385_IRQS) -> dict[int, str]:
    """Where exception handlers start: every entry of the vector table the
    image boots with (rtbench's boards: `rtb_board_vectors`, wherever it is
    linked, the STM32F4's at 0x08000000; else the table at address 0: its
    system exceptions and `irqs` interrupts; Zephyr's _irq_vector_table
    follows its _vector_table there), and the functions rtbench installs
    at run time (RUNTIME_HANDLERS)."""
    from elftools.elf.elffile import ELFFile

    with open(elf, "rb") as f:
        ef = ELFFile(f)
        names, where = {}, (0, 4 * (16 + irqs))
        for sym in ef.get_section_by_name(".symtab").iter_symbols():
            if sym["st_info"]["type"] == "STT_FUNC" and sym["st_value"]:
                names.setdefault(sym["st_value"] & ~1, sym.name)
            elif sym.name == "rtb_board_vectors" and sym["st_size"]:
                where = (sym["st_value"], sym["st_size"])
        table = b""
        for seg in ef.iter_segments():
            start = seg["p_paddr"]
            if seg["p_type"] == "PT_LOAD" and seg["p_filesz"] and \
                    start <= where[0] < start + seg["p_filesz"]:
                table = seg.data()[where[0] - start:where[0] - start + where[1]]
                break
    out = {}
    words = struct.unpack_from(f"<{len(table) // 4}I", table)
    for word in words[2:]:  # 0: the initial SP, 1: reset (entered once, by no exception)
        if word & 1 and word > 1:
            out[word & ~1] = names.get(word & ~1, "")
    for addr, name in names.items():
        if name.startswith(RUNTIME_HANDLERS):
            out[addr] = name
    if not out:
        raise CyclesError(f"{elf}: no vector table at address 0 and no handler of rtbench's")
    return out


def write_map(image, path: Path, board: str = "mps2-an385") -> Path:
    """Write the plugin's map of `image` (an audit.Image: the ELF, its link
    map and its stamps) to `path` (format: harness/qemu_plugin/imagemap.h)."""
    from rtbench.targets import audit

    lines = [MAP_MAGIC, f"# {image.path.name} for {board}"]
    lines += [f"range {a:x} {b:x} {owner}" for a, b, owner in ranges(image)]
    lines += [f"ours {a:x}" for a in sorted(image.ours_marks)]
    for addr, (kind, head, tail) in sorted(image.stamps.items()):
        if addr not in image.anchors:
            lines.append(f"stamp {addr:x} {kind} {head} {tail}")
    if len(image.anchors) != 1:
        raise CyclesError(f"{image.path}: {len(image.anchors)} anchor loads (the stamp in "
                          "rtb_stamplog_begin), not one")
    lines += [f"anchor {a:x}" for a in sorted(image.anchors)]
    written = [s for s, _e, name in image._funcs if name == WRITTEN]
    if len(written) != 1:
        raise CyclesError(f"{image.path}: no function {WRITTEN} (the stamp log's mark)")
    lines.append(f"written {written[0]:x}")
    lines += [f"handler {a:x} {n}".rstrip() for a, n in sorted(handlers(image.path).items())]
    lines.append(f"computed-tail {image.window_shape()[1]}")
    Path(path).write_text("\n".join(lines) + "\n")
    return Path(path)


# ---- the QEMU command -------------------------------------------------------------

def plugin_option(so: Path, map_path: Path, log: Path, out: Path, board: str,
                  shift: int) -> str:
    """The value of QEMU's -plugin option (a comma in a path is doubled,
    QEMU's escape); `shift`: the boot's -icount shift."""

    def esc(p: Path) -> str:
        return str(Path(p).resolve()).replace(",", ",,")

    cpu, _ = core(board)
    return (f"{esc(so)},map={esc(map_path)},log={esc(log)},out={esc(out)},cpu={cpu},"
            f"shift={shift},tick_ns={tick_ns(board, shift)}")


def load(qemu_cmd: list[str], so: Path, map_path: Path, log: Path, out: Path, board: str,
         shift: int) -> list[str]:
    """A board's QEMU command (qemu.boot_command, its harness logging its
    stamps to `log`) with the plugin loaded."""
    k = qemu_cmd.index("-kernel")
    return (qemu_cmd[:k] + ["-plugin", plugin_option(so, map_path, log, out, board, shift)]
            + qemu_cmd[k:])


# ---- the output --------------------------------------------------------------------

@dataclass
class MetricCycles:
    """One metric's samples as the model priced them, in the stamp log's
    order (the harness's order of recording)."""

    id: str
    anchor: int
    logged: int
    recorded: int
    status: int  # 1: the stamp log had no block for it
    samples: np.ndarray  # SAMPLE records

    def ok(self) -> np.ndarray:
        """The samples with a figure."""
        return self.samples[(self.samples["flags"] & NO_FIGURE) == 0]


@dataclass
class CyclesRun:
    model: dict[str, str]
    metrics: list[MetricCycles] = field(default_factory=list)
    totals: dict[str, int] | None = None  # None: the run did not end (no trailer)


def read(path: Path) -> CyclesRun:
    """The plugin's output file (format: harness/qemu_plugin/windows.c)."""
    data = Path(path).read_bytes()
    model, at = _header(data, path)
    run = CyclesRun(model)
    run.metrics, run.totals, _ = _body(data, at, path)
    return run


def _header(data: bytes, path: Path) -> tuple[dict[str, str], int]:
    """The model's words and where the metrics start."""
    if not data.startswith(OUT_MAGIC) or len(data) < len(OUT_MAGIC) + 4:
        raise CyclesError(f"{path}: not the cycle model's output")
    at = len(OUT_MAGIC)
    (n,) = struct.unpack_from("<I", data, at)
    model = dict(w.split("=", 1) for w in data[at + 4:at + 4 + n].decode().split() if "=" in w)
    return model, at + 4 + n


def _body(data: bytes, at: int, path: Path
          ) -> tuple[list[MetricCycles], dict[str, int] | None, int]:
    """The whole metrics from `at` on, the totals if the trailer is there,
    and where the first incomplete piece starts."""
    metrics: list[MetricCycles] = []
    while at + 4 <= len(data):
        tag = data[at:at + 4]
        if tag == b"RTBE":
            (k,) = struct.unpack_from("<I", data, at + 4) if at + 8 <= len(data) else (1 << 30,)
            if at + 8 + 8 * k <= len(data):  # else cut short: no totals
                return metrics, dict(zip(TOTALS, struct.unpack_from(f"<{k}Q", data, at + 8))), at
            break
        if tag != b"RTBC":
            raise CyclesError(f"{path}: damaged at byte {at}")
        if at + 6 > len(data):
            break
        (m,) = struct.unpack_from("<H", data, at + 4)
        head = at + 6 + m
        if head + 20 > len(data):
            break
        anchor, logged, recorded, status, records = struct.unpack_from("<5I", data, head)
        end = head + 20 + records * SAMPLE.itemsize
        if end > len(data):
            break
        samples = np.frombuffer(data, SAMPLE, records, head + 20).copy()
        metrics.append(MetricCycles(data[at + 6:head].decode("utf-8", "replace"), anchor,
                                    logged, recorded, status, samples))
        at = end
    return metrics, None, at


class Follower:
    """The plugin's output read as it is written: each call of `new()`
    gives the metrics written since the last (the plugin writes and flushes
    a metric at the stamp log's mark, before the harness prints its record)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.model: dict[str, str] | None = None
        self._at = 0

    def new(self) -> list[MetricCycles]:
        try:
            with open(self.path, "rb") as f:
                if self.model is None:
                    head = f.read(64 * 1024)
                    if len(head) < len(OUT_MAGIC) + 4:
                        return []
                    (n,) = struct.unpack_from("<I", head, len(OUT_MAGIC))
                    if len(head) < len(OUT_MAGIC) + 4 + n:
                        return []
                    self.model, self._at = _header(head, self.path)
                f.seek(self._at)
                data = f.read()
        except FileNotFoundError:
            return []
        metrics, _totals, used = _body(data, 0, self.path)
        self._at += used
        return metrics


# ---- a record's cycles --------------------------------------------------------------

HIST_BUCKETS = 256  # at most this many buckets in a record's histogram of estimates
QUANTILES = {"p50": 0.5, "p90": 0.9, "p99": 0.99, "p999": 0.999}


def _quantile(sorted_values: np.ndarray, q: float) -> int:
    """The nearest-rank quantile: the smallest value with at least q of the
    samples at or below it (exact: every sample is at hand)."""
    k = max(int(np.ceil(q * len(sorted_values))) - 1, 0)
    return int(sorted_values[k])


def _hist(values: np.ndarray) -> dict:
    """The estimates' histogram in the records' format (docs/records.md):
    one bucket per value while there are at most HIST_BUCKETS of them, else
    buckets of equal width."""
    lo, hi = int(values.min()), int(values.max())
    width = max(1, -(-(hi - lo + 1) // HIST_BUCKETS))
    keys, counts = np.unique((values.astype(np.int64) - lo) // width, return_counts=True)
    return {"scheme": "linear", "offset": 0, "overflow": 0,
            "buckets": [[lo + int(k) * width, lo + (int(k) + 1) * width, int(c)]
                        for k, c in zip(keys, counts)]}


def unpaired(rec: dict, samples: np.ndarray) -> str:
    """Why the model's samples cannot stand beside `rec`'s ("" when they
    can): the same samples, every one with a figure, and their instruction
    counts the harness's figures (the same minimum, maximum and mean)."""
    n = int(rec.get("n") or 0)
    if len(samples) != n:
        return (f"only {len(samples)} of its {n} samples are windows the stamp log names (a "
                "sample computed from several intervals, or beyond the log's room, has none: "
                "the model prices windows)")
    bad = int(np.count_nonzero(samples["flags"] & NO_FIGURE))
    if bad:
        return f"{bad} of its {n} windows were not found in the run"
    if rec.get("batch_overhead"):
        return ("a sample timed a batch whose loop the harness subtracts in instructions; the "
                "model cannot price that loop apart")
    ins = samples["instructions"].astype(np.int64)
    want = (rec.get("min"), rec.get("max"))
    got = (int(ins.min()), int(ins.max()))
    if want != got or abs(float(ins.mean()) - float(rec.get("mean", 0))) > 0.0015:
        return (f"the model's instruction counts (min, max, mean {got[0]}, {got[1]}, "
                f"{ins.mean():.3f}) are not the harness's ({want[0]}, {want[1]}, "
                f"{rec.get('mean')})")
    return ""


def summary(samples: np.ndarray, board: str) -> dict:
    """The `cycles` object of a record (docs/records.md) from its samples'
    estimates: the estimate's statistics, exact, and the model's range of
    the median, the mean and the max (the medians, means and maxima of the
    samples' lo and hi: as lo <= cycles <= hi holds for every sample, it
    holds for each of them; `compare --ref` sets the one a vendor
    published beside theirs)."""
    est = np.sort(samples["est"].astype(np.int64))
    lo = np.sort(samples["lo"].astype(np.int64))
    hi = np.sort(samples["hi"].astype(np.int64))
    _cpu, name = core(board)
    out = {"status": "ok", "unit": "est. cycles", "label": UNIT.format(core=name), "core": name,
           "hz": CORE_HZ[board], "n": len(est), "min": int(est[0]), "max": int(est[-1]),
           "mean": round(float(est.mean()), 3),
           "stddev": round(float(est.std(ddof=1)), 3) if len(est) > 1 else 0.0}
    out.update({k: _quantile(est, q) for k, q in QUANTILES.items()})
    out.update(p50_lo=_quantile(lo, 0.5), p50_hi=_quantile(hi, 0.5),
               mean_lo=round(float(lo.mean()), 3), mean_hi=round(float(hi.mean()), 3),
               max_lo=int(lo[-1]), max_hi=int(hi[-1]), hist=_hist(est))
    out["window"] = median_window(samples)
    return out


def median_window(samples: np.ndarray) -> dict:
    """Whose instructions the median window holds (the sample at the
    instructions' nearest-rank median): the kernel's, the kernel's API as an
    application writes it (call shims, handlers in the kernel's convention)
    and rtbench's, classed as the window audit classes them."""
    k = max(int(np.ceil(0.5 * len(samples))) - 1, 0)
    mid = samples[np.argsort(samples["instructions"], kind="stable")[k]]
    return {key: int(mid[key]) for key in ("instructions", "kernel", "api", "ours")}


# The harness's mark of a row its port builds from several kernel calls
# (harness/core/record.c), which the model's split of the median window
# completes with how much of it is rtbench's.
PORT_BUILT = "built by rtbench's port from "


def port_built_share(rec: dict) -> None:
    """A port-built row's `unranked` with its share: "built by rtbench's
    port from N kernel calls: M of its K instructions are rtbench's"."""
    why, window = rec.get("unranked") or "", (rec.get("cycles") or {}).get("window")
    if why.startswith(PORT_BUILT) and ":" not in why and window:
        rec["unranked"] = (f"{why}: {window['ours']} of its {window['instructions']} "
                           "instructions are rtbench's")


# ---- on a board target's boots ----------------------------------------------------

class BoardCycles:
    """The cycle model on one target's boots: its plugin and the image's
    map (made once, in `workdir`), an output per boot, and every sample it
    priced, by metric, until the record it belongs to is annotated."""

    def __init__(self, board: str, image: Path, workdir: Path, shift: int):
        from rtbench.targets import audit

        self.board, self.shift = board, shift
        self.so = build()
        self.dir = workdir
        self.map = write_map(audit.Image(image), workdir / "image.map", board)
        self.boots = 0
        self.follower: Follower | None = None
        self.samples: dict[str, list[np.ndarray]] = {}

    def command(self, cmd: list[str], log: Path) -> list[str]:
        """`cmd` (its harness arguments logging to `log`) with the plugin
        loaded, for the next boot (the last boot's output is read by then:
        its records have all arrived)."""
        self._collect()
        if self.follower is not None:
            self.follower.path.unlink(missing_ok=True)
        self.boots += 1
        out = self.dir / f"boot{self.boots}.cycles"
        self.follower = Follower(out)
        return load(cmd, self.so, self.map, log, out, self.board, self.shift)

    def _collect(self) -> None:
        if self.follower is not None:
            for m in self.follower.new():
                if m.id:  # a metric the log has no block for: nothing to pair
                    # held until the run's records are settled: what pairing and
                    # the statistics need, 17 of a record's 44 bytes
                    kept = repack_fields(m.samples[list(KEPT)])
                    self.samples.setdefault(m.id, []).append(kept)

    def annotate(self, rec: dict) -> None:
        """Put the model's `cycles` object (docs/records.md) in an ok record
        of this target's: every sample the harness recorded (over every
        block and boot so far) priced, or why they cannot be."""
        if rec.get("status") != "ok" or rec.get("origin"):
            return
        self._collect()
        parts = self.samples.get(rec["id"], [])
        samples = np.concatenate(parts) if parts else repack_fields(
            np.zeros(0, SAMPLE)[list(KEPT)])
        why = unpaired(rec, samples)
        rec["cycles"] = {"status": "unpaired", "reason": why} if why else summary(samples,
                                                                                  self.board)
        port_built_share(rec)

    def describe(self) -> str:
        return (f"{UNIT.format(core=core(self.board)[1])} (QEMU plugin "
                f"{self.so.parent.name}, docs/cycles.md)")
