"""LMBench outputs: `rtbench import lmbench FILE…`.

Reads what the `lat_*` / `bw_*` programs print (on stderr) and the results
file `scripts/lmbench` writes (`[key: value]` header lines, then the
programs' outputs one after the other, with quoted headings for the
tables). LMBench prints one figure per measurement (its best or average of
a few repetitions), so every record gives the mean only. Names follow the
catalogue's `lmbench` vendor names:

* labelled lines `<label>: <value> <unit>` (lat_syscall, lat_select,
  lat_sig, lat_proc, lat_pipe, lat_unix, lat_udp, lat_tcp, lat_connect,
  lat_pagefault (`Pagefaults on FILE` -> "Pagefaults"), lat_ops, bw_pipe,
  bw_unix): the label before the colon. microseconds / nanoseconds /
  milliseconds become ns; MB/sec becomes "MB/s", KB/sec "KB/s" (as given).
* lat_ctx: `"size=<K>k ovr=<O>` then `<procs> <µs>` rows ->
  "lat_ctx size=<K>k procs=<N>".
* lat_mem_rd: `"stride=<S>` then `<MiB> <ns>` rows ->
  "lat_mem_rd stride=<S> size=<size>" (size 512, 1k, …, 1m, …).
* bw_mem under the results file's headings ("Memory read bandwidth" = frd,
  "Memory partial read bandwidth" = rd, …, `"libc bcopy unaligned` = bcopy)
  or after a command line (`$ bw_mem 16k rd`): `<MB> <MB/s>` rows ->
  "bw_mem <op> <size>"; bw_file_rd / bw_mmap_rd likewise
  ("bw_file_rd <size> io_only", …), bw_tcp -> "bw_tcp <size>".
* lat_mmap (`"mappings`): `<MB> <µs>` -> "lat_mmap <size>"; lat_fs
  (`"File system latency`): `<size> <files> <creates/s> <deletes/s>` ->
  "lat_fs create <size>" / "lat_fs delete <size>", the mean time per
  file (1 / rate).

A command line on its own line (`$ prog args` or `# prog args`) names the
program of the rows after it. Other console noise (shell messages, RPC
errors) is skipped; a line that looks like a figure but cannot be read is
an error, and so is a table row with no heading.
"""

from __future__ import annotations

import math
import re
import shlex
from typing import Any

from rtbench.importers.base import Figure, ImportFormatError, Source, number

TOOL_KEY = "lmbench"
_TIME_UNITS = {"microseconds": 1000.0, "nanoseconds": 1.0, "milliseconds": 1e6}
_RATE_UNITS = {"MB/sec": "MB/s", "KB/sec": "KB/s", "MB/s": "MB/s"}
_LABELLED = re.compile(r"([^:\[\]]{1,100}):\s+(\S+)\s+(microseconds|nanoseconds|milliseconds|"
                       r"MB/sec|KB/sec|MB/s)")
_HEADER = re.compile(r"\[([^\]:]{1,60})(?::\s*(.*))?\]")
_ROW = re.compile(r"\S+(?:[ \t]+\S+){1,3}")
# The results file's table headings -> (program, parameter) of their rows.
HEADINGS = {
    "Memory read bandwidth": ("bw_mem", "frd"),
    "Memory partial read bandwidth": ("bw_mem", "rd"),
    "Memory write bandwidth": ("bw_mem", "fwr"),
    "Memory partial write bandwidth": ("bw_mem", "wr"),
    "Memory partial read/write bandwidth": ("bw_mem", "rdwr"),
    "Memory bzero bandwidth": ("bw_mem", "bzero"),
    '"libc bcopy unaligned': ("bw_mem", "bcopy"),
    '"libc bcopy aligned': ("bw_mem", "bcopy conflict"),
    '"unrolled bcopy unaligned': ("bw_mem", "fcp"),
    '"unrolled partial bcopy unaligned': ("bw_mem", "cp"),
    '"read bandwidth': ("bw_file_rd", "io_only"),
    '"read open2close bandwidth': ("bw_file_rd", "open2close"),
    '"Mmap read bandwidth': ("bw_mmap_rd", "mmap_only"),
    '"Mmap read open2close bandwidth': ("bw_mmap_rd", "open2close"),
    "Socket bandwidth using localhost": ("bw_tcp", ""),
    '"mappings': ("lat_mmap", ""),
    '"File system latency': ("lat_fs", ""),
}
_TABLE_PROGRAMS = ("bw_mem", "bw_file_rd", "bw_mmap_rd", "bw_tcp", "lat_mmap")
_OPTIONS_WITH_VALUE = {"-P", "-W", "-N", "-M", "-s"}


