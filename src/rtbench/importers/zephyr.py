"""Zephyr `latency_measure` console output (tests/benchmarks/latency_measure):
`rtbench import zephyr FILE…`.

A result line is `<id> - <description> : <N> cycles , <M> ns :`; Zephyr
prints the average of its iterations, so each record gives the mean only
(in ns, the figure Zephyr converted; the cycles are kept in
`source.cycles`). The ids map onto the catalogue by its `zephyr` vendor
names. Several ids map to one metric (the k_to_k / u_to_u / k_to_u / u_to_k
and kernel / user variants): the one listed first in the catalogue (the
kernel-to-kernel one, which is what rtbench measures) is stored under the
metric, the others are kept as `zephyr:<id>` with `variant_of`
(importers.base.map_figures). Unknown ids are kept as `zephyr:<id>`.

Around the results: `*** Booting Zephyr OS build <version> … ***` (the
version; nRF Connect SDK's `*** Using Zephyr OS <version> ***` too), a
`Board: <name>` line or `… on <board>` in the boot banner when present,
`Timing results: Clock frequency: <N> MHz`, and `PROJECT EXECUTION
SUCCESSFUL`, recorded in the file's info. Anything else on the console is
noise and skipped, except a line that looks like a result (it names cycles
and ns) but cannot be read: that is an error.
"""

from __future__ import annotations

import re
from typing import Any

from rtbench.importers.base import Figure, ImportFormatError, Source, integer

TOOL = "zephyr latency_measure"
TOOL_KEY = "zephyr"
# What a sheet says of an output that never reached its end (sheets/configuration.py)
UNFINISHED = ("**The output never says PROJECT EXECUTION SUCCESSFUL:** the Zephyr run may have "
              "stopped early.")

_RESULT = re.compile(r"([A-Za-z0-9_.+\-]+)\s+-\s+(.*?)\s*:\s*([0-9]+)\s*cycles\s*,\s*"
                     r"([0-9]+)\s*ns\s*:?")
# A result line, whole or mangled (`id - description : 329 cycles , 27`,
# `… : lots cycles , 3 ns`): " - ", then cycles and ns, or a count of cycles.
_LOOKS_LIKE = re.compile(r"\s-\s.*(\bcycles\b.*\bns\b|:\s*[0-9]+\s*cycles\b)")
_BOOT = re.compile(r"\*\*\*\s*Booting Zephyr OS build\s+(\S+)(.*?)\*\*\*")
_USING = re.compile(r"\*\*\*\s*Using Zephyr OS\s+(\S+).*?\*\*\*")
_BOARD = re.compile(r"(?:Board|BOARD|board)\s*[:=]\s*(\S+)")
_ON_BOARD = re.compile(r"\bon\s+([A-Za-z0-9_@/\-]+)")
_CLOCK = re.compile(r"Clock frequency:\s*([0-9]+)\s*MHz")
_ERROR = re.compile(r"\bError:\s*(.*)")


def read(src: Source) -> tuple[list[Figure], dict[str, Any]]:
    figures: list[Figure] = []
    info: dict[str, Any] = {"tool": TOOL, "format": "console", "execution_successful": False}
    errors: list[str] = []
    for n, raw in src.lines():
        line = raw.strip()
        m = _RESULT.fullmatch(line)
        if m:
            zid, desc = m.group(1), m.group(2)
            cycles = integer(m.group(3), src.name, n, "cycles")
            ns = integer(m.group(4), src.name, n, "ns")
            source = {"tool": TOOL, "file": src.name, "line": n, "description": desc,
                      "cycles": cycles}
            if info.get("version"):
                source["version"] = info["version"]
            figures.append(Figure(TOOL_KEY, zid, {"mean": ns}, source,
                                  note="Zephyr prints the average only"))
        elif _LOOKS_LIKE.search(line):
            raise ImportFormatError(src.name, n, "a latency_measure result line that cannot be "
                                    f"read (want `id - description : N cycles , M ns :`): "
                                    f"{line[:80]!r}")
        else:
            _context(line, info, errors)
    if not figures:
        raise ImportFormatError(src.name, 1, "no latency_measure result line "
                                             "(`id - description : N cycles , M ns :`)")
    if errors:
        info["errors"] = errors[:20]
    return figures, info


def _context(line: str, info: dict[str, Any], errors: list[str]) -> None:
    """Facts about the board and build from a line that is not a result."""
    if "PROJECT EXECUTION SUCCESSFUL" in line:
        info["execution_successful"] = True
    elif m := _BOOT.search(line):
        info.setdefault("version", m.group(1))
        if (b := _ON_BOARD.search(m.group(2))) and "board" not in info:
            info["board"] = b.group(1)
    elif m := _USING.search(line):
        info["version"] = m.group(1)  # the Zephyr version under an SDK banner
    elif m := _CLOCK.search(line):
        info["clock_mhz"] = int(m.group(1)) if len(m.group(1)) < 12 else None
    elif (m := _BOARD.match(line)) and "board" not in info:
        info["board"] = m.group(1)
    elif m := _ERROR.search(line):
        errors.append(m.group(1)[:120])
