"""The data sheet of a stored run (Markdown and HTML from one model) and the
results.json envelope.

One model, many renderings: `sheet_model()` turns a run into the header,
methodology, per-service tables and glossary; the Markdown and HTML
templates only lay it out, and the HTML adds a histogram per metric.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

import rtbench
from rtbench import advice as advice_mod
from rtbench import firstpage, sysreport, tuning
from rtbench.plots import UNIT_SHORT
from rtbench.store import blocks
from rtbench.store.catalog import Catalog, Metric
from rtbench.store.db import DEFAULT_PROFILE, Run
from rtbench.store.records import COUNT_UNITS, MetricRecord, Session, strict_json

ENVELOPE_SCHEMA = 2  # docs/results-schema.json
OTHER_SERVICE = "Other"
# Imported figures no catalogue metric answers (records with "mapped": false).
UNMAPPED_SERVICE = "Figures rtbench has no metric for"


# ---- number formatting: negative values keep their sign, never clamped ----

def fmt_us(ns: float) -> str:
    return f"{ns / 1000:.3f}"


def fmt_ns(ns: float) -> str:
    # One decimal where it still says something (below 100 ns), else integer.
    return f"{ns:.1f}" if abs(ns) < 100 else f"{ns:.0f}"


def fmt_count(v: float) -> str:
    """Instructions: whole where they are, else one decimal (a mean)."""
    return str(int(v)) if float(v).is_integer() else f"{v:.1f}"


def fmt_ticks(ticks: float) -> str:
    return str(int(ticks)) if float(ticks).is_integer() else f"{ticks:.1f}"


_MD_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "[": "\\[", "]": "\\]",
                         **{chr(c): " " for c in range(32)}, "\x7f": " "})


def _mdtext(text: Any) -> str:
    """Free text (a label, a host name, a reason, an imported figure's name)
    as Markdown text: on one line, no raw HTML, no link or image."""
    return str(text).translate(_MD_TEXT)


def _cell(text: Any) -> str:
    return _mdtext(text).replace("|", "\\|")


def _mdcode(text: Any) -> str:
    """An id inside a table cell's `code span`: one line, no backtick, no bar."""
    return str(text).translate(_MD_CODE).replace("|", "\\|")


_MD_CODE = str.maketrans({"`": "'", **{chr(c): " " for c in range(32)}, "\x7f": " "})


@lru_cache(maxsize=None)
def template_env() -> jinja2.Environment:
    """The templates in rtbench/templates; HTML ones are autoescaped."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("rtbench", "templates"),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2",),
                                            default_for_string=False),
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
        trim_blocks=True, lstrip_blocks=True)
    env.filters["cell"] = _cell
    env.filters["mdtext"] = _mdtext
    env.filters["mdcode"] = _mdcode
    env.filters["mdinline"] = _mdinline
    return env


def _mdinline(text: Any) -> Markup:
    """The sheet's few Markdown marks (**bold**, `code`) as HTML, the rest
    escaped."""
    out = []
    for i, chunk in enumerate(str(Markup.escape(text)).split("`")):
        if i % 2:
            out.append(f"<code>{chunk}</code>")
            continue
        parts = chunk.split("**")
        out.append("".join(f"<strong>{p}</strong>" if j % 2 else p for j, p in enumerate(parts)))
    return Markup("".join(out))


# ---- the model ----

# Statistic columns of the results tables: (key, header without its unit).
# A run with one profile gets the full set; with several, each profile gets
# the short set side by side. Every figure column holds one unit, chosen per
# table (ns, µs, ms; or the count's unit) and said in its header.
TIME_COLUMNS = (("n", "n"), ("min", "min"), ("p50", "median"), ("p99", "p99"), ("max", "max"))
TIME_SHORT_COLUMNS = (("min", "min"), ("p50", "median"), ("p99", "p99"), ("max", "max"))
# The median in the counter's own unit, for the vendors' cycle tables. A run
# whose counter is the CPU's cycle counter says cycles. (The POSIX port's TSC
# ticks at a constant rate that is not the core's clock.)
_COUNTER_HEADER = {"ticks": "median ticks", "cycles": "median cycles"}
# Where the harness measured the core clock (Session.core_cycles_hz), the
# median time in core cycles beside the ticks: what a vendor's CPU cycles
# are, which the TSC's ticks are not (2.6 GHz against a 3.5 GHz core).
_CORE_HEADER = ("p50_core", "median core cycles")


def core_clock_phrase(session: Session) -> str:
    """"core clock ≈ 3.49 GHz (dependent-add chain of …)", or "" where the
    run has no measured core clock."""
    if not session.core_hz:
        return ""
    how = session.core_hz_method or "method not reported"
    return f"core clock ≈ {session.core_hz / 1e9:.2f} GHz ({how})"
# Records from other sources (docs/records.md: `stats_given`) that gave a
# mean and no median: a mean column in their table, and no counter column
# (their ticks are ns).
MEAN_COLUMN = ("mean", "mean")
# A run measured in instructions (QEMU -icount): no time, so no µs or ns.
COUNT_COLUMNS = (("n", "n"), ("min", "min"), ("p50", "median"), ("mean", "mean"),
                 ("p99", "p99"), ("max", "max"))
COUNT_SHORT_COLUMNS = TIME_SHORT_COLUMNS
_BLANK = "—"
FIGURE_KEYS = ("min", "p50", "mean", "p99", "max")


@dataclass
class Item:
    """One metric of the run: its catalogue entry and a record per profile
    (None: selected but never measured)."""

    id: str
    meta: Metric | None
    records: dict[str, dict | None]

    @property
    def service(self) -> str:
        if self.meta:
            return self.meta.service
        unmapped = any(r and r.get("mapped") is False for r in self.records.values())
        return UNMAPPED_SERVICE if unmapped else OTHER_SERVICE

    @property
    def title(self) -> str:
        if self.meta:
            return self.meta.title
        labels = [(r.get("source") or {}).get("label") for r in self.records.values() if r]
        return next((lab for lab in labels if lab), self.id)  # an imported figure's own name


@dataclass
class Table:
    profiles: list[str]
    columns: tuple[tuple[str, str], ...]
    rows: list[dict] = field(default_factory=list)
    # metrics without a figure in any profile (unsupported, failed, not
    # measured): one line per status, ids grouped by reason
    collapsed: list[dict] = field(default_factory=list)


def items(run: Run, catalog: Catalog) -> list[Item]:
    """Every metric of the run in catalogue order (unknown ids last)."""
    by_id: dict[str, dict[str, dict | None]] = {}
    for rec in run.metrics:
        by_id.setdefault(rec["id"], {})[rec.get("profile", DEFAULT_PROFILE)] = rec
    for mid, profile in run.pending_keys():
        by_id.setdefault(mid, {}).setdefault(profile, None)
    index = {mid: n for n, mid in enumerate(catalog.ids)}
    ordered = sorted(by_id, key=lambda mid: index.get(mid, len(index)))
    return [Item(mid, catalog.get(mid), by_id[mid]) for mid in ordered]


@dataclass(frozen=True)
class Expect:
    """How a profile's metrics were meant to run, so that a note marks only
    the records that differ: real-time or not, and the benchmark CPU."""

    realtime: bool | None
    cpu: int | None
    reason: str = ""
    placement: str = ""
    canary: float | None = None  # the profile's usual canary (blocks.canary_baseline)


def expectations(run: Run, session: Session) -> dict[str, Expect]:
    """Per profile. One profile: the session record says it. Several: the
    run keeps one session record (the first profile's), so each profile's
    own records say it (their majority)."""
    if len(run.profiles) == 1:
        return {run.profiles[0]: Expect(session.rt.get("realtime"), session.rt.get("cpu"),
                                        session.rt.get("reason", ""),
                                        canary=blocks.canary_baseline(run.metrics))}
    out = {}
    for profile in run.profiles:
        recs = [r for r in run.metrics
                if r.get("profile", DEFAULT_PROFILE) == profile and r.get("status") == "ok"]
        out[profile] = Expect(_mode([r.get("realtime") for r in recs]),
                              _mode([r.get("cpu") for r in recs]),
                              _mode([r.get("rt_reason", "") for r in recs]) or "",
                              _mode([r.get("placement", "") for r in recs]) or "",
                              blocks.canary_baseline(recs))
    return out


def _mode(values: list) -> Any:
    from collections import Counter

    counted = Counter(v for v in values if v is not None)
    return counted.most_common(1)[0][0] if counted else None


def sheet_model(run: Run, catalog: Catalog) -> dict[str, Any]:
    host = run.host
    session = Session(run.session or {})
    expect = expectations(run, session)
    its = items(run, catalog)
    if is_board_run(run):
        title = (f"rtbench data sheet — {host.get('os', '?')} {host.get('kernel_version', '')} "
                 f"on {host.get('board', host.get('target', '?'))}")
        config = _target_configuration(run, session)
    else:
        kernel = f"{host.get('os', 'Linux')} {host.get('kernel_release', 'unknown kernel')}"
        title = f"rtbench data sheet — {kernel} on {host.get('cpu_model', 'unknown CPU')}"
        config = _configuration(run, session, expect)
    advice = advice_mod.check(run)
    return {
        "title": title,
        "first": firstpage.build(run, catalog, advice),
        "advice": advice,
        "config": config,
        "warnings": _warnings(run, session, expect),
        "methodology": _import_methodology(session) if session.source is not None else
        methodology(session, expect) if run.session else
        "The harness did not report its session record, so the method cannot be described.",
        "profiles": run.profiles,
        "services": _service_tables(its, run.profiles, expect, catalog.services,
                                    _figures_unit(session), session.core_cycles_hz),
        "definitions": _definitions(its),
        "units_note": _units_note(session),
        "run": run,
        "version": rtbench.__version__,
    }


def is_board_run(run: Run) -> bool:
    """Measured on a board target (an emulator or remote board), not this host."""
    return bool(run.host.get("target_kind"))


def _figures_unit(session: Session) -> str:
    """The unit of the run's figures: the harness's, or for an import the
    source's when it counted instructions (rtos-benchmark on an emulated
    board: docs/records.md)."""
    src = session.source
    if src is not None and src.get("unit") in COUNT_UNITS:
        return src["unit"]
    return session.unit


def _units_note(session: Session) -> str:
    if session.source is not None and _figures_unit(session) in COUNT_UNITS:
        return (f"Figures are {_figures_unit(session)} executed, not times, as the source "
                "printed them.")
    if session.is_count:
        return (f"Figures are {session.unit} executed, not times (see Methodology). min and "
                "max are exact, the median (p50) and p99 come from the histogram (exact "
                "below 256).")
    counter = "cycles" if session.unit == "cycles" else "ticks"
    if not session.hz:
        what = f"{counter} of the benchmark counter (its frequency was not reported)"
    else:
        what = (f"{counter} of the benchmark counter ({session.ts.get('source', '?')}, "
                f"measured at {session.hz / 1e6:.3f} MHz)"
                + ("" if counter == "cycles" else ", which is not the CPU core clock"))
    core = ""
    if session.core_cycles_hz:
        core = (f" The median core cycles column gives the median time per operation in "
                f"cycles of the core's clock: ns × the {core_clock_phrase(session)}.")
    return (f"Each table states its unit in its headers (ns, µs or ms, one per column); the "
            f"median {counter} column gives the median in {what}.{core} min and max are exact, "
            "the median (p50) and p99 come from the histogram. Metrics with no figure "
            "(unsupported here, failed) are listed under their table with the reason.")


def _warnings(run: Run, session: Session, expect: dict[str, Expect]) -> list[str]:
    """What the run as a whole is (imported, incomplete, failed); the
    conditions and figures are rtbench.advice's."""
    if session.source is not None:
        return _import_warnings(session.source, session.is_peer)
    out = []
    if run.status == "incomplete":
        out.append(f"**Incomplete run:** interrupted before every metric was measured "
                   f"({len(run.pending)} not measured).")
    elif run.status == "running":
        out.append(f"**Running:** this run is being measured now ({len(run.pending)} metrics "
                   "still to come); the figures below are those stored so far.")
    elif run.status == "failed":
        out.append("**Failed run:** the harness stopped before every metric was measured; "
                   "the figures below are partial.")
    return out


def _configuration(run: Run, session: Session,
                   expect: dict[str, Expect]) -> list[tuple[str, str]]:
    if session.source is not None:
        return _import_configuration(run, session.source, session.is_peer)
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
    rows = [
        ("CPU model", host.get("cpu_model", "unknown")),
        ("Cores online / used", f"{host.get('cores_online', rt.get('cpus_online', '?'))} / "
         + (f"1 (every task of a scenario on CPU {cpu})" if cpu is not None else unknown)),
        ("Counter frequency (measured)", freq),
        *([("Core clock (measured)", core_clock_phrase(session).removeprefix("core clock "))]
          if session.core_hz else []),
        ("Timestamp source", f"{ts.get('source', unknown)}"
         + (f", calibrated against {ts['ref_clock']}" if ts.get("ref_clock") else "")),
        ("Kernel", f"{host.get('kernel_release', '?')} {host.get('kernel_version', '')}".strip()),
        ("Preemption model", host.get("preemption", "unknown")),
        ("Clocksource", host.get("clocksource", "unknown")),
        ("Caches (benchmark CPU)", ", ".join(
            f"L{c['level']} {c['type'].lower()} {sysreport.fmt_bytes(c['size'])}"
            for c in host.get("caches") or []) or "unknown"),
        ("RT throttling", tuning.throttling(host)),
        ("Interrupts on the benchmark CPU", tuning.irq_steering(host)),
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
    if len(run.profiles) > 1:
        first = run.profiles[0]
        rows = [(f"{k} (profile {first})" if k in _SESSION_ROWS else k, v) for k, v in rows]
        rows.append(("Profiles", "; ".join(f"{p}: {_describe(e)}" for p, e in expect.items())))
    elif run.profiles != [DEFAULT_PROFILE]:
        rows.append(("Profile", run.profiles[0]))
    if run.imported_from:
        rows.append(("Imported", f"from {run.imported_from} on {run.imported_at}"))
    return rows


def _target_configuration(run: Run, session: Session) -> list[tuple[str, str]]:
    """A board run: the target as measured, never the PC that drove it."""
    host, ts, s, t = run.host, session.ts, session.raw, session.target
    unknown = "unknown (no session record)"
    size = host.get("image_size") or {}
    status = run.status
    if status != "complete":
        status = f"**{status}** ({len(run.pending)} of the selected metrics not measured)"
    logged = host.get("target_kind") != "emulator" and "log" in host
    target = host.get("target", "?")
    rows = [
        ("Target", target if target == host.get("board") else f"{target}: {host.get('board', '?')}"),
        ("CPU", t.get("cpu") or host.get("cpu_model", "unknown")),
        ("Kernel", t.get("kernel") or f"{host.get('os', '?')} {host.get('kernel_version', '')}"),
        ("Kernel configuration", ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in t.items()
                                           if k not in ("kernel", "board", "cpu", "icount_shift",
                                                        "irq_switch_at_exit"))
         or unknown),
        ("Scheduling", s.get("rt", {}).get("policy") or unknown),
        ("Timestamp source", ts.get("source", unknown)),
        ("Unit", f"{ts.get('unit', '?')}: {ts.get('unit_detail', '')}"),
        ("Emulator", f"{host.get('emulator', '?')}, -icount {host.get('icount', '?')}"
         if host.get("target_kind") == "emulator" else
         "not known (a console log)" if logged else "none (real hardware)"),
        ("Compiler and flags", f"{s['compiler']}, {s.get('cflags', '').strip()} "
         f"({s.get('build_type', '?')})" if "compiler" in s else unknown),
        ("Image", (f"text {size['text']:,} B, data {size['data']:,} B, bss {size['bss']:,} B"
                   if size else "size not known")),
        ("Kernel sources", host.get("kernel_src", "not known")),
        ("Harness revision", _harness_revision(host, s)),
        ("rtbench", f"{host.get('rtbench_version', '?')} (git {host.get('git_revision', 'unknown')})"),
        ("Driven from", f"not by rtbench: imported from the console log {host['log']}"
         if logged else host.get("runner_host", "?")),
        ("Date", run.started),
        ("Run", f"{run.id} ({run.uuid})" + (f", label “{run.label}”" if run.label else "")),
        ("Status", status),
    ]
    lab = host.get("labgrid")
    if lab:  # a place of a labgrid lab (targets/labgrid.py)
        where = (f"place {lab['place']} of the coordinator at {lab['coordinator']}, acquired "
                 f"by {lab['acquired_by']}" if lab.get("place") else f"target {lab.get('role')}")
        rows.insert(-3, ("Lab (labgrid)", f"{where}; console {lab.get('console')}, power "
                         f"{lab.get('power')}, image loaded by {lab.get('loader')}, command line "
                         f"{lab.get('command_line')}; labgrid {lab.get('labgrid')}"))
    na = host.get("not_applicable") or []
    if na:
        rows.append(("Not applicable here", f"{len(na)} catalogue metrics have no code on this "
                     "target (e.g. the System part: an operating system's services)"))
    return rows


def _stats_phrase(given: list[str]) -> str:
    if not given:
        return "none"
    text = ", ".join(given)
    return f"{text} only" if len(given) == 1 else text


def _import_configuration(run: Run, src: dict, peer: bool = False) -> list[tuple[str, str]]:
    """An imported run (`rtbench import KIND`), or a peer rtbench ran beside
    a run on a board: where it came from and what the source gave, never
    this machine's facts."""
    host = run.host
    files = "; ".join(f"{f.get('file', '?')} ({f.get('tool', src.get('tool', '?'))}, "
                      f"{f.get('format', 'text')})" for f in src.get("files", []))
    if peer:
        rows = [("Source", f"{src.get('tool', '?')} output, run by rtbench beside run "
                           f"{run.linked_to} (`rtbench run --with-peers`)"),
                ("Command", f"`{src.get('command', '?')}`"),
                ("Built from", src.get("src", "?")),
                ("Kernel", src.get("kernel", "?")),
                ("Unit", f"{src.get('unit', 'ns')}"
                 + (f", {src['iterations']} iterations per figure" if src.get("iterations")
                    else "")),
                ("Statistics the source gave", _stats_phrase(src.get("stats_given", []))
                 + "; absent ones are shown as —")]
        return rows + [("Run", f"{run.id} ({run.uuid})"
                        + (f", label “{run.label}”" if run.label else ""))]
    rows = [("Source", f"{src.get('tool', '?')} output, imported by rtbench "
                       f"(`rtbench import {src.get('kind', '?')}`)"),
            ("Files", files or "?"),
            ("Statistics the source gave", _stats_phrase(src.get("stats_given", []))
             + "; absent ones are shown as —")]
    if src.get("version"):
        rows.append(("Source version", str(src["version"])))
    if src.get("board"):
        rows.append(("Board", str(src["board"])))
    if "execution_successful" in src:
        rows.append(("PROJECT EXECUTION SUCCESSFUL", "seen" if src["execution_successful"]
                     else "not seen"))
    for label, key in (("OS", "os"), ("Kernel", "kernel_release"), ("Host", "hostname"),
                       ("Machine", "machine")):
        if host.get(key):
            rows.append((label, str(host[key])))
    rows += [("Imported", f"on {run.imported_at}"),
             ("Run", f"{run.id} ({run.uuid})" + (f", label “{run.label}”" if run.label else ""))]
    return rows


def _import_warnings(src: dict, peer: bool = False) -> list[str]:
    what = "A peer, not rtbench's harness" if peer else "Imported, not measured by rtbench"
    out = [f"**{what}:** figures as {src.get('tool', 'the source')} "
           f"printed them (statistics given: {_stats_phrase(src.get('stats_given', []))})."]
    if src.get("execution_successful") is False:
        out.append("**The output never says PROJECT EXECUTION SUCCESSFUL:** the Zephyr run "
                   "may have stopped early.")
    return out


def _import_methodology(session: Session) -> str:
    src = session.source or {}
    return (f"rtbench did not measure these figures: they were read from "
            f"{src.get('tool', 'another tool')}'s output and are shown as printed, converted "
            "to µs/ns (or kept in their own unit, e.g. MB/s). The source's own method "
            "applies; rtbench's calibration and overhead subtraction do not. A statistic the "
            "source did not print is shown as —, never computed from the others; "
            "percentiles appear only where the source printed a histogram.")


# Configuration rows that come from the session record, i.e. from the first
# profile's harness run when a run has several.
_SESSION_ROWS = ("Cores online / used", "Scheduling policy granted", "Memory locked")


def _describe(e: Expect) -> str:
    rt = {True: "real-time", False: f"not real-time ({e.reason or 'no reason given'})",
          None: "real-time unknown"}[e.realtime]
    where = ("unpinned" if e.placement == "unpinned" or (e.cpu is not None and e.cpu < 0)
             else f"pinned to CPU {e.cpu}" if e.cpu is not None else "placement unknown")
    return f"{rt}, {where}"


def _harness_revision(host: dict, session: dict) -> str:
    version = session.get("harness_version", "unknown")
    port = f", port {session['port']}" if "port" in session else ""
    src = host.get("harness_source_hash") or "unknown"
    return f"{version}{port}, sources {src}"


def methodology(session: Session, expect: dict[str, Expect] | None = None) -> str:
    ts, rt, cfg = session.ts, session.rt, session.config
    if session.is_count:
        return _count_methodology(session)

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
        "the mean of those reads (rounded to a tick; with blocks, the mean over every block's",
        "calibration) was subtracted from every sample, so an operation shorter than one",
        "counter read can show a slightly negative time.",
        f"The counter's resolution is {res} tick{'' if res == 1 else 's'} ({ns(res)}).",
        f"Each metric ran {cfg.get('warmup', '?')} warm-up samples, which were discarded,",
        f"then up to {cfg.get('samples', '?')} measured samples within a time budget of "
        f"{cfg.get('budget_ms', '?')} ms.",
        f"All tasks of a scenario were pinned to CPU {rt.get('cpu', '?')} and ran {sched}."
        if not expect or len(expect) == 1 else
        "Placement and scheduling differ by profile: " + "; ".join(
            f"{p}: {_describe(e)}" for p, e in expect.items()) + ".",
        "Statistics: minimum, maximum, mean and standard deviation are exact; the",
        "percentiles come from a log-linear histogram with at most 0.4 % relative error.",
        *_core_sentence(session),
    ]
    method = blocks_methodology(cfg)
    return " ".join(parts) + (f"\n\n{method}" if method else "")


