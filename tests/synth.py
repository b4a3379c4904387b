"""Synthetic runs for the report, compare and export tests: metric records
made from known samples, with the harness's log-linear histogram
(docs/records.md: 128 sub-buckets per power of two), so that every
statistic the tests check can be computed independently."""

from __future__ import annotations

import math

import numpy as np

from rtbench.store.db import Run

HZ = 2_600_000_000
OVERHEAD = 26


def buckets(raw_ticks: np.ndarray, sub_bits: int = 7) -> list[list[int]]:
    """[lo, hi, count] of every non-empty bucket: one tick wide below
    2**sub_bits, then 2**sub_bits buckets per power of two."""
    out: dict[tuple[int, int], int] = {}
    for v in raw_ticks.astype(np.int64):
        v = int(v)
        if v < (1 << sub_bits):
            lo, hi = v, v + 1
        else:
            shift = v.bit_length() - 1 - sub_bits
            lo = (v >> shift) << shift
            hi = lo + (1 << shift)
        out[(lo, hi)] = out.get((lo, hi), 0) + 1
    return [[lo, hi, c] for (lo, hi), c in sorted(out.items())]


def record(mid: str, ticks, profile: str | None = None, hz: int = HZ) -> dict:
    """An ok metric record of these samples (ticks after overhead subtraction)."""
    x = np.asarray(ticks, dtype=np.int64)
    raw = x + OVERHEAD
    rec = {"type": "metric", "id": mid, "status": "ok", "reason": "", "unit": "ticks",
           "tick_hz": hz, "n": int(len(x)), "discarded": 100, "invalid": 0,
           "budget_exhausted": False, "overhead": OVERHEAD,
           "min": int(x.min()), "max": int(x.max()), "mean": float(x.mean()),
           "stddev": float(x.std()),
           **{k: float(np.percentile(x, q)) for k, q in
              (("p50", 50), ("p90", 90), ("p99", 99), ("p999", 99.9))},
           "hist": {"scheme": "loglinear", "sub_bucket_bits": 7, "offset": -OVERHEAD,
                    "overflow": 0, "buckets": buckets(raw)},
           "realtime": True, "rt_reason": "", "placement": "pinned", "cpu": 1, "note": ""}
    if profile is not None:
        rec["profile"] = profile
    return rec


def latency(rng: np.random.Generator, median_ticks: float, n: int = 2000,
            spread: float = 0.03, tail: int = 5) -> np.ndarray:
    """Log-normal samples around a median, plus a few far outliers."""
    core = rng.lognormal(np.log(median_ticks), spread, n - tail)
    far = rng.uniform(median_ticks * 3, median_ticks * 40, tail)
    return np.round(np.concatenate([core, far]))


def session(realtime: bool = True) -> dict:
    return {"type": "session", "schema": 2, "harness_version": "0.1.0", "port": "posix",
            "compiler": "GNU 12.2.0", "cflags": "-O2", "build_type": "Release",
            "ts": {"source": "rdtsc+lfence", "hz_nominal": 0, "hz_measured": HZ,
                   "resolution": 26, "overhead_min": 20,
                   "overhead_median": OVERHEAD, "overhead_samples": 20000,
                   "ref_clock": "CLOCK_MONOTONIC_RAW"},
            "rt": {"realtime": realtime, "policy": "SCHED_FIFO", "reason": "", "mlock": True,
                   "cpu": 1, "cpus_online": 2},
            "config": {"samples": 2000, "warmup": 100, "budget_ms": 2000}}


def run(metrics: list[dict], run_id: int = 1, pending: list[str] = (), label: str = "",
        host: dict | None = None) -> Run:
    return Run(id=run_id, uuid=f"uuid-{run_id}", started="2026-11-21T12:00:00+00:00",
               finished="2026-11-21T12:01:00+00:00", stored_status="complete", label=label,
               argv=["rtbench", "run"],
               host=host or {"os": "Linux", "kernel_release": "6.1.0-rt",
                             "cpu_model": "Test CPU 3000", "hostname": "bench",
                             "cores_online": 2, "preemption": "PREEMPT_RT"},
               session=session(), metrics=list(metrics), pending=list(pending))


