"""rt-tests outputs as rtbench records: `rtbench import rt-tests FILE…`, and
the reader `rtbench run --with-peers` uses for the peers it runs.

    from rtbench.importers import rttests
    result = rttests.parse(Path("out.txt"))            # a file, read streaming
    result = rttests.parse(stdout_text, program="ptsematest", name="ptsematest")
    result.program   # "cyclictest", "ptsematest", "pmqtest", "svsematest",
                     # "svsematest -f", "sigwaittest" or "sigwaittest -f"
    result.records   # [metric record dict] (docs/records.md, "Records from
                     # other sources"): one per program, origin "import"
    result.info      # tool, version, command, threads, host (JSON sysinfo), format, rt

`parse(path_or_text, program=None, name=None, catalog=None)`: a
`pathlib.Path` is a file, a `str` the program's output itself; `program`
says which program wrote it when the output cannot say (ptsematest,
svsematest and sigwaittest print the same summary); `name` is the file name
used in errors and in `source.file`. Raises ImportFormatError
("FILE:LINE: reason") for anything it cannot read. A peer run should set
`origin` to "peer" and `source.command` on the records it gets (the
records say "import" and carry no command unless the output named one).

Formats (auto-detected; rt-tests 2.x):
* `--json=FILE` of any of the programs (the envelope of rt-tests'
  rt_write_json: cmdline, rt_test_version, sysinfo, thread.N.*).
* cyclictest's summary lines `T: 0 ( 2043) P:80 I:200 C: 2000 Min: 15 Act: 17
  Avg: 19 Max: 56` (`-q`, or the live display: the last line per thread
  counts). `-N` (ns) is told from µs by the width of the Act field, which
  cyclictest prints 8 wide in ns and 5 wide in µs.
* cyclictest's histogram (`-h US` / `-H US`): one row per µs bucket, one
  count column per thread, then `# Total:`, `# Min/Avg/Max Latencies:`,
  `# Histogram Overflows:`. Read line by line: memory holds the non-empty
  buckets (every thread's counts added), never the file. Percentiles come
  from them (the bucket's lower bound, cyclictest's own integer µs).
* the pair programs' summaries: `#0: ID2467, P60, CPU1, I100; #1: ID2468,
  P60, CPU1, Cycles 2000` (pmqtest adds `TO 0,`) and `#1 -> #0, Min 3, Cur
  53, Avg 4, Max 55`; the last result line per pair counts.

Every program gives min / avg / max (µs) and a count per thread or pair:
the record holds all of them together (the min of the minima, the max of
the maxima: the qualifying figure; the mean weighted by the counts; the
counts added), its note each thread's max, `source.per_thread` each
thread's figures, `source.step_ns` the step the figures were printed in
(1000: whole µs; 1 with -N). Real-time or not: rtbench.importers.rtpolicy.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rtbench.importers.base import (Figure, ImportFormatError, Source, integer, map_figures,
                                    number, source_of)
from rtbench.importers.rtpolicy import from_command as _rt_from_command
from rtbench.importers.rtpolicy import from_priority as _rt_from_priority
from rtbench.store import catalog as catalog_mod
from rtbench.store.catalog import Catalog

TOOL_KEY = "rttests"
PROGRAMS = ("cyclictest", "ptsematest", "pmqtest", "svsematest", "sigwaittest")
PAIR_PROGRAMS = PROGRAMS[1:]
# Labels the catalogue may not claim yet (sys.timer.wakeup.idle is being added).
FALLBACK = {"cyclictest": "sys.timer.wakeup.idle"}
MAX_JSON_BYTES = 256 * 1024 * 1024
BLOCK_BYTES = 1 << 20  # text outputs are read in blocks of about this size
PERCENTILES = (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999))

_ESC = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_T_LINE = re.compile(r"T:\s*(\d{1,18})\s*\(\s*(\d{1,18})\)\s*P:\s*(-?\d{1,18})\s*I:\s*(\d{1,18})\s*C:\s*(\d{1,18})\s*"
                     r"Min:\s*(-?\d{1,18})\s*Act:( *-?\d{1,18})\s*Avg:\s*(-?\d{1,18})\s*Max:\s*(-?\d{1,18})")
_PAIR_HEAD = re.compile(r"#(\d{1,18}):\s*ID(\d{1,18}),\s*P(-?\d{1,18}),\s*CPU(-?\d{1,18}),\s*I(\d{1,18});\s*"
                        r"#(\d{1,18}):\s*ID(\d{1,18}),\s*P(-?\d{1,18}),\s*CPU(-?\d{1,18}),\s*(?:TO\s*(\d{1,18}),\s*)?"
                        r"Cycles\s*(\d{1,18})")
_PAIR_RESULT = re.compile(r"#(\d{1,18})\s*->\s*#(\d{1,18}),\s*Min\s*(-?\d{1,18}),\s*Cur\s*(-?\d{1,18}),\s*"
                          r"Avg\s*(-?\d{1,18}),\s*Max\s*(-?\d{1,18})")
_HIST_ROW = re.compile(r"(\d+)((?:[ \t]+\d+)+)[ \t]*")
_POLICY = re.compile(r"policy: (\w{1,10}):")
_IGNORED = re.compile(r"(policy: .*|# /dev/cpu_dma_latency set to .*|)")


@dataclass
class Result:
    program: str
    records: list[dict[str, Any]]
    info: dict[str, Any] = field(default_factory=dict)


def parse(path_or_text: Path | str, program: str | None = None, name: str | None = None,
          catalog: Catalog | None = None) -> Result:
    """Read one rt-tests output (see the module docstring)."""
    src = source_of(path_or_text, name)
    fig, info = read(src, program)
    recs = map_figures([fig], catalog or catalog_mod.load(), FALLBACK)
    return Result(info["tool"], recs, info)


def read(src: Source, program: str | None = None) -> tuple[Figure, dict[str, Any]]:
    """The figure in one output and what the output says about itself."""
    if program is not None and _base(program) not in PROGRAMS:
        raise ImportFormatError(src.name, 0, f"unknown rt-tests program {program!r} "
                                f"(one of: {', '.join(PROGRAMS)})")
    head = src.head()
    if head.lstrip().startswith("{"):
        return _read_json(src, program)
    return _read_text(src, program or _program_from_text(head) or _program_from_name(src.name))


def _base(program: str) -> str:
    return program.split()[0] if program.split() else ""


def _label(argv: list[str]) -> str:
    """The program's catalogue name: its base name, plus " -f" for a forking run."""
    prog = argv[0].rsplit("/", 1)[-1] if argv else ""
    fork = prog in ("svsematest", "sigwaittest") and any(
        a in ("-f", "--fork") or a.startswith("--fork=") or (a.startswith("-f") and len(a) > 2)
        for a in argv[1:])
    return f"{prog} -f" if fork else prog