def read(src: Source) -> tuple[list[Figure], dict[str, Any]]:
    info: dict[str, Any] = {"tool": "lmbench", "format": "text"}
    figures: list[Figure] = []
    section: tuple[str, str] | None = None  # (program, parameter) of the rows that follow
    for n, raw in src.lines():
        line = raw.strip()
        if not line:
            section = None  # LMBench ends every table with an empty line
            continue
        if line in HEADINGS:
            section = HEADINGS[line]
        elif m := re.fullmatch(r'"size=(\d+)k\s+ovr=(\S+)', line):
            section = ("lat_ctx", m.group(1))
            info.setdefault("lat_ctx_overhead_us", {})[m.group(1) + "k"] = _num(
                m.group(2), src, n, "ovr")
        elif m := re.fullmatch(r'"stride=(\d+)', line):
            section = ("lat_mem_rd", m.group(1))
        elif m := re.fullmatch(r"[$#]\s*(\S.*)", line):
            section = _command(m.group(1)) or section
        elif m := _HEADER.fullmatch(line):
            _header(m.group(1), m.group(2) or "", info)
        elif m := _LABELLED.fullmatch(line):
            figures.append(_labelled(src, n, m, info))
        elif section is not None and section[0] != "cmd-unknown" and _ROW.fullmatch(line):
            figures.extend(_row(src, n, line.split(), section, info))
        elif _UNITLESS.fullmatch(line):
            raise ImportFormatError(src.name, n, "a labelled figure without its unit "
                                    f"(microseconds, nanoseconds, milliseconds, MB/sec, KB/sec): "
                                    f"{line[:80]!r}")
        elif _looks_like_figure(line):
            raise ImportFormatError(src.name, n, "a figure that cannot be read"
                                    + ("" if section else " (a table row needs its heading or "
                                       "the command line before it, e.g. `$ bw_mem 16k rd`)")
                                    + f": {line[:80]!r}")
    if not figures:
        raise ImportFormatError(src.name, 1, "no LMBench figure in it (no `label: value unit` "
                                             "line and no table under a known heading)")
    return figures, info


# `Simple read: 0.2`: a labelled number that lost its unit (mangled output)
_UNITLESS = re.compile(r"[A-Za-z][^:\[\]]{0,100}:\s*[-+]?[0-9][0-9.eE+-]*")


def _looks_like_figure(line: str) -> bool:
    """A row of numbers, or a labelled value with one of LMBench's units."""
    words = line.split()
    if 2 <= len(words) <= 4 and all(re.fullmatch(r"[0-9.]+k?", w) for w in words[:2]):
        return True
    return bool(re.search(r":\s*\S+\s+(microseconds|nanoseconds|milliseconds|MB/sec|KB/sec)$",
                          line))


def _num(text: str, src: Source, n: int, what: str) -> float:
    return number(text, src.name, n, what)


def _header(key: str, value: str, info: dict[str, Any]) -> None:
    """The results file's `[KEY: value]` lines that say what ran where."""
    key = key.strip()
    if key.startswith("lmbench") and "results for" in key:
        info["system"] = key
    names = {"LMBENCH VERSION": "version", "LMBENCH_VER": "version", "HOSTNAME": "hostname",
             "RELEASE": "kernel_release", "OS": "os", "MHZ": "mhz", "PROCESSORS": "processors",
             "MACHINE": "machine", "SYSNAME": "sysname"}
    if key in names and value.strip():
        if names[key] == "version" and info.get("version"):
            return
        info[names[key]] = value.strip()[:200]
        host = info.setdefault("host", {})
        for k in ("hostname", "kernel_release", "machine"):
            if k in info:
                host[k] = info[k]
        if "sysname" in info:
            host["os"] = info["sysname"]


def _command(text: str) -> tuple[str, str] | None:
    """The section a command line opens (bw_mem / bw_file_rd / … rows)."""
    try:
        argv = shlex.split(text)
    except ValueError:
        return None
    if not argv:
        return None
    prog = argv[0].rsplit("/", 1)[-1]
    if prog not in _TABLE_PROGRAMS:
        return ("cmd-unknown", prog) if prog.startswith(("bw_", "lat_")) else None
    args, skip = [], False
    for a in argv[1:]:
        if skip:
            skip = False
        elif a in _OPTIONS_WITH_VALUE:
            skip = True
        elif not a.startswith("-"):
            args.append(a)
    if prog == "bw_mem":
        return (prog, " ".join(args[1:3])) if len(args) >= 2 else None
    if prog in ("bw_file_rd", "bw_mmap_rd"):
        return (prog, args[1]) if len(args) >= 2 else None
    return (prog, "")