def blocks_methodology(cfg: dict) -> str:
    """How blocks, the canary and replicates work (issue 13), for a run
    measured in blocks; "" for one block (a board, older runs)."""
    n = cfg.get("blocks")
    if not n or n <= 1:
        return ""
    return " ".join([
        f"Blocks: the run measured every metric in {n} blocks of about "
        f"{cfg.get('block_samples', '?')} samples, in passes over the whole metric list, so each",
        "metric was sampled across the whole run between all the others, and its figures",
        "merge its blocks exactly (the histograms bucket by bucket, so every percentile is",
        "that of all the samples; the counter overhead subtracted is the mean of every",
        "pass's calibration). A max is the largest sample of the window the note states:",
        "that many samples, observed for that long in all (the timed stretches added up),",
        "not a bound beyond it; a --duration soak widens it. Spread: the interquartile",
        "range of the block medians over the median, how much the figure moved during the",
        "run. Canary: before and after every block the harness times a fixed piece of",
        "work (a pointer chase and a null system call); a block whose canary ran more than",
        f"{blocks.SLOW_CANARY * 100:.0f} % above the run's usual (its lower quartile) is a",
        "slow-host block: counted in the note, its samples kept in the figures. Replicates:",
        "`rtbench compare` judges a median, p99 and p99.9 by a Mann–Whitney U test on the",
        "two runs' block figures (the slow-host blocks left out), not on thousands of",
        "correlated samples, at the 1 % level after Holm's correction over every metric",
        "compared (20 blocks against 20 can pass it over hundreds of metrics; 6, --quick,",
        "only over a few).",
    ])


