"""Command line: `rtbench run | list | show | report | compare | history |
hist | runs | import | reference list`.

Thin: each command parses its options and calls one function of the stage
that owns it (measure, sheets, compare, importers, targets); here only
where its output goes (stdout, `-o FILE`, the format) and the exit status.
Every error is one line, `rtbench: error: ...`, exit code 2 for bad input
(click's usage errors and ours alike), no traceback.
"""

from __future__ import annotations

import math
import signal
import sqlite3
import sys
from pathlib import Path

import click
from rich.console import Console

import rtbench
from rtbench.errors import RtbenchError
from rtbench.measure.run import RunRequest, execute, parse_profiles
from rtbench.process import lifetime
from rtbench.sheets import datasheet
from rtbench.sheets import output as sink
from rtbench.store import catalog as catalog_mod
from rtbench.store import contract
from rtbench.store.db import Store

DEFAULTS = {"samples": 10000, "warmup": 100, "budget_ms": 2000}
QUICK = {"samples": 1000, "warmup": 50, "budget_ms": 500}
MAX_SAMPLES = 10_000_000
MAX_WARMUP = 1_000_000  # the harness's own limits (docs/records.md)
MAX_TIMEOUT_S = 86_400.0  # a day: longer than any budget (--budget-ms is at most an hour)
EXIT_OUTPUT_CLOSED = 128 + signal.SIGPIPE  # stdout's reader went away (`| head`)


def _finite(_ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """Seconds, or --threshold's percentage: finite (inf, nan: no verdict)."""
    if value is not None and not math.isfinite(value):
        what = "percentage" if param.name == "threshold" else "number of seconds"
        raise click.BadParameter(f"{value} is not a finite {what}", param=param)
    return value


def _text(_ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """--label: text (an argument that is no UTF-8 arrives as lone surrogates)."""
    why = contract.text_problem(value) if value else None
    if why:
        raise click.BadParameter(f"not UTF-8 text: {why}", param=param)
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
    if not math.isfinite(seconds) or not 1 <= seconds <= 7 * 86400:
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
              help="Seconds a metric may run before it is killed (on an emulated board "
                   "seconds of QEMU's CPU time, twice that with the cycle model).")
@click.option("--label", default="", callback=_text, help="Free text stored with the run.")
@click.option("--profile", "profile", default="rt", show_default=True,
              help="Comma-separated profiles, columns of one sheet: default (untuned: "
                   "SCHED_OTHER, unpinned, no mlock), rt (pinned, SCHED_FIFO, mlockall), "
                   "cold (rt + caches evicted before every sample).")
@click.option("--load", is_flag=True,
              help="Measure under a built-in background load on every CPU, the benchmark "
                   "CPU included (a 64 MiB memory sweep and a pipe ping-pong pair per CPU, "
                   "SCHED_OTHER): every wake-up must preempt it.")
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
                   "--kernel), stm32f4 (an STM32F4 image: QEMU's netduinoplus2, or a real "
                   "board through --gdb and --serial) or labgrid (a place of a labgrid lab, "
                   "--env/--place).")
@click.option("--kernel", help="The RTOS on a board target: freertos, threadx or zephyr, or "
                               "several (freertos,threadx,zephyr: one run each, then the "
                               "kernel comparison; default: the kernel whose checkout "
                               "--kernel-src names).")
@click.option("--kernel-profile", "kernel_profile", metavar="PROFILE",
              help="The kernel's settings on a board target (docs/profiles.md): defaults "
                   "(the kernel as its vendor ships it) or speed (the vendor's documented "
                   "speed settings), or both (defaults,speed: one run each). Default: speed; "
                   "several kernels run both and compare them in each.")
@click.option("--kernel-src", type=click.Path(path_type=Path),
              help="Your checkout of that kernel's sources; without --kernel, rtbench tells "
                   "the kernel from its files (default: $RTBENCH_FREERTOS_SRC, "
                   "$RTBENCH_THREADX_SRC, $RTBENCH_ZEPHYR_SRC).")
@click.option("--zephyr-modules", type=click.Path(path_type=Path),
              help="--kernel zephyr: the Zephyr modules its build needs, a folder holding "
                   "cmsis/ (default: $RTBENCH_ZEPHYR_MODULES).")
