"""The commands that measure: `rtbench run`, `qualify`, `list` (what a
target can measure) and `audit` (the windows of a board image)."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from rtbench.measure.run import RunRequest, execute, parse_profiles
from rtbench.process import lifetime
from rtbench.sheets import output as sink
from rtbench.sheets import qualify_sheet
from rtbench.store import catalog as catalog_mod
from rtbench.cli.group import (DEFAULTS, MAX_SAMPLES, MAX_TIMEOUT_S, MAX_WARMUP, QUICK,
                               _duration, _finite, _patterns, _text, cli)


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
@click.option("--kernel", help="The RTOS on a board target: freertos, threadx, zephyr or rtx5, or "
                               "several (freertos,threadx,zephyr: one run each, then the "
                               "kernel comparison; default: the kernel whose checkout "
                               "--kernel-src names).")
@click.option("--kernel-profile", "kernel_profile", metavar="PROFILE",
              help="The kernel's settings on a board target (docs/profiles.md): defaults "
                   "(the kernel as its vendor ships it) or speed (the vendor's documented "
                   "speed settings), or both (defaults,speed: one run each). Default: speed; "
                   "several kernels run both and compare them in each.")
@click.option("--kernel-config", "kernel_config", type=click.Path(path_type=Path),
              metavar="FILE",
              help="Your own kernel settings on top of the profile (docs/profiles.md): "
                   "#define lines (FreeRTOSConfig.h, tx_user.h) or a Kconfig fragment "
                   "(Zephyr); the sheet shows each as a difference from rtbench's rule.")
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
@click.option("-q", "--quiet", is_flag=True,
              help="Print only the end: the first page (several kernels or places: their "
                   "comparison) and errors; what a run prints while it measures goes to "
                   "run.log in the output directory instead.")
@click.option("--harness", "harness_path", type=click.Path(path_type=Path), hidden=True,
              envvar="RTBENCH_HARNESS")
@click.pass_context
def run_command(ctx: click.Context, quick: bool, quiet: bool, **kw) -> int:
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
        kernel_profile=kw["kernel_profile"], kernel_config=kw["kernel_config"],
        zephyr_modules=kw["zephyr_modules"], userspace=kw["userspace"],
        board=kw["board"], board_glue=kw["board_glue"], peer_src=kw["peer_src"], thread_metric_src=kw["thread_metric_src"],
        lab_env=kw["lab_env"], place=kw["place"], blocks=kw["blocks"], tune=not kw["no_tune"],
        duration_s=kw["duration"], cycles=not kw["no_cycles"], gdb=kw["gdb"], serial=kw["serial"],
        **{k: kw[k] if kw[k] is not None else base[k] for k in base})
    # The console survives a reader that went away (`| head`): the run then
    # stops as if interrupted and is kept (rtbench.process.lifetime.ConsoleOut).
    if quiet:
        from rtbench.measure.progress import QuietConsole

        return execute(req, QuietConsole(lifetime.ConsoleOut(), highlight=False))
    return execute(req, Console(file=lifetime.ConsoleOut(), highlight=False))


@cli.command("qualify")
@click.option("--duration", callback=_duration, default="10m", show_default=True,
              help="How long: 600, 10m, 2h; measured in segments, each stored as it ends.")
@click.option("--threshold", type=click.IntRange(1, 1_000_000), metavar="US",
              help="Verdict limit in µs; the first sample above it stops the kernel's trace "
                   "(cyclictest -b), kept with the run.")
@click.option("--threads", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Measuring threads per online CPU.")
@click.option("--load", is_flag=True, help="Under rtbench's built-in load (as `run --load`).")
@click.option("--label", default="", callback=_text, help="Free text stored with the run.")
@click.option("--db", type=click.Path(path_type=Path), help="SQLite database.")
@click.pass_context
def qualify_command(ctx: click.Context, **kw) -> int:
    """RT-Linux qualification (docs/qualify.md): cyclictest on every online CPU,
    checkpointed, the worst case's trace kept; changes no system setting."""
    from rtbench.measure import qualify

    req = qualify.QualifyRequest(duration_s=kw["duration"], threshold_us=kw["threshold"],
                                 threads_per_cpu=kw["threads"], load=kw["load"], db=kw["db"],
                                 label=kw["label"], argv=["rtbench", *ctx.find_root().obj["argv"]])
    return qualify.execute(req, lambda t: click.echo(t), lambda run: click.echo(
        qualify_sheet.first_page(run)))


@cli.command("list")
@click.option("--service", help="Only this service (see the section names).")
@click.option("--long", "long_", is_flag=True,
              help="Each metric's definition, clock points and vendor names too.")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text",
              help="json: every catalogue field of each metric.")
@click.option("--coverage", is_flag=True,
              help="Per vendor sheet: rows measured, unsupported on this port, missing.")
@click.option("--rows", is_flag=True, help="With --coverage: every row and what answers it.")
@sink.width_option
@click.option("-q", "--quiet", is_flag=True,
              help="With --coverage: no progress on stderr (what it builds), the tables alone.")
@click.option("--kernel-src", type=click.Path(path_type=Path), multiple=True,
              help="With --coverage: your checkout of an RTOS kernel, for its column "
                   "(repeatable: FreeRTOS and ThreadX, told apart by their files; default: "
                   "$RTBENCH_FREERTOS_SRC, $RTBENCH_THREADX_SRC).")
@click.option("--harness", "harness_path", type=click.Path(path_type=Path), hidden=True,
              envvar="RTBENCH_HARNESS")
def list_command(service: str | None, long_: bool, fmt: str, coverage: bool, rows: bool,
                 quiet: bool, kernel_src: tuple[Path, ...], harness_path: Path | None) -> int:
    """Show the metric catalogue (id, title, status on this machine's
    harness), or (--coverage) how it covers the vendors' sheets."""
    from rtbench import targets
    from rtbench.compare import coverage as coverage_mod
    from rtbench.peers import programs
    from rtbench.sheets import listing
    from rtbench.targets import harness

    cat = catalog_mod.load()
    if coverage or rows:
        say = (lambda text: None) if quiet else (  # noqa: E731
            lambda text: click.echo(f"list --coverage: {text}", err=True))
        with harness.announcing(say):  # what it builds and boots, as it goes (stderr)
            columns, notes = targets.supports(harness_path, kernel_src, say)
        columns[targets.HOST_COLUMN] |= programs.support()  # the standard programs run here too
        console, _laid_out = sink.text_console()  # --width, the terminal, or 160 into a pipe
        coverage_mod.print_tables(console, cat, columns, rows, "; ".join(notes))
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