def _program_from_text(head: str) -> str | None:
    """A command line on the first line: `$ ptsematest -a 1 …` or `# ptsematest …`."""
    first = head.splitlines()[0] if head else ""
    m = re.match(r"\s*[$#]\s*(\S.*)", first)
    if not m:
        return None
    try:
        argv = shlex.split(m.group(1))
    except ValueError:
        return None
    label = _label(argv)
    return label if _base(label) in PROGRAMS else None


def _program_from_name(name: str) -> str | None:
    base = name.rsplit("/", 1)[-1].lower()
    for prog in PROGRAMS:
        if prog in base:
            fork = re.search(prog + r"[-_.]?(f|fork)([-_.]|$)", base)
            return f"{prog} -f" if fork and prog in ("svsematest", "sigwaittest") else prog
    return None


# ---- text outputs ----

@dataclass
class _Text:
    """What a text output held, read in one pass."""

    tsum: dict[int, tuple[int, re.Match]] = field(default_factory=dict)  # thread -> last T:
    pairs: dict[int, tuple[int, re.Match]] = field(default_factory=dict)  # receiver -> result
    heads: dict[int, re.Match] = field(default_factory=dict)  # first thread -> header
    hist: "_Hist | None" = None
    command: str = ""
    policy: str = ""  # the live display's "policy: fifo: loadavg: …"


