"""Several kernels on one board in one command: `rtbench run --target
mps2-an385 --kernel freertos,threadx,zephyr`.

Each kernel is its own `rtbench run --kernel K` child process (farm.py's
machinery), all at once: each builds its image (the builds share the
machine's cores) and runs it under QEMU, whose -icount makes every figure a
count of instructions that the host's load cannot change. Each stores its
own run and sheet under OUT/K; when all are done the kernel comparison of
their runs is printed (as `rtbench compare A B C` would) and written to
OUT/compare.md. Ctrl-C reaches every child; each keeps what it measured.
"""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

from rich.console import Console

from rtbench.errors import RtbenchError
from rtbench.measure import farm, outdir


def is_several(kernel: str | None) -> bool:
    return kernel is not None and "," in kernel


def names(spec: str) -> list[str]:
    """The kernels, in order, each once; one line and exit 2 for an unknown one."""
    from rtbench.targets import kernels

    out = [k.strip() for k in spec.split(",") if k.strip()]
    if not out:
        raise RtbenchError("--kernel: no kernel given")
    bad = [k for k in out if k not in kernels.SPECS]
    if bad:
        raise RtbenchError(f"unknown --kernel {bad[0]!r} (one of: {', '.join(kernels.SPECS)})")
    if len(set(out)) != len(out):
        raise RtbenchError(f"--kernel {spec}: a kernel is listed twice")
    return out


def check(req) -> list[str]:
    """What several kernels cannot take, refused before anything starts."""
    from rtbench import targets

    kernels = names(req.kernel)
    if req.target not in targets.BOARDS:
        raise RtbenchError(f"--kernel {req.kernel}: several kernels run on an emulated board "
                           f"(--target {' or '.join(targets.BOARDS)})")
    if req.kernel_src is not None:
        raise RtbenchError("--kernel-src names one kernel's checkout; with several kernels set "
                           "each one's variable (RTBENCH_FREERTOS_SRC, RTBENCH_THREADX_SRC, "
                           "RTBENCH_ZEPHYR_SRC)")
    if (req.zephyr_modules is not None or req.userspace) and "zephyr" not in kernels:
        raise RtbenchError("--zephyr-modules and --userspace are for zephyr, which --kernel "
                           f"{req.kernel} does not list")
    if req.harness is not None:
        raise RtbenchError("--harness is for the host target")
    from rtbench.targets import kernels as kernels_mod

    for k in kernels:  # each one's sources (and Zephyr's modules) now, before any child
        zephyr = k == "zephyr"
        kernels_mod.get(k, None, req.zephyr_modules if zephyr else None,
                        req.userspace and zephyr)
    return kernels


def child_argv(req, kernel: str, out: Path) -> list[str]:
    """`rtbench run` for one kernel, with the numbers the parent resolved."""
    argv = ["run", "--target", req.target, "--kernel", kernel, "--out", str(out),
            "--samples", str(req.samples), "--warmup", str(req.warmup),
            "--budget-ms", str(req.budget_ms), "--timeout", f"{req.timeout:g}"]
    options = [("--only", req.patterns), ("--label", req.label), ("--db", req.db),
               ("--peer-src", req.peer_src), ("--thread-metric-src", req.thread_metric_src)]
    if kernel == "zephyr":
        options.append(("--zephyr-modules", req.zephyr_modules))
    for flag, value in options:
        if value:
            argv += [flag, str(value)]
    argv += ["--quick"] if req.quick else []
    argv += ["--with-peers"] if req.with_peers else []
    argv += ["--userspace"] if kernel == "zephyr" and req.userspace else []
    return argv


def run_kernels(req, console: Console) -> int:
    """Measure every kernel at once, then print their kernel comparison. The
    exit code is the worst of the kernels' (130 if interrupted)."""
    kernels = check(req)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = req.out or outdir.DEFAULT_PARENT / f"{stamp}-{req.target}-kernels"
    farm.check_out(out)
    out.mkdir(parents=True, exist_ok=True)
    console.print(f"{len(kernels)} kernels at once on {req.target}: {', '.join(kernels)}",
                  soft_wrap=True, highlight=False)
    started = time.monotonic()
    codes = farm.run_children({k: child_argv(req, k, out / k) for k in kernels}, console)
    elapsed = time.monotonic() - started
    runs = {k: farm.run_id(out / k) for k in kernels}
    for k in kernels:
        what = f"run {runs[k]}" if runs[k] is not None else "no run stored"
        console.print(f"{k}: {what}, exit code {codes[k]}", soft_wrap=True, highlight=False)
    console.print(f"{len(kernels)} kernels measured in {elapsed:.0f} s (builds included)",
                  soft_wrap=True, highlight=False)
    stored = [r for r in runs.values() if r is not None]
    if len(stored) >= 2:
        compare_kernels(req.db, stored, out, console)
    if any(c == farm.EXIT_INTERRUPTED for c in codes.values()):
        return farm.EXIT_INTERRUPTED
    return max(codes.values())


def compare_kernels(db: Path | None, run_ids: list[int], out: Path, console: Console) -> None:
    """The kernel comparison of the runs (`rtbench compare A B C`), printed
    and written to OUT/compare.md."""
    from rtbench.compare import command
    from rtbench.sheets import files, pages

    ids = tuple(str(r) for r in run_ids)
    md = command.compare(ids, None, 5.0, (), (), None, "md", db)
    files.atomic_write(out / "compare.md", md.text or pages.render(md.page, "md"))
    shown = command.compare(ids, None, 5.0, (), (), None, "text", db)
    console.print(f"kernel comparison of runs {', '.join(ids)} (rtbench compare "
                  f"{' '.join(ids)}):", soft_wrap=True, highlight=False)
    if not console.is_terminal:  # a log or a pipe: wide tables, as `rtbench compare` prints
        console = Console(file=console.file, width=max(console.width, 160), highlight=False)
    pages.print_rich(shown.page, console)  # it ends with the summary line (as `compare`)
    console.print(f"kernel comparison: {out / 'compare.md'}", soft_wrap=True, highlight=False)