def _core_sentence(session: Session) -> list[str]:
    """How the core cycles beside the ticks were obtained, where they were."""
    if not session.core_cycles_hz:
        return []
    return [f"The counter's ticks are not the core's cycles; the {core_clock_phrase(session)}"
            " was measured at start-up (adds that each wait on the last retire one per core "
            "cycle), and the median core cycles column is the median time × that clock."]


def _counter_columns(columns: tuple[tuple[str, str], ...], unit: str) -> tuple:
    return tuple((k, _COUNTER_HEADER.get(unit, h)) if k == "p50_ticks" else (k, h)
                 for k, h in columns)


def _count_methodology(session: Session) -> str:
    """An instruction-counting target: the method in its own unit."""
    ts, rt, cfg, t = session.ts, session.rt, session.config, session.target
    omed, res = ts.get("overhead_median_ticks"), ts.get("resolution_ticks")
    return " ".join([
        f"Every figure is the difference of two reads of the board's counter "
        f"({ts.get('source', '?')}), converted per interval to {session.unit}:",
        f"{ts.get('unit_detail', '')}",
        f"Reading the counter costs {omed} {session.unit} (two back-to-back reads, the same",
        f"every time: min {ts.get('overhead_min_ticks')}); that cost was subtracted from every",
        f"sample. The resolution is {res} {session.unit[:-1] if res == 1 else session.unit}.",
        "The same image run twice gives the same figures: nothing on the host changes a count.",
        f"Each metric ran {cfg.get('warmup', '?')} warm-up samples, which were discarded,",
        f"then up to {cfg.get('samples', '?')} measured samples within a budget of "
        f"{cfg.get('budget_ms', '?')} ms of the board's (virtual) time.",
        f"Tasks ran under the kernel's scheduler ({rt.get('policy') or '?'}) on its one CPU; the",
        f"kernel's tick ({t.get('tick_hz', '?')} Hz) kept running, so a sample the tick",
        "interrupt lands in carries its cost: it shows in the max and the high percentiles,",
        "never in the median.",
        "Statistics: minimum, maximum, mean and standard deviation are exact; the",
        "percentiles come from a log-linear histogram (exact below 256).",
    ])