def _read_text(src: Source, program: str | None) -> tuple[Figure, dict[str, Any]]:
    t = _Text()
    for first, lines in src.blocks(BLOCK_BYTES):
        i = t.hist.fast(first, lines) if t.hist is not None and not t.hist.rows_done else 0
        while i < len(lines):
            had_rows = t.hist is not None
            _line(src, t, first + i, src.decode(first + i, lines[i]))
            i += 1
            if not had_rows and t.hist is not None:  # "# Histogram": rows follow
                i += t.hist.fast(first + i, lines[i:])
    return _result(src, t, program)


def _line(src: Source, t: _Text, n: int, raw: str) -> None:
    """One line of a text output, anywhere but in a run of histogram rows."""
    line = _ESC.sub("", raw).strip()
    if t.hist is not None and t.hist.feed(n, line):
        return
    if n == 1 and re.match(r"[$#]\s*\S", line) and _program_from_text(line):
        t.command = line[1:].strip()
    elif (m := _POLICY.match(line)) and not t.policy:
        t.policy = m.group(1)
    elif line == "# Histogram":
        if t.hist is not None:
            raise ImportFormatError(src.name, n, "a second histogram in one output")
        t.hist = _Hist(src.name, n)
    elif m := _T_LINE.match(line):
        t.tsum[int(m.group(1))] = (n, m)
    elif m := _PAIR_RESULT.match(line):
        t.pairs[int(m.group(2))] = (n, m)
    elif m := _PAIR_HEAD.match(line):
        t.heads[int(m.group(1))] = m
    elif not _IGNORED.fullmatch(line) and not (n == 1 and t.command):
        raise ImportFormatError(src.name, n, f"not an rt-tests output line: {line[:80]!r}")


def _result(src: Source, t: _Text, program: str | None) -> tuple[Figure, dict[str, Any]]:
    if t.hist is not None:
        return _cyclictest_hist(src, t)
    if t.tsum:
        if t.pairs:
            raise ImportFormatError(src.name, t.pairs[min(t.pairs)][0],
                                    "cyclictest and pair-program results in one output")
        return _cyclictest_summary(src, t)
    if t.pairs:
        return _pair_summary(src, t, program)
    raise ImportFormatError(src.name, 1, "no rt-tests result in it (no cyclictest `T:` line, "
                                         "histogram or `#1 -> #0` result line)")


def _info(src: Source, tool: str, fmt: str, threads: int, **more: Any) -> dict[str, Any]:
    return {"tool": tool, "file": src.name, "format": fmt, "threads": threads, **more}


def _cyclictest_summary(src: Source, t: _Text) -> tuple[Figure, dict[str, Any]]:
    threads = []
    ns = None
    for tid, (n, m) in sorted(t.tsum.items()):
        act_width = len(m.group(7))
        unit_ns = act_width >= 8  # "Act:%8ld" with -N, "Act:%5ld" in µs
        ns = unit_ns if ns is None else ns
        scale = 1 if unit_ns else 1000
        count = integer(m.group(5), src.name, n, "C: (count)")
        threads.append({"thread": tid, "line": n, "n": count, "priority": int(m.group(3)),
                        "interval_us": int(m.group(4)),
                        "min": int(m.group(6)) * scale, "mean": int(m.group(8)) * scale,
                        "max": int(m.group(9)) * scale})
    stats, n_all, note = _all_threads(src, threads, threads[0]["line"], "thread")
    fig = Figure(TOOL_KEY, "cyclictest", stats,
                 _src(src, "cyclictest", threads[0]["line"], threads, t.command, step=1 if ns else 1000),
                 n=n_all, note=note)
    rt = _rt_from_command(t.command) or _rt_from_priority(
        [p["priority"] for p in threads], "the T: lines' P: field", t.policy)
    return fig, _info(src, "cyclictest", "summary", len(threads), command=t.command, rt=rt)