@click.option("--userspace", is_flag=True,
              help="--kernel zephyr: the CONFIG_USERSPACE build, whose .process rows run in "
                   "user-mode threads (the MPU); its own run, its own column beside the "
                   "kernel-only build.")
@click.option("--board", metavar="NAME",
              help="--kernel zephyr: build the image for any board of your Zephyr tree "
                   "(e.g. nrf52840dk/nrf52840) with the selected metrics built in, write it "
                   "and FLASH.md (flash, capture the console, `rtbench import harness LOG`) "
                   "to --out, and stop: nothing is measured here.")
@click.option("--board-glue/--no-board-glue", default=True,
              help="With --board on an MPS2 board: rtbench's board support (its counter and "
                   "interrupt source; default) or what any other board gets (Zephyr's timing "
                   "API, no interrupt rows).")
@click.option("--no-cycles", is_flag=True,
              help="On an emulated board: do not load the cycle model (a QEMU plugin that "
                   "estimates every sample's Cortex-M cycles beside its instructions, "
                   "docs/cycles.md); the instruction figures are the same either way.")
@click.option("--peer-src", type=click.Path(path_type=Path),
              help="With --with-peers on a board target: your checkout of rtos-benchmark "
                   "(zephyrproject-rtos/rtos-benchmark), built in place (default: "
                   "$RTBENCH_RTOS_BENCHMARK_SRC).")
@click.option("--thread-metric-src", type=click.Path(path_type=Path),
              help="With --with-peers on a board target: Thread-Metric's sources, a ThreadX "
                   "checkout or its utility/benchmarks/thread_metric folder (default: the "
                   "ThreadX checkout measured, else $RTBENCH_THREADX_SRC).")
@click.option("--env", "lab_env", type=click.Path(path_type=Path),
              help="--target labgrid: the labgrid environment file (docs/labgrid.md).")
@click.option("--place", help="--target labgrid: the place, several (A,B) or every place "
                              "with a tag (TAG=VALUE), measured at once and compared.")
@click.option("--gdb", help="--target stm32f4 on a real board: the GDB server that loads it "
                            "(HOST:PORT: OpenOCD, pyOCD, ...; docs/boards.md).")
@click.option("--serial", help="With --gdb: the board's console (/dev/ttyACM0, socket://HOST:PORT).")
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
        kernel_profile=kw["kernel_profile"],
        zephyr_modules=kw["zephyr_modules"], userspace=kw["userspace"],
        board=kw["board"], board_glue=kw["board_glue"], peer_src=kw["peer_src"], thread_metric_src=kw["thread_metric_src"],
        lab_env=kw["lab_env"], place=kw["place"], blocks=kw["blocks"], tune=not kw["no_tune"],
        duration_s=kw["duration"], cycles=not kw["no_cycles"], gdb=kw["gdb"], serial=kw["serial"],
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
    from rtbench import targets
    from rtbench.compare import coverage as coverage_mod
    from rtbench.peers import programs
    from rtbench.sheets import listing
    from rtbench.targets import harness

    cat = catalog_mod.load()
    if coverage or rows:
        say = lambda text: click.echo(f"list --coverage: {text}", err=True)  # noqa: E731
        with harness.announcing(say):  # what it builds and boots, as it goes (stderr)
            columns, notes = targets.supports(harness_path, kernel_src, say)
        columns[targets.HOST_COLUMN] |= programs.support()  # the standard programs run here too
        coverage_mod.print_tables(Console(highlight=False), cat, columns, rows,
                                  "; ".join(notes))
        return 0
    services = listing.services(cat, service)
    metrics = [m for s in services for m in cat.by_service(s)]
    if fmt == "json":
        click.echo(listing.as_json(metrics))
        return 0
    support = harness.built_support(harness_path)
    console = Console(highlight=False)
    if not console.is_terminal:
        console.width = max(console.width, 160)  # files and pipes: rows on one line
    console.print(listing.long_table(metrics) if long_ else
                  listing.table(cat, services, support))
    return 0


@cli.command("show")
@click.argument("run")
@click.option("--db", type=click.Path(path_type=Path), help="SQLite database.")
def show_command(run: str, db: Path | None) -> int:
    """Print the data sheet of a stored RUN (an id, `latest`, `latest~N` or `label:TEXT`)."""
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

