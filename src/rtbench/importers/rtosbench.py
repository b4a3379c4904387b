"""rtos-benchmark console output (zephyrproject-rtos/rtos-benchmark,
`bench_all`): `rtbench import rtos-benchmark FILE…`, and the reader
`rtbench run --with-peers` uses on a board target (rtbench.peers.rtosbench).

    from rtbench.importers import rtosbench
    result = rtosbench.parse(Path("console.txt"))          # a file
    result = rtosbench.parse(uart_text, name="rtos-benchmark console")
    result.records   # metric records (docs/records.md, "Records from other sources")
    result.info      # tool, unit, iterations, kernel, board, empty_window, complete, ...

What rtos-benchmark prints (src/common/bench_utils.c):

    ** Thread stats [avg, min, max] in nanoseconds **
     Spawn (no context switch)               :   1174,   1169,   1203
     Create (no context switch)              :    n/a,    n/a,    n/a

A title per test names the statistics in brackets and the unit; each row
gives those statistics as integers, or `n/a` for all of them where a
capability switch of the port (RTOS_HAS_*) is off. Nothing else: no
median, no percentile, no sample count. So a record gives exactly the
bracket's statistics (avg -> `mean`, `min`, `max`), `n` only where the
build says how many iterations it ran, and an n/a row is an `unsupported`
record. Lines end in "\\n\\r" (its PRINTF convention); the "\\r" is dropped.

The name of a figure is `<title> / <row>` with runs of blanks made one
(`Thread stats / Spawn (no context switch)`; rtos-benchmark pads some row
names with two blanks): the catalogue's `rtosbench` vendor names, else kept
as `rtosbench:<name>` (importers.base.map_figures). Two of its tests share
the title "Semaphore stats"; their rows differ, so the names are unique.

Units. rtos-benchmark converts every figure with bench_timing_cycles_to_ns()
and titles it "nanoseconds": that is its own output's unit, read as ns. The
AN385 builds rtbench makes (harness/peers/rtos-benchmark, its FreeRTOS and
Zephyr ports) frame the output with `rtbench-shim KEY: VALUE` lines, and
the `unit:` line says what that conversion really returns there:
`instructions` (the FreeRTOS build: QEMU -icount; a count, no tick_hz, as
the harness's own records on that board), `cycles` (with `counter_hz:`), or
`ns` (the Zephyr build: Zephyr's own conversion, nanoseconds of QEMU's
virtual clock). ns with an `icount_shift:` line are instructions × 2^shift
(under -icount shift N a guest instruction is 2^N ns), so the records carry
figure ÷ 2^N instructions, fractions kept, as latency_measure's cycles are
converted (rtbench.peers.latency_measure); without that line they stay ns.
Its `iterations:` line gives `n`, its `empty_window:` line what an empty
window reads (rtos-benchmark subtracts nothing; in the records' unit), and
`kernel:`, `build:`, `capabilities:`, `asserts:`, `fatal:` and `done:` are
kept in the file's info.

`*** Done! ***` (bench_all's last line) marks the output complete. An
output that stops before it (the image faulted in a test) keeps the rows it
has, and the info's `stopped_in` names the test whose title came last
without rows: the one that was running.
Anything else on the console (a boot banner, `*** Starting! ***`) is
skipped, but a line that looks like a result row (a name, a colon, three
comma-separated fields) and cannot be read is an error, as is a row before
any title, a title with a statistic or unit this reader does not know, and
a shim line whose value is not what its key needs: `FILE:LINE: reason`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtbench.importers.base import (Figure, ImportFormatError, Source, check_unique, integer,
                                    map_figures, source_of)
from rtbench.store import catalog as catalog_mod
from rtbench.store.catalog import Catalog

TOOL = "rtos-benchmark"
TOOL_KEY = "rtosbench"
STATS = {"avg": "mean", "min": "min", "max": "max"}  # its bracket's names -> ours
NA_REASON = ("rtos-benchmark printed n/a: the port's capability switch for it "
             "(RTOS_HAS_*) is off")

_SHIM = re.compile(r"rtbench-shim\s+([a-z_]+)\s*:\s*(.*)")
_BLANKS = re.compile(r"\s+")
_SHIM_INTS = ("iterations", "counter_hz", "icount_shift", "empty_window", "done")
_SHIM_UNITS = ("instructions", "cycles", "ns")


@dataclass
class Result:
    records: list[dict[str, Any]]
    info: dict[str, Any] = field(default_factory=dict)


def parse(path_or_text: Path | str, name: str | None = None,
          catalog: Catalog | None = None) -> Result:
    """Read one rtos-benchmark output (see the module docstring)."""
    src = source_of(path_or_text, name)
    figures, info = read(src)
    check_unique(figures)
    return Result(map_figures(figures, catalog or catalog_mod.load()), info)


@dataclass
class _Section:
    title: str
    stats: list[str]  # ours, in the order printed
    line: int


def read(src: Source) -> tuple[list[Figure], dict[str, Any]]:
    """The figures in one output and what the output says about itself."""
    info: dict[str, Any] = {"tool": TOOL, "format": "console", "complete": False}
    rows: list[tuple[int, _Section, str, list[str]]] = []
    section: _Section | None = None
    for n, raw in src.lines():
        raw = raw.lstrip("\r")
        line = raw.strip(" \t\r")
        if not line:
            continue
        if m := _SHIM.fullmatch(line):
            _shim(src, n, m.group(1), m.group(2).strip(), info)
        elif (title := _title(line)) is not None:
            section = _section(src, n, *title)
        elif line.strip("* ") == "Done!":
            info["complete"] = True
        elif (row := _row(line)) is not None:
            if section is None:
                raise ImportFormatError(src.name, n, "a result row before any `** <test> "
                                        f"[avg, min, max] in <unit> **` title: {line[:80]!r}")
            rows.append((n, section, *row))
        elif raw[:1] in (" ", "\t") and "," in line.partition(":")[2]:  # its rows start so
            raise ImportFormatError(src.name, n, "an rtos-benchmark result line that cannot be "
                                    f"read (want ` <name> : a, b, c`): {line[:80]!r}")
    if not rows:
        raise ImportFormatError(src.name, 1, "no rtos-benchmark result in it (no `** <test> "
                                             "[avg, min, max] in <unit> **` title with rows)")
    if not info["complete"] and section is not None and rows[-1][1] is not section:
        info["stopped_in"] = section.title
    unit, tick_hz, per_unit = _unit(src, info)
    if per_unit != 1 and "empty_window" in info:
        info["empty_window"] = info["empty_window"] / per_unit
    return [_figure(src, n, sec, name, values, unit, tick_hz, per_unit, info)
            for n, sec, name, values in rows], info


def _title(line: str) -> tuple[str, str, str] | None:
    """`** <title> [<stats>] in <unit> **` as (title, stats, unit), else None.
    (Split by hand, not by a backtracking pattern: lines may be 64 KiB.)"""
    if not (line.startswith("**") and line.endswith("**") and len(line) > 4):
        return None
    inner = line[2:-2]
    title, bra, rest = inner.partition("[")
    stats, ket, tail = rest.partition("]")
    word, _, unit = tail.strip().partition(" ")
    if not (bra and ket and title.strip() and word == "in" and unit.strip()):
        return None
    return _BLANKS.sub(" ", title.strip()), stats, unit.strip()


def _row(line: str) -> tuple[str, list[str]] | None:
    """` <name> : a, b, c` as (name with blanks made one, [a, b, c]), else None."""
    name, colon, rest = line.partition(":")
    fields = rest.split(",")
    if not (colon and name.strip() and len(fields) == 3 and ":" not in rest):
        return None
    return _BLANKS.sub(" ", name.strip()), [f.strip() for f in fields]


def _section(src: Source, n: int, title: str, stats: str, unit: str) -> _Section:
    names = [s.strip() for s in stats.split(",")]
    bad = [s for s in names if s not in STATS]
    if bad or len(set(names)) != len(names):
        raise ImportFormatError(src.name, n, f"a title whose statistics are not "
                                f"{', '.join(STATS)} each at most once: [{stats[:40]}]")
    if len(names) != 3:
        raise ImportFormatError(src.name, n, f"a title with {len(names)} statistics; "
                                "rtos-benchmark prints three per row")
    if unit != "nanoseconds":
        raise ImportFormatError(src.name, n, f"unknown unit {unit[:20]!r} in a title "
                                "(rtos-benchmark prints nanoseconds)")
    return _Section(title, [STATS[s] for s in names], n)


def _shim(src: Source, n: int, key: str, value: str, info: dict[str, Any]) -> None:
    """An `rtbench-shim KEY: VALUE` line of rtbench's AN385 build."""
    if key in _SHIM_INTS:
        info[key] = integer(value, src.name, n, f"rtbench-shim {key}")
    elif key == "unit":
        if value not in _SHIM_UNITS:
            raise ImportFormatError(src.name, n, f"rtbench-shim unit {value[:20]!r}: one of "
                                    f"{', '.join(_SHIM_UNITS)}")
        info["unit"] = value
    elif key == "kernel":
        info["kernel"] = value[:80]
    elif key in ("build", "counter", "capabilities", "asserts", "assert", "fatal"):
        info[key] = value[:300]
    # another key: a newer shim's, not needed to read the figures