def full_run(ids: list[str], profiles=("rt",), seed: int = 1, scale: float = 1.0,
             run_id: int = 1) -> Run:
    """Every id under every profile, medians spread over three decades."""
    rng = np.random.default_rng(seed)
    metrics = []
    for i, mid in enumerate(ids):
        for j, p in enumerate(profiles):
            median = (30 + 37 * i % 5000) * (1 + 0.2 * j) * scale
            metrics.append(record(mid, latency(rng, median), profile=p))
    return run(metrics, run_id=run_id)


def store(db, r: Run) -> int:
    """Put a synthetic run into a database the way `rtbench run` does."""
    from rtbench.store.db import Store

    with Store(db) as s:
        keys = [(m["id"], m.get("profile", "rt")) for m in r.metrics] + r.pending_keys()
        ids = list(dict.fromkeys(k[0] for k in keys))
        profiles = list(dict.fromkeys(k[1] for k in keys))
        rid = s.create_run(r.uuid, r.started, ids, r.label, r.argv, r.host, profiles=profiles)
        s.set_session(rid, r.session)
        for rec in r.metrics:
            s.add_metric(rid, rec)
        if not r.pending:
            # ids never measured under a profile are not part of the run
            s.conn.execute("DELETE FROM metrics WHERE run_id = ? AND record IS NULL", (rid,))
            s.conn.commit()
        s.finish_run(rid, "complete" if not r.pending else "incomplete", r.finished)
    return rid


# ---- an RTOS on the emulated board: counts of instructions, the port's facts ----

BOARD_FACTS = {
    "freertos": {"kernel": "FreeRTOS V11.3.0", "kernel_port": "GCC/ARM_CM3", "tick_hz": "1000",
                 "preemption": "on", "time_slicing": "off", "asserts": "off",
                 "heap": "heap_4, 262144 bytes", "stack_filling": "on (…)",
                 "board": "MPS2 AN385 (Cortex-M3, 25 MHz)", "cpu": "Cortex-M3",
                 "icount_shift": "7"},
    "threadx": {"kernel": "ThreadX 6.4.2", "kernel_port": "cortex_m3/gnu", "tick_hz": "1000",
                "preemption": "on", "time_slicing": "off (TX_NO_TIME_SLICE)",
                "asserts": "off (TX_DISABLE_ERROR_CHECKING: no _txe_ parameter checks)",
                "heap": "byte pool, 262144 bytes", "stack_filling": "on (…)",
                "board": "MPS2 AN385 (Cortex-M3, 25 MHz)", "cpu": "Cortex-M3",
                "icount_shift": "7"},
}


def count_record(mid: str, instructions) -> dict:
    """An ok record of instruction counts (QEMU -icount: no tick_hz)."""
    rec = record(mid, instructions)
    del rec["tick_hz"]
    rec["unit"] = "instructions"
    return rec


def board_run(ids: list[str], kernel: str, seed: int = 1, scale: float = 1.0,
              run_id: int = 1, unsupported: dict[str, str] | None = None) -> Run:
    """A run of `kernel` on the emulated board: every id in instructions,
    those in `unsupported` without a figure (id -> the kernel's reason)."""
    rng = np.random.default_rng(seed)
    metrics = []
    for i, mid in enumerate(ids):
        if unsupported and mid in unsupported:
            metrics.append({"type": "metric", "id": mid, "status": "unsupported",
                            "reason": unsupported[mid], "n": 0, "profile": "rt"})
            continue
        median = (30 + 37 * i % 3000) * scale
        metrics.append({**count_record(mid, latency(rng, median, n=500)), "profile": "rt"})
    facts = BOARD_FACTS[kernel]
    name, version = facts["kernel"].split(" ", 1)
    host = {"target": "mps2-an385", "target_kind": "emulator",
            "board": "Arm MPS2 AN385 (Cortex-M3, 25 MHz), emulated by QEMU",
            "cpu_model": "Cortex-M3", "os": name, "kernel_version": version,
            "emulator": "QEMU emulator version 7.2", "icount": "shift=7",
            "harness_source_hash": "abc123", "hostname": "bench",
            "image_size": {"text": 75000, "data": 28, "bss": 368000}}
    r = run(metrics, run_id=run_id, host=host)
    s = session()
    s["port"] = kernel
    s["cflags"] = "-mcpu=cortex-m3 -mthumb -O2"
    s["ts"] = {**s["ts"], "unit": "instructions", "hz_measured": 0, "resolution": 1,
               "overhead_median": 10, "unit_detail": "guest instructions executed"}
    s["rt"]["policy"] = f"{name} fixed-priority preemptive"
    s["target"] = {**facts, "irq_switch_at_exit": True}
    r.session = s
    return r