def _service_tables(its: list[Item], profiles: list[str], expect: dict[str, Expect],
                    services: tuple[str, ...], unit: str = "ticks",
                    core_hz: float = 0.0) -> list[dict]:
    by_service: dict[str, list[Item]] = {}
    for it in its:
        by_service.setdefault(it.service, []).append(it)
    order = [*services, OTHER_SERVICE, UNMAPPED_SERVICE]
    return [{"name": s, "table": _table(by_service[s], profiles, expect, unit, core_hz),
             "part": "System" if sysreport.is_system(s) else "Kernel"}
            for s in order if s in by_service]


def _table(its: list[Item], profiles: list[str], expect: dict[str, Expect],
           unit: str, core_hz: float = 0.0) -> Table:
    """One section: a row per metric that has a figure in some profile, the
    others collapsed into a line per status. Columns and the unit are this
    table's own (a section of imported means gets a mean column; a
    section of MB/s a rate column), never set by another section."""
    multi = len(profiles) > 1
    shown = [it for it in its if any(r and r.get("status") == "ok" for r in it.records.values())]
    recs = [MetricRecord(r) for it in shown for r in it.records.values() if r]
    system = bool(its) and sysreport.is_system(its[0].service)
    scale = firstpage.time_scale([m.value("p50") for m in recs if m.is_time])
    suffix = f" {scale[0]}"
    if system:
        rate = any((it.meta and it.meta.unit == "bandwidth") or m.bytes or m.unit == "MB/s"
                   for it in shown for m in map(MetricRecord, filter(None, it.records.values())))
        columns = sysreport.columns(multi, rate, scale[0])
    elif recs and all(m.is_count for m in recs):
        columns = tuple((k, f"{h} {UNIT_SHORT.get(unit, unit)}" if k != "n" else h)
                        for k, h in (COUNT_SHORT_COLUMNS if multi else COUNT_COLUMNS))
    else:
        columns = tuple((k, h + suffix if k != "n" else h)
                        for k, h in (TIME_SHORT_COLUMNS if multi else TIME_COLUMNS))
        if any(not m.has("p50") and m.has("mean") for m in recs):  # a source gave a mean only
            columns = (*columns[:-1], (MEAN_COLUMN[0], MEAN_COLUMN[1] + suffix), columns[-1])
        if not multi and any(m.is_time and not m.origin for m in recs):
            columns = (*columns, ("p50_ticks", _COUNTER_HEADER.get(unit, "median ticks")))
            if core_hz:
                columns = (*columns, _CORE_HEADER)
    table = Table(profiles, columns)
    for it in shown:
        values, notes = [], []
        for profile in profiles:
            figures, note = _figures(it.records, profile, expect[profile], scale[1], system,
                                     core_hz)
            values.extend(figures.get(k, _BLANK) for k, _h in columns)
            if note:
                notes.append(f"{profile}: {note}" if multi else note)
        table.rows.append({"title": it.title, "id": it.id, "values": values,
                           "note": "; ".join(notes)})
    table.collapsed = _collapsed([it for it in its if it not in shown], multi)
    return table


