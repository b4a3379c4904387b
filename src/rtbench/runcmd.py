"""`rtbench run`: validate everything, measure, store each metric, write the sheet.

All checks happen before the run is inserted in the database, so bad input
leaves nothing behind: no run row, no output directory.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from rtbench import catalog as catalog_mod
from rtbench import (external, firstpage, load, outdir, peers, placement, report, sysinfo,
                     sysreport, targets)
from rtbench.errors import HarnessError, RtbenchError
from rtbench.records import MetricRecord
from rtbench.runner import HarnessUsageError, RunOptions, Runner
from rtbench.store import Store
from rtbench.targets import Target

EXIT_INTERRUPTED = 130


# Measurement profiles (VxWorks "Default Build / Maximal Performance",
# DSP/BIOS "Best Case / Best-Worst Case"): the harness options of each.
PROFILES = {
    "default": ["--no-pin", "--no-rt", "--no-mlock"],  # what an untuned application gets
    "rt": [],                                           # pinned, SCHED_FIFO, mlockall
    "cold": ["--cold"],                                 # rt + caches evicted before each sample
}


def parse_profiles(text: str) -> list[str]:
    names = [p.strip() for p in text.split(",") if p.strip()]
    if not names:
        raise RtbenchError("--profile: no profile given (one of: default, rt, cold)")
    for n in names:
        if n not in PROFILES:
            raise RtbenchError(f"unknown profile {n!r} (one of: {', '.join(PROFILES)})")
    if len(set(names)) != len(names):
        raise RtbenchError(f"--profile: a profile is listed twice ({text})")
    return names


@dataclass
class RunRequest:
    patterns: str | None
    samples: int
    warmup: int
    budget_ms: int
    cpu: int | None
    no_rt: bool
    timeout: float
    label: str
    out: Path | None
    db: Path | None
    harness: Path | None
    argv: list[str]
    profiles: list[str] = field(default_factory=lambda: ["rt"])
    load: bool = False
    programs: bool = True  # run the standard programs (rtbench.external) after the harness
    with_peers: bool = False  # then rt-tests as a linked run (rtbench.peers)
    quick: bool = False
    target: str = targets.HOST  # where to measure (rtbench.targets)
    kernel: str | None = None   # the RTOS on a board target (--kernel)
    kernel_src: Path | None = None  # the user's checkout of that kernel (--kernel-src)


def now_utc() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def execute(req: RunRequest, console: Console) -> int:
    cat = catalog_mod.load()
    ids = cat.match(req.patterns)
    target = targets.make(req.target, req.kernel, req.kernel_src, req.harness)
    _check_target_options(req, target)
    programs = external.program_ids(cat, ids)  # measured by standard programs, not the harness
    ids = [i for i in ids if i not in programs]
    _check_numbers(req, target)
    with console.status(f"preparing the harness for {target.name} (first use builds it)…"):
        target.prepare()
        ids, not_applicable = _check_registry(target, ids)
    if not target.supports_programs:
        not_applicable += programs
        programs = []
    if not ids and not programs:
        raise RtbenchError(f"none of the selected metrics has code on {target.name} "
                           f"({len(not_applicable)} not applicable there)")
    src_hash = target.source_hash()
    created = outdir.CreatedDirs()
    try:
        if req.out is not None:
            outdir.check_existing(req.out)
            created.make(req.out, "--out directory")
        else:
            created.make(outdir.DEFAULT_PARENT, "results directory")
        store = Store(req.db)
    except RtbenchError:
        created.rollback()
        raise
    with store:
        host = target.describe()
        host["harness_source_hash"] = src_hash
        if not_applicable:  # catalogue entries this target has no code for
            host["not_applicable"] = not_applicable
        host["profiles"] = req.profiles
        host["load"] = load.DESCRIPTION if req.load else "none"
        started = now_utc()
        run_id = store.create_run(str(uuid.uuid4()), started, ids, req.label, req.argv, host)
        out = req.out or outdir.default_dir(started, run_id)
        try:
            created.make(out, "--out directory")
        except RtbenchError:
            store.delete_run(run_id)
            created.rollback()
            raise
        return _measure(req, target, ids, store, run_id, out, created, console,
                        programs if req.programs else [], host)


def _check_target_options(req: RunRequest, target: Target) -> None:
    """Options that only make sense on the host are refused elsewhere."""
    if target.supports_cpu:
        return
    asked = [name for name, on in (("--load", req.load), ("--cpu", req.cpu is not None),
                                   ("--no-rt", req.no_rt),
                                   ("--profile", req.profiles != ["rt"])) if on]
    if asked:
        raise RtbenchError(f"{', '.join(asked)}: for the host target only (on {target.name} "
                           "the kernel's own fixed-priority scheduling is what is measured)")


def _check_numbers(req: RunRequest, target: Target) -> None:
    if req.timeout <= req.budget_ms / 1000:
        # A metric may legitimately run for its whole budget.
        raise RtbenchError(f"--timeout ({req.timeout:g} s) must be longer than the "
                           f"per-metric budget (--budget-ms {req.budget_ms})")
    if target.supports_cpu and req.cpu is not None and req.cpu not in os.sched_getaffinity(0):
        allowed = ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))
        raise RtbenchError(f"--cpu {req.cpu} is not a CPU this process may use ({allowed})")


def _check_registry(target: Target, ids: list[str]) -> tuple[list[str], list[str]]:
    """(ids to measure, ids this target has no code for). On the host every
    catalogue metric must be known (the two are kept in step by a test); a
    board's port has code for a part of the catalogue (no System part), the
    rest is not applicable there, never an error."""
    known = target.registry()
    missing = [i for i in ids if i not in known]
    if missing and target.name == targets.HOST:
        raise RtbenchError(f"the harness does not know {', '.join(missing)} "
                           "(catalogue and harness disagree)")
    return [i for i in ids if i in known], missing


def _measure(req: RunRequest, target: Target, ids: list[str], store: Store, run_id: int,
             out: Path, created: outdir.CreatedDirs, console: Console,
             programs: list[str] = (), host: dict | None = None) -> int:
    cpu = placement.benchmark_cpu(req.cpu) if target.supports_cpu else None
    # the host's conditions while it measures (a board's counts do not depend on them)
    watch = sysinfo.RunWatch(cpu) if target.supports_cpu else None
    console.print(f"run {run_id}: {len(ids)} metrics on {target.name}, {req.samples} samples "
                  f"each, profile {', '.join(req.profiles)}"
                  + (", under load" if req.load else ""), soft_wrap=True)
    status, code, error = "complete", 0, None
    try:
        with _progress(console) as progress, \
                (load.background(cpu) if req.load else contextlib.nullcontext()):
            task = progress.add_task("starting", total=len(ids) * len(req.profiles))

            def on_metric(rec: dict) -> None:
                store.add_metric(run_id, rec)  # commit first: it must survive a crash
                if watch:
                    watch.sample()
                line = _metric_line(rec)
                if len(req.profiles) > 1:
                    line = "  " + escape(f"[{rec.get('profile', '?')}]") + line
                progress.console.print(line, soft_wrap=True)
                progress.advance(task)

            for profile in req.profiles:
                outcome = _measure_profile(req, target, ids, cpu, profile, store, run_id,
                                           progress, task, on_metric)
                if outcome.interrupted:
                    status, code = "incomplete", EXIT_INTERRUPTED
                    break
    except KeyboardInterrupt:
        status, code = "incomplete", EXIT_INTERRUPTED
    except HarnessUsageError:
        store.delete_run(run_id)  # it never started: leave nothing behind
        created.rollback()
        raise
    except HarnessError as exc:
        status, code, error = "failed", 1, exc
    if programs and status != "incomplete":  # standard programs (docs/reports.md)
        try:
            external.run(programs, external.Context(cpu, req.quick, req.profiles[0]),
                         lambda rec: (store.add_metric(run_id, rec),
                                      console.print(external.line(rec), soft_wrap=True)))
        except KeyboardInterrupt:  # the program was killed; what it measured is kept
            status, code = "incomplete", EXIT_INTERRUPTED
    if req.with_peers and status != "incomplete":
        tuned = "--no-pin" not in PROFILES[req.profiles[0]]
        try:
            peers.beside(store, run_id, catalog_mod.load(), peers.Context(
                cpu if tuned else None, req.no_rt or not tuned, req.quick, req.profiles[0]),
                lambda text: console.print(text, soft_wrap=True))
        except KeyboardInterrupt:
            status, code = "incomplete", EXIT_INTERRUPTED
    if watch is not None and host is not None:
        store.update_host(run_id, {**host, **watch.finish()})
    store.finish_run(run_id, status, now_utc())
    cat = catalog_mod.load()
    stored = store.get_run(run_id)
    paths = report.write_outputs(stored, cat, out)
    firstpage.print_console(firstpage.build(stored, cat), console,
                            f"run {run_id}: the first page of its data sheet")
    if error:
        click.echo(f"rtbench: error: {error}", err=True)
    if status == "incomplete":
        console.print("[yellow]interrupted: the run is incomplete[/yellow]")
    console.print(f"data sheet: {paths['datasheet.md']}", soft_wrap=True, highlight=False)
    console.print(f"data sheet (HTML): {paths['datasheet.html']}", soft_wrap=True,
                  highlight=False)
    console.print(f"beside them: {paths['glossary.md'].name}, {paths['results.json'].name}",
                  soft_wrap=True, highlight=False)
    return code


def _measure_profile(req: RunRequest, target: Target, ids: list[str], cpu: int | None,
                     profile: str, store: Store, run_id: int, progress: Progress, task,
                     on_metric):
    """One harness run over `ids` in `profile`. The run keeps the first
    profile's session record; every metric record names its own profile and
    carries its own real-time status and placement."""
    pinned = "--no-pin" not in PROFILES[profile] and cpu is not None
    opts = RunOptions(ids=ids, samples=req.samples, warmup=req.warmup, budget_ms=req.budget_ms,
                      cpu=cpu if pinned else None, no_rt=req.no_rt, timeout=req.timeout,
                      extra=["--profile", profile, *PROFILES[profile]])

    def on_session(session: dict) -> None:
        if profile == req.profiles[0]:
            store.set_session(run_id, session)

    runner = Runner(target, opts, on_session=on_session,
                    on_begin=lambda i: progress.update(task, description=f"{profile}: {i}"),
                    on_metric=on_metric)
    # The untuned profile runs where the kernel puts it; the others keep
    # rtbench itself off the benchmark CPU.
    with placement.off_cpu(cpu) if pinned else contextlib.nullcontext():
        return runner.run()


def _progress(console: Console) -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=console, transient=True,
                    disable=not console.is_terminal)  # no bar in logs and pipes


def _metric_line(rec: dict) -> str:
    m = MetricRecord(rec)
    if m.ok:  # the unit per figure: System metrics run from ~1 ns (a load) to ms (fork)
        t = {k: sysreport.fmt_time(m.ns(k)) if m.is_time else f"{m.value(k):,.0f} {m.unit}"
             for k in ("p50", "p99", "max")}
        return (f"  {escape(m.id):<32} [green]ok[/green]          median {t['p50']:>10}  "
                f"p99 {t['p99']:>10}  max {t['max']:>10}")
    colour = "yellow" if m.status == "unsupported" else "red"
    return f"  {escape(m.id):<32} [{colour}]{m.status:<11}[/{colour}] {escape(m.reason)}"