def _unit(src: Source, info: dict[str, Any]) -> tuple[str, int | None, int]:
    """(record unit, tick_hz, printed units per record unit): the shim's
    unit, else rtos-benchmark's ns."""
    unit = info.get("unit")
    if unit == "instructions":
        return "instructions", None, 1
    if unit == "cycles":
        if not info.get("counter_hz"):
            raise ImportFormatError(src.name, 0, "rtbench-shim unit cycles without a "
                                    "counter_hz line: the cycles' frequency is unknown")
        return "cycles", info["counter_hz"], 1
    if unit == "ns" and info.get("icount_shift") is not None:
        if not 0 <= info["icount_shift"] <= 10:  # QEMU's own bound on the shift
            raise ImportFormatError(src.name, 0, f"rtbench-shim icount_shift "
                                    f"{info['icount_shift']}: QEMU takes 0 to 10")
        return "instructions", None, 2 ** info["icount_shift"]  # ns of virtual time
    return "ticks", None, 1  # ns: base.record adds tick_hz 1e9


def _figure(src: Source, n: int, sec: _Section, name: str, values: list[str], unit: str,
            tick_hz: int | None, per_unit: int, info: dict[str, Any]) -> Figure:
    label = f"{sec.title} / {name}"
    source = {"tool": TOOL, "file": src.name, "line": n}
    if info.get("kernel"):
        source["kernel"] = info["kernel"]
    extra: dict[str, Any] = {"tick_hz": tick_hz} if tick_hz else {}
    if all(v == "n/a" for v in values):
        return Figure(TOOL_KEY, label, {}, source, unit=unit, note="",
                      extra={**extra, "status": "unsupported", "reason": NA_REASON})
    if "n/a" in values:
        raise ImportFormatError(src.name, n, f"{name!r}: n/a for some statistics only")
    stats = {k: integer(v, src.name, n, f"{name!r} {k}") for k, v in zip(sec.stats, values)}
    note = "rtos-benchmark prints average, minimum and maximum only"
    if unit == "ticks":
        note += " (ns)"
    if per_unit != 1:
        source["ns"] = dict(stats)  # as printed
        stats = {k: v / per_unit for k, v in stats.items()}
        note += (f" (ns of QEMU's virtual clock, {per_unit} per instruction under -icount "
                 f"shift {info['icount_shift']})")
    if "empty_window" in info:
        note += (f"; nothing subtracted: an empty window reads {info['empty_window']:.10g} "
                 f"{unit if unit != 'ticks' else 'ns'} in this build")
    return Figure(TOOL_KEY, label, stats, source, unit=unit, n=info.get("iterations"), note=note,
                  extra=extra)
