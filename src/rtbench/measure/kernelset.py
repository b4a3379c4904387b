"""Several kernels on one board in one command: `rtbench run --target
mps2-an385 --kernel freertos,threadx,zephyr`, in every kernel profile
(docs/profiles.md: defaults and speed) unless `--kernel-profile` names one;
or one kernel in several profiles (`--kernel K --kernel-profile
defaults,speed`).

Each kernel in each profile is its own `rtbench run --kernel K
--kernel-profile P` child process (farm.py's machinery), all at once: each
builds its image (the builds share the machine's cores) and runs it under
QEMU, whose -icount makes every figure a count of instructions that the
host's load cannot change. Each stores its own run and sheet under
OUT/P/K; when all are done, per profile, the kernel comparison of its runs
is printed (as `rtbench compare A B C` would), headed by the profile, then
the profiles side by side (compare/profiles.py: the key rows in each
profile, the compiler flags, each kernel's settings with their sources);
all of it is written to OUT/compare.md. Ctrl-C reaches every child; each
keeps what it measured.
"""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

from rich.console import Console

from rtbench import kernels as kernels_mod
from rtbench.errors import RtbenchError
from rtbench.measure import farm, outdir, progress


def is_several(kernel: str | None, profile: str | None = None) -> bool:
    """Several kernels, or one in several profiles: one run each."""
    return (kernel is not None and "," in kernel) or (profile is not None and "," in profile)


def names(spec: str) -> list[str]:
    """The kernels, in order, each once; one line and exit 2 for an unknown one."""
    out = [k.strip() for k in spec.split(",") if k.strip()]
    if not out:
        raise RtbenchError("--kernel: no kernel given")
    for k in out:
        kernels_mod.get(k)  # one line for an unknown one
    if len(set(out)) != len(out):
        raise RtbenchError(f"--kernel {spec}: a kernel is listed twice")
    return out


def check(req) -> tuple[list[str], list[str]]:
    """What several kernels cannot take, refused before anything starts:
    (the kernels, the profiles)."""
    from rtbench import targets
    from rtbench.targets import profiles

    if req.kernel is None:
        raise RtbenchError("--kernel-profile with several profiles: name the kernel(s) too "
                           f"(--kernel {','.join(kernels_mod.names())})")
    kernels = names(req.kernel)
    kernel_profiles = profiles.parse(req.kernel_profile, several=len(kernels) > 1)
    if req.target not in targets.BOARDS:
        raise RtbenchError(f"--kernel {req.kernel}: several kernels run on an emulated board "
                           f"(--target {' or '.join(targets.BOARDS)})")
    if req.kernel_src is not None and len(kernels) > 1:
        raise RtbenchError("--kernel-src names one kernel's checkout; with several kernels set "
                           f"each one's variable ({', '.join(kernels_mod.env_vars())})")
    if req.kernel_config is not None and len(kernels) > 1:
        raise RtbenchError("--kernel-config is one kernel's own settings (its form: #define "
                           "lines or a Kconfig fragment); with several kernels, run each with "
                           "its own")
    # the build options a kernel brings, when no kernel listed takes them
    unused = [d for d in ("modules", "userspace") if not set(kernels_mod.taking(d)) & set(kernels)]
    if any(getattr(req, d) for d in unused):
        takers = dict.fromkeys(k for d in unused for k in kernels_mod.taking(d))
        raise RtbenchError(f"{' and '.join(kernels_mod.flag_of(d) for d in unused)} are for "
                           f"{' or '.join(takers)}, which --kernel {req.kernel} does not list")
    if req.harness is not None:
        raise RtbenchError("--harness is for the host target")
    req.check_budget()  # else refused by every child, after the others had run
    for k in kernels:  # each one's sources (and its options, its build's tools) now
        d = kernels_mod.get(k)
        modules = req.modules if "modules" in d.option_dests else None
        userspace = req.userspace and "userspace" in d.option_dests
        d.resolve(req.kernel_src, profiles.check(None), modules, userspace)
        d.check_build_tools(userspace)
    return kernels, kernel_profiles


def _check_out(out: Path, kernel_profiles: list[str]) -> None:
    """An existing OUT must be empty or hold an earlier shoot-out: its
    comparison and, per profile, a folder of runs."""
    if out.is_dir():
        for entry in out.iterdir():
            if entry.name in kernel_profiles and entry.is_dir():
                farm.check_out(entry)
            elif entry.name != "compare.md" and not outdir.is_rtbench_dir(entry):
                raise RtbenchError(f"--out {out} is not empty and holds no rtbench results; "
                                   "choose another directory")
    else:
        farm.check_out(out)


def child_argv(req, kernel: str, out: Path, profile: str) -> list[str]:
    """`rtbench run` for one kernel in one profile, with the numbers the parent resolved."""
    argv = ["run", "--target", req.target, "--kernel", kernel, "--kernel-profile", profile,
            "--out", str(out),
            "--samples", str(req.samples), "--warmup", str(req.warmup),
            "--budget-ms", str(req.budget_ms), "--timeout", f"{req.timeout:g}"]
    options = [("--only", req.patterns), ("--label", req.label), ("--db", req.db),
               ("--kernel-src", req.kernel_src),
               ("--peer-src", req.peer_src), ("--thread-metric-src", req.thread_metric_src)]
    d = kernels_mod.get(kernel)
    if "modules" in d.option_dests:
        options.append((kernels_mod.flag_of("modules"), req.modules))
    for flag, value in options:
        if value:
            argv += [flag, str(value)]
    argv += ["--quick"] if req.quick else []
    argv += ["--with-peers"] if req.with_peers else []
    argv += [] if req.cycles else ["--no-cycles"]
    argv += [kernels_mod.flag_of("userspace")] if (
        "userspace" in d.option_dests and req.userspace) else []
    return argv


