"""cyclictest's `--json` file read per CPU, for `rtbench qualify`: every
thread's figures and 1 µs histogram (rttests.py reads each thread), the
threads that ran on one CPU merged (min of the minima, max of the maxima,
the mean weighted by the counts, the buckets added).

    cpus = per_cpu(Path("segment.json"))
    cpus[0]  # {"n", "min", "mean", "max", "buckets": [[lo_ns, hi_ns, count]], "threads"}

Figures in ns (cyclictest prints whole µs without -N). Raises
ImportFormatError as rttests does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rtbench.importers import rttests
from rtbench.importers.base import ImportFormatError, source_of


def per_cpu(path: Path) -> dict[int, dict[str, Any]]:
    src = source_of(path, path.name)
    data = rttests._load_json(src)
    threads = data.get("thread")
    if not isinstance(threads, dict) or not threads:
        raise ImportFormatError(src.name, 1, "cyclictest JSON without a thread result")
    nsecs = " -N" in f" {data.get('cmdline:', data.get('cmdline', ''))} "
    out: dict[int, dict[str, Any]] = {}
    for key, obj in threads.items():
        tid = rttests._int_key(src, key)
        one = rttests._json_thread(src, tid, obj, "cyclictest", nsecs)
        cpu = obj.get("cpu")
        if isinstance(cpu, bool) or not isinstance(cpu, int) or cpu < 0:
            raise ImportFormatError(src.name, 1, f"thread {tid} without the CPU it ran on")
        merge(out.setdefault(cpu, empty()), one.get("n", 0), one["min"], one["mean"],
              one["max"], one.get("_hist", []), threads=1)
    return out


def empty() -> dict[str, Any]:
    return {"n": 0, "min": None, "mean": None, "max": None, "buckets": [], "threads": 0}


def merge(into: dict[str, Any], n: int, lo: float | None, mean: float | None,
          hi: float | None, buckets: list[list[int]], threads: int = 0) -> None:
    """Add one thread's (or one segment's) figures to `into`."""
    if n <= 0:
        into["threads"] += threads
        return
    into["mean"] = mean if not into["n"] else (into["mean"] * into["n"] + mean * n) / (into["n"] + n)
    into["n"] += n
    into["min"] = lo if into["min"] is None else min(into["min"], lo)
    into["max"] = hi if into["max"] is None else max(into["max"], hi)
    added = {b[0]: list(b) for b in into["buckets"]}
    for b_lo, b_hi, c in buckets:
        added.setdefault(b_lo, [b_lo, b_hi, 0])[2] += c
    into["buckets"] = sorted(added.values())
    into["threads"] += threads


def percentiles(cpu: dict[str, Any]) -> dict[str, int]:
    """p50, p90, p99, p99.9 (ns) from the buckets; samples beyond them count."""
    pct, _beyond = rttests.percentiles(cpu["buckets"], cpu["n"])
    return pct