def _all_threads(src: Source, per: list[dict], line: int, what: str
                 ) -> tuple[dict[str, float], int | None, str]:
    """The figure of every thread (pair) together: the min of their minima,
    the max of their maxima (the qualifying figure), the mean weighted by
    their counts; a thread that measured nothing (the live display's first
    `C: 0` line) is left out. The note names each thread's max."""
    done = [p for p in per if p.get("n") != 0]
    if not done:
        raise ImportFormatError(src.name, line, f"no {what} measured a sample (C: 0)")
    stats: dict[str, float] = {"min": min(p["min"] for p in done),
                               "max": max(p["max"] for p in done)}
    counts = [p.get("n") for p in done]
    n_all = sum(counts) if None not in counts else None
    if len(done) == 1:
        stats["mean"], n_all = done[0]["mean"], done[0].get("n")
    elif n_all:
        stats["mean"] = round(sum(p["mean"] * p["n"] for p in done) / n_all, 3)
    if len(per) == 1:
        return stats, n_all, ""
    maxima = ", ".join(_us(p["max"]) for p in per[:MAX_NAMED])
    more = f", … ({len(per) - MAX_NAMED} more)" if len(per) > MAX_NAMED else ""
    mean = ("mean weighted by each one's count" if "mean" in stats
            else "no mean (their counts were not printed)")
    return stats, n_all, (f"all {len(per)} {what}s: min and max over them, {mean}; each "
                          f"{what}'s max in µs: {maxima}{more} (source.per_thread)")


MAX_NAMED = 16  # threads whose max a note names; source.per_thread holds every one


def _us(ns: float) -> str:
    return f"{ns / 1000:g}"


def _src(src: Source, tool: str, line: int, per: list[dict], command: str = "",
         version: str | None = None, step: int = 1000) -> dict[str, Any]:
    """The record's source: every thread's (pair's) own figures in
    `per_thread`, and `step_ns`, the step of the figures the program printed
    (1 µs, or 1 ns with -N), so a sheet prints them whole."""
    out: dict[str, Any] = {"tool": tool, "file": src.name, "line": line, "threads": len(per),
                           "step_ns": step}
    if version:
        out["version"] = version
    if command:
        out["command"] = command
    if len(per) > 1:
        out["per_thread"] = per
    return out


def _pair_summary(src: Source, t: _Text, program: str | None) -> tuple[Figure, dict[str, Any]]:
    if program is None:
        if any(h.group(10) is not None for h in t.heads.values()):
            program = "pmqtest"  # the only one printing a timeout count
        else:
            raise ImportFormatError(
                src.name, 1, "ptsematest, svsematest and sigwaittest print the same summary and "
                "this output does not say which wrote it: put the program in the file name or "
                "its command line on the first line (`# ptsematest -a 1 …`), or pass --program")
    pairs = []
    for receiver, (n, m) in sorted(t.pairs.items()):
        head = t.heads.get(receiver)
        pair = {"pair": len(pairs), "line": n, "sender": int(m.group(1)), "receiver": receiver,
                "min": int(m.group(3)) * 1000, "mean": int(m.group(5)) * 1000,
                "max": int(m.group(6)) * 1000}
        if head is not None:
            pair.update(n=int(head.group(11)), interval_us=int(head.group(5)),
                        priority=int(head.group(3)), cpu=int(head.group(4)))
        pairs.append(pair)
    stats, n_all, note = _all_threads(src, pairs, pairs[0]["line"], "pair")
    fig = Figure(TOOL_KEY, program, stats,
                 _src(src, _base(program), pairs[0]["line"], pairs, t.command),
                 n=n_all, note=note)
    rt = _rt_from_command(t.command) or _rt_from_priority(
        [int(h.group(3)) for h in t.heads.values()], "the pairs' header lines (P)")
    return fig, _info(src, program, "summary", len(pairs), command=t.command, rt=rt)


