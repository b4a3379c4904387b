"""The sheet of a `rtbench qualify` run, laid out like TI's RT-Linux
performance guide (per-CPU minimum, average and maximum latency of
cyclictest, with its histogram) plus what cyclictest and rtla give: the
percentiles, the worst case with its CPU, when it came and the kernel's
trace before it, the conditions, and the verdict against the threshold.

`first_page(run)` is what `rtbench qualify` ends with; `render_markdown`
and `render_html` are `rtbench show` / `report` for any run: a qualify
run gets this sheet, every other run the data sheet (datasheet.py).
"""

from __future__ import annotations

import html
import math
from typing import Any

from rtbench.sheets import datasheet
from rtbench.store.catalog import Catalog
from rtbench.store.db import Run

TRACE_TAIL = 25  # lines of the kept trace on the first page (the sheet: 200)
EDGES_US = (0, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
BAR = 40


def is_qualify(run: Run) -> bool:
    return bool(run.session) and run.session.get("kind") == "qualify"


def render_markdown(run: Run, catalog: Catalog) -> str:
    if not is_qualify(run):
        return datasheet.render_markdown(run, catalog)
    return first_page(run, trace_lines=200) + "\n" + histograms(run) + "\n" + segments(run)


def render_html(run: Run, catalog: Catalog) -> str:
    """The same sheet as an HTML page (the text, preformatted)."""
    if not is_qualify(run):
        return datasheet.render_html(run, catalog)
    body = html.escape(render_markdown(run, catalog))
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>rtbench qualify run "
            f"{run.id}</title></head><body><pre>{body}</pre></body></html>\n")


def _us(ns: float | None) -> str:
    return "—" if ns is None else f"{ns / 1000:,.1f}".rstrip("0").rstrip(".")


def _cpus(run: Run) -> list[dict[str, Any]]:
    recs = [r for r in run.metrics if r.get("status") == "ok" and
            str(r.get("id", "")).startswith("cyclictest.cpu")]
    return sorted(recs, key=lambda r: int(r["id"][len("cyclictest.cpu"):]))


def verdict(run: Run) -> str:
    s = run.session or {}
    thr = s.get("threshold_us")
    recs = _cpus(run)
    if not recs:
        return "no sample measured"
    worst = max(recs, key=lambda r: r["max"])
    where = f"max {_us(worst['max'])} µs on CPU {worst['id'][len('cyclictest.cpu'):]}"
    partial = "" if run.status == "complete" else f" (run {run.status}: partial)"
    if not thr:
        return f"no threshold given: {where}{partial}"
    n_over = sum(r.get("over_threshold", 0) for r in recs)
    if worst["max"] > thr * 1000:
        return (f"FAIL: {where} > threshold {thr:,} µs ({n_over:,} sample(s) above it)"
                + partial)
    return f"PASS: {where} ≤ threshold {thr:,} µs{partial}"