def _collapsed(its: list[Item], multi: bool) -> list[dict]:
    """[{"status": "unsupported", "groups": [(reason, [ids])]}] for metrics
    with no figure in any profile."""
    by_status: dict[str, dict[str, list[str]]] = {}
    for it in its:
        for profile, rec in it.records.items():
            status = "not measured" if rec is None else rec.get("status", "?")
            reason = "run incomplete" if rec is None else rec.get("reason") or "no reason given"
            label = f"{it.id} [{profile}]" if multi else it.id
            ids = by_status.setdefault(status, {}).setdefault(reason, [])
            if label not in ids:
                ids.append(label)
    order = ("failed", "unsupported", "not measured")
    return [{"status": st, "count": sum(len(v) for v in by_status[st].values()),
             "groups": list(by_status[st].items())}
            for st in sorted(by_status, key=lambda x: order.index(x) if x in order else 9)]


_MISSING = object()


def _figures(records: dict[str, dict | None], profile: str, expect: Expect,
             div: float = 1e3, system: bool = False,
             core_hz: float = 0.0) -> tuple[dict[str, str], str]:
    """The table cells of one metric under one profile (times in the
    table's unit: ns divided by `div`), and its note."""
    rec = records.get(profile, _MISSING)
    if rec is _MISSING:
        return {"n": ""}, ""
    if rec is None:
        return {"n": ""}, "not measured (run incomplete)"
    m = MetricRecord(rec)
    if not m.ok:
        return {"n": ""}, f"{m.status}: {m.reason or 'no reason given'}"
    if system:
        return sysreport.figures(rec, div), "; ".join(_notes(rec, expect))
    cells = {k: figure_cell(m, k, lambda v: firstpage.fmt_scaled(v, div)) for k in FIGURE_KEYS}
    cells["n"] = _BLANK if m.n is None else str(m.n)
    cells["p50_ticks"] = (fmt_ticks(rec["p50"]) if m.has("p50") and m.is_time
                          and not m.origin else _BLANK)
    cells["p50_core"] = (_core_cycles(m.ns("p50"), core_hz) if core_hz and m.has("p50")
                         and m.is_time and not m.origin else _BLANK)
    return cells, "; ".join(_notes(rec, expect))


