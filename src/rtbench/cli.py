"""Command line: `rtbench run | list | show | report | compare | history |
runs | import | reference list`.

Every error is one line, `rtbench: error: ...`, exit code 2 for bad input
(click's usage errors and ours alike), no traceback.
"""

from __future__ import annotations

import io
import json
import math
import signal
import sqlite3
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

import rtbench
from rtbench.compare import coverage as coverage_mod
from rtbench.errors import RtbenchError
from rtbench.measure.run import RunRequest, execute, parse_profiles, now_utc
from rtbench.process import lifetime
from rtbench.sheets import datasheet
from rtbench.store import catalog as catalog_mod
from rtbench.store.db import Store
from rtbench.store.records import strict_json
from rtbench.targets import harness

DEFAULTS = {"samples": 10000, "warmup": 100, "budget_ms": 2000}
QUICK = {"samples": 1000, "warmup": 50, "budget_ms": 500}
MAX_SAMPLES = 10_000_000
MAX_WARMUP = 1_000_000  # the harness's own limits (docs/records.md)
MAX_TIMEOUT_S = 86_400.0  # a day: longer than any budget (--budget-ms is at most an hour)
EXIT_OUTPUT_CLOSED = 128 + signal.SIGPIPE  # stdout's reader went away (`| head`)


