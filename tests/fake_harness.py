#!/usr/bin/env python3
"""A stand-in for rtbench-harness that speaks docs/records.md (schema 1).

It measures nothing: it prints plausible records so the runner's watchdog,
crash handling, restarts and Ctrl-C handling can be tested deterministically.

Knobs (environment):
  FAKE_HARNESS_DELAY        seconds to sleep inside every metric (default 0)
  FAKE_HARNESS_UNSUPPORTED  comma-separated ids reported as unsupported
  FAKE_HARNESS_IDS          comma-separated registry (default: the catalogue)
  FAKE_HARNESS_LOG          append one JSON line with argv per invocation
  FAKE_HARNESS_EXIT_EARLY   exit with this code right after the session record
  FAKE_HARNESS_STALL        seconds to sleep before the session record
  FAKE_HARNESS_SPANS        append "start end" (CLOCK_MONOTONIC, s) per measuring run
  FAKE_HARNESS_BAD          ID:JSON: metric ID's record with the fields of the JSON
                            object put in (a board that prints bad records)
  FAKE_HARNESS_ENDLESS      ID:MIB: when metric ID begins, print MIB MiB without a line
                            end, then hang (a console that never prints a newline)
"""

import json
import os
import signal
import sys
import time
from pathlib import Path

CATALOG = Path(__file__).resolve().parents[1] / "src" / "rtbench" / "store" / "data" / "catalog"
HZ = 2_600_000_000
OVERHEAD = 26


def registry() -> list[str]:
    """The catalogue's harness ids, as the real harness registers them (the
    catalogue's loader: some metrics are derived, e.g. .k_to_u / .u_to_k)."""
    if os.environ.get("FAKE_HARNESS_IDS"):
        return os.environ["FAKE_HARNESS_IDS"].split(",")
    sys.path.insert(0, str(CATALOG.parents[3]))  # src/: the loader needs only the stdlib
    from rtbench.store import catalog

    return catalog.load(CATALOG).harness_ids  # not the standard programs


def usage(message: str) -> None:
    print(f"rtbench-harness: {message}", file=sys.stderr)
    sys.exit(2)


def parse(argv: list[str]) -> dict:
    opts = {"list": False, "only": None, "samples": 10000, "warmup": 100, "hz": None,
            "budget_ms": 2000, "cpu": 1, "no_rt": False, "fault": None, "profile": "rt",
            "no_pin": False, "no_mlock": False, "cold": False}
    it = iter(argv)
    for arg in it:
        if arg == "--list":
            opts["list"] = True
        elif arg in ("--no-rt", "--no-pin", "--no-mlock", "--cold"):
            opts[arg[2:].replace("-", "_")] = True
        elif arg in ("--only", "--samples", "--warmup", "--budget-ms", "--cpu", "--fault",
                     "--profile", "--hz", "--core-hz"):
            value = next(it, None)
            if value is None:
                usage(f"{arg} needs a value")
            opts[arg[2:].replace("-", "_")] = value
        else:
            usage(f"unknown option {arg}")
    for key, lo in (("samples", 1), ("warmup", 0), ("budget_ms", 1), ("cpu", 0)):
        try:
            opts[key] = int(opts[key])
        except ValueError:
            usage(f"--{key} is not a number")
        if opts[key] < lo or (key == "samples" and opts[key] > 10_000_000):
            usage(f"--{key} out of range")
    return opts


def emit(rec: dict) -> None:
    print(json.dumps(rec), flush=True)


def session(opts: dict) -> dict:
    rt = {"realtime": not opts["no_rt"], "policy": "SCHED_OTHER" if opts["no_rt"] else "SCHED_FIFO",
          "reason": "--no-rt" if opts["no_rt"] else "", "mlock": not opts["no_rt"],
          "cpu": opts["cpu"], "cpus_online": 2}
    return {"type": "session", "schema": 2, "harness_version": "0.0.0-fake", "port": "fake",
            "compiler": "CPython", "cflags": "-O0", "build_type": "Fake",
            "ts": {"source": "fake", "hz_nominal": 0, "hz_measured": HZ, "resolution": 1,
                   "overhead_min": 20, "overhead_median": OVERHEAD,
                   "overhead_samples": 10000, "ref_clock": "CLOCK_MONOTONIC_RAW"},
            "rt": rt, "config": {"samples": opts["samples"], "warmup": opts["warmup"],
                                 "budget_ms": opts["budget_ms"]}}