def _core_cycles(ns: float, core_hz: float) -> str:
    """A time per operation in core cycles, whole (the clock is an estimate)."""
    return f"{ns * core_hz / 1e9:.0f}"


def figure_cell(m: MetricRecord, stat: str, fmt=fmt_us) -> str:
    """One statistic as a table cell: µs (or `fmt`) for a time, the figure
    with its unit otherwise ("812.5 MB/s"), "—" when the record lacks it."""
    value = m.value(stat)
    if value is None:
        return _BLANK
    if m.is_time:
        return fmt(value)
    if m.is_count:  # the column says the unit
        return fmt_count(value)
    return (f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}") + f" {m.unit}"


def _notes(rec: dict, expect: Expect) -> list[str]:
    """Whatever makes this metric's figures differ from the sheet's method."""
    notes = []
    if rec.get("budget_exhausted"):
        notes.append(f"time budget ran out after {rec['n']} samples")
    if rec.get("invalid"):
        notes.append(f"{rec['invalid']} invalid samples dropped")
    if expect.realtime and rec.get("realtime") is False:
        notes.append("not real-time")
    # docs/records.md: placement is "pinned" (all tasks on `cpu`) or "unpinned"
    if rec.get("placement") == "unpinned":
        if expect.placement != "unpinned":
            notes.append("tasks not pinned to one CPU")
    elif rec.get("cpu") is not None and rec["cpu"] != expect.cpu:
        notes.append(f"tasks on CPU {rec['cpu']}")
    if rec.get("emulated"):  # the port built the service, or differs from the row: how
        notes.append(f"how: {rec['emulated']}")
    if rec.get("note"):
        notes.append(rec["note"])
    if rec.get("status") == "ok" and rec.get("max") is not None:
        window = blocks.window_text(rec)
        if window:  # issue 13: a max is the max of this window, no more
            notes.append(f"max of {window}")
        about = blocks.blocks_text(rec, expect.canary)
        if about:
            notes.append(about)
    return notes


