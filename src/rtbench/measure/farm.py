"""Several runs at once, each its own `rtbench run` child process: the
places of a labgrid lab (here) and the kernels of a board
(`--kernel freertos,threadx,zephyr`, kernelset.py) share the machinery
below the places' part (spawn, relay, wait, run_id).

Several labgrid places at once: `rtbench run --target labgrid --env ENV
--place A,B` (or `--place TAG=VALUE`: every place with that tag).

Each place is measured by its own `rtbench run --place NAME` process: its
own labgrid client (labgrid's client state and event loop are per process),
its own run in the shared store (SQLite in WAL mode takes concurrent
writers), its own sheet under OUT/NAME. Their lines are shown as they come,
each prefixed with its place. When all are done the runs are compared
(OUT/compare.md). Ctrl-C reaches every child (same process group): each
keeps what it measured, powers its board off and releases its place.
"""

from __future__ import annotations

import ctypes
import datetime as dt
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from rich.console import Console

from rtbench.errors import RtbenchError
from rtbench.measure import outdir, progress
from rtbench.process import lifetime



def is_several(spec: str) -> bool:
    """More than one place, or a tag that may stand for several."""
    return "," in spec or "=" in spec


def expand(spec: str, env_file: Path) -> list[str]:
    """Place names, in order, each once; TAG=VALUE items ask the coordinator."""
    names: list[str] = []
    coordinator = None
    try:
        for item in (p.strip() for p in spec.split(",")):
            if not item:
                continue
            if "=" not in item:
                names.append(item)
                continue
            if coordinator is None:
                coordinator = _coordinator(env_file)
            key, _, value = item.partition("=")
            tagged = coordinator.with_tag(key.strip(), value.strip())
            if not tagged:
                raise RtbenchError(f"--place {item}: no place on the labgrid coordinator at "
                                   f"{coordinator.address} has the tag {key}={value}")
            names += tagged
    finally:
        if coordinator is not None:
            coordinator.close()
    if not names:
        raise RtbenchError("--place: no place given")
    return list(dict.fromkeys(names))


def _coordinator(env_file: Path):
    from rtbench.targets import labplace

    labplace.require_labgrid()
    env = labplace.load_environment(env_file)
    return labplace.Coordinator(labplace.coordinator_address(env.config))


def run_places(req, console: Console) -> int:
    """Measure every place at once, then compare their runs. The exit code is
    the worst of the places' (128 + the signal if interrupted)."""
    from rtbench.targets import labplace

    labplace.require_labgrid()
    places = expand(req.place, req.lab_env)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = req.out or outdir.DEFAULT_PARENT / f"{stamp}-labgrid"
    check_out(out)
    out.mkdir(parents=True, exist_ok=True)
    console.print(f"{len(places)} places at once: {', '.join(places)}", soft_wrap=True)
    codes = run_children({p: child_argv(req, p, out / p) for p in places}, console)
    runs = {p: run_id(out / p) for p in places}
    with progress.aloud(console, out):  # --quiet: the places' ends and their comparison
        for p in places:
            what = f"run {runs[p]}" if runs[p] is not None else "no run stored"
            console.print(f"place {p}: {what}, exit code {codes[p]}", soft_wrap=True,
                          highlight=False)
        stored = {p: r for p, r in runs.items() if r is not None}
        if len(stored) >= 2:
            compare_places(req.db, stored, out, console)
    return interrupted_code(codes)


def check_out(out: Path) -> None:
    """An existing OUT must be empty or hold earlier results of several runs."""
    if not out.is_dir():
        outdir.check_existing(out)
        return
    for entry in out.iterdir():
        if entry.name != "compare.md" and not outdir.is_rtbench_dir(entry):
            raise RtbenchError(f"--out {out} is not empty and holds no rtbench results; "
                               "choose another directory")


def child_argv(req, place: str, out: Path) -> list[str]:
    """`rtbench run` for one place, with the numbers the parent resolved."""
    argv = ["run", "--target", "labgrid", "--env", str(Path(req.lab_env).resolve()),
            "--place", place, "--out", str(out), "--samples", str(req.samples),
            "--warmup", str(req.warmup), "--budget-ms", str(req.budget_ms),
            "--timeout", f"{req.timeout:g}"]
    for flag, value in (("--only", req.patterns), ("--label", req.label), ("--db", req.db),
                        ("--kernel", req.kernel), ("--kernel-src", req.kernel_src),
                        ("--kernel-profile", req.kernel_profile)):
        if value:
            argv += [flag, str(value)]
    return argv + (["--quick"] if req.quick else [])


