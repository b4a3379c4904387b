"""Importers: other benchmark tools' outputs as rtbench runs
(`rtbench import KIND FILE…`, docs/reports.md "Importing").

Each kind has a module whose `read(Source, …)` returns the figures of one
file (rtbench.importers.base.Figure) and what the file says about itself;
`read_files` maps them onto the catalogue by its vendor names (the kind's
key: `zephyr`, `rttests`, `lmbench`) and builds the records of one run,
following docs/records.md, "Records from other sources" (rttests_cpus.py
reads cyclictest's JSON per CPU for `rtbench qualify`). Every reader
raises ImportFormatError ("FILE:LINE: reason") and nothing else for a file
it cannot read; command.py stores what was read as a run.

Kinds: `zephyr` (latency_measure console output), `rt-tests` (cyclictest,
ptsematest, pmqtest, svsematest, sigwaittest; see rtbench.importers.rttests,
which the rt-tests peer uses directly), `lmbench` (lat_*/bw_* outputs and
results files), `rtos-benchmark` (its console output; the rtos-benchmark
peer reads it too), `rtbench` (a results.json, read back beside its writer
in rtbench.sheets.export, not here) and `harness` (the harness's own JSON
lines captured from a board's console: rtbench.importers.harness_log).

A new tool's outputs: a module with `read`, its vendor names in the
catalogue, its kind in KINDS.

May import: rtbench.store, rtbench.errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtbench.importers.base import Figure, ImportFormatError, Source, check_unique, map_figures
from rtbench.store.catalog import Catalog
from rtbench.store import contract
from rtbench.store.records import STATS

KINDS = ("zephyr", "rt-tests", "lmbench", "rtos-benchmark", "rtbench", "harness")
TOOLS = {"zephyr": "zephyr latency_measure", "rt-tests": "rt-tests", "lmbench": "lmbench",
         "rtos-benchmark": "rtos-benchmark"}

# Every origin a stored run can have (store/db.py Run.origin), the one list
# the sheets ask: whether its figures are another program's word (True) or
# rtbench's harness's (measured here, a results.json import, a board's
# console log). The foreign kinds are the tools above; a peer's linked run
# (peers/linked.py) is another program's too.
FOREIGN = tuple(TOOLS)
ORIGINS: dict[str, bool] = {"measured": False, "rtbench": False, "harness": False,
                            "peer": True, **{kind: True for kind in FOREIGN}}


def other_program(origin: str) -> bool:
    """Whether a run of `origin` holds figures another program printed."""
    return ORIGINS.get(origin, False)


def unfinished_note() -> str:
    """What a sheet says of an import whose output never said it finished
    (`execution_successful` false: only latency_measure's output says)."""
    from rtbench.importers import zephyr

    return zephyr.UNFINISHED


__all__ = ["FOREIGN", "KINDS", "ORIGINS", "Imported", "ImportFormatError", "other_program", "unfinished_note",
           "read_files"]


@dataclass
class Imported:
    """One run's worth of records read from files of one kind."""

    kind: str
    records: list[dict[str, Any]]
    session: dict[str, Any]  # {"type": "session", "origin": "import", "source": {...}}
    host: dict[str, Any]
    started: str | None  # when the source says it ran, else None

    @property
    def unmapped(self) -> list[dict[str, Any]]:
        return [r for r in self.records if r.get("mapped") is False]


def read_files(kind: str, paths: list[Path], catalog: Catalog,
               program: str | None = None) -> Imported:
    """Read every file of `kind` into one run's records (nothing is stored)."""
    from rtbench.importers import lmbench, rtosbench, rttests, zephyr

    figures: list[Figure] = []
    files: list[dict[str, Any]] = []
    fallback: dict[str, str] = {}
    for path in paths:
        src = Source(str(path), path=path)
        if kind == "zephyr":
            figs, info = zephyr.read(src)
        elif kind == "rt-tests":
            fig, info = rttests.read(src, program)
            figs, fallback = [fig], rttests.FALLBACK
        elif kind == "lmbench":
            figs, info = lmbench.read(src)
        elif kind == "rtos-benchmark":
            figs, info = rtosbench.read(src)
        else:
            raise ValueError(kind)
        figures.extend(figs)
        files.append({"file": str(path), **info})
    check_unique(figures)
    records = map_figures(figures, catalog, fallback)
    for rec in records:  # NaN, infinities, 1e308, negative times: not figures
        problem = contract.problem(rec)
        if problem:
            src = rec.get("source") or {}
            raise ImportFormatError(src.get("file", "?"), src.get("line", 0),
                                    f"{src.get('label', rec['id'])}: {problem}")
    given = [s for s in STATS if any(s in r.get("stats_given", ()) for r in records)]
    source = {"kind": kind, "tool": TOOLS[kind], "files": files, "stats_given": given}
    for key in ("version", "board", "execution_successful", "unit", "iterations", "kernel",
                "build", "empty_window", "capabilities", "asserts", "complete"):
        values = [f[key] for f in files if f.get(key) is not None]
        if values:
            source[key] = values[0]
    session = {"type": "session", "origin": "import", "source": source}
    if kind == "rt-tests":  # real-time or not: what the outputs say, else unknown
        session["rt"] = _realtime([f.get("rt") or {} for f in files])
    host = _host(kind, files)
    why = contract.problem(session) or contract.host_problem(host)  # what the files say
    if why:
        raise ImportFormatError(str(paths[0]), 0, why)
    return Imported(kind, records, session, host, _started(files))


def _realtime(rts: list[dict[str, Any]]) -> dict[str, Any]:
    """The session's `rt` of an rt-tests import: the files' word when they
    agree ({"realtime": true, "policy": …, "reason": how it is known}), else
    no `realtime` (unknown) and the reason."""
    said = {r.get("realtime") for r in rts}
    if len(said) == 1:
        return rts[0]
    return {"reason": "the files differ: " + "; ".join(
        f"{'yes' if r.get('realtime') else 'unknown' if r.get('realtime') is None else 'no'}"
        f" ({r.get('reason', '')})" for r in rts)}


def _host(kind: str, files: list[dict[str, Any]]) -> dict[str, Any]:
    """What the files say about the machine they ran on (never this one's)."""
    if kind == "zephyr":
        f = next((f for f in files if f.get("version") or f.get("board")), {})
        host = {"os": "Zephyr"}
        if f.get("version"):
            host["kernel_release"] = f["version"]
        if f.get("board"):
            host["cpu_model"] = f"board {f['board']}"
        return host
    if kind == "rt-tests":
        sysinfo = next((f["host"] for f in files if f.get("host")), {})
        host = {"os": sysinfo["sysname"] if isinstance(sysinfo.get("sysname"), str) else "Linux"}
        for key, theirs in (("kernel_release", "release"), ("kernel_version", "version"),
                            ("machine", "machine"), ("hostname", "nodename")):
            if isinstance(sysinfo.get(theirs), str):
                host[key] = sysinfo[theirs]
        return host
    if kind == "rtos-benchmark":  # what rtbench's AN385 build says (rtbench-shim lines)
        f = next((f for f in files if f.get("kernel")), {})
        host: dict[str, Any] = {}
        if f.get("kernel"):
            host["os"], _, host["kernel_version"] = f["kernel"].partition(" ")
        if " on " in f.get("build", ""):
            host["cpu_model"] = f["build"].split(" on ", 1)[1].split(", built by")[0]
        return host
    f = next((f for f in files if f.get("host")), {})
    return dict(f.get("host") or {})


def _started(files: list[dict[str, Any]]) -> str | None:
    """When the first file that says so ran (rt-tests JSON: RFC 2822), ISO 8601 UTC."""
    from datetime import timezone
    from email.utils import parsedate_to_datetime

    for f in files:
        if isinstance(f.get("started"), str):
            try:
                when = parsedate_to_datetime(f["started"])
            except (TypeError, ValueError, IndexError):
                continue
            if when.tzinfo is not None:
                return when.astimezone(timezone.utc).isoformat(timespec="seconds")
    return None