def run_kernels(req, console: Console) -> int:
    """Measure every kernel in every profile at once, then print their
    kernel comparison per profile and the profiles side by side. The exit
    code is the worst of the runs' (128 + the signal if interrupted)."""
    kernels, kernel_profiles = check(req)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = req.out or outdir.DEFAULT_PARENT / f"{stamp}-{req.target}-kernels"
    _check_out(out, kernel_profiles)
    out.mkdir(parents=True, exist_ok=True)
    for profile in kernel_profiles:
        (out / profile).mkdir(exist_ok=True)
    pairs = [(p, k) for p in kernel_profiles for k in kernels]
    console.print(f"{len(kernels)} kernel(s) in {len(kernel_profiles)} profile(s) at once on "
                  f"{req.target}: {', '.join(kernels)}; kernel profiles "
                  f"{', '.join(kernel_profiles)} (docs/profiles.md)",
                  soft_wrap=True, highlight=False)
    started = time.monotonic()
    codes = farm.run_children({f"{k} {p}": child_argv(req, k, out / p / k, p)
                               for p, k in pairs}, console)
    elapsed = time.monotonic() - started
    runs = {(p, k): farm.run_id(out / p / k) for p, k in pairs}
    with progress.aloud(console, out):  # --quiet: the runs' ends and their comparison
        for p, k in pairs:
            what = f"run {runs[(p, k)]}" if runs[(p, k)] is not None else "no run stored"
            console.print(f"{k} ({p}): {what}, exit code {codes[f'{k} {p}']}", soft_wrap=True,
                          highlight=False)
        console.print(f"{len(pairs)} runs measured in {elapsed:.0f} s (builds included)",
                      soft_wrap=True, highlight=False)
        compare_all(req.db, kernel_profiles, kernels, runs, out, console)
    return farm.interrupted_code(codes)


def compare_all(db: Path | None, kernel_profiles: list[str], kernels: list[str],
                runs: dict[tuple[str, str], int | None], out: Path, console: Console) -> None:
    """Per profile, the kernel comparison of its runs (two kernels or more);
    one kernel in several profiles, the comparison of its runs; then the
    profiles side by side. All of it printed and written to OUT/compare.md."""
    stored = {pk: r for pk, r in runs.items() if r is not None}
    parts: list[str] = []
    if len(kernels) > 1:
        for profile in kernel_profiles:
            ids = [r for (p, _k), r in stored.items() if p == profile]
            if len(ids) >= 2:
                parts.append(compare_kernels(db, ids, console, f"kernel profile {profile}"))
    elif len(stored) >= 2:
        parts.append(compare_kernels(db, list(stored.values()), console,
                                     f"{kernels[0]} in each kernel profile"))
    if len(kernel_profiles) > 1 and stored:
        parts.append(side_by_side(db, stored, console))
    if parts:
        from rtbench.sheets import files

        files.atomic_write(out / "compare.md", "\n\n".join(parts))
        console.print(f"kernel comparison: {out / 'compare.md'}", soft_wrap=True,
                      highlight=False)


def compare_kernels(db: Path | None, run_ids: list[int], console: Console, heading: str) -> str:
    """The comparison of the runs (`rtbench compare A B C`), printed under
    `heading`; its Markdown, headed the same."""
    from rtbench.compare import command
    from rtbench.sheets import pages

    ids = tuple(str(r) for r in run_ids)
    md = command.compare(ids, None, 5.0, (), (), None, "md", db)
    text = md.text or pages.render(md.page, "md")
    shown = command.compare(ids, None, 5.0, (), (), None, "text", db)
    console.print(f"{heading}: comparison of runs {', '.join(ids)} (rtbench compare "
                  f"{' '.join(ids)}):", soft_wrap=True, highlight=False)
    pages.print_rich(shown.page, _wide(console))  # it ends with the summary line (as `compare`)
    return f"# {heading[:1].upper()}{heading[1:]}\n\n{text}"


def side_by_side(db: Path | None, runs: dict[tuple[str, str], int], console: Console) -> str:
    """The profiles side by side (compare/profiles.py), printed; its Markdown."""
    from rtbench.compare import profiles
    from rtbench.sheets import pages
    from rtbench.store import catalog
    from rtbench.store.db import Store

    with Store(db, create=False) as store:
        page = profiles.page({pk: store.get_run(r) for pk, r in runs.items()}, catalog.load())
    console.print("the kernel profiles side by side:", soft_wrap=True, highlight=False)
    pages.print_rich(page, _wide(console))
    return pages.render(page, "md")


def _wide(console: Console) -> Console:
    """A log or a pipe gets wide tables, as `rtbench compare` prints them."""
    if console.is_terminal:
        return console
    return Console(file=console.file, width=max(console.width, 160), highlight=False)