class _Hist:
    """cyclictest's -h output, fed one line at a time."""

    def __init__(self, name: str, line: int):
        self.name, self.start = name, line
        self.columns = 0  # threads
        self.next = 0  # the bucket index the next row must have
        self.buckets: list[list[int]] = []  # every thread's, added: non-empty [lo_ns, hi_ns, count]
        self.summary: dict[str, tuple[int, list[int]]] = {}
        self.rows_done = False

    def fast(self, first: int, lines: list[bytes]) -> int:
        """Take the leading histogram rows of a block with a few C-speed
        passes over its bytes (a 100 MB file has millions of rows); return
        how many lines it took. The rest go through `feed`, which also finds
        the exact line and reason of anything wrong."""
        if not lines:
            return 0
        width = self.columns + 1 if self.columns else len(lines[0].split())
        block = b"\n".join(lines).translate(_TAB_TO_SPACE) + b"\n"
        if width < 2 or not _rows_only(block, width, len(lines)):
            # The rows end where the summary (`# Total:` …) starts; else find
            # the first line that is not a row, one line at a time.
            end = (b"\n" + block).find(b"\n#")
            k = block.count(b"\n", 0, end) if end > 0 else next(
                (i for i, raw in enumerate(lines) if len(raw.split()) != width or not _rows_only(
                    raw.translate(_TAB_TO_SPACE) + b"\n", width, 1)), len(lines))
            return self.fast(first, lines[:k]) if 0 < k < len(lines) else 0
        k = len(lines)
        # Digits and single-space-separated fields only (checked above): numpy
        # parses them at C speed; a field of 19+ digits saturates, caught here.
        values = np.fromstring(block, dtype=np.int64, sep=" ")
        if values.size != k * width or values.max() >= 10**18:
            return 0  # feed() refuses a count of more than 18 digits
        rows = values.reshape(k, width)
        if not np.array_equal(rows[:, 0], np.arange(self.next, self.next + k)):
            return 0  # feed() names the row that is out of place
        self.columns = width - 1
        self.next += k
        counts = rows[:, 1:].sum(axis=1)  # every thread's samples in the bucket
        nonzero = np.flatnonzero(counts)
        self.buckets.extend([int(i) * 1000, int(i) * 1000 + 1000, int(c)]
                            for i, c in zip(rows[nonzero, 0], counts[nonzero]))
        return k

    def feed(self, n: int, line: str) -> bool:
        """Take the line if it belongs to the histogram; False if it does not."""
        if not self.rows_done and (m := _HIST_ROW.fullmatch(line)):
            idx = _int(m.group(1), self.name, n, "histogram row")
            counts = m.group(2).split()
            if self.columns == 0:
                self.columns = len(counts)
            elif len(counts) != self.columns:
                raise ImportFormatError(self.name, n, f"histogram row with {len(counts)} "
                                        f"columns, the rows before have {self.columns}")
            if idx != self.next:
                raise ImportFormatError(self.name, n, f"histogram row {idx} where row "
                                        f"{self.next} was due")
            self.next += 1
            if max(map(len, counts)) > 18:
                raise ImportFormatError(self.name, n, "histogram count with more than 18 digits")
            every = sum(map(int, counts))
            if every:
                self.buckets.append([idx * 1000, idx * 1000 + 1000, every])
            return True
        if line.startswith("# ") and ":" in line:
            key, _, rest = line[2:].partition(":")
            if key in ("Total", "Min Latencies", "Avg Latencies", "Max Latencies",
                       "Histogram Overflows"):
                self.rows_done = True
                values = rest.split()
                if len(values) < max(self.columns, 1) or len(values) > self.columns + 1:
                    raise ImportFormatError(self.name, n, f"{key}: {len(values)} values for "
                                            f"{self.columns} threads")
                self.summary[key] = (n, [integer(v, self.name, n, key) for v in values])
                return True
            if key == "Histogram Overflow at cycle number" or re.fullmatch(r"Thread \d+", key):
                self.rows_done = True
                return True
        return False


_TAB_TO_SPACE = bytes.maketrans(b"\t", b" ")


def _rows_only(block: bytes, width: int, lines: int) -> bool:
    """`block` (tabs made spaces, each line ending in "\n") is exactly `lines`
    lines of `width` digit fields separated by one space (cyclictest's
    format): no other byte, no leading or trailing space, no empty line, the
    same number of fields on every line."""
    if block.translate(None, b"0123456789 \n") or block.startswith(b" "):
        return False
    if b"\n " in block or b" \n" in block:
        return False
    if b"  " in block or b"\n\n" in b"\n" + block:
        return False  # double separators, empty lines: feed() reads those
    shape = block.translate(None, b"0123456789")  # one space per separator
    return shape == (b" " * (width - 1) + b"\n") * lines


def _int(text: str, file: str, line: int, what: str) -> int:
    """An integer field of a summary (optionally signed), at most 18 digits."""
    if len(text.lstrip("+-")) > 18:
        raise ImportFormatError(file, line, f"{what} has more than 18 digits")
    return int(text)


