"""The data sheet (Markdown) and the results.json envelope of a stored run."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

import rtbench
from rtbench.catalog import Catalog, Metric
from rtbench.records import MetricRecord, Session
from rtbench.store import Run

ENVELOPE_SCHEMA = 1
OTHER_SERVICE = "Other"


# ---- number formatting: negative values keep their sign, never clamped ----

def fmt_us(ns: float) -> str:
    return f"{ns / 1000:.3f}"


def fmt_ns(ns: float) -> str:
    # One decimal where it still says something (below 100 ns), else integer.
    return f"{ns:.1f}" if abs(ns) < 100 else f"{ns:.0f}"


def fmt_ticks(ticks: float) -> str:
    return str(int(ticks)) if float(ticks).is_integer() else f"{ticks:.1f}"


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


# ---- the sheet ----

def render_markdown(run: Run, catalog: Catalog) -> str:
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["cell"] = _cell
    text = resources.files("rtbench").joinpath("templates/datasheet.md.j2").read_text("utf-8")
    return env.from_string(text).render(**_context(run, catalog))


def _context(run: Run, catalog: Catalog) -> dict[str, Any]:
    host = run.host
    session = Session(run.session or {})
    kernel = f"{host.get('os', 'Linux')} {host.get('kernel_release', 'unknown kernel')}"
    return {
        "title": f"rtbench data sheet — {kernel} on {host.get('cpu_model', 'unknown CPU')}",
        "config": _configuration(run, session),
        "warnings": _warnings(run, session),
        "methodology": methodology(session) if run.session else
        "The harness did not report its session record, so the method cannot be described.",
        "services": _service_tables(run, catalog, session),
        "definitions": _definitions(run, catalog),
    }


def _warnings(run: Run, session: Session) -> list[str]:
    out = []
    if run.session and not session.rt.get("realtime", False):
        out.append(f"**Not real-time: {session.rt.get('reason') or 'no reason given'}** — "
                   "figures are not representative of real-time behaviour")
    if run.status == "incomplete":
        out.append(f"**Incomplete run:** interrupted before every metric was measured "
                   f"({len(run.pending)} not measured).")
    elif run.status == "failed":
        out.append("**Failed run:** the harness stopped before every metric was measured; "
                   "the figures below are partial.")
    return out


def _configuration(run: Run, session: Session) -> list[tuple[str, str]]:
    host, ts, rt, s = run.host, session.ts, session.rt, session.raw
    unknown = "unknown (no session record)"
    freq = f"{ts['hz_measured'] / 1e6:.3f} MHz" if ts.get("hz_measured") else unknown
    if ts.get("hz_nominal"):
        freq += f" (nominal {ts['hz_nominal'] / 1e6:.3f} MHz)"
    cpu = rt.get("cpu")
    policy = rt.get("policy") or unknown
    if run.session and not rt.get("realtime", False):
        policy += " (real-time scheduling not in effect)"
    status = run.status
    if status != "complete":
        status = f"**{status}** ({len(run.pending)} of the selected metrics not measured)"
    return [
        ("CPU model", host.get("cpu_model", "unknown")),
        ("Cores online / used", f"{host.get('cores_online', rt.get('cpus_online', '?'))} / "
         + (f"1 (every task of a scenario on CPU {cpu})" if cpu is not None else unknown)),
        ("Counter frequency (measured)", freq),
        ("Timestamp source", f"{ts.get('source', unknown)}"
         + (f", calibrated against {ts['ref_clock']}" if ts.get("ref_clock") else "")),
        ("Kernel", f"{host.get('kernel_release', '?')} {host.get('kernel_version', '')}".strip()),
        ("Preemption model", host.get("preemption", "unknown")),
        ("Clocksource", host.get("clocksource", "unknown")),
        ("RT throttling", host.get("rt_throttling", "unknown")),
        ("Scheduling policy granted", policy),
        ("Memory locked", {True: "yes (mlockall)", False: "no"}.get(rt.get("mlock"), unknown)),
        ("Compiler and flags", f"{s['compiler']}, {s.get('cflags', '').strip()} "
         f"({s.get('build_type', '?')})" if "compiler" in s else unknown),
        ("Harness revision", _harness_revision(host, s)),
        ("rtbench", f"{host.get('rtbench_version', '?')} (git {host.get('git_revision', 'unknown')})"),
        ("Date", run.started),
        ("Run", f"{run.id} ({run.uuid})" + (f", label “{run.label}”" if run.label else "")),
        ("Status", status),
    ]


def _harness_revision(host: dict, session: dict) -> str:
    version = session.get("harness_version", "unknown")
    port = f", port {session['port']}" if "port" in session else ""
    src = host.get("harness_source_hash") or "unknown"
    return f"{version}{port}, sources {src}"


def methodology(session: Session) -> str:
    ts, rt, cfg = session.ts, session.rt, session.config

    def ns(ticks: Any) -> str:
        v = session.ticks_ns(ticks) if ticks is not None else None
        return "? ns" if v is None else f"{fmt_ns(v)} ns"

    omin, omed = ts.get("overhead_min_ticks"), ts.get("overhead_median_ticks")
    res = ts.get("resolution_ticks")
    if rt.get("realtime"):
        sched = (f"under {rt.get('policy', 'SCHED_FIFO')} with memory "
                 f"{'locked' if rt.get('mlock') else 'not locked'}")
    else:
        sched = f"without real-time scheduling ({rt.get('reason') or 'not granted'})"
    parts = [
        f"Every figure is the difference of two reads of the benchmark counter "
        f"({ts.get('source', '?')}, measured at {session.hz / 1e6:.3f} MHz).",
        f"Reading the counter costs {omin} ticks ({ns(omin)}) at minimum and {omed} ticks "
        f"({ns(omed)}) at the median over {ts.get('overhead_samples', '?')} back-to-back reads;",
        "that median was subtracted from every sample, so an operation shorter than one",
        "counter read can show a slightly negative time.",
        f"The counter's resolution is {res} tick{'' if res == 1 else 's'} ({ns(res)}).",
        f"Each metric ran {cfg.get('warmup', '?')} warm-up samples, which were discarded,",
        f"then up to {cfg.get('samples', '?')} measured samples within a time budget of "
        f"{cfg.get('budget_ms', '?')} ms.",
        f"All tasks of a scenario were pinned to CPU {rt.get('cpu', '?')} and ran {sched}.",
        "Statistics: minimum, maximum, mean and standard deviation are exact; the",
        "percentiles come from a log-linear histogram with at most 0.4 % relative error.",
    ]
    return " ".join(parts)


def _ordered(run: Run, catalog: Catalog) -> list[tuple[str, dict | None]]:
    """(metric id, record or None if never measured), in catalogue order."""
    items = [(r["id"], r) for r in run.metrics] + [(i, None) for i in run.pending]
    index = {mid: n for n, mid in enumerate(catalog.ids)}
    return sorted(items, key=lambda it: index.get(it[0], len(index)))


def _service_tables(run: Run, catalog: Catalog, session: Session) -> list[dict]:
    rows_by_service: dict[str, list[dict]] = {}
    for mid, rec in _ordered(run, catalog):
        meta = catalog.get(mid)
        service = meta.service if meta else OTHER_SERVICE
        rows_by_service.setdefault(service, []).append(_row(mid, meta, rec, session))
    order = list(catalog.services) + [OTHER_SERVICE]
    return [{"name": s, "rows": rows_by_service[s]} for s in order if s in rows_by_service]


def _row(mid: str, meta: Metric | None, rec: dict | None, session: Session) -> dict:
    row = {"title": meta.title if meta else mid, "id": mid, "n": "", "min": "—",
           "p50": "—", "p99": "—", "max": "—", "p50_ns": "—", "p99_ns": "—",
           "p50_ticks": "—", "note": ""}
    if rec is None:
        row["note"] = "not measured (run incomplete)"
        return row
    m = MetricRecord(rec)
    if not m.ok:
        row["note"] = f"{m.status}: {m.reason or 'no reason given'}"
        return row
    row.update(n=str(rec["n"]), min=fmt_us(m.ns("min")), p50=fmt_us(m.ns("p50")),
               p99=fmt_us(m.ns("p99")), max=fmt_us(m.ns("max")), p50_ns=fmt_ns(m.ns("p50")),
               p99_ns=fmt_ns(m.ns("p99")), p50_ticks=fmt_ticks(rec["p50"]))
    row["note"] = "; ".join(_notes(rec, session))
    return row


def _notes(rec: dict, session: Session) -> list[str]:
    """Whatever makes this metric's figures differ from the sheet's method."""
    notes = []
    if rec.get("budget_exhausted"):
        notes.append(f"time budget ran out after {rec['n']} samples")
    if rec.get("invalid"):
        notes.append(f"{rec['invalid']} invalid samples dropped")
    if session.rt.get("realtime") and rec.get("realtime") is False:
        notes.append("not real-time")
    # docs/records.md: placement is "pinned" (all tasks on `cpu`) or "unpinned"
    if rec.get("placement") == "unpinned":
        notes.append("tasks not pinned to one CPU")
    elif rec.get("cpu") is not None and rec["cpu"] != session.rt.get("cpu"):
        notes.append(f"tasks on CPU {rec['cpu']}")
    if rec.get("note"):
        notes.append(rec["note"])
    return notes


def _definitions(run: Run, catalog: Catalog) -> list[dict]:
    out = []
    for mid, _rec in _ordered(run, catalog):
        meta = catalog.get(mid)
        if meta:
            out.append({"id": mid, "title": meta.title, "definition": meta.definition,
                        "clock_start": meta.clock_start, "clock_stop": meta.clock_stop})
    return out


# ---- results.json and writing ----

def envelope(run: Run, catalog: Catalog) -> dict[str, Any]:
    return {
        "schema_version": ENVELOPE_SCHEMA,
        "rtbench_version": rtbench.__version__,
        "run": {"id": run.id, "uuid": run.uuid, "label": run.label, "status": run.status,
                "started": run.started, "finished": run.finished, "argv": run.argv},
        "host": run.host,
        "session": run.session,
        "metrics": [rec for _mid, rec in _ordered(run, catalog) if rec is not None],
        "not_measured": list(run.pending),
    }


def write_outputs(run: Run, catalog: Catalog, out_dir: Path) -> tuple[Path, Path]:
    """Write datasheet.md and results.json into out_dir; return their paths."""
    sheet = out_dir / "datasheet.md"
    results = out_dir / "results.json"
    atomic_write(results, json.dumps(envelope(run, catalog), indent=2) + "\n")
    atomic_write(sheet, render_markdown(run, catalog))
    return sheet, results


def atomic_write(path: Path, text: str) -> None:
    """Readers see the old file or the new one, never half of one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise

