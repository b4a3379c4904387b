"""What a data sheet says of how its run was made, beside the figures:
the Configuration table (this host, a board, an import, a peer), the
per-profile expectations a row's note is measured against, the warnings
about the run as a whole and the note on its units.

The Methodology paragraph stays with the tables (datasheet.py): it speaks
in their number formats.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rtbench.sheets import system
from rtbench.store import blocks, kernel_profile
from rtbench.store.host import irq_steering, throttling
from rtbench.store.db import DEFAULT_PROFILE, Run
from rtbench.store.records import COUNT_UNITS, Session, differences, is_note_key


def core_clock_phrase(session: Session) -> str:
    """"core clock ≈ 3.49 GHz (dependent-add chain of …)", or "" where the
    run has no measured core clock."""
    if not session.core_hz:
        return ""
    how = session.core_hz_method or "method not reported"
    return f"core clock ≈ {session.core_hz / 1e9:.2f} GHz ({how})"


@dataclass(frozen=True)
class Expect:
    """How a profile's metrics were meant to run, so that a note marks only
    the records that differ: real-time or not, and the benchmark CPU."""

    realtime: bool | None
    cpu: int | None
    reason: str = ""
    placement: str = ""
    canary: float | None = None  # the profile's usual canary (blocks.canary_baseline)
    facts: dict[str, Any] = field(default_factory=dict)  # the port's target facts ("differs:")


def expectations(run: Run, session: Session) -> dict[str, Expect]:
    """Per profile. One profile: the session record says it. Several: the
    run keeps one session record (the first profile's), so each profile's
    own records say it (their majority)."""
    if len(run.profiles) == 1:
        return {run.profiles[0]: Expect(session.rt.get("realtime"), session.rt.get("cpu"),
                                        session.rt.get("reason", ""),
                                        canary=blocks.canary_baseline(run.metrics),
                                        facts=session.target)}
    out = {}
    for profile in run.profiles:
        recs = [r for r in run.metrics
                if r.get("profile", DEFAULT_PROFILE) == profile and r.get("status") == "ok"]
        out[profile] = Expect(_mode([r.get("realtime") for r in recs]),
                              _mode([r.get("cpu") for r in recs]),
                              _mode([r.get("rt_reason", "") for r in recs]) or "",
                              _mode([r.get("placement", "") for r in recs]) or "",
                              blocks.canary_baseline(recs), session.target)
    return out


def _mode(values: list) -> Any:
    from collections import Counter

    counted = Counter(v for v in values if v is not None)
    return counted.most_common(1)[0][0] if counted else None


def is_board_run(run: Run) -> bool:
    """Measured on a board target (an emulator or remote board), not this host."""
    return bool(run.host.get("target_kind"))


def host_configuration(run: Run, session: Session,
                   expect: dict[str, Expect]) -> list[tuple[str, str]]:
    if session.source is not None:
        return import_configuration(run, session.source, session.is_peer)
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
            f"L{c['level']} {c['type'].lower()} {system.fmt_bytes(c['size'])}"
            for c in host.get("caches") or []) or "unknown"),
        ("RT throttling", throttling(host)),
        ("Interrupts on the benchmark CPU", irq_steering(host)),
        ("Scheduling policy granted", policy),
        ("Memory locked", {True: "yes (mlockall)", False: "no"}.get(rt.get("mlock"), unknown)),
        ("Compiler and flags", f"{s['compiler']}, {s.get('cflags', '').strip()} "
         f"({s.get('build_type', '?')})" if "compiler" in s else unknown),
        ("Harness revision", harness_revision(host, s)),
        ("rtbench", f"{host.get('rtbench_version', '?')} (git {host.get('git_revision', 'unknown')})"),
        ("Date", run.started),
        ("Run", f"{run.id} ({run.uuid})" + (f", label “{run.label}”" if run.label else "")),
        ("Status", status),
    ]
    if len(run.profiles) > 1:
        first = run.profiles[0]
        rows = [(f"{k} (profile {first})" if k in SESSION_ROWS else k, v) for k, v in rows]
        rows.append(("Profiles", "; ".join(f"{p}: {describe(e)}" for p, e in expect.items())))
    elif run.profiles != [DEFAULT_PROFILE]:
        rows.append(("Profile", run.profiles[0]))
    if run.imported_from:
        rows.append(("Imported", f"from {run.imported_from} on {run.imported_at}"))
    return rows


def board_configuration(run: Run, session: Session) -> list[tuple[str, str]]:
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
                                                        "irq_switch_at_exit")
                                           and not is_note_key(k)
                                           and not kernel_profile.is_profile_key(k))
         or unknown),
        *profile_rows(t),
        *[(f"Fairness note: {', '.join(patterns)}", text) for patterns, text in differences(t)],
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
        ("Harness revision", harness_revision(host, s)),
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


def profile_rows(facts: dict[str, Any]) -> list[tuple[str, str]]:
    """The kernel profile the image was built in, and each of its settings
    with the value the kernel was compiled with, why and its source
    (docs/profiles.md); none for an image that names no profile."""
    name = kernel_profile.name(facts)
    if not name:
        return []
    rows = [("Kernel profile", f"{name}: {kernel_profile.means(facts)}")]
    if kernel_profile.config(facts):  # the engineer's own settings: differences from the rule
        rows.append(("Engineer's kernel configuration (--kernel-config)",
                     f"{kernel_profile.config(facts)}, each a difference from rtbench's rule: "
                     + "; ".join(kernel_profile.differences(facts))))
    return rows + [(f"Kernel setting {s.name}", f"{s.value} ({s.why}; source: {s.source})")
                   for s in kernel_profile.settings(facts)]


def stats_phrase(given: list[str]) -> str:
    if not given:
        return "none"
    text = ", ".join(given)
    return f"{text} only" if len(given) == 1 else text


def import_configuration(run: Run, src: dict, peer: bool = False) -> list[tuple[str, str]]:
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
                ("Statistics the source gave", stats_phrase(src.get("stats_given", []))
                 + "; absent ones are shown as —")]
        return rows + [("Run", f"{run.id} ({run.uuid})"
                        + (f", label “{run.label}”" if run.label else ""))]
    rows = [("Source", f"{src.get('tool', '?')} output, imported by rtbench "
                       f"(`rtbench import {src.get('kind', '?')}`)"),
            ("Files", files or "?"),
            ("Statistics the source gave", stats_phrase(src.get("stats_given", []))
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


def import_warnings(src: dict, peer: bool = False) -> list[str]:
    what = "A peer, not rtbench's harness" if peer else "Imported, not measured by rtbench"
    out = [f"**{what}:** figures as {src.get('tool', 'the source')} "
           f"printed them (statistics given: {stats_phrase(src.get('stats_given', []))})."]
    if src.get("execution_successful") is False:
        from rtbench import importers

        out.append(importers.unfinished_note())  # the importer's own words
    return out


def import_methodology(session: Session) -> str:
    src = session.source or {}
    return (f"rtbench did not measure these figures: they were read from "
            f"{src.get('tool', 'another tool')}'s output and are shown as printed, converted "
            "to µs/ns (or kept in their own unit, e.g. MB/s). The source's own method "
            "applies; rtbench's calibration and overhead subtraction do not. A statistic the "
            "source did not print is shown as —, never computed from the others; "
            "percentiles appear only where the source printed a histogram.")


# Configuration rows that come from the session record, i.e. from the first
# profile's harness run when a run has several.
SESSION_ROWS = ("Cores online / used", "Scheduling policy granted", "Memory locked")


def describe(e: Expect) -> str:
    rt = {True: "real-time", False: f"not real-time ({e.reason or 'no reason given'})",
          None: "real-time unknown"}[e.realtime]
    where = ("unpinned" if e.placement == "unpinned" or (e.cpu is not None and e.cpu < 0)
             else f"pinned to CPU {e.cpu}" if e.cpu is not None else "placement unknown")
    return f"{rt}, {where}"


def harness_revision(host: dict, session: dict) -> str:
    version = session.get("harness_version", "unknown")
    port = f", port {session['port']}" if "port" in session else ""
    src = host.get("harness_source_hash") or "unknown"
    return f"{version}{port}, sources {src}"


def figures_unit(session: Session) -> str:
    """The unit of the run's figures: the harness's, or for an import the
    source's when it counted instructions (rtos-benchmark on an emulated
    board: docs/records.md)."""
    src = session.source
    if src is not None and src.get("unit") in COUNT_UNITS:
        return src["unit"]
    return session.unit


def units_note(session: Session) -> str:
    if session.source is not None and figures_unit(session) in COUNT_UNITS:
        return (f"Figures are {figures_unit(session)} executed, not times, as the source "
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


def run_warnings(run: Run, session: Session, expect: dict[str, Expect]) -> list[str]:
    """What the run as a whole is (imported, incomplete, failed); the
    conditions and figures are rtbench.sheets.advice's."""
    if session.source is not None:
        return import_warnings(session.source, session.is_peer)
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