# ---- the children ----

def run_children(argvs: dict[str, list[str]], console: Console) -> dict[str, int]:
    """Start an `rtbench` child per name at once, show their lines as they
    come (each prefixed with its name), wait for all: each one's exit code."""
    lock = threading.Lock()
    children = {name: spawn(argv) for name, argv in argvs.items()}
    readers = [threading.Thread(target=_relay, args=(n, c, console, lock), daemon=True)
               for n, c in children.items()]
    for t in readers:
        t.start()
    codes = _wait(children)
    for t in readers:
        t.join(timeout=5)
    return codes


def spawn(argv: list[str]) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": os.environ.get("COLUMNS", "160")}
    return subprocess.Popen([sys.executable, "-m", "rtbench", *argv],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, bufsize=1, env=env,
                            errors="replace", preexec_fn=_term_with_parent)


_PR_SET_PDEATHSIG = 1
_prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up here: the child only calls it


def _term_with_parent() -> None:
    """In the child: SIGTERM when this process dies, however it dies (a
    place's run then ends as interrupted: stored incomplete, board off,
    place released) instead of measuring on with nobody to compare it.
    It runs between fork and exec beside the parent's threads (gRPC's, the
    relays'), so it imports nothing and takes no lock: one C call."""
    _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _relay(place: str, child: subprocess.Popen, console: Console, lock: threading.Lock) -> None:
    for line in child.stdout:
        with lock:
            console.print(f"[{place}] {line.rstrip()}", markup=False, highlight=False,
                          soft_wrap=True)


def _wait(children: dict[str, subprocess.Popen]) -> dict[str, int]:
    try:
        return {p: c.wait() for p, c in children.items()}
    except KeyboardInterrupt:
        # A terminal's Ctrl-C reached the children too (one process group):
        # give them the time to store what they have, power off and release.
        # Any other signal (SIGTERM, SIGHUP, a SIGINT to this process alone)
        # reached this process only: the children are told at once, with
        # SIGTERM, which no child has ignored (a background job of a script
        # inherits SIGINT ignored, and rtbench leaves an ignored signal so).
        # None is told twice in a row, so its own clean-up is not interrupted;
        # further signals to this process wait meanwhile.
        sig = lifetime.received() or signal.SIGINT
        rounds = ((15, False), (30, True)) if sig == signal.SIGINT else ((30, True),)
        with lifetime.interrupts_deferred():
            for grace, tell in rounds:
                for c in children.values():
                    if c.poll() is None and tell:
                        c.send_signal(signal.SIGTERM)
                for c in children.values():
                    try:
                        c.wait(timeout=grace)
                    except subprocess.TimeoutExpired:
                        pass
            for c in children.values():
                if c.poll() is None:
                    c.kill()
                    c.wait()
        return {p: lifetime.exit_code() for p in children}


def interrupted_code(codes: dict[str, int]) -> int:
    """The exit code of several runs: 128 + the signal that interrupted this
    process (130, 143, 129), else the worst of theirs."""
    return lifetime.exit_code() if lifetime.received() is not None else max(codes.values())


def run_id(out: Path) -> int | None:
    try:
        return int(json.loads((out / "results.json").read_text())["run"]["id"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def compare_places(db: Path | None, runs: dict[str, int], out: Path, console: Console) -> None:
    """The places' runs side by side: `rtbench compare RUN...`, printed and
    written to OUT/compare.md.

    Hook: the kernel/board comparison sheet (issue 16, rtbench.compare.kernels)
    takes this place once it lands; it gets the same runs, keyed by place."""
    from rtbench import compare
    from rtbench.compare import views
    from rtbench.sheets import files, pages
    from rtbench.store import catalog
    from rtbench.store.db import Store

    with Store(db, create=False) as store:
        stored = [store.get_run(r) for r in runs.values()]
    page = views.run_comparison(compare.compare_runs(stored, catalog.load()))
    files.atomic_write(out / "compare.md", pages.render(page, "md"))
    console.print(f"comparison of runs {', '.join(map(str, runs.values()))} "
                  f"(rtbench compare {' '.join(map(str, runs.values()))}):", soft_wrap=True)
    pages.print_rich(page, console)
    console.print(f"comparison: {out / 'compare.md'}", soft_wrap=True, highlight=False)
