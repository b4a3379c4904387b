"""`rtbench run`: validate everything, measure, store each metric, write the sheet.

All checks happen before the run is inserted in the database, so bad input
leaves nothing behind: no run row, no output directory.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape

from rtbench import kernels, targets
from rtbench.errors import HarnessError, RtbenchError
from rtbench.measure import farm, kernelset, load, outdir, own_board, placement, tuning
from rtbench.measure.interleave import Interleaved
from rtbench.measure.kept import KeptStore
from rtbench.measure import progress as progress_mod
from rtbench.measure.progress import RunProgress
from rtbench.measure.runner import HarnessUsageError, RunOptions
from rtbench.peers import beside, programs, rttests
from rtbench.process import lifetime, locks
from rtbench.sheets import calibration, datasheet, firstpage, system
from rtbench.store import blocks
from rtbench.store import catalog as catalog_mod
from rtbench.store import contract
from rtbench.store.db import Store, now_utc
from rtbench.store.records import MetricRecord
from rtbench.targets import Target, harness, sysinfo

EXIT_INTERRUPTED = 130  # Ctrl-C; SIGTERM gives 143 and SIGHUP 129 (rtbench.process.lifetime)


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
    programs: bool = True  # run the standard programs (peers/programs.py) after the harness
    with_peers: bool = False  # then rt-tests as a linked run (rtbench.peers.rttests)
    quick: bool = False
    target: str = targets.HOST  # where to measure (rtbench.targets)
    kernel: str | None = None   # the RTOS on a board target (--kernel)
    kernel_src: Path | None = None  # the user's checkout of that kernel (--kernel-src)
    kernel_profile: str | None = None  # its profile(s), comma-separated (--kernel-profile)
    kernel_config: Path | None = None  # the engineer's settings on top (--kernel-config)
    # The options a kernel brings (its descriptor's, rtbench.kernels): further
    # source trees its build needs, its user-mode variant, an image for a board
    # of its own tree (own_board.py) with or without rtbench's board support.
    modules: Path | None = None
    userspace: bool = False
    board: str | None = None
    board_glue: bool = True
    peer_src: Path | None = None  # a board's peer (rtos-benchmark) checkout (--peer-src)
    thread_metric_src: Path | None = None  # Thread-Metric's sources (--thread-metric-src)
    lab_env: Path | None = None  # --target labgrid: the labgrid environment file (--env)
    place: str | None = None     # its place(s): NAME, NAME,NAME or TAG=VALUE (--place)
    tune: bool = True            # as root: lift RT throttling, steer IRQs off the CPU (tuning.py)
    blocks: int | None = None    # blocks per metric (rtbench.store.blocks); None: target's default
    duration_s: float | None = None  # --duration: repeat the blocks this long (a soak)
    cycles: bool = True          # an emulated board's estimated cycles (--no-cycles: off)
    gdb: str | None = None       # a real board: the GDB server that loads it (--gdb HOST:PORT)
    serial: str | None = None    # ...and its console (--serial DEVICE or socket://HOST:PORT)

    def check_budget(self) -> None:
        """The watchdog must outlast a metric's budget: a metric may
        legitimately run for its whole budget."""
        if self.timeout <= self.budget_ms / 1000:
            raise RtbenchError(f"--timeout ({self.timeout:g} s) must be longer than the "
                               f"per-metric budget (--budget-ms {self.budget_ms})")

    def plan(self, target: Target) -> blocks.Plan:
        """How each metric's samples are cut into interleaved blocks: many
        on the host (its figures move with the host's episodes), one on a
        board (its counts are exact and the same in every block)."""
        default = (blocks.QUICK_BLOCKS if self.quick else blocks.DEFAULT_BLOCKS) \
            if target.supports_cpu else 1
        n = self.blocks if self.blocks is not None else default
        return blocks.plan(self.samples, self.warmup, self.budget_ms, n, self.duration_s)


def execute(req: RunRequest, console: Console) -> int:
    if req.board is not None or not req.board_glue:
        _check_board_options(req)
        return own_board.build(req, console)  # an image to flash: nothing measured here
    if kernelset.is_several(req.kernel, req.kernel_profile) and (req.gdb or req.serial):
        raise RtbenchError("--gdb: one kernel and profile at a time (one board)")
    if kernelset.is_several(req.kernel, req.kernel_profile):
        return kernelset.run_kernels(req, console)  # one run per kernel and profile, then compared
    if req.target == targets.LABGRID and req.place and farm.is_several(req.place):
        from rtbench.targets.labgrid import LabgridTarget

        _check_target_options(req, LabgridTarget)  # once, not in every place's run
        return farm.run_places(req, console)  # one run per place, at once, then compared
    cat = catalog_mod.load()
    ids = cat.match(req.patterns)
    say = lambda text: console.print(escape(text), soft_wrap=True, highlight=False)  # noqa: E731
    # The guard watches from the start: what the target starts to prepare (an
    # image build, labgrid's QEMU) and takes (a lab's place) goes with rtbench.
    with lifetime.guarded():
        target = targets.make(req.target, req.kernel, req.kernel_src, req.harness, req.lab_env,
                              req.place, req.modules, req.userspace, req.kernel_profile,
                              req.cycles, req.kernel_config, req.gdb, req.serial)
        try:
            with harness.announcing(say):  # an image build (the run's, a peer's) says so
                return _execute(req, console, target, cat, ids)
        finally:
            target.close()  # a lab's place is released whatever happened


def _execute(req: RunRequest, console: Console, target: Target, cat, ids: list[str]) -> int:
    _check_target_options(req, target)
    prog_ids = programs.program_ids(cat, ids)  # measured by standard programs, not the harness
    ids = [i for i in ids if i not in prog_ids]
    _check_numbers(req, target)
    with console.status(f"preparing the harness for {target.name} (first use builds it)…"):
        if getattr(target, "kernel", None) is not None:  # a board: an image, booted to list
            console.print(f"preparing {target.name}: {_what_runs(target)}", soft_wrap=True,
                          highlight=False)
        target.prepare()
        ids, not_applicable = _check_registry(target, ids)
    if not target.supports_programs:
        not_applicable += prog_ids
        prog_ids = []
    if not ids and not prog_ids:
        raise RtbenchError(f"none of the selected metrics has code on {target.name} "
                           f"({len(not_applicable)} not applicable there)")
    # A board is measured on itself: no host CPU to lock or keep rtbench off.
    cpu = placement.benchmark_cpu(req.cpu) if target.supports_cpu else None
    if req.out is not None:
        outdir.check_existing(req.out)
    run_uuid = str(uuid.uuid4())
    cpu_lock = (locks.benchmark_cpu(cpu, lambda text: console.print(escape(text), soft_wrap=True))
                if cpu is not None else contextlib.nullcontext())
    with lifetime.guarded(), cpu_lock, \
            locks.hold_run(run_uuid):  # the run reads as running, not killed, until the end
        run = _start(req, ids, target, not_applicable, run_uuid)
        with run.store:
            return _measure(req, target, ids, run.store, run.id, run.out, run.created, console,
                            cpu, prog_ids if req.programs else [])


@dataclass
class _Started:
    store: Store
    id: int
    out: Path
    created: outdir.CreatedDirs


def _start(req: RunRequest, ids: list[str], target: Target, not_applicable: list[str],
           run_uuid: str) -> _Started:
    """The output directory and the run's row. Whatever goes wrong here
    (bad --out or --db, an interrupt, anything) takes back all of it."""
    created = outdir.CreatedDirs()
    store, run_id = None, None
    try:
        if req.out is not None:
            outdir.check_existing(req.out)
            created.make(req.out, "--out directory")
        else:
            created.make(outdir.DEFAULT_PARENT, "results directory")
        store = KeptStore(Store(req.db))  # the run in memory too: kept if the database is damaged
        host = target.describe()
        host["harness_source_hash"] = target.source_hash()
        if not_applicable:  # catalogue entries this target has no code for
            host["not_applicable"] = not_applicable
        host["profiles"] = req.profiles
        host["load"] = load.DESCRIPTION if req.load else "none"
        started = now_utc()
        run_id = store.create_run(run_uuid, started, ids, req.label, req.argv, host)
        out = req.out or created.make_new(outdir.default_dir(started, run_id),
                                          "results directory")
        return _Started(store, run_id, out, created)
    except BaseException:
        with lifetime.interrupts_deferred():
            if run_id is not None:
                with contextlib.suppress(Exception):
                    store.delete_run(run_id)
            if store is not None:
                store.close()
            created.rollback()
        raise


def _what_runs(target: Target) -> str:
    """What a board run prepares, in words."""
    kernel = target.kernel
    return (f"the {kernel.title} {kernel.version} image, kernel profile {kernel.profile} "
            f"(built from {kernel.src} on first use), booted once for its metric list")


def _check_board_options(req: RunRequest) -> None:
    """--board builds a Zephyr image to run away from rtbench: nothing that
    measures here goes with it."""
    own = [d for d in kernels.all() if d.own_boards]
    if req.board is None:
        raise RtbenchError("--no-board-glue: with --board NAME ("
                           + " or ".join(f"a {d.title} image" for d in own) + " to flash)")
    if not (req.kernel and kernels.known(req.kernel) and kernels.get(req.kernel).own_boards):
        raise RtbenchError("--board NAME: for --kernel " + " or ".join(d.name for d in own)
                           + " (an image for any board of your "
                           + " or ".join(f"{d.title}" for d in own) + " tree)")
    asked = [name for name, on in (
        ("--target", req.target != targets.HOST), ("--with-peers", req.with_peers),
        ("--load", req.load), ("--cpu", req.cpu is not None), ("--no-rt", req.no_rt),
        ("--duration", req.duration_s is not None), ("--label", bool(req.label)),
        ("--db", req.db is not None), ("--no-cycles", not req.cycles)) if on]
    if asked:
        raise RtbenchError(f"{', '.join(asked)}: not with --board (it builds an image to flash "
                           "and measures nothing here; import the board's log to store a run)")


def _check_target_options(req: RunRequest, target: Target) -> None:
    """Options that only make sense on the host are refused elsewhere."""
    if req.peer_src is not None and (target.supports_cpu or not req.with_peers):
        raise RtbenchError("--peer-src: the rtos-benchmark checkout for --with-peers on a board "
                           "target (--target mps2-an385)")
    if req.thread_metric_src is not None and (target.supports_cpu or not req.with_peers):
        raise RtbenchError("--thread-metric-src: Thread-Metric's sources for --with-peers on a "
                           "board target (--target mps2-an385)")
    if target.supports_cpu:
        return
    asked = [name for name, on in (("--load", req.load), ("--cpu", req.cpu is not None),
                                   ("--no-rt", req.no_rt),
                                   ("--profile", req.profiles != ["rt"])) if on]
    if asked:
        raise RtbenchError(f"{', '.join(asked)}: for the host target only (on {target.name} "
                           "the kernel's own fixed-priority scheduling is what is measured)")


def _check_numbers(req: RunRequest, target: Target) -> None:
    req.check_budget()
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
             out: Path, created: outdir.CreatedDirs, console: Console, cpu: int | None,
             prog_ids: list[str] = ()) -> int:
    """Measure, then store the run's end and write its sheet. An interrupt
    (Ctrl-C, SIGTERM, SIGHUP, a closed stdout) anywhere while measuring
    keeps what was stored and marks the run incomplete; while the end is
    written, further signals wait (rtbench.process.lifetime)."""
    plan = req.plan(target)
    cut = (f" in {plan.blocks} interleaved blocks" if plan.blocks > 1 else "") + \
        (f", repeated for {req.duration_s:g} s" if req.duration_s else "")
    console.print(f"run {run_id}: {len(ids)} metrics on {target.name}, {req.samples} samples "
                  f"each{cut}, profile {', '.join(req.profiles)}"
                  + (", under load" if req.load else ""), soft_wrap=True)
    status, error = "complete", None
    # the host's conditions while it measures (a board's counts do not depend on them)
    watch = sysinfo.RunWatch(cpu) if target.supports_cpu else None
    tuned: dict = {}  # what rtbench.measure.tuning changed for the run (as root), put back after it
    tune = tuning.held(cpu, req.tune) if cpu is not None else contextlib.nullcontext({})
    try:
        with tune as tuned:
            status, error = _measure_tuned(req, target, ids, cpu, store, run_id, console,
                                           watch, prog_ids)
    except KeyboardInterrupt:  # what was measured is kept
        status = "incomplete"
    except HarnessUsageError:
        with lifetime.interrupts_deferred():
            store.delete_run(run_id)  # it never started: leave nothing behind
            created.rollback()
        raise
    except RtbenchError as exc:  # e.g. the database became unwritable: end what can be
        status, error = "failed", exc
    code = {"complete": 0, "failed": 1}[status] if status != "incomplete" else \
        1 if error is not None and lifetime.received() is None else lifetime.exit_code()
    with lifetime.interrupts_deferred():
        if watch is not None:
            store.update_host(run_id, {**store.get_run(run_id).host, **watch.finish(),
                                       **({"tuning": tuned} if tuned else {})})
        return _finish(store, run_id, status, code, error, out, console)


def _measure_tuned(req: RunRequest, target: Target, ids: list[str], cpu: int | None,
                   store: Store, run_id: int, console: Console,
                   watch: sysinfo.RunWatch | None, prog_ids: list[str]
                   ) -> tuple[str, Exception | None]:
    """The harness, then the standard programs and the peers."""
    status, error = _measure_harness(req, target, ids, cpu, store, run_id, console, watch)
    if prog_ids and status != "incomplete":  # standard programs (docs/reports.md)
        programs.run(prog_ids, programs.Context(cpu, req.quick, req.profiles[0]),
                     lambda rec: (store.add_metric(run_id, rec),
                                  console.print(contract.one_line(programs.line(rec)),
                                                soft_wrap=True)))
    if req.with_peers and status != "incomplete":
        # what a peer printed, as one line of text: no terminal control reaches the console
        say = lambda text: console.print(contract.one_line(text), soft_wrap=True)  # noqa: E731
        if target.name == targets.HOST:  # rt-tests beside the Linux run
            pinned = "--no-pin" not in PROFILES[req.profiles[0]]
            rttests.beside(store, run_id, catalog_mod.load(), rttests.Context(
                cpu if pinned else None, req.no_rt or not pinned, req.quick, req.profiles[0]),
                say)
        else:
            _board_peers(req, target, store, run_id, say)
    return status, error


def _board_peers(req: RunRequest, target: Target, store: Store, run_id: int, say) -> None:
    """The peers of a board run, each a run linked to it: which peer runs
    beside which kernel is the peers' own knowledge (peers/beside.py)."""
    beside.board_peers(store, run_id, catalog_mod.load(), target, say, beside.Asked(
        req.thread_metric_src, req.peer_src, req.samples, req.profiles[0]))


def _measure_harness(req: RunRequest, target: Target, ids: list[str], cpu: int | None,
                     store: Store, run_id: int, console: Console,
                     watch: sysinfo.RunWatch | None = None) -> tuple[str, Exception | None]:
    """Every profile through the harness: (run status, the harness error if any)."""
    plan = req.plan(target)
    with RunProgress(console, req.profiles, plan, len(ids)) as progress, \
            (load.background(cpu) if req.load else contextlib.nullcontext()):
        printed: set[tuple[str, str]] = set()

        def on_metric(rec: dict, final: bool = True, block: bool = True) -> None:
            store.add_metric(run_id, rec)  # commit first: it must survive a crash
            if watch:
                watch.sample()
            if block:
                progress.block_done()
            key = (rec["id"], rec.get("profile", "?"))
            if not final or key in printed:
                return
            printed.add(key)
            line = _metric_line(rec)
            if len(req.profiles) > 1:
                line = "  " + escape(f"[{rec.get('profile', '?')}]") + line
            progress.print(line)

        bad: list[str] = []
        try:
            for profile in req.profiles:
                outcome = _measure_profile(req, target, ids, cpu, profile, store, run_id,
                                           progress, on_metric, plan)
                bad += outcome.bad
                if outcome.interrupted:
                    return "incomplete", None
        except HarnessError as exc:
            return "failed", exc
    if bad:  # each failed, with its reason; the rest was measured
        return "incomplete", HarnessError(
            f"the harness printed {len(bad)} bad record(s), the run is incomplete: {bad[0]}"
            + (f" (and {len(bad) - 1} more: see the failed metrics)" if len(bad) > 1 else ""))
    return "complete", None


def _end_page(page, run_id: int, status: str, error: Exception | None, paths: dict,
              console: Console) -> None:
    """The first page, how the run ended, and where its files are."""
    firstpage.print_console(page, console, f"run {run_id}: the first page of its data sheet")
    sheet = paths["datasheet.md"]
    if error:
        click.echo(f"rtbench: error: {error}", err=True)
    if status == "incomplete" and error is None:
        why = lifetime.signal_name()
        console.print(f"[yellow]interrupted ({why}): the run is incomplete[/yellow]")
        if why == "SIGPIPE":  # nobody reads stdout any more: say it where it is seen
            click.echo(f"rtbench: error: output closed: run {run_id} kept as incomplete, "
                       f"data sheet {sheet}", err=True)
    console.print(f"data sheet: {sheet}", soft_wrap=True, highlight=False)
    console.print(f"data sheet (HTML): {paths['datasheet.html']}", soft_wrap=True,
                  highlight=False)
    console.print(f"beside them: {paths['glossary.md'].name}, {paths['results.json'].name}",
                  soft_wrap=True, highlight=False)


def _finish(store: Store, run_id: int, status: str, code: int, error: Exception | None,
            out: Path, console: Console) -> int:
    """Store the run's end and write its sheet (signals deferred by the caller)."""
    store.finish_run(run_id, status, now_utc())
    cat = catalog_mod.load()
    stored = store.get_run(run_id)
    stored.calibrations = calibration.find(store, stored)
    try:
        paths = datasheet.write_outputs(stored, cat, out)
    except (OSError, RtbenchError) as exc:  # a full disk; a link or a FIFO put in its place
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        click.echo(f"rtbench: error: run {run_id} is stored ({status}) but its data sheet "
                   f"cannot be written into {out}: {why}", err=True)
        return code or 1
    with progress_mod.aloud(console, out):  # --quiet too: the first page and where it is
        _end_page(firstpage.build(stored, cat), run_id, status, error, paths, console)
    gone = store.vanished()
    if gone:  # the run is in no database: its results file is all there is
        results = paths["results.json"]
        click.echo(f"rtbench: error: {gone}: run {run_id} is in no database; everything it "
                   f"measured is in {results} (`rtbench import {results}` stores it)", err=True)
        return code or 1
    return code


def _measure_profile(req: RunRequest, target: Target, ids: list[str], cpu: int | None,
                     profile: str, store: Store, run_id: int, progress: RunProgress,
                     on_metric, plan: blocks.Plan):
    """The harness over `ids` in `profile`, in the plan's interleaved blocks
    (rtbench.store.blocks). The run keeps the first profile's session record;
    every metric record names its own profile and carries its own real-time
    status and placement."""
    pinned = "--no-pin" not in PROFILES[profile] and cpu is not None
    opts = RunOptions(ids=ids, samples=req.samples, warmup=req.warmup, budget_ms=req.budget_ms,
                      cpu=cpu if pinned else None, no_rt=req.no_rt, timeout=req.timeout,
                      extra=["--profile", profile, *PROFILES[profile]])

    def on_session(session: dict) -> None:
        if profile == req.profiles[0]:
            store.set_session(run_id, session)

    def in_profile(rec: dict, final: bool, block: bool) -> None:
        rec.setdefault("profile", profile)  # the runner's own failure records name none
        on_metric(rec, final, block)

    passes = Interleaved(
        target, plan, opts, on_session=on_session,
        on_block=lambda rec, final: in_profile(rec, final, True),
        on_settled=lambda rec: in_profile(rec, True, False),
        on_pass=lambda k, active: progress.block_begins(profile, k, len(active)),
        on_begin=progress.metric_begins,
        probe_cpu=cpu if pinned else None)
    # The untuned profile runs where the kernel puts it; the others keep
    # rtbench itself off the benchmark CPU.
    with placement.off_cpu(cpu) if pinned else contextlib.nullcontext():
        return passes.run()


def _metric_line(rec: dict) -> str:
    m = MetricRecord(rec)
    if m.ok:  # the unit per figure: System metrics run from ~1 ns (a load) to ms (fork)
        t = {k: system.fmt_time(m.ns(k)) if m.is_time else f"{m.value(k):,.0f} {m.unit}"
             for k in ("p50", "p99", "max")}
        n, secs = blocks.window(rec)  # the max's window: n samples in so long
        window = f" [dim]({n:,} in {blocks.fmt_seconds(secs)})[/dim]" if n and secs else ""
        return (f"  {escape(m.id):<32} [green]ok[/green]          median {t['p50']:>10}  "
                f"p99 {t['p99']:>10}  max {t['max']:>10}{window}")
    colour = "yellow" if m.status == "unsupported" else "red"
    return (f"  {escape(m.id):<32} [{colour}]{m.status:<11}[/{colour}] "
            f"{escape(contract.one_line(m.reason))}")