def thread_metric_run(counts: dict[str, int], kernel: str, run_id: int, linked_to: int,
                      checks: dict[str, str] | None = None) -> Run:
    """Thread-Metric's peer records (rtbench.peers.threadmetric) of these
    median counts, three periods each."""
    from rtbench.peers import threadmetric as tm

    metrics = []
    for t in tm.TESTS:
        if t.key not in counts:
            metrics.append({"type": "metric", "id": f"{tm.KEY}:{t.key}", "origin": "peer",
                            "mapped": False, "status": "unsupported", "reason": "not here",
                            "source": {"tool": tm.TOOL}})
            continue
        report = tm.Report(f"{t.title}", [counts[t.key] - 5, counts[t.key], counts[t.key]],
                           [checks[t.key]] if checks and t.key in checks else [])
        metrics.append(tm.record(t, report, "qemu-system-arm …", kernel, 7,
                                 kernel.split()[0].lower()))
    r = run(metrics, run_id=run_id)
    r.origin_kind, r.linked_to, r.session = "peer", linked_to, None
    return r


# ---- blocks (rtbench.store.blocks): one block's record as the harness writes it ----

QS = {"p50": 50000, "p90": 90000, "p99": 99000, "p999": 99900}


def bucket_of(v: int, sub_bits: int = 7) -> tuple[int, int]:
    """The harness's log-linear bucket [lo, hi) of raw value v."""
    if v < (1 << sub_bits):
        return v, v + 1
    shift = v.bit_length() - 1 - sub_bits
    lo = (v >> shift) << shift
    return lo, lo + (1 << shift)


def nearest_rank(raw: np.ndarray, q: int) -> int:
    """Independent of blocks.quantile: the sample of nearest rank q/100000
    among the sorted raw samples, reported as its bucket's midpoint (what
    rtb_hist_quantile returns), clamped to the exact min and max."""
    xs = np.sort(raw.astype(np.int64))
    rank = max(1, math.ceil(len(xs) * q / 100000))
    lo, hi = bucket_of(int(xs[rank - 1]))
    return min(max(lo + (hi - lo - 1) // 2, int(xs[0])), int(xs[-1]))


def block_record(raw, overhead: int, mid: str = "sched.yield.ctx.thread", ops: int = 1,
                 canary: int | None = None, elapsed_s: float | None = None,
                 hz: int = 1_000_000_000) -> dict:
    """An ok harness record of these raw tick samples (before overhead)."""
    raw = np.asarray(raw, dtype=np.int64)
    rec = {"type": "metric", "id": mid, "status": "ok", "reason": "", "unit": "ticks",
           "tick_hz": hz, "ops": ops, "n": int(len(raw)), "discarded": 5, "invalid": 1,
           "budget_exhausted": False, "overhead": overhead,
           "min": int(raw.min()) - overhead, "max": int(raw.max()) - overhead,
           "mean": round(float(raw.mean()) - overhead, 3),
           "stddev": round(float(raw.std(ddof=1)), 3) if len(raw) > 1 else 0.0,
           **{k: nearest_rank(raw, q) - overhead for k, q in QS.items()},
           "hist": {"scheme": "loglinear", "sub_bucket_bits": 7, "offset": -overhead,
                    "overflow": 0, "buckets": buckets(raw)},
           "realtime": True, "placement": "pinned", "cpu": 1, "note": ""}
    if canary is not None:
        rec["canary"] = canary
    if elapsed_s is not None:
        rec["elapsed_ticks"] = int(elapsed_s * hz)
    return rec


def blocked_record(mid: str, parts, overhead: int = OVERHEAD, canaries=None, hz: int = HZ,
                   run_overhead: int | None = None) -> dict:
    """The merged record of a metric measured in blocks: `parts` holds each
    block's samples in ticks after overhead, `canaries` each block's canary."""
    from rtbench.store import blocks

    acc = blocks.Accumulator()
    for k, part in enumerate(parts):
        raw = np.asarray(part, dtype=np.int64) + overhead
        acc.add(block_record(raw, overhead, mid=mid, hz=hz, elapsed_s=0.002,
                             canary=canaries[k] if canaries else None), {"t": 0.1 * k})
    return acc.record(overhead if run_overhead is None else run_overhead)