def _definitions(its: list[Item]) -> list[dict]:
    return [{"id": it.id, "title": it.meta.title, "definition": it.meta.definition,
             "clock_start": it.meta.clock_start, "clock_stop": it.meta.clock_stop,
             "service": it.meta.service, "batch": _batch_sentence(it)}
            for it in its if it.meta]


def _batch_sentence(it: Item) -> str:
    """Where the run timed a batch of calls per sample (the record's `ops`,
    rtb_batch: the counter too coarse for one call), where the clock really
    started and stopped; "" for one call per sample."""
    ops = max((int(r.get("ops") or 1) for r in it.records.values() if r), default=1)
    if ops <= 1:
        return ""
    return (f" In this run a sample timed {ops} such calls in a row (the counter is too "
            f"coarse for one): the clock started before the first and stopped after the "
            f"last, and the figures are that span divided by {ops}.")


# ---- renderings ----

def render_markdown(run: Run, catalog: Catalog) -> str:
    """The Markdown sheet; its definitions are a page of their own
    (`render_glossary`, which `rtbench run` writes beside it)."""
    return template_env().get_template("datasheet.md.j2").render(**sheet_model(run, catalog))


def render_glossary(run: Run, catalog: Catalog) -> str:
    """The glossary and the definition of every metric of the run (Markdown)."""
    lines = [f"# Glossary and definitions — run {run.id}", ""]
    lines += [f"- **{term}** — {text}" for term, text in GLOSSARY]
    lines += ["", "## Metric definitions", ""]
    for d in _definitions(items(run, catalog)):
        lines.append(f"- **`{d['id']}`** — {d['title']}. {d['definition']}\n"
                     f"  Clock starts: {d['clock_start']}. Stops: {d['clock_stop']}.{d['batch']}")
    return "\n".join(lines) + "\n"


def render_html(run: Run, catalog: Catalog) -> str:
    """The self-contained HTML sheet: inline CSS and SVG, no script, no
    network. Histograms need matplotlib, imported only here."""
    from rtbench import plots

    model = sheet_model(run, catalog)
    colours = {p: plots.COLOURS[i % len(plots.COLOURS)] for i, p in enumerate(run.profiles)}
    figures: dict[str, dict] = {}
    its = items(run, catalog)
    at_resolution = set(advice_mod.resolution_rows(advice_mod.Facts(run)))
    with plots.HistogramPlotter() as plotter:
        for it in its:
            figures[it.id] = _histogram(it, colours, plotter, it.id in at_resolution)
    model.update(figures=figures, colours=colours, glossary=GLOSSARY,
                 curves=_curves(run, its))
    return template_env().get_template("datasheet.html.j2").render(**model)


def _curves(run: Run, its: list[Item]) -> dict[str, list[dict]]:
    """Service name -> the curve plots shown under its table (first profile
    that has the points; the cache sizes are the host's)."""
    out: dict[str, list[dict]] = {}
    marks = sysreport.cache_marks(run.host)
    by_id = {it.id: it for it in its}
    for profile in run.profiles:
        for n, c in enumerate(sysreport.curves(its, profile)):
            service = by_id[c.points[0][3]].service
            if any(d["series"] == c.series for d in out.get(service, [])):
                continue
            caches = ", ".join(label for label, _ in marks) or "cache sizes not reported"
            out.setdefault(service, []).append({
                "series": c.series, "profile": profile,
                "svg": Markup(sysreport.curve_svg(c, marks, f"curve{n}-{profile}")),
                "caption": f"{c.series}: median and p99 per load over {len(c.points)} sizes"
                           f" ({profile} profile); dotted lines: {caches}."})
    return out