def _finite(_ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a finite number of seconds", param=param)
    return value


def _patterns(_ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not [p for p in value.split(",") if p.strip()]:
        raise click.BadParameter("no pattern given (e.g. --only 'sem.*,msgq.*'); "
                                 "leave --only out to run every metric", param=param)
    return value


def _duration(_ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    """--duration: seconds, or a number with s, m, h or d."""
    if value is None:
        return None
    text = value.strip().lower()
    mult = {"s": 1, "m": 60, "h": 3600, "d": 86400}.get(text[-1:], None)
    try:
        seconds = float(text[:-1] if mult else text) * (mult or 1)
    except ValueError:
        seconds = -1.0
    if not math.isfinite(seconds) or not 0 < seconds <= 7 * 86400:
        raise click.BadParameter(f"{value!r}: a time from 1s to 7d, e.g. 600, 10m, 2h",
                                 param=param)
    return seconds


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(rtbench.__version__, prog_name="rtbench")
def cli() -> None:
    """rtbench: real-time kernel benchmark suite."""


@cli.command("run")
@click.option("--out", type=click.Path(path_type=Path),
              help="Output directory (default: a new folder under ./rtbench-results/).")
@click.option("--db", type=click.Path(path_type=Path), help="SQLite database.")
@click.option("--quick", is_flag=True, help="1000 samples, 50 warm-up, 500 ms budget.")
@click.option("--only", "patterns", callback=_patterns,
              help="Comma-separated glob patterns over metric ids.")
@click.option("--samples", type=click.IntRange(1, MAX_SAMPLES), help="Samples per metric.")
@click.option("--warmup", type=click.IntRange(0, MAX_WARMUP), help="Warm-up samples.")
@click.option("--budget-ms", type=click.IntRange(1, 3_600_000), help="Time budget per metric.")
@click.option("--blocks", type=click.IntRange(1, 1000),
              help="Cut each metric's samples and budget into this many blocks, measured "
                   "in passes over every metric, so each metric is sampled across the whole "
                   "run (default on the host: 20, 6 with --quick; a board: 1).")
@click.option("--duration", callback=_duration,
              help="Soak: repeat the passes until this long has passed (e.g. 600, 10m, "
                   "2h), for worst-case rows; the max then covers the whole soak.")
@click.option("--cpu", type=click.IntRange(0), help="CPU to pin the benchmark tasks to.")
@click.option("--no-rt", is_flag=True, help="Do not ask for SCHED_FIFO / mlockall.")
@click.option("--timeout", type=click.FloatRange(0, MAX_TIMEOUT_S, min_open=True),
              default=30.0, callback=_finite, show_default=True,
              help="Seconds a metric may run before it is killed.")
@click.option("--label", default="", help="Free text stored with the run.")
@click.option("--profile", "profile", default="rt", show_default=True,
              help="Comma-separated profiles, columns of one sheet: default (untuned: "
                   "SCHED_OTHER, unpinned, no mlock), rt (pinned, SCHED_FIFO, mlockall), "
                   "cold (rt + caches evicted before every sample).")
@click.option("--load", is_flag=True,
              help="Measure under a built-in background load on the other CPUs "
                   "(memory sweep + pipe ping-pong per CPU).")
@click.option("--no-tune", is_flag=True,
              help="As root, rtbench lifts RT throttling (sched_rt_runtime_us = -1) and "
                   "steers movable interrupts off the benchmark CPU for the run, and puts "
                   "both back afterwards; this leaves the machine as it is.")
@click.option("--no-programs", is_flag=True,
              help="Do not run the standard programs (stress-ng, sysbench, hackbench, "
                   "STREAM) after the harness; docs/reports.md.")
@click.option("--with-peers", is_flag=True,
              help="Then run the peers as runs linked to this one (`rtbench compare RUN` "
                   "shows them beside rtbench's figures): on the host the installed rt-tests "
                   "programs (cyclictest, ptsematest, pmqtest, svsematest, sigwaittest); on a "
                   "board rtos-benchmark's FreeRTOS port (see --peer-src) and Thread-Metric's "
                   "tests on the same kernel.")
@click.option("--target", default="host", show_default=True,
              help="Where to measure: host (this machine's kernel), mps2-an385 or "
                   "mps2-an386 (QEMU's Cortex-M3 and Cortex-M4F boards with the RTOS of "
                   "--kernel) or labgrid (a place of a labgrid lab, --env/--place).")
@click.option("--kernel", help="The RTOS on a board target: freertos or threadx.")
@click.option("--kernel-src", type=click.Path(path_type=Path),
              help="Your checkout of that kernel's sources (default: $RTBENCH_FREERTOS_SRC, "
                   "$RTBENCH_THREADX_SRC).")
@click.option("--peer-src", type=click.Path(path_type=Path),
              help="With --with-peers on a board target: your checkout of rtos-benchmark "
                   "(zephyrproject-rtos/rtos-benchmark), built in place (default: "
                   "$RTBENCH_RTOS_BENCHMARK_SRC).")
@click.option("--env", "lab_env", type=click.Path(path_type=Path),
              help="--target labgrid: the labgrid environment file (docs/labgrid.md).")
@click.option("--place", help="--target labgrid: the place, several (A,B) or every place "
                              "with a tag (TAG=VALUE), measured at once and compared.")
@click.option("--harness", "harness_path", type=click.Path(path_type=Path), hidden=True,
              envvar="RTBENCH_HARNESS")
@click.pass_context
def run_command(ctx: click.Context, quick: bool, **kw) -> int:
    """Measure every metric of the catalogue (or --only), store the run in
    the database and write into the output directory:

    \b
      datasheet.md    the data sheet, Markdown (first page on top)
      datasheet.html  the data sheet, one self-contained HTML file
      glossary.md     the glossary and every metric's definition
      results.json    every record (docs/results-schema.json)

    The last thing printed is the sheet's first page: key figures, worst
    cases, the method check, the conditions, and warnings with advice."""
    base = QUICK if quick else DEFAULTS
    req = RunRequest(
        patterns=kw["patterns"], cpu=kw["cpu"], no_rt=kw["no_rt"], timeout=kw["timeout"],
        label=kw["label"], out=kw["out"], db=kw["db"], harness=kw["harness_path"],
        argv=["rtbench", *ctx.find_root().obj["argv"]],
        profiles=parse_profiles(kw["profile"]), load=kw["load"],
        programs=not kw["no_programs"], quick=quick, with_peers=kw["with_peers"],
        target=kw["target"], kernel=kw["kernel"], kernel_src=kw["kernel_src"],
        peer_src=kw["peer_src"],
        lab_env=kw["lab_env"], place=kw["place"], blocks=kw["blocks"], tune=not kw["no_tune"],
        duration_s=kw["duration"],
        **{k: kw[k] if kw[k] is not None else base[k] for k in base})
    # The console survives a reader that went away (`| head`): the run then
    # stops as if interrupted and is kept (rtbench.process.lifetime.ConsoleOut).
    return execute(req, Console(file=lifetime.ConsoleOut(), highlight=False))


@cli.command("list")
@click.option("--service", help="Only this service (see the section names).")
@click.option("--long", "long_", is_flag=True,
              help="Each metric's definition, clock points and vendor names too.")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text",
              help="json: every catalogue field of each metric.")
@click.option("--coverage", is_flag=True,
              help="Per vendor sheet: rows measured, unsupported on this port, missing.")
@click.option("--rows", is_flag=True, help="With --coverage: every row and what answers it.")
@click.option("--kernel-src", type=click.Path(path_type=Path), multiple=True,
              help="With --coverage: your checkout of an RTOS kernel, for its column "
                   "(repeatable: FreeRTOS and ThreadX, told apart by their files; default: "
                   "$RTBENCH_FREERTOS_SRC, $RTBENCH_THREADX_SRC).")
@click.option("--harness", "harness_path", type=click.Path(path_type=Path), hidden=True,
              envvar="RTBENCH_HARNESS")
def list_command(service: str | None, long_: bool, fmt: str, coverage: bool, rows: bool,
                 kernel_src: tuple[Path, ...], harness_path: Path | None) -> int:
    """Show the metric catalogue (id, title, status on this machine's
    harness), or (--coverage) how it covers the vendors' sheets."""
    cat = catalog_mod.load()
    if coverage or rows:
        from rtbench import targets
        from rtbench.peers import programs
        from rtbench.targets import kernels

        columns = {"Linux (host)": {**harness.registry_support(harness.executable(harness_path)),
                                    **programs.support()}}
        notes = []
        for board in targets.BOARDS:
            for name, spec in kernels.SPECS.items():
                src = next((d for d in kernel_src if kernels.is_checkout(name, d)), None)
                support, why = _board_support(name, src, board)
                if support is not None:
                    columns[f"{spec.title} ({board})"] = support
                elif why not in notes:
                    notes.append(why)
        _print_coverage(cat, columns, rows, "; ".join(notes))
        return 0
    services = list(cat.services)
    if service is not None:
        chosen = [s for s in services if s.lower() == service.lower()]
        if not chosen:
            raise RtbenchError(f"unknown service {service!r}"
                               + (catalog_mod.did_you_mean(service, services)
                                  or f" (one of: {', '.join(services)})"))
        services = chosen
    metrics = [m for s in services for m in cat.by_service(s)]
    if fmt == "json":
        from dataclasses import asdict

        click.echo(json.dumps([asdict(m) for m in metrics], indent=2, ensure_ascii=False))
        return 0
    status = _host_status(harness_path)
    console = Console(highlight=False)
    if not console.is_terminal:
        console.width = max(console.width, 160)  # files and pipes: rows on one line
    if long_:
        table = Table(title="rtbench metrics", show_lines=True)
        for col in ("id", "title", "definition", "vendor names"):
            table.add_column(col, overflow="fold", no_wrap=(col == "id"),
                             min_width=max(len(m.id) for m in metrics) if col == "id" else None)
        for m in metrics:
            vendors = "\n".join(f"{v}: {'; '.join(names)}"
                                 for v, names in m.vendor.items() if names)
            table.add_row(m.id, f"{m.title}\n[dim]{m.service}[/dim]",
                          f"{m.definition}\n[dim]Clock starts: {m.clock_start}. Stops: "
                          f"{m.clock_stop}.[/dim]", vendors or "—")
        console.print(table)
        return 0
    table = Table(title=f"rtbench metrics ({len(metrics)}; --long for definitions)",
                  box=None, header_style="bold", pad_edge=False)
    table.add_column("id", no_wrap=True, min_width=max(len(m.id) for m in metrics))
    table.add_column("title", overflow="fold")
    table.add_column("status on this host", overflow="fold")
    for s in services:
        table.add_row(f"[bold]{s}[/bold]", "", "")
        for m in cat.by_service(s):
            table.add_row(m.id, m.title, status(m))
    console.print(table)
    return 0


def _host_status(harness_path: Path | None):
    """A metric's status on this host: what the harness already built says
    (never a build just to list), or who measures it."""
    try:
        exe = harness.executable(harness_path) if harness_path or harness.is_built() else None
        support = harness.registry_support(exe) if exe else {}
    except (RtbenchError, OSError):
        support = {}

    def status(m) -> str:
        if m.measured_by == "external":
            return "standard program"
        if m.id not in support:
            return "?" if not support else "not in this harness"
        ok, why = support[m.id]
        return "supported" if ok else f"unsupported: {why}"
    return status


def _board_support(kernel: str, src: Path | None,
                   board: str = "mps2-an385") -> tuple[dict | None, str]:
    """The registry of the kernel's image on an emulated board, or why not
    (no sources given, no emulator): the coverage table says so."""
    from rtbench import targets
    from rtbench.targets import kernels

    try:
        target = targets.make(board, kernel, src)
        target.prepare()
        return target.registry(), ""
    except RtbenchError as exc:
        return None, f"{kernels.SPECS[kernel].title} columns left out: {exc}"


def _print_coverage(cat: catalog_mod.Catalog, columns: dict[str, dict], rows: bool,
                    note: str = "") -> None:
    console = Console(highlight=False)
    per_target = {name: {c.sheet.name: c for c in coverage_mod.compute(
        cat, support, kernel_only=False, absent_is_na=n > 0)}
        for n, (name, support) in enumerate(columns.items())}
    first = next(iter(per_target.values()))
    table = Table(title="Coverage of the vendors' data sheets (distinct rows; ti-am654x is "
                        "a system sheet, the others kernel sheets): measured / unsupported / "
                        "n/a / missing per target")
    table.add_column("sheet")
    table.add_column("rows", justify="right")
    for name in per_target:
        table.add_column(name, justify="right")
    statuses = (coverage_mod.MEASURED, coverage_mod.UNSUPPORTED, coverage_mod.NA,
                coverage_mod.MISSING)
    for sheet_name, c in first.items():
        table.add_row(c.sheet.name, str(len(c.rows)),
                      *(" / ".join(str(t[sheet_name].count(s)) for s in statuses)
                        for t in per_target.values()))
    console.print(table)
    if note:
        console.print(f"[yellow]{note}[/yellow]", soft_wrap=True)
    if not rows:
        return
    for name, sheets in per_target.items():
        for c in sheets.values():
            detail = Table(title=f"{c.sheet.title} — {name}", show_lines=False)
            for col in ("row", "status", "answered by / why"):
                detail.add_column(col, overflow="fold")
            for r in c.rows:
                detail.add_row(r.key, r.status,
                               ", ".join(r.metrics) + (f" ({r.why})" if r.why else ""))
            console.print(detail)


@cli.command("show")
@click.argument("run")
@click.option("--db", type=click.Path(path_type=Path), help="SQLite database.")
def show_command(run: str, db: Path | None) -> int:
    """Print the data sheet of a stored RUN (an id or `latest`)."""
    with Store(db, create=False) as store:
        stored = store.get_run(run)
    text = datasheet.render_markdown(stored, catalog_mod.load())
    console = Console(highlight=False)
    if console.is_terminal:  # rendered, never raw Markdown marks on a terminal
        from rich.markdown import Markdown

        console.print(Markdown(text))
    else:
        click.echo(text, nl=False)
    return 0


# ---- reports and comparisons (docs/reports.md) ----

SUFFIXES = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".csv": "csv",
            ".json": "json", ".txt": "text"}
EXIT_REGRESSION = 1


def _pick_format(fmt: str | None, output: Path | None, allowed: tuple[str, ...],
                 default: str) -> str:
    """--format, else the output file's suffix, else the default."""
    if fmt:
        return fmt
    guessed = SUFFIXES.get(output.suffix.lower()) if output else None
    return guessed if guessed in allowed else default


def _emit(text: str, output: Path | None) -> None:
    if output is None:
        click.echo(text, nl=False)
        return
    if not output.name or output.is_dir():
        raise RtbenchError(f"-o {str(output)!r}: " + ("a directory; give a file name"
                                                     if output.name else "no file name"))
    try:
        datasheet.atomic_write(output, text)
    except OSError as exc:
        raise RtbenchError(f"cannot write {output}: {exc.strerror or exc}") from exc
    click.echo(f"wrote {output} ({len(text.encode()) / 1024:.0f} KiB)", err=True)


def _emit_page(page, fmt: str, output: Path | None, data=None) -> None:
    from rtbench.sheets import pages

    if fmt == "json":
        _emit(strict_json(data, indent=2, ensure_ascii=False) + "\n", output)
    elif fmt == "text":
        buf = io.StringIO()
        console = Console(file=buf if output else None, highlight=False)
        if output or not console.is_terminal:
            console.width = max(console.width, 160)  # files and pipes: wide tables
        pages.print_rich(page, console)
        if output:
            _emit(buf.getvalue(), output)
    else:
        _emit(pages.render(page, fmt), output)


def _output_options(formats: tuple[str, ...]):
    def wrap(f):
        f = click.option("--db", type=click.Path(path_type=Path), help="SQLite database.")(f)
        f = click.option("-o", "--output", type=click.Path(path_type=Path),
                         help="Write to FILE (its suffix picks the format) instead of stdout.")(f)
        return click.option("--format", "fmt", type=click.Choice(formats),
                            help=f"Output format (default: {formats[0]}).")(f)
    return wrap


@cli.command("report")
@click.argument("run")
@_output_options(("md", "html", "csv", "json"))
def report_command(run: str, fmt: str | None, output: Path | None, db: Path | None) -> int:
    """Render the data sheet of a stored RUN (an id or `latest`)."""
    from rtbench.sheets import export

    fmt = _pick_format(fmt, output, ("md", "html", "csv", "json"), "md")
    with Store(db, create=False) as store:
        stored = store.get_run(run)
    render = {"md": datasheet.render_markdown, "html": datasheet.render_html,
              "csv": export.to_csv, "json": export.to_json}[fmt]
    _emit(render(stored, catalog_mod.load()), output)
    return 0


def _fail_on(text: str | None, fail_on_regression: bool) -> tuple[str, ...]:
    """--fail-on p50,p99,max (p99.9 or p999, median): the statistics whose
    slow-down fails the command; --fail-on-regression is --fail-on p50."""
    from rtbench.compare import LIMIT_STATS

    names = [t.strip().lower() for t in (text or "").split(",") if t.strip()]
    bad = [n for n in names if n not in LIMIT_STATS]
    if bad:
        raise RtbenchError(f"--fail-on: unknown statistic {bad[0]!r} (of: p50, p99, p99.9, max)")
    stats = [LIMIT_STATS[n] for n in names] + (["p50"] if fail_on_regression else [])
    return tuple(dict.fromkeys(stats))


@cli.command("compare")
@click.argument("runs", nargs=-1, required=True)
@click.option("--ref", "ref_name", help="Compare one run with this reference sheet "
              "(see `rtbench reference list`; any case).")
@click.option("--threshold", type=click.FloatRange(0), default=5.0, show_default=True,
              help="Percent change below which a statistic has not changed.")
@click.option("--fail-on", "fail_on", metavar="STATS",
              help=f"Exit {EXIT_REGRESSION} if a later run is significantly slower in any of "
                   "these statistics, e.g. p50,p99,max (of p50, p99, p99.9, max).")
@click.option("--fail-on-regression", is_flag=True, help="The same as --fail-on p50.")
@click.option("--limit", "limits", multiple=True, metavar="METRIC[:STAT]<=VALUE",
              help="An absolute budget, e.g. 'irq.response<=100us' or 'sem.*:p99<=5us' "
                   "(STAT default max); repeatable. Exceeded: exit "
                   f"{EXIT_REGRESSION}.")
@click.option("--limits", "limits_file", type=click.Path(path_type=Path),
              help="A TOML file of limits, [limits] and per target [target.NAME.limits] "
                   "(docs/reports.md).")
@_output_options(("text", "md", "html", "json"))
def compare_command(runs: tuple[str, ...], ref_name: str | None, threshold: float,
                    fail_on: str | None, fail_on_regression: bool, limits: tuple[str, ...],
                    limits_file: Path | None, fmt: str | None, output: Path | None,
                    db: Path | None) -> int:
    """Put RUNS side by side (median, p99, p99.9 and max of each metric,
    each with its own verdict, against the first run), check them against
    limits, or put one run beside a vendor's published sheet (--ref NAME) or
    beside the peers it ran with (--with-peers). Runs of different kernels
    (FreeRTOS, ThreadX, Linux) give the kernel comparison sheet instead: a
    column per kernel, its configuration, Thread-Metric beside it. Ends with
    a summary line."""
    from rtbench import compare
    from rtbench.compare import kernels, views
    from rtbench.peers import linked
    from rtbench.store import reference

    fmt = _pick_format(fmt, output, ("text", "md", "html", "json"), "text")
    gate = _fail_on(fail_on, fail_on_regression)
    cat = catalog_mod.load()
    wanted = [compare.parse_limit(t, catalog=cat) for t in limits]
    if limits_file is not None:
        wanted += compare.load_limits(limits_file, cat)
    sheet = reference.get(ref_name) if ref_name else None
    if sheet and len(runs) != 1:
        raise RtbenchError("--ref compares exactly one run with a reference sheet")
    with Store(db, create=False) as store:
        stored = [store.get_run(r) for r in runs]
        if len(stored) == 1 and stored[0].origin == "peer" and stored[0].linked_to:
            # `rtbench run --with-peers && rtbench compare latest`: latest is the
            # peers' run, stored last; compare the run they were measured beside
            stored = [store.get_run(stored[0].linked_to)]
        beside = (linked.linked_runs(store, stored[0].id)
                  if not sheet and len(stored) == 1 and not wanted else [])
        linked = {} if sheet or wanted else {r.id: linked.linked_runs(store, r.id)
                                             for r in stored}
    if not sheet and len(stored) < 2 and not beside and not wanted:
        raise RtbenchError("compare needs two runs or more, one run measured --with-peers, "
                           "one run and --ref NAME, or one run and limits (--limit)")
    if linked and kernels.applies(stored, linked):  # kernels side by side: no verdict
        ks = kernels.build(stored, cat, linked)
        if fmt in ("md", "html"):
            _emit(kernels.render(ks, fmt), output)
        else:
            _emit_page(kernels.page(ks), fmt, output, kernels.to_jsonable(ks))
        return 0
    if beside:  # one run and its peers: the same metrics side by side
        peer_cmp = compare.compare_peers(stored[0], beside, cat)
        _emit_page(views.peer_comparison(peer_cmp), fmt, output, compare.to_jsonable(peer_cmp))
        return 0
    if sheet:
        ref_cmp = compare.compare_reference(stored[0], sheet, cat)
        _emit_page(views.ref_comparison(ref_cmp), fmt, output, compare.to_jsonable(ref_cmp))
        return 0
    return _compare_runs(stored, cat, threshold, gate, wanted, fmt, output)


def _compare_runs(stored, cat, threshold: float, gate: tuple[str, ...], limits, fmt: str,
                  output: Path | None) -> int:
    """Run against run (same kernel, same unit or not: the verdicts say)."""
    from rtbench import compare
    from rtbench.compare import views

    cmp = compare.compare_runs(stored, cat, threshold, limits)
    data = compare.to_jsonable(cmp) | {"summary": views.summary_line(cmp, gate),
                                       "fail_on": list(gate)}
    _emit_page(views.run_comparison(cmp, gate, fmt == "html"), fmt, output, data)
    failing = cmp.regressions(gate) if gate else []
    for row, i, stat in failing:
        click.echo("rtbench: regression: " + views.regression_line(
            row, cmp.runs[i], cmp.runs[0], row.cells[i], stat), err=True)
    for c in cmp.limit_failures:
        click.echo(f"rtbench: limit exceeded: {c.limit.text}: {c.id} [{c.profile}] run "
                   f"{c.run.id}: " + (c.why or views.limit_value(c)), err=True)
    if output is not None or fmt != "text":  # the summary is the last line a CI log shows
        click.echo(views.summary_line(cmp, gate), err=True)
    return EXIT_REGRESSION if failing or cmp.limit_failures else 0


@cli.command("history")
@click.argument("metric")
@click.option("--profile", help="Only this profile.")
@_output_options(("text", "md", "html", "json"))
def history_command(metric: str, profile: str | None, fmt: str | None, output: Path | None,
                    db: Path | None) -> int:
    """Show METRIC (a metric id) across the stored runs."""
    from rtbench.sheets import views

    fmt = _pick_format(fmt, output, ("text", "md", "html", "json"), "text")
    cat = catalog_mod.load()
    with Store(db, create=False) as store:
        if cat.get(metric) is None and metric not in store.metric_ids():
            raise RtbenchError(f"no metric {metric!r}: not in the catalogue and in no "
                               "stored run" + (catalog_mod.did_you_mean(
                                   metric, [*cat.ids, *store.metric_ids()])
                                   or " (see `rtbench list`)"))
        points = store.history(metric, profile)
    meta = cat.get(metric)
    page = views.history(metric, meta.title if meta else metric, points, fmt == "html")
    if not points:
        page.p(f"No stored run measured {metric}" + (f" under profile {profile}." if profile
                                                       else "."))
    data = [{"run": p.run.id, "uuid": p.run.uuid, "started": p.run.started,
             "label": p.run.label, "profile": p.profile, "record": p.record} for p in points]
    _emit_page(page, fmt, output, data)
    return 0


@cli.command("hist")
@click.argument("metric")
@click.argument("run", default="latest")
@click.option("--profile", help="The profile (default: the run's first).")
@click.option("--width", help="Bucket width: 1us, 250ns, or a number in the run's unit "
              "(default: a 1-2-5 step that puts the p99 within 30 buckets).")
@click.option("--buckets", type=click.IntRange(1, 100_000), default=100, show_default=True,
              help="Buckets before the overflow count (cyclictest's -h).")
@click.option("--all", "all_rows", is_flag=True, help="Print empty buckets at the ends too.")
@click.option("--db", type=click.Path(path_type=Path), help="SQLite database.")
def hist_command(metric: str, run: str, profile: str | None, width: str | None, buckets: int,
                 all_rows: bool, db: Path | None) -> int:
    """Print METRIC's histogram in RUN (default: latest) as cyclictest does:
    a bucket per line, then the summary with the overflow count."""
    from rtbench.sheets import hist
    from rtbench.store.records import MetricRecord

    with Store(db, create=False) as store:
        stored = store.get_run(run)
    recs = [r for r in stored.metrics if r["id"] == metric
            and (profile is None or r.get("profile", "rt") == profile)]
    if not recs:
        ids = {r["id"] for r in stored.metrics}
        raise RtbenchError(f"run {stored.id} has no metric {metric!r}"
                           + (f" in profile {profile!r}" if profile and metric in ids else
                              catalog_mod.did_you_mean(metric, sorted(ids))))
    rec = recs[0]
    m = MetricRecord(rec)
    if not m.ok:
        raise RtbenchError(f"{metric} in run {stored.id}: {m.status}: {m.reason}")
    h = hist.make(rec, hist.parse_width(width, m.base_unit), buckets)
    title = (f"rtbench hist {metric}, run {stored.id} [{rec.get('profile', 'rt')}]: "
             f"{m.n} samples")
    click.echo(hist.render(rec, h, title, all_rows), nl=False)
    return 0


@cli.command("runs")
@_output_options(("text", "md", "html", "json"))
def runs_command(fmt: str | None, output: Path | None, db: Path | None) -> int:
    """List the stored runs with their label and environment."""
    from rtbench.sheets import views

    fmt = _pick_format(fmt, output, ("text", "md", "html", "json"), "text")
    with Store(db, create=False) as store:
        summaries = store.summaries()
        path = str(store.path)
    data = [{"id": s.run.id, "uuid": s.run.uuid, "started": s.run.started,
             "finished": s.run.finished, "status": s.run.status, "label": s.run.label,
             "profiles": s.profiles, "counts": s.counts, "host": s.run.host,
             "imported_from": s.run.imported_from} for s in summaries]
    _emit_page(views.runs_page(summaries, path), fmt, output, data)
    return 0


@cli.command("import")
@click.argument("args", nargs=-1, required=True, metavar="[KIND] FILE...")
@click.option("--label", default="", help="Free text stored with the run.")
@click.option("--program", help="rt-tests: the program that wrote a summary that does not "
              "say (ptsematest, svsematest, 'svsematest -f', sigwaittest, pmqtest, cyclictest).")
@click.option("--db", type=click.Path(path_type=Path), help="SQLite database.")
def import_command(args: tuple[str, ...], label: str, program: str | None,
                   db: Path | None) -> int:
    """Import results as a stored run. KIND: zephyr (latency_measure console
    output), rt-tests (cyclictest, ptsematest, pmqtest, svsematest,
    sigwaittest), lmbench (lat_*/bw_* outputs, results files), rtos-benchmark
    (its bench_all console output) or rtbench (a
    results.json; `rtbench import FILE` alone means that too) or harness (the
    harness's JSON lines captured from a board's serial console)."""
    from rtbench.importers import KINDS

    if len(args) == 1 and args[0] not in KINDS:
        kind, files = "rtbench", [Path(args[0])]  # the original form: a results.json
    elif args[0] in KINDS:
        kind, files = args[0], [Path(a) for a in args[1:]]
        if not files:
            raise RtbenchError(f"import {kind} needs at least one FILE")
    else:
        raise RtbenchError(f"unknown import kind {args[0]!r} (one of: {', '.join(KINDS)}; "
                           "or a single results.json)")
    if program is not None and kind != "rt-tests":
        raise RtbenchError("--program is for rt-tests imports only")
    if kind == "rtbench":
        return _import_results(files, label, db)
    if kind == "harness":
        return _import_harness_log(files, label, db)
    return _import_foreign(kind, files, label, program, db)


def _import_harness_log(files: list[Path], label: str, db: Path | None) -> int:
    """A board's console log of the harness: stored as a measured run."""
    import uuid

    from rtbench.importers import harness_log
    from rtbench.importers.base import Source

    logs = []
    for f in files:  # every file read and checked before the database
        if not f.is_file():
            raise RtbenchError(f"cannot read {f}: " + ("not a file" if f.exists()
                                                       else "no such file"))
        logs.append(harness_log.read(Source(str(f), path=f)))
    with Store(db) as store:
        for f, log in zip(files, logs):
            when = now_utc()
            run_id = store.import_records(
                log.metrics, origin="harness", imported_at=when, uuid=str(uuid.uuid4()),
                source=f"harness log: {f.resolve()}", started=when, label=label,
                argv=["rtbench", "import", "harness", str(f)], host=log.host(str(f)),
                session=log.session, status="complete" if log.complete else "incomplete")
            click.echo(f"imported {f} as run {run_id} ({len(log.metrics)} metric records"
                       + ("" if log.complete else "; the log has no end record: incomplete")
                       + ")")
    return 0


def _import_results(files: list[Path], label: str, db: Path | None) -> int:
    from rtbench.sheets import export

    # Every file checked whole before the database is opened; then read
    # again, record by record, into one transaction per file.
    results = [export.ResultsFile(f) for f in files]
    for r in results:
        r.check()
    with Store(db) as store:
        for file, r in zip(files, results):
            env = r.head
            if label:
                env["run"]["label"] = label
            host = (env.get("host") or {}).get("hostname") or "unknown host"
            source = f"{file.resolve()} (run {env['run']['id']} on {host})"
            run_id = store.import_run(env, source, now_utc(), metrics=r.metrics())
            click.echo(f"imported {file} as run {run_id} ({r.count} metric records)")
    return 0


def _import_foreign(kind: str, files: list[Path], label: str, program: str | None,
                    db: Path | None) -> int:
    import uuid

    from rtbench.importers import read_files

    for f in files:
        if not f.is_file():
            raise RtbenchError(f"cannot read {f}: " + ("not a file" if f.exists()
                                                       else "no such file"))
    imported = read_files(kind, files, catalog_mod.load(), program)  # before the database
    when = now_utc()
    with Store(db) as store:
        run_id = store.import_records(
            imported.records, origin=kind, imported_at=when, uuid=str(uuid.uuid4()),
            source=f"{kind}: " + ", ".join(str(f.resolve()) for f in files),
            started=imported.started or when, label=label,
            argv=["rtbench", "import", kind, *map(str, files)],
            host=imported.host, session=imported.session)
    mapped = len(imported.records) - len(imported.unmapped)
    click.echo(f"imported {len(imported.records)} figures from {len(files)} file(s) as run "
               f"{run_id}: {mapped} answer an rtbench metric, {len(imported.unmapped)} kept "
               "without one")
    for rec in imported.unmapped:
        why = f" (another variant of {rec['variant_of']})" if rec.get("variant_of") else ""
        click.echo(f"  no rtbench metric: {rec['source']['label']}{why}")
    return 0


@cli.group("reference")
def reference_group() -> None:
    """The vendors' published reference sheets shipped with rtbench."""


@reference_group.command("list")
@click.option("--format", "fmt", type=click.Choice(("text", "md", "html", "json")),
              help="Output format (default: text, or the -o file's suffix).")
@click.option("-o", "--output", type=click.Path(path_type=Path),
              help="Write to FILE (its suffix picks the format) instead of stdout.")
def reference_list_command(fmt: str | None, output: Path | None) -> int:
    """Show the shipped reference sheets."""
    from dataclasses import asdict

    from rtbench.sheets import views
    from rtbench.store import reference

    fmt = _pick_format(fmt, output, ("text", "md", "html", "json"), "text")
    data = [asdict(s) | {"rows": len(s.rows())} for s in reference.sheets()]
    _emit_page(views.reference_page(), fmt, output, data)
    return 0


def _error(message: str) -> None:
    try:
        click.echo(f"rtbench: error: {message}", err=True)
    except OSError:
        pass  # stderr is gone too (a hung-up terminal): the exit status says it


def main(argv: list[str] | None = None) -> int:
    """Run one command: its exit status. Errors are one line (exit 2 for bad
    input); SIGINT, SIGTERM and SIGHUP interrupt like Ctrl-C (exit 128 +
    the signal); a closed stdout ends the command quietly (141)."""
    args = list(sys.argv[1:] if argv is None else argv)
    with lifetime.signals_as_interrupts():
        try:
            rv = cli.main(args=args, prog_name="rtbench", standalone_mode=False,
                          obj={"argv": args})
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help() if exc.ctx else str(exc), err=True)
            return 2
        except click.ClickException as exc:
            _error(exc.format_message().replace("\n", " "))
            return exc.exit_code
        except RtbenchError as exc:
            _error(str(exc))
            return exc.exit_code
        except (click.exceptions.Abort, KeyboardInterrupt):
            if lifetime.received() == signal.SIGPIPE:
                return EXIT_OUTPUT_CLOSED
            _error(f"interrupted ({lifetime.signal_name()})")
            return lifetime.exit_code()
        except OSError as exc:  # the safety net: one line, never a traceback
            if lifetime.output_closed(exc):
                return EXIT_OUTPUT_CLOSED
            where = f"{exc.filename}: " if exc.filename else ""
            _error(f"{where}{exc.strerror or exc}")
            return 2
        except sqlite3.Error as exc:
            _error(f"database: {exc}")
            return 2
    return rv if isinstance(rv, int) else 0
