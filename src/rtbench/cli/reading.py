"""The commands that read stored runs: `rtbench show`, `report`,
`compare`, `history`, `hist`, `runs`, `import` and `reference list`."""

from __future__ import annotations

from pathlib import Path

import click

from rtbench import kernels
from rtbench.errors import RtbenchError
from rtbench.sheets import calibration
from rtbench.sheets import output as sink
from rtbench.sheets import qualify_sheet
from rtbench.store import catalog as catalog_mod
from rtbench.store import contract
from rtbench.store.db import Store
from rtbench.cli.group import _finite, _text, cli


@cli.command("show")
@click.argument("run")
@click.option("--first-page", is_flag=True,
              help="Only the first page: key figures, worst cases, conditions, warnings "
                   "(what `rtbench run` ends with).")
@click.option("--format", "fmt", type=click.Choice(("text", "md")),
              help="text: laid out for the terminal (the default on one, or with --width); "
                   "md: the Markdown sheet (the default into a file or a pipe).")
@sink.width_option
@click.option("--db", type=click.Path(path_type=Path), help="SQLite database.")
def show_command(run: str, first_page: bool, fmt: str | None, db: Path | None) -> int:
    """Print the data sheet of a stored RUN (an id, `latest`, `latest~N` or
    `label:TEXT`) laid out for a terminal, or its first page alone."""
    from rtbench.sheets import terminal

    with Store(db, create=False) as store:
        stored = store.get_run(run)
        stored.calibrations = calibration.find(store, stored)
    console, laid_out = sink.text_console()
    if qualify_sheet.is_qualify(stored) or (fmt or ("text" if laid_out else "md")) == "md":
        # a qualify run's sheet is text already (preformatted tables and its trace)
        text = (qualify_sheet.first_page(stored) if first_page and qualify_sheet.is_qualify(
            stored) else qualify_sheet.render_markdown(stored, catalog_mod.load()))
        if first_page and not qualify_sheet.is_qualify(stored):  # up to the configuration
            text = text.split("\n## Target configuration", 1)[0] + "\n"
        click.echo(text, nl=False)
        return 0
    terminal.print_sheet(stored, catalog_mod.load(), console, first_page, soft=not laid_out)
    return 0


# ---- reports and comparisons (docs/reports.md) ----

EXIT_REGRESSION = 1

def _output_options(formats: tuple[str, ...], text_width: bool = True):
    def wrap(f):
        if "text" in formats and text_width:  # hist's --width is its buckets' (cyclictest's)
            f = sink.width_option(f)
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
        stored.calibrations = calibration.find(store, stored)
    if stored.picked:
        click.echo(stored.picked, err=True)
    render = {"md": qualify_sheet.render_markdown, "html": qualify_sheet.render_html,
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
@_output_options(("text", "md", "html", "json", "csv"))
def compare_command(runs: tuple[str, ...], ref_name: str | None, threshold: float,
                    fail_on: str | None, fail_on_regression: bool, limits: tuple[str, ...],
                    limits_file: Path | None, junit_file: Path | None, fmt: str | None,
                    output: Path | None, db: Path | None) -> int:
    """Put RUNS (each an id, `latest`, `latest~N`, `label:TEXT`, or a
    results.json FILE, read without importing it) side by side (median,
    p99, p99.9 and max of each metric,
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

    fmt = sink.pick_format(fmt, output, ("text", "md", "html", "json", "csv"), "text")
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
@click.option("--kernel", help=f"Only runs whose kernel contains this ({kernels.names()[0]}, "
                               "6.1.0-rt).")
@click.option("--label", "label_part", help="Only runs whose label contains this.")
@click.option("--last", type=click.IntRange(min=1), help="Only the last N of those runs.")
@_output_options(("text", "md", "html", "json", "csv"))
def history_command(metric: str, profile: str | None, target: str | None, kernel: str | None,
                    label_part: str | None, last: int | None, fmt: str | None,
                    output: Path | None, db: Path | None) -> int:
    """Show METRIC (a metric id) across the stored runs: each row's target,
    kernel and origin; a plot's line joins one target's and kernel's runs."""
    from rtbench.sheets import views

    fmt = sink.pick_format(fmt, output, ("text", "md", "html", "json", "csv"), "text")
    page, data = views.history_from(db, metric, profile, fmt == "html",
                                    views.HistoryFilter(target, kernel, label_part, last))
    if fmt == "csv":  # one row per run and profile, the report's columns (sheets/tabular.py)
        from rtbench.sheets import tabular

        sink.emit(tabular.history_csv(data, metric), output)
        return 0
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
@_output_options(("text", "json", "csv"), text_width=False)
def hist_command(metric: str, run: str, profile: str | None, width: str | None, buckets: int,
                 all_rows: bool, fmt: str | None, output: Path | None, db: Path | None) -> int:
    """Print METRIC's histogram in RUN (default: latest) as cyclictest does:
    a bucket per line, then the summary with the overflow count; json and
    csv: every bucket's bounds and count in the unit stated."""
    from rtbench.sheets import hist

    fmt = sink.pick_format(fmt, output, ("text", "json", "csv"), "text")
    sink.emit(hist.of_run(db, metric, run, profile, width, buckets, all_rows, fmt), output)
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