def metric(mid: str, index: int, opts: dict) -> dict:
    if mid in os.environ.get("FAKE_HARNESS_UNSUPPORTED", "").split(","):
        return {"type": "metric", "id": mid, "status": "unsupported",
                "reason": "fake port lacks it", "n": 0}
    base = 0 if mid == "method.null" else 100 * (index + 1)
    p50 = base
    return {"type": "metric", "id": mid, "status": "ok", "reason": "", "unit": "ticks",
            "tick_hz": HZ, "n": opts["samples"], "discarded": opts["warmup"],
            "budget_exhausted": False, "overhead": OVERHEAD,
            "min": p50 - OVERHEAD, "max": p50 * 10 + 52, "mean": p50 + 0.5, "stddev": 3.25,
            "p50": p50, "p90": p50 + 13, "p99": p50 + 26, "p999": p50 + 52,
            "hist": {"scheme": "loglinear", "sub_bucket_bits": 7, "offset": -OVERHEAD,
                     "buckets": [[p50 + OVERHEAD, p50 + OVERHEAD + 1, opts["samples"]]]},
            "realtime": not opts["no_rt"], "placement": f"cpu{opts['cpu']}", "note": "",
            "profile": opts["profile"]}


def run(opts: dict) -> None:
    start = time.monotonic()
    try:
        measure(opts)
    finally:
        if os.environ.get("FAKE_HARNESS_SPANS"):
            with open(os.environ["FAKE_HARNESS_SPANS"], "a") as fh:
                fh.write(f"{start} {time.monotonic()}\n")


def measure(opts: dict) -> None:
    known = registry()
    ids = opts["only"].split(",") if opts["only"] else known
    for mid in ids:
        if mid not in known:
            usage(f"unknown metric id {mid}")
    kind, _, target = (opts["fault"] or "").partition(":")
    if opts["fault"] and kind not in ("hang", "crash"):
        usage(f"bad --fault {opts['fault']}")
    time.sleep(float(os.environ.get("FAKE_HARNESS_STALL", "0")))
    emit(session(opts))
    if os.environ.get("FAKE_HARNESS_EXIT_EARLY"):
        sys.exit(int(os.environ["FAKE_HARNESS_EXIT_EARLY"]))
    print("diagnostic line that is not a record", flush=True)
    for mid in ids:
        emit({"type": "begin", "id": mid})
        if mid == target and kind == "hang":
            while True:
                time.sleep(3600)
        if mid == target and kind == "crash":
            os.kill(os.getpid(), signal.SIGSEGV)
        endless, _, mib = os.environ.get("FAKE_HARNESS_ENDLESS", "").partition(":")
        if mid == endless:
            chunk = "x" * (1 << 20)
            for _ in range(int(mib)):
                sys.stdout.write(chunk)
            sys.stdout.flush()
            while True:
                time.sleep(3600)
        time.sleep(float(os.environ.get("FAKE_HARNESS_DELAY", "0")))
        rec = metric(mid, known.index(mid), opts)
        bad, _, fields = os.environ.get("FAKE_HARNESS_BAD", "").partition(":")
        if mid == bad:
            rec.update(json.loads(fields))
        emit(rec)
    emit({"type": "end", "metrics": len(ids)})


def main() -> None:
    if os.environ.get("FAKE_HARNESS_LOG"):
        with open(os.environ["FAKE_HARNESS_LOG"], "a") as fh:
            fh.write(json.dumps(sys.argv[1:]) + "\n")
    opts = parse(sys.argv[1:])
    if opts["list"]:
        for mid in registry():
            emit({"type": "registry", "id": mid})
        return
    run(opts)


if __name__ == "__main__":
    main()