def _cyclictest_hist(src: Source, t: _Text) -> tuple[Figure, dict[str, Any]]:
    h = t.hist
    assert h is not None
    if h.columns == 0:
        raise ImportFormatError(src.name, h.start, "histogram without a row")
    missing = [k for k in ("Total", "Min Latencies", "Avg Latencies", "Max Latencies",
                           "Histogram Overflows") if k not in h.summary]
    if missing:
        raise ImportFormatError(src.name, h.start, f"histogram lacks its {missing[0]} line "
                                "(the file is cut short?)")
    total = h.summary["Total"][1]
    over = h.summary["Histogram Overflows"][1]
    in_rows = sum(b[2] for b in h.buckets)
    if in_rows != sum(total[:h.columns]):
        raise ImportFormatError(src.name, h.summary["Total"][0], f"the rows add up to "
                                f"{in_rows}, the threads' Totals to {sum(total[:h.columns])}")
    per = [{"thread": i, "n": total[i] + over[i],
            "min": h.summary["Min Latencies"][1][i] * 1000,
            "mean": h.summary["Avg Latencies"][1][i] * 1000,
            "max": h.summary["Max Latencies"][1][i] * 1000} for i in range(h.columns)]
    stats, n_all, note = _all_threads(src, per, h.start, "thread")
    pct, beyond = percentiles(h.buckets, n_all or 0)
    stats.update(pct)
    note = "; ".join(x for x in (
        "percentiles from the source's 1 µs histogram" + (" (every thread's buckets added)"
                                                          if h.columns > 1 else ""),
        f"{', '.join(beyond)} beyond its range ({h.next} µs): not given" if beyond else "",
        note) if x)
    hist = {"scheme": "linear", "offset": 0, "overflow": sum(over[:h.columns]),
            "buckets": h.buckets}
    fig = Figure(TOOL_KEY, "cyclictest", stats, _src(src, "cyclictest", h.start, per, t.command),
                 n=n_all, note=note, hist=hist)
    fig.source["histogram_us"] = h.next
    rt = _rt_from_command(t.command) or _rt_from_priority([], "")
    return fig, _info(src, "cyclictest", "histogram", h.columns, command=t.command, rt=rt)


def percentiles(buckets: list[list[int]], n: int) -> tuple[dict[str, int], list[str]]:
    """p50 … p99.9 from sorted [lo, hi, count] buckets of n samples (the
    overflow counted in n): the lower bound of the smallest bucket whose
    cumulative count reaches q·n (cyclictest's own integer µs); the
    percentiles beyond the buckets, left out."""
    pct: dict[str, int] = {}
    cum, i = 0, 0
    for key, q in PERCENTILES:
        while i < len(buckets) and cum < q * n:
            cum += buckets[i][2]
            i += 1
        if n and cum >= q * n and i:
            pct[key] = buckets[i - 1][0]
    return pct, [k for k, _q in PERCENTILES if k not in pct]


# ---- JSON (--json=FILE) ----

def _read_json(src: Source, program: str | None) -> tuple[Figure, dict[str, Any]]:
    data = _load_json(src)
    cmd = data.get("cmdline", data.get("cmdline:"))
    version = data.get("rt_test_version", data.get("rt_test_version:"))
    if not isinstance(cmd, str) or not isinstance(data.get("thread"), dict):
        raise ImportFormatError(src.name, 1, "JSON but not an rt-tests --json file "
                                             "(no cmdline or thread object)")
    try:
        argv = shlex.split(cmd)
    except ValueError:
        argv = cmd.split()
    label = program or _label(argv)
    if _base(label) not in PROGRAMS:
        raise ImportFormatError(src.name, 1, f"written by {label or 'an unknown program'!r}, "
                                f"not one of {', '.join(PROGRAMS)}")
    threads = sorted(data["thread"].items(), key=lambda kv: _int_key(src, kv[0]))
    if not threads:
        raise ImportFormatError(src.name, 1, "rt-tests JSON without a thread result")
    nsecs = any(a in ("-N", "--nsecs") for a in argv[1:])
    per = [_json_thread(src, int(k), v, label, nsecs) for k, v in threads]
    hists = [p.pop("_hist") for p in per if "_hist" in p]
    stats, n_all, note = _all_threads(src, per, 1, "pair" if label != "cyclictest" else "thread")
    hist = None
    if hists:  # every thread's buckets added, the samples beyond them the overflow
        added: dict[int, list[int]] = {}
        for buckets in hists:
            for lo, hi, c in buckets:
                added.setdefault(lo, [lo, hi, 0])[2] += c
        buckets = sorted(added.values())
        in_rows = sum(b[2] for b in buckets)
        total = n_all if n_all is not None and n_all >= in_rows else in_rows
        pct, beyond = percentiles(buckets, total)
        stats.update(pct)
        hist = {"scheme": "linear", "offset": 0, "overflow": total - in_rows, "buckets": buckets}
        note = "; ".join(x for x in (
            "percentiles from the source's 1 µs histogram" + (" (every thread's buckets added)"
                                                              if len(per) > 1 else ""),
            f"{', '.join(beyond)} beyond its range: not given" if beyond else "", note) if x)
    sysinfo = data.get("sysinfo") if isinstance(data.get("sysinfo"), dict) else {}
    fig = Figure(TOOL_KEY, label, stats,
                 _src(src, _base(label), 1, per, cmd,
                      version if isinstance(version, str) else None, 1 if nsecs else 1000),
                 n=n_all, note=note, hist=hist)
    info = _info(src, label, "json", len(per), command=cmd, version=version,
                 host=sysinfo, started=data.get("start_time"),
                 return_code=data.get("return_code"), rt=_rt_from_command(cmd))
    return fig, info