def _histogram(it: Item, colours: dict[str, str], plotter, at_resolution: bool = False
               ) -> dict:
    """One metric's figure: the histogram (the legend inside names the
    median, p99 and max), and a caption only for what the plot cannot
    show. A row at the counter's resolution gets no log-axis plot: its few
    values and their counts are said instead."""
    from rtbench import plots
    from rtbench.store import stats

    series, captions, why = [], [], ""
    multi = len(it.records) > 1
    for profile, rec in it.records.items():
        if rec is None or rec.get("status") != "ok":
            continue
        m = MetricRecord(rec)
        if not (m.is_time or m.is_count) or any(m.value(k) is None for k in ("p50", "p99", "max")):
            tool = (rec.get("source") or {}).get("tool") or rec.get("origin") or "the source"
            why = f"{tool} gave {', '.join(m.stats_given) or 'no statistic'} only"
            continue  # a figure from another tool without a distribution
        g = stats.grouped(rec)
        marks = {k: m.value(k) for k in ("p50", "p99", "max")}
        fmt = lambda v: plots.fmt_value(v, m.base_unit)  # noqa: E731
        text = ""
        if g is None:
            text = (f"median {fmt(marks['p50'])} · p99 {fmt(marks['p99'])} · "
                    f"max {fmt(marks['max'])} · no histogram stored")
        elif at_resolution:
            text = "at the counter's resolution, so no histogram: " + _distinct(g, fmt)
        else:
            series.append(plots.Series(g, marks, colours[profile], profile if multi else ""))
            low = int(g.counts[g.values <= 0].sum())
            if low:
                text = f"{low} of {g.n} samples ≤ {fmt(0)}, left of the log axis"
        if text:
            captions.append({"profile": profile, "colour": colours[profile], "text": text})
    svg = plotter.svg(series) if series else None
    return {"svg": Markup(svg) if svg else None, "captions": captions, "why": why,
            "at_resolution": at_resolution and not series}


def _distinct(g, fmt, shown: int = 4) -> str:
    """The most frequent values of a sample and their counts ("0 ns ×9,812 ·
    0.4 ns ×180 · 12 others ×8")."""
    order = sorted(range(len(g.values)), key=lambda i: -g.counts[i])
    parts = [f"{fmt(float(g.values[i]))} ×{int(g.counts[i]):,}" for i in order[:shown]]
    rest = order[shown:]
    if rest:
        parts.append(f"{len(rest)} other values ×{int(sum(g.counts[i] for i in rest)):,}")
    return " · ".join(parts)


# Terms the sheet uses, for the glossary next to the metric definitions.
GLOSSARY = (
    ("median (p50), p99, p99.9", "The value half (99 %, 99.9 %) of the samples are at or "
     "below, read from the log-linear histogram (≤ 0.4 % error)."),
    ("min, max", "The exact smallest and largest sample; max is the worst case observed."),
    ("ticks", "Ticks of the benchmark counter, at the frequency measured at start-up and "
     "stated in the configuration; not the CPU core clock (an x86 TSC ticks at a constant "
     "rate whatever the core's clock)."),
    ("cycles", "CPU core clock cycles, from the core's own cycle counter (DWT CYCCNT on a "
     "Cortex-M)."),
    ("core cycles", "A time converted to cycles of the CPU core's clock, where the counter "
     "ticks at another rate (an x86 TSC): the clock is measured at start-up by a chain of "
     "dependent adds (one per core cycle) timed by the reference clock, and stated in the "
     "configuration."),
    ("instructions", "Instructions executed, counted exactly by an instruction-counting "
     "emulator (QEMU -icount): a cost, not a time; every instruction counts 1 and exception "
     "entry and return count 0."),
    ("timestamp overhead", "The median cost of one counter read, subtracted from every "
     "sample, so very short operations can show slightly negative times."),
    ("warm-up", "Samples run before measuring and discarded, so caches and the kernel's "
     "paths are warm."),
    ("profile", "A set-up the whole catalogue was measured under (e.g. rt, default, cold); "
     "a run may hold several, shown side by side."),
    ("unsupported", "The port lacks the service; the reason is given, never a number."),
    ("failed", "The primitive returned an error or the scenario timed out or crashed; the "
     "reason is given."),
)


# ---- results.json and writing ----

def envelope(run: Run, catalog: Catalog) -> dict[str, Any]:
    """The results file (docs/results-schema.json, schema_version 2)."""
    its = items(run, catalog)
    return {
        "schema_version": ENVELOPE_SCHEMA,
        "rtbench_version": rtbench.__version__,
        # a live run's file is a snapshot: incomplete (the schema knows no "running")
        "run": {"id": run.id, "uuid": run.uuid, "label": run.label,
                "status": "incomplete" if run.status == "running" else run.status,
                "started": run.started, "finished": run.finished, "argv": run.argv,
                "profiles": run.profiles, "imported_from": run.imported_from},
        "host": run.host,
        "session": run.session,
        "metrics": [{**rec, "profile": p} for it in its for p, rec in it.records.items()
                    if rec is not None],
        "not_measured": [{"id": mid, "profile": p} for mid, p in run.pending_keys()],
    }


# What `rtbench run` writes into its output folder (also listed by `run --help`).
OUTPUT_FILES = (("datasheet.md", "the data sheet, Markdown"),
                ("datasheet.html", "the data sheet, one self-contained HTML file"),
                ("glossary.md", "the glossary and every metric's definition"),
                ("results.json", "every record (docs/results-schema.json)"))


def write_outputs(run: Run, catalog: Catalog, out_dir: Path) -> dict[str, Path]:
    """Write OUTPUT_FILES into out_dir; their paths by name."""
    paths = {name: out_dir / name for name, _what in OUTPUT_FILES}
    atomic_write(paths["results.json"], strict_json(envelope(run, catalog), indent=2) + "\n")
    atomic_write(paths["glossary.md"], render_glossary(run, catalog))
    atomic_write(paths["datasheet.md"], render_markdown(run, catalog))
    atomic_write(paths["datasheet.html"], render_html(run, catalog))
    return paths


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
