#!/usr/bin/env python3
"""Import speed of a large cyclictest histogram (issue 5's goal: a 100 MB
`cyclictest -h` output imported in ≤ 5 s with bounded memory).

Generates a histogram in cyclictest's own format (`cyclictest -t T -h N`:
one row per µs bucket, `%06d` index then one `%06lu` count per thread,
tab-separated, then the `# Total:` / `# Min Latencies:` / … summary), of
about --mb megabytes, then imports it the way `rtbench import rt-tests`
reads it (rtbench.importers.rttests.parse, which streams the file) in a
fresh process and reports wall time and that process's peak RSS
(resource.getrusage ru_maxrss). Run twice with different shapes: many
threads (wide rows) and one thread with a very long max (7 M short rows,
the worst case per byte).

    .venv/bin/python scripts/bench-import.py --threads 64 --mb 100
    .venv/bin/python scripts/bench-import.py --threads 1 --mb 100

Not a test: it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def generate(path: Path, threads: int, megabytes: float, seed: int = 1) -> int:
    """Write a cyclictest -h output of about `megabytes` MB; return its bucket count."""
    row_bytes = 7 + 7 * threads  # "%06d" + (" " | "\t") "%06lu" per thread + "\n"
    rows = max(1000, int(megabytes * 1e6 / row_bytes))
    rng = random.Random(seed)
    # A realistic shape: most wake-ups 2..40 µs, a long thin tail to the end.
    hot: list[dict[int, int]] = []
    for _t in range(threads):
        counts: dict[int, int] = {}
        for _ in range(200_000):
            v = int(rng.lognormvariate(2.6, 0.35))
            counts[v] = counts.get(v, 0) + 1
        for _ in range(50):  # the tail
            v = rng.randrange(rows)
            counts[v] = counts.get(v, 0) + 1
        hot.append(counts)
    zero_row = "\t".join(["000000"] * threads)
    with open(path, "w") as fh:
        fh.write("# /dev/cpu_dma_latency set to 0us\n# Histogram\n")
        chunk = []
        for i in range(rows):
            if any(i in c for c in hot):
                row = "\t".join(f"{c.get(i, 0):06d}" for c in hot)
            else:
                row = zero_row
            chunk.append(f"{i:06d} {row}\n")
            if len(chunk) >= 65536:
                fh.write("".join(chunk))
                chunk.clear()
        fh.write("".join(chunk))
        totals = [sum(v for k, v in c.items() if k < rows) for c in hot]
        over = [sum(v for k, v in c.items() if k >= rows) for c in hot]
        mins = [min(c) for c in hot]
        maxs = [max(c) for c in hot]
        avgs = [sum(k * v for k, v in c.items()) // sum(c.values()) for c in hot]
        fh.write("# Total:" + "".join(f" {t:09d}" for t in totals) + "\n")
        fh.write("# Min Latencies:" + "".join(f" {v:05d}" for v in mins) + "\n")
        fh.write("# Avg Latencies:" + "".join(f" {v:05d}" for v in avgs) + "\n")
        fh.write("# Max Latencies:" + "".join(f" {v:05d}" for v in maxs) + "\n")
        fh.write("# Histogram Overflows:" + "".join(f" {v:05d}" for v in over) + "\n")
        fh.write("# Histogram Overflow at cycle number:\n")
        for t in range(threads):
            fh.write(f"# Thread {t}:\n")
    return rows


_CHILD = """
import json, resource, sys, time
from pathlib import Path
t0 = time.perf_counter()
from rtbench.importers import rttests
t1 = time.perf_counter()
r = rttests.parse(Path(sys.argv[1]))
t2 = time.perf_counter()
rec = r.records[0]
print(json.dumps({"parse_s": t2 - t1, "import_module_s": t1 - t0,
                  "rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "buckets": len(rec["hist"]["buckets"]), "n": rec["n"],
                  "p50": rec.get("p50"), "p99": rec.get("p99"), "threads": rec["source"]["threads"]}))
"""

_BASELINE = """
import json, resource
from rtbench.importers import rttests
print(json.dumps({"rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def measure(path: Path) -> dict:
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _CHILD, str(path)], check=True,
                         capture_output=True, text=True).stdout
    wall = time.perf_counter() - start
    base = json.loads(subprocess.run([sys.executable, "-c", _BASELINE], check=True,
                                     capture_output=True, text=True).stdout)
    return json.loads(out) | {"process_wall_s": wall, "baseline_rss_kib": base["rss_kib"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=64)
    ap.add_argument("--mb", type=float, default=100.0)
    ap.add_argument("--keep", type=Path, help="write the file here and keep it")
    ap.add_argument("--generate", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.generate:
        print(generate(args.generate, args.threads, args.mb))
        return 0
    with tempfile.TemporaryDirectory() as d:
        path = args.keep or Path(d) / "cyclictest-h.txt"
        # Generated in a child process, so that the measuring child's ru_maxrss
        # (Linux counts the parent's image at fork) starts from a small parent.
        t = time.perf_counter()
        rows = int(subprocess.run(
            [sys.executable, __file__, "--generate", str(path), "--threads", str(args.threads),
             "--mb", str(args.mb)], check=True, capture_output=True, text=True).stdout)
        gen_s = time.perf_counter() - t
        size = path.stat().st_size
        m = measure(path)
    print(f"file: cyclictest -t {args.threads} -h {rows} format, {size / 1e6:.1f} MB "
          f"({rows} rows), generated in {gen_s:.1f} s")
    print(f"parse (streaming): {m['parse_s']:.2f} s; whole import process "
          f"{m['process_wall_s']:.2f} s (interpreter and imports included)")
    print(f"peak RSS: {m['rss_kib'] / 1024:.1f} MiB (the same process without the file: "
          f"{m['baseline_rss_kib'] / 1024:.1f} MiB)")
    print(f"thread 0: n {m['n']}, {m['buckets']} non-empty buckets, p50 {m['p50']} ns, "
          f"p99 {m['p99']} ns; {m['threads']} threads")
    return 0


if __name__ == "__main__":
    sys.exit(main())