def _load_json(src: Source) -> dict:
    if src.path is not None:
        try:
            size = src.path.stat().st_size
        except OSError as exc:
            raise ImportFormatError(src.name, 0, f"cannot read: {exc.strerror or exc}") from exc
        if size > MAX_JSON_BYTES:
            raise ImportFormatError(src.name, 1, f"a JSON file of {size} bytes: rt-tests JSON "
                                                 "is far smaller")
        text = "\n".join(line for _n, line in src.lines())
    else:
        text = src.text or ""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(src.name, exc.lineno, f"not valid JSON: {exc.msg}") from exc
    except RecursionError:
        raise ImportFormatError(src.name, 1, "JSON nested too deeply") from None
    except ValueError as exc:  # a number of thousands of digits
        raise ImportFormatError(src.name, 1, f"not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ImportFormatError(src.name, 1, "JSON but not an rt-tests --json file")
    return data


def _int_key(src: Source, key: str) -> int:
    if not re.fullmatch(r"[0-9]{1,9}", key):
        raise ImportFormatError(src.name, 1, f"thread key {key[:20]!r} is not a number")
    return int(key)


def _json_thread(src: Source, tid: int, obj: Any, label: str, nsecs: bool) -> dict[str, Any]:
    """One thread's figures from the JSON: cyclictest's, or a pair program's receiver."""
    if not isinstance(obj, dict):
        raise ImportFormatError(src.name, 1, f"thread {tid} is not an object")
    body = obj if _base(label) == "cyclictest" else obj.get("receiver")
    if not isinstance(body, dict):
        raise ImportFormatError(src.name, 1, f"thread {tid} has no receiver object")
    scale = 1 if nsecs else 1000
    out: dict[str, Any] = {"thread": tid}
    for key, stat in (("min", "min"), ("avg", "mean"), ("max", "max")):
        v = body.get(key)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or abs(v) > 1e15:
            raise ImportFormatError(src.name, 1, f"thread {tid} lacks a numeric {key!r}")
        out[stat] = round(v * scale, 6)
    count = obj.get("cycles") if _base(label) == "cyclictest" else (obj.get("sender") or {}).get(
        "samples") if isinstance(obj.get("sender"), dict) else None
    if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
        out["n"] = count
    hist = obj.get("histogram")
    if _base(label) == "cyclictest" and isinstance(hist, dict) and hist:
        out["_hist"] = _json_hist(src, tid, hist, scale)
    return out


def _json_hist(src: Source, tid: int, hist: dict, scale: int) -> list[list[int]]:
    """One thread's histogram: its non-empty [lo, hi, count] buckets."""
    buckets = []
    for k, v in hist.items():
        idx = _int_key(src, k)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ImportFormatError(src.name, 1, f"thread {tid} histogram bucket {k} count "
                                                 "is not a count")
        if v:
            buckets.append([idx * scale, (idx + 1) * scale, v])
    return buckets
