"""Command line: `rtbench run | list | show`.

Every error is one line, `rtbench: error: ...`, exit code 2 for bad input
(click's usage errors and ours alike), no traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

import rtbench
from rtbench import catalog as catalog_mod
from rtbench import coverage as coverage_mod
from rtbench import harness
from rtbench import report
from rtbench.errors import RtbenchError
from rtbench.runcmd import EXIT_INTERRUPTED, RunRequest, execute
from rtbench.store import Store

DEFAULTS = {"samples": 10000, "warmup": 100, "budget_ms": 2000}
QUICK = {"samples": 1000, "warmup": 50, "budget_ms": 500}
MAX_SAMPLES = 10_000_000


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(rtbench.__version__, prog_name="rtbench")
def cli() -> None:
    """rtbench: real-time kernel benchmark suite."""


@cli.command("run")
@click.option("--out", type=click.Path(path_type=Path), help="Output directory.")
@click.option("--db", type=click.Path(path_type=Path), help="SQLite database.")
@click.option("--quick", is_flag=True, help="1000 samples, 50 warm-up, 500 ms budget.")
@click.option("--only", "patterns", help="Comma-separated glob patterns over metric ids.")
@click.option("--samples", type=click.IntRange(1, MAX_SAMPLES), help="Samples per metric.")
@click.option("--warmup", type=click.IntRange(0, MAX_SAMPLES), help="Warm-up samples.")
@click.option("--budget-ms", type=click.IntRange(1, 3_600_000), help="Time budget per metric.")
@click.option("--cpu", type=click.IntRange(0), help="CPU to pin the benchmark tasks to.")
@click.option("--no-rt", is_flag=True, help="Do not ask for SCHED_FIFO / mlockall.")
@click.option("--timeout", type=click.FloatRange(0, min_open=True), default=30.0,
              show_default=True, help="Seconds a metric may run before it is killed.")
@click.option("--label", default="", help="Free text stored with the run.")
@click.option("--harness", "harness_path", type=click.Path(path_type=Path), hidden=True,
              envvar="RTBENCH_HARNESS")
@click.pass_context
def run_command(ctx: click.Context, quick: bool, **kw) -> int:
    """Measure, store the run and write datasheet.md + results.json."""
    base = QUICK if quick else DEFAULTS
    req = RunRequest(
        patterns=kw["patterns"], cpu=kw["cpu"], no_rt=kw["no_rt"], timeout=kw["timeout"],
        label=kw["label"], out=kw["out"], db=kw["db"], harness=kw["harness_path"],
        argv=["rtbench", *ctx.find_root().obj["argv"]],
        **{k: kw[k] if kw[k] is not None else base[k] for k in base})
    return execute(req, Console(highlight=False))


@cli.command("list")
@click.option("--service", help="Only this service (see the section names).")
@click.option("--coverage", is_flag=True,
              help="Per vendor sheet: rows measured, unsupported on this port, missing.")
@click.option("--rows", is_flag=True, help="With --coverage: every row and what answers it.")
@click.option("--harness", "harness_path", type=click.Path(path_type=Path), hidden=True,
              envvar="RTBENCH_HARNESS")
def list_command(service: str | None, coverage: bool, rows: bool,
                 harness_path: Path | None) -> int:
    """Show the metric catalogue, or (--coverage) how it covers the vendors' sheets."""
    cat = catalog_mod.load()
    if coverage or rows:
        _print_coverage(cat, harness.registry_support(harness.executable(harness_path)), rows)
        return 0
    services = list(cat.services)
    if service is not None:
        chosen = [s for s in services if s.lower() == service.lower()]
        if not chosen:
            raise RtbenchError(f"unknown service {service!r} (one of: {', '.join(services)})")
        services = chosen
    table = Table(title="rtbench metrics", show_lines=True)
    for col in ("id", "title", "definition", "vendor names"):
        table.add_column(col, overflow="fold", no_wrap=(col == "id"))
    for s in services:
        for m in cat.by_service(s):
            vendors = "\n".join(f"{v}: {'; '.join(names)}"
                                 for v, names in m.vendor.items() if names)
            table.add_row(m.id, f"{m.title}\n[dim]{s}[/dim]", m.definition, vendors or "—")
    Console().print(table)
    return 0


def _print_coverage(cat: catalog_mod.Catalog, support: dict, rows: bool) -> None:
    console = Console(highlight=False)
    sheets = coverage_mod.compute(cat, support)
    table = Table(title="Coverage of the vendors' kernel data sheets (distinct rows)")
    for col in ("sheet", "rows", "measured", "unsupported", "n/a", "missing"):
        table.add_column(col, justify="left" if col == "sheet" else "right")
    for c in sheets:
        table.add_row(c.sheet.name, str(len(c.rows)), *(str(c.count(s)) for s in (
            coverage_mod.MEASURED, coverage_mod.UNSUPPORTED, coverage_mod.NA,
            coverage_mod.MISSING)))
    console.print(table)
    if not rows:
        return
    for c in sheets:
        detail = Table(title=c.sheet.title, show_lines=False)
        for col in ("row", "status", "answered by / why"):
            detail.add_column(col, overflow="fold")
        for r in c.rows:
            detail.add_row(r.key, r.status, ", ".join(r.metrics) + (f" ({r.why})" if r.why else ""))
        console.print(detail)


@cli.command("show")
@click.argument("run")
@click.option("--db", type=click.Path(path_type=Path), help="SQLite database.")
def show_command(run: str, db: Path | None) -> int:
    """Print the data sheet of a stored RUN (an id or `latest`)."""
    with Store(db, create=False) as store:
        stored = store.get_run(run)
    click.echo(report.render_markdown(stored, catalog_mod.load()), nl=False)
    return 0


def _error(message: str) -> None:
    click.echo(f"rtbench: error: {message}", err=True)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
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
        _error("interrupted")
        return EXIT_INTERRUPTED
    return rv if isinstance(rv, int) else 0