def first_page(run: Run, trace_lines: int = TRACE_TAIL) -> str:
    s = run.session or {}
    c = s.get("conditions", {})
    recs = _cpus(run)
    done, planned = s.get("duration_done_s", 0), s.get("duration_planned_s", 0)
    out = [f"# rtbench qualify — run {run.id}: timer wake-up latency (cyclictest)", "",
           f"**Verdict: {verdict(run)}**", "",
           f"{len(c.get('cpus', []))} CPU(s) × {c.get('threads_per_cpu', '?')} thread(s), "
           f"{c.get('priority', '?')}, interval {c.get('interval_us', '?')} µs; measured "
           f"{_clock(done)} of {_clock(planned)} planned, {len(s.get('segments', []))} "
           f"segment(s) stored; status {run.status}"
           + (f" (interrupted by {s['interrupted']})" if s.get("interrupted") else "") + ".",
           "", "| CPU | samples | min | mean | median | p99 | p99.9 | max | over threshold |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in recs:
        out.append(f"| {r['id'][len('cyclictest.cpu'):]} | {r['n']:,} | {_us(r['min'])} | "
                   f"{_us(r['mean'])} | {_us(r.get('p50'))} | {_us(r.get('p99'))} | "
                   f"{_us(r.get('p999'))} | {_us(r['max'])} | "
                   f"{r.get('over_threshold', '—') if s.get('threshold_us') else '—'} |")
    out += ["", "Figures in µs, as cyclictest prints them (whole µs; percentiles from its "
            "1 µs histogram, the bucket's lower bound; mean weighted over the threads)."]
    out += ["", "## The worst case", ""] + _worst(s, recs, trace_lines)
    out += ["", "## Conditions", ""] + _conditions(run, s, c)
    return "\n".join(out) + "\n"


def _clock(seconds: float) -> str:
    s = int(round(seconds or 0))
    h, rest = divmod(s, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


def _worst(s: dict, recs: list[dict], trace_lines: int) -> list[str]:
    t = s.get("tracing", {})
    out = []
    if recs:
        w = max(recs, key=lambda r: r["max"])
        seg = _segment_of_max(s, w["id"][len("cyclictest.cpu"):])
        out.append(f"Max {_us(w['max'])} µs on CPU {w['id'][len('cyclictest.cpu'):]}"
                   + (f", in segment {seg['i'] + 1} ({seg['start_s']:g}–"
                      f"{seg['start_s'] + seg['length_s']:g} s into the run)" if seg else "")
                   + ".")
    x = s.get("crossing")
    tracer = t.get("tracer", "none")
    out.append(f"Tracer: {tracer}" + (f" — {t.get('why')}" if t.get("why") else "")
               + (f"; instance {t['instance']}" if t.get("instance") else "") + ".")
    if x:
        out.append(f"First crossing: {x['value_us']:,} µs on CPU {x['cpu']} (thread {x['thread']}), "
                   f"≈ {x['at_s']:g} s into the run; cyclictest -b stopped the trace there.")
    elif s.get("threshold_us"):
        out.append("No sample crossed the threshold while the trace was armed.")
    trace = s.get("trace") or ""
    if trace:
        tail = trace.rstrip("\n").splitlines()[-trace_lines:]
        out += ["", f"The trace's last {len(tail)} lines before the crossing (kept with the "
                "run, up to 256 KiB):", "", "```"] + [ln[:160] for ln in tail] + ["```"]
    return out


def _segment_of_max(s: dict, cpu: str) -> dict | None:
    best = None
    for seg in s.get("segments", []):
        f = seg.get("cpus", {}).get(cpu)
        if f and f.get("n") and (best is None or f["max"] > best[1]):
            best = (seg, f["max"])
    return best[0] if best else None


def _conditions(run: Run, s: dict, c: dict) -> list[str]:
    h = run.host or {}
    iso = h.get("isolated_cpus") or {}
    gov = c.get("governors") or {}
    govs = ", ".join(sorted({v or "none (no cpufreq)" for v in gov.values()})) or "unknown"
    rows = [("Kernel", f"{h.get('kernel_release', '?')} {h.get('kernel_version', '')}".strip()),
            ("Preemption model", str(h.get("preemption", "unknown"))),
            ("CPU", f"{h.get('cpu_model', '?')}; {h.get('hypervisor') or 'no hypervisor seen'}"),
            ("Load", str(c.get("load", "none"))),
            ("Isolation", f"isolcpus: {iso.get('isolated') or 'none'}; nohz_full: "
                          f"{iso.get('nohz_full') or 'none'}"),
            ("RT throttling", str(h.get("rt_throttling", "unknown"))),
            ("Governors", govs),
            ("Power management", str(c.get("power_management", ""))),
            ("Threads per CPU", str(c.get("threads_per_cpu", "?"))),
            ("Priority", f"{c.get('priority', '?')}, memory "
                         f"{'locked' if c.get('memory_locked') else 'not locked'}"),
            ("Duration", f"{_clock(s.get('duration_done_s', 0))} done of "
                         f"{_clock(s.get('duration_planned_s', 0))} planned"),
            ("Command (last segment)", f"`{s.get('command', '?')}`"),
            ("Written to the system", str(c.get("changed", "")))]
    return ["| | |", "|---|---|"] + [f"| {k} | {v.replace('|', '/')} |" for k, v in rows]


def histograms(run: Run) -> str:
    """Each CPU's histogram as a text plot: counts per latency range, bars on a log scale."""
    out = ["## Histograms (per CPU, whole run)", ""]
    for r in _cpus(run):
        hist = r.get("hist") or {}
        counts = [0] * len(EDGES_US)
        for lo, _hi, n in hist.get("buckets", []):
            us = lo / 1000
            k = max(i for i, e in enumerate(EDGES_US) if us >= e)
            counts[k] += n
        over = hist.get("overflow", 0)
        top = math.log10(max(counts + [over, 1]) + 1)
        out += [f"CPU {r['id'][len('cyclictest.cpu'):]} ({r['n']:,} samples)", "```"]
        last = max((i for i, n in enumerate(counts) if n), default=0)
        for i in range(last + 1):
            hi = EDGES_US[i + 1] if i + 1 < len(EDGES_US) else "∞"
            bar = "#" * round(BAR * math.log10(counts[i] + 1) / top)
            out.append(f"{EDGES_US[i]:>6}–{hi:<6} µs {counts[i]:>12,} {bar}")
        if over:
            out.append(f"beyond the histogram {over:>12,} {'#' * round(BAR * math.log10(over + 1) / top)}")
        out += ["```", ""]
    return "\n".join(out)


def segments(run: Run) -> str:
    """Each stored segment: its time in the run and each CPU's max and samples."""
    s = run.session or {}
    out = ["## Segments (each stored as it finished)", "",
           "| segment | from (s) | length (s) | per CPU: max µs (samples) |", "|---:|---:|---:|---|"]
    for seg in s.get("segments", []):
        cells = "; ".join(f"CPU {c}: {_us(f['max'])} ({f['n']:,})"
                          for c, f in sorted(seg.get("cpus", {}).items(), key=lambda x: int(x[0])))
        out.append(f"| {seg['i'] + 1}{' (-b)' if seg.get('break') else ''} | {seg['start_s']:g} "
                   f"| {seg['length_s']:g} | {cells} |")
    return "\n".join(out) + "\n"
