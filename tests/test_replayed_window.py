"""A row that replays events another row recorded states the window those
events happened in, never the replay's microseconds (issue: derived rows
stated impossible windows, "max of 10,000 samples in 351 µs" for a median of
11 µs). The POSIX port's xsig.* rows: the first row of a kind measures the
cross-CPU signal events, the next rows of that kind read other instants of
the same events (xsig.c)."""

import json
import os
import subprocess

import pytest


def test_a_replayed_rows_window_holds_its_samples(real_exe):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("the cross-CPU signal rows need two CPUs")
    listed = subprocess.run([str(real_exe), "--list"], capture_output=True, text=True,
                            timeout=60, check=True)
    registry = [r for r in map(json.loads, listed.stdout.splitlines())
                if r.get("type") == "registry"]
    ids = [r["id"] for r in registry if r["id"].startswith("xsig.") and r["supported"]]
    out = subprocess.run([str(real_exe), "--only", ",".join(ids), "--samples", "500",
                          "--no-rt"], capture_output=True, text=True, timeout=300)
    recs = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    rows = [r for r in recs if r.get("type") == "metric" and r["status"] == "ok"]
    replayed = [r for r in rows if r["note"].startswith("the same events")]
    assert replayed, [r["id"] for r in rows]
    for r in rows:
        # the events follow one another: their window is at least the sum of
        # the samples (each net of its stamps' cost, so a little less than raw)
        assert r["elapsed_ticks"] >= r["n"] * r["mean"], (r["id"], r["elapsed_ticks"])