EXIT_REGRESSION = 1

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
    """Render the data sheet of a stored RUN (an id, `latest`, `latest~N` or `label:TEXT`)."""
    from rtbench.sheets import export

    fmt = sink.pick_format(fmt, output, ("md", "html", "csv", "json"), "md")
    with Store(db, create=False) as store:
        stored = store.get_run(run)
    if stored.picked:
        click.echo(stored.picked, err=True)
    render = {"md": datasheet.render_markdown, "html": datasheet.render_html,
              "csv": export.to_csv, "json": export.to_json}[fmt]
    sink.emit(render(stored, catalog_mod.load()), output)
    return 0


@cli.command("compare")
@click.argument("runs", nargs=-1, required=True)
@click.option("--ref", "ref_name", help="Compare one run with this reference sheet "
              "(see `rtbench reference list`; any case).")
@click.option("--threshold", type=click.FloatRange(0), default=5.0, show_default=True,
              callback=_finite,
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
@click.option("--junit", "junit_file", type=click.Path(path_type=Path),
              help="Also write the verdicts as a JUnit XML report to FILE (for CI).")
@_output_options(("text", "md", "html", "json"))
def compare_command(runs: tuple[str, ...], ref_name: str | None, threshold: float,
                    fail_on: str | None, fail_on_regression: bool, limits: tuple[str, ...],
                    limits_file: Path | None, junit_file: Path | None, fmt: str | None,
                    output: Path | None, db: Path | None) -> int:
    """Put RUNS (each an id, `latest`, `latest~N` or `label:TEXT`) side by
    side (median, p99, p99.9 and max of each metric,
    each with its own verdict, against the first run), check them against
    limits, or put one run beside a vendor's published sheet (--ref NAME) or
    beside the peers measured with it (rt-tests, rtos-benchmark: a run of
    `rtbench run` with its peers).
    Runs of different kernels (FreeRTOS, ThreadX, Linux) give the kernel
    comparison sheet instead: a column per kernel, its configuration,
    Thread-Metric beside it. Every comparison ends with a `Summary:` line
    that accounts for every row (compared, unsupported, failed, unmatched);
    on stderr too when the output is a file or not text. A limit that would
    check nothing (another unit than the run's figures, a statistic the run
    does not have, no limit for its target) is an error (exit 2), never a
    pass."""
    from rtbench.compare import command

    fmt = sink.pick_format(fmt, output, ("text", "md", "html", "json"), "text")
    gate = command.fail_on(fail_on, fail_on_regression)
    out = command.compare(runs, ref_name, threshold, gate, limits, limits_file, fmt, db,
                          junit=junit_file is not None)
    for line in out.notes:
        click.echo(line, err=True)
    if out.text is not None:
        sink.emit(out.text, output)
    else:
        sink.emit_page(out.page, fmt, output, out.data)
    if junit_file is not None:
        sink.emit(out.junit or "", junit_file)
    for line in out.problems:
        click.echo(line, err=True)
    if out.summary and (output is not None or fmt != "text"):
        click.echo(out.summary, err=True)  # the summary is the last line a CI log shows
    return EXIT_REGRESSION if out.failed else 0


@cli.command("history")
@click.argument("metric")
@click.option("--profile", help="Only this profile.")
@click.option("--target", help="Only runs on this target (host, mps2-an385, …: `rtbench runs`).")
@click.option("--kernel", help="Only runs whose kernel contains this (freertos, 6.1.0-rt).")
@click.option("--label", "label_part", help="Only runs whose label contains this.")
@click.option("--last", type=click.IntRange(min=1), help="Only the last N of those runs.")
@_output_options(("text", "md", "html", "json"))
def history_command(metric: str, profile: str | None, target: str | None, kernel: str | None,
                    label_part: str | None, last: int | None, fmt: str | None,
                    output: Path | None, db: Path | None) -> int:
    """Show METRIC (a metric id) across the stored runs: each row's target,
    kernel and origin; a plot's line joins one target's and kernel's runs."""
    from rtbench.sheets import views

    fmt = sink.pick_format(fmt, output, ("text", "md", "html", "json"), "text")
    page, data = views.history_from(db, metric, profile, fmt == "html",
                                    views.HistoryFilter(target, kernel, label_part, last))
    sink.emit_page(page, fmt, output, data)
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

    click.echo(hist.of_run(db, metric, run, profile, width, buckets, all_rows), nl=False)
    return 0


@cli.command("runs")
@_output_options(("text", "md", "html", "json"))
def runs_command(fmt: str | None, output: Path | None, db: Path | None) -> int:
    """List the stored runs with their label and environment."""
    from rtbench.sheets import views

    fmt = sink.pick_format(fmt, output, ("text", "md", "html", "json"), "text")
    page, data = views.runs_from(db)
    sink.emit_page(page, fmt, output, data)
    return 0


@cli.command("audit")
@click.option("--target", required=True,
              help="The emulated board whose image is traced: mps2-an385, mps2-an386 or "
                   "stm32f4.")
@click.option("--kernel", help="The RTOS on it (as `rtbench run --kernel`).")
@click.option("--kernel-src", type=click.Path(path_type=Path),
              help="Your checkout of that kernel's sources (as `rtbench run --kernel-src`).")
@click.option("--zephyr-modules", type=click.Path(path_type=Path),
              help="--kernel zephyr: its modules (as `rtbench run --zephyr-modules`).")
@click.option("--userspace", is_flag=True, help="--kernel zephyr: the userspace build.")
@click.option("--kernel-profile", "kernel_profile", metavar="PROFILE",
              help="The kernel profile of the image traced (as `rtbench run "
                   "--kernel-profile`: defaults or speed; default speed).")
@click.option("--only", "patterns", callback=_patterns,
              help="Comma-separated glob patterns over metric ids (default: the headline "
                   "rows: yield, semaphore, mutex and queue with and without a switch, the "
                   "interrupt rows).")
@click.option("--samples", type=click.IntRange(1, 200), default=20, show_default=True,
              help="Samples (windows) traced per metric.")
@click.option("--timeout", type=click.FloatRange(0, MAX_TIMEOUT_S, min_open=True),
              default=900.0, callback=_finite, show_default=True,
              help="Seconds the traced image may run.")
@click.option("--format", "fmt", type=click.Choice(("text", "md", "json")),
              help="Output format (default: text, or the -o file's suffix).")
@click.option("-o", "--output", type=click.Path(path_type=Path),
              help="Write to FILE (its suffix picks the format) instead of stdout.")
def audit_command(target: str, kernel: str | None, kernel_src: Path | None,
                  zephyr_modules: Path | None, userspace: bool, kernel_profile: str | None,
                  patterns: str | None, samples: int, timeout: float, fmt: str | None,
                  output: Path | None) -> int:
    """Trace a board image instruction by instruction and show, per metric,
    whose code lies between its two stamps: the kernel's, or rtbench's
    (docs/windows.md). Exit 1 when a window holds more of rtbench's code
    than its budget or the trace's count differs from the harness's."""
    from rtbench.measure import audit as audit_cmd

    fmt = sink.pick_format(fmt, output, ("text", "md", "json"), "text")
    only = [p.strip() for p in patterns.split(",") if p.strip()] if patterns else None
    page, rows, problems = audit_cmd.run_audit(target, kernel, kernel_src, only, samples,
                                               timeout, zephyr_modules, userspace, kernel_profile)
    page.p(audit_cmd.problems_text(problems))
    sink.emit_page(page, fmt, output, {"rows": rows, "problems": problems})
    return 1 if problems else 0


@cli.command("import")
@click.argument("args", nargs=-1, required=True, metavar="[KIND] FILE...")
@click.option("--label", default="", callback=_text, help="Free text stored with the run.")
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

    def say(text: str) -> None:  # names of files and figures: no control characters
        click.echo(contract.one_line(text))

    if kind == "rtbench":  # rtbench's own format, read back beside its writer
        from rtbench.sheets import export

        export.import_files(files, label, db, say)
        return 0
    from rtbench.importers import command

    if kind == "harness":
        command.harness_logs(files, label, db, say)
    else:
        command.foreign(kind, files, label, program, db, say)
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
    from rtbench.sheets import views

    fmt = sink.pick_format(fmt, output, ("text", "md", "html", "json"), "text")
    page, data = views.reference_list()
    sink.emit_page(page, fmt, output, data)
    return 0


def _error(message: str) -> None:
    try:  # one line, whatever a file or a board put into the message
        click.echo(f"rtbench: error: {contract.one_line(message)}", err=True)
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