def _labelled(src: Source, n: int, m: re.Match, info: dict[str, Any]) -> Figure:
    label, value, unit = m.group(1).strip(), _num(m.group(2), src, n, m.group(1)), m.group(3)
    source = _source(src, n, "lmbench", info)
    if label.startswith("Pagefaults on "):
        source["target"] = label[len("Pagefaults on "):]
        label = "Pagefaults"
    if unit in _TIME_UNITS:
        return Figure(TOOL_KEY, label, {"mean": round(value * _TIME_UNITS[unit], 6)}, source)
    return Figure(TOOL_KEY, label, {"mean": value}, source, unit=_RATE_UNITS[unit])


def _source(src: Source, n: int, program: str, info: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"tool": f"lmbench {program}" if program != "lmbench" else "lmbench",
                           "file": src.name, "line": n}
    if info.get("version"):
        out["version"] = info["version"]
    return out


def _row(src: Source, n: int, words: list[str], section: tuple[str, str],
         info: dict[str, Any]) -> list[Figure]:
    prog, param = section
    if prog == "lat_fs":
        return _lat_fs(src, n, words, info)
    if prog == "bw_tcp" and len(words) == 3 and words[2] == "MB/sec":
        words = words[:2]
    if len(words) != 2:
        raise ImportFormatError(src.name, n, f"a {prog} row has two numbers, this one "
                                f"{len(words)} fields: {' '.join(words)[:80]!r}")
    x, y = _num(words[0], src, n, "size"), _num(words[1], src, n, "figure")
    source = _source(src, n, prog, info)
    if prog == "lat_ctx":
        procs = int(x)
        if procs != x or procs < 1:
            raise ImportFormatError(src.name, n, f"lat_ctx process count {words[0]!r}")
        source["overhead_us"] = (info.get("lat_ctx_overhead_us") or {}).get(param + "k")
        return [Figure(TOOL_KEY, f"lat_ctx size={param}k procs={procs}", {"mean": round(y * 1000, 6)},
                       source)]
    if prog == "lat_mem_rd":
        size = _size(x * 1048576, src, n, snap=512)  # lat_mem_rd prints MiB
        return [Figure(TOOL_KEY, f"lat_mem_rd stride={param} size={size}", {"mean": y},
                       source)]
    size = _size(x * 1e6, src, n)  # bw_* and lat_mmap print MB (10^6 bytes)
    if prog == "lat_mmap":
        return [Figure(TOOL_KEY, f"lat_mmap {size}", {"mean": round(y * 1000, 6)}, source)]
    label = {"bw_mem": f"bw_mem {param} {size}", "bw_tcp": f"bw_tcp {size}"}.get(
        prog, f"{prog} {size} {param}")
    return [Figure(TOOL_KEY, label, {"mean": y}, source, unit="MB/s")]


def _lat_fs(src: Source, n: int, words: list[str], info: dict[str, Any]) -> list[Figure]:
    if len(words) != 4 or not re.fullmatch(r"[0-9]{1,9}k", words[0]):
        raise ImportFormatError(src.name, n, "a lat_fs row is `<size>k <files> <creates/s> "
                                f"<deletes/s>`: {' '.join(words)[:80]!r}")
    files = _num(words[1], src, n, "files")
    out = []
    for op, text in (("create", words[2]), ("delete", words[3])):
        rate = _num(text, src, n, f"{op}s per second")
        if rate <= 0:
            raise ImportFormatError(src.name, n, f"lat_fs {op} rate {text!r} is not positive")
        source = _source(src, n, "lat_fs", info) | {"files": files, "per_second": rate}
        out.append(Figure(TOOL_KEY, f"lat_fs {op} {words[0]}", {"mean": round(1e9 / rate, 3)}, source,
                          note="mean time per file = 1 / the files per second LMBench printed"))
    return out


def _size(nbytes: float, src: Source, n: int, snap: int = 0) -> str:
    """LMBench's size names: 512, 1k, …, 512k, 1m, 2m, … (k = 1024)."""
    if not (0 < nbytes < 1e15):
        raise ImportFormatError(src.name, n, f"size {nbytes:g} bytes is out of range")
    if snap:
        nbytes = max(snap, round(nbytes / snap) * snap)
    power = 2 ** round(math.log2(nbytes))
    if abs(nbytes - power) <= 0.01 * power:  # printed with 2-6 decimals of MB
        nbytes = power
    for unit, scale in (("m", 1048576), ("k", 1024)):
        if nbytes >= scale and abs(nbytes / scale - round(nbytes / scale)) * scale <= 0.01 * nbytes:
            return f"{round(nbytes / scale)}{unit}"
    return str(int(round(nbytes)))
