#!/usr/bin/env python3
"""How still the figures hold: N back-to-back `rtbench run`s (default five,
the default run), then the spread of each headline median across them and
`rtbench compare` of the first two runs. A benchmark to run and report, not
a test (it takes N full runs).

usage: .venv/bin/python scripts/five-runs.py [--runs N] [--keep DIR] [-- RUN OPTIONS…]

The headline rows are the first page's key figures (the catalogue's
[[first_page]] groups) that the runs measured. For each: every run's
median, the middle of the range and the half-range as ± % of it (the goal
of issue 13: within ±5 %), then compare's verdict of run 2 against run 1
and its exit code under --fail-on-regression.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RTBENCH = ROOT / ".venv" / "bin" / "rtbench"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep", type=Path, help="keep the database and sheets here")
    ap.add_argument("--rtbench", type=Path, default=RTBENCH,
                    help="the rtbench to run (another checkout's, for a before/after)")
    ap.add_argument("run_args", nargs="*", help="options for every rtbench run (after --)")
    a = ap.parse_args()
    work = a.keep or Path(tempfile.mkdtemp(prefix="rtbench-five-"))
    work.mkdir(parents=True, exist_ok=True)
    db = work / "runs.db"
    walls = []
    for i in range(1, a.runs + 1):
        t0 = time.monotonic()
        cmd = [str(a.rtbench), "run", "--db", str(db), "--out", str(work / f"run{i}"),
               "--label", f"five-runs {i}", *a.run_args]
        print(f"run {i}/{a.runs}: {' '.join(cmd[1:])}", flush=True)
        rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True).returncode
        walls.append(time.monotonic() - t0)
        if rc != 0:
            print(f"  exit {rc}", file=sys.stderr)
            return rc
    report(db, a.runs, walls)
    cmp = subprocess.run([str(a.rtbench), "compare", "--db", str(db), "1", "2",
                          "--fail-on-regression", "--format", "text"],
                         capture_output=True, text=True)
    summary = [ln for ln in (cmp.stdout + cmp.stderr).splitlines()
               if ln.startswith(("Summary", "rtbench: regression"))]
    print("\nrtbench compare 1 2 --fail-on-regression:")
    for ln in summary:
        print("  " + ln)
    print(f"  exit {cmp.returncode}")
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def report(db: Path, runs: int, walls: list[float]) -> None:
    sys.path.insert(0, str(ROOT / "src"))
    from rtbench.store import catalog
    from rtbench.store.db import Store
    from rtbench.store.records import MetricRecord

    cat = catalog.load()
    with Store(db) as store:
        stored = [store.get_run(i) for i in range(1, runs + 1)]
    print(f"\n{runs} runs, wall time {', '.join(f'{w:.0f}' for w in walls)} s")
    print(f"{'row':<34} " + " ".join(f"{'run ' + str(i):>9}" for i in range(1, runs + 1))
          + f" {'middle':>9} {'±':>7}")
    worst = 0.0
    for group, ids in cat.first_page:
        print(f"[{group}]")
        for mid in ids:
            meds = []
            for run in stored:
                rec = next((r for r in run.metrics if r["id"] == mid
                            and r.get("profile", "rt") == "rt"), None)
                m = MetricRecord(rec) if rec else None
                meds.append(m.ns("p50") if m and m.ok and m.is_time and m.has("p50") else None)
            if any(v is None for v in meds):
                print(f"  {mid:<32} " + " ".join(f"{'—' if v is None else f'{v:.0f}':>9}"
                                                  for v in meds))
                continue
            lo, hi = min(meds), max(meds)
            mid_v = (lo + hi) / 2
            pm = 100 * (hi - lo) / 2 / mid_v if mid_v > 0 else 0.0
            worst = max(worst, pm)
            print(f"  {mid:<32} " + " ".join(f"{v:>9.1f}" for v in meds)
                  + f" {mid_v:>9.1f} {pm:>6.1f}%")
    print(f"(ns; ± = half the range of the {runs} medians over its middle; largest ±{worst:.1f} %)")
    print(json.dumps({"largest_pm_pct": round(worst, 2)}))


if __name__ == "__main__":
    sys.exit(main())
