"""`rtbench run --target mps2-an385 --kernel zephyr --with-peers`: Zephyr's
own `latency_measure` (the seed's tool) beside rtbench's Zephyr port, on
the same emulated board, built two ways from the user's Zephyr tree
(tests/benchmarks/latency_measure), each a peer run of its own:

* `stock`: as Zephyr ships it, its own prj.conf (CONFIG_TEST, and with it
  CONFIG_ASSERT and CONFIG_SPIN_VALIDATE; -Os; a tickless kernel), changed
  only where the emulated board cannot run it
  (harness/peers/latency_measure/stock.conf, each change with its reason):
  the figures Zephyr's users see;
* `rebuilt`: with rtbench's kernel configuration
  (harness/peers/latency_measure/rtbench.conf: tick, asserts, stack checks,
  stack fill, the speed profile's optimisation), so that a row differs from
  rtbench's only where the two definitions do.

Both build with the same modules, board and compiler as rtbench's image; the
Kconfig settings in which the two builds differ are read from their
.config files and stored with both runs. The userspace run builds both
with latency_measure's userspace configuration too (prj.userspace.conf).
Each runs in the same QEMU with the same -icount and never exits: rtbench
stops it at `PROJECT EXECUTION SUCCESSFUL` (or a host-side timeout).

Its console is read by the Zephyr importer (rtbench.importers.zephyr).
latency_measure prints each row's average in cycles of Zephyr's timing
counter (SysTick at 25 MHz here) and in ns; under -icount shift N an
instruction is 2^N ns of virtual time, so a cycle is 2^N × f / 1e9
instructions' worth: the records carry the average in instructions
(cycles ÷ 3.2 at shift 7 and 25 MHz; the printed cycles and ns are kept
in `source`). Why a row differs from rtbench's: lm_causes.py, each cause
checked against an instruction trace (lm_trace.py, tests/test_lm_trace.py).

No sources, a failed build or run: one record (`unsupported` or
`failed`, with the reason) and a console line, never an error of the run.
"""

from __future__ import annotations

import re
import select
import shlex
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from rtbench.errors import RtbenchError
from rtbench.importers import zephyr as importer
from rtbench.importers.base import Figure, map_figures, source_of
from rtbench.peers.linked import line, store_beside
from rtbench.peers.lm_causes import AGREE, agreement, why  # noqa: F401 (the peer's API)
from rtbench.process import lifetime
from rtbench.store.catalog import Catalog
from rtbench.store.db import Store
from rtbench.targets import harness

PEER = "latency_measure"  # harness/peers/<PEER>: rtbench's configurations for it
# how it measured beside rtbench (the peer page of `rtbench compare RUN`)
WHERE = ("Zephyr's latency_measure built from the same Zephyr tree by the same rule and run on "
         "the same emulated board with the same -icount")
TOOL = importer.TOOL
APP = Path("tests/benchmarks/latency_measure")  # in the user's Zephyr tree
DONE = "PROJECT EXECUTION SUCCESSFUL"
TIMEOUT_S = 300.0  # the userspace build takes ~10 s of host time here; a hang never ends
COUNTER_HZ = 25_000_000  # the MPS2's SysTick, Zephyr's timing counter on this board
# Its two builds, in the order they run and are stored: the file added to its
# prj.conf (harness/peers/latency_measure/) and what the build is.
CONFIGURATIONS = {
    "stock": ("stock.conf", "as Zephyr ships it (its own prj.conf), changed only where the "
                            "emulated board cannot run it"),
    "rebuilt": ("rtbench.conf", "rebuilt with rtbench's kernel configuration"),
}


@dataclass
class Measured:
    """One build of latency_measure, run: its records and its peer run's
    session (None if it did not run)."""

    configuration: str  # "stock" or "rebuilt"
    records: list[dict]
    session: dict | None


def conf_files(configuration: str, app: Path, userspace: bool) -> list[Path]:
    """The files added to latency_measure's prj.conf for `configuration`."""
    files = [harness.source_dir() / "peers" / PEER / CONFIGURATIONS[configuration][0]]
    return files + [app / "prj.userspace.conf"] if userspace else files


def build(target, configuration: str, iterations: int | None = None) -> Path:
    """latency_measure's image for `target` (a QemuTarget carrying Zephyr) in
    `configuration`, into the cache; `iterations`: its
    CONFIG_BENCHMARK_NUM_ITERATIONS (the trace's shorter run; default its own
    1000). Its .config is beside it (kconfig())."""
    kernel = target.kernel
    app = kernel.src / APP
    defs = {"EXTRA_CONF_FILE": ";".join(str(c) for c in
                                        conf_files(configuration, app, kernel.userspace))}
    if iterations is not None:
        defs["CONFIG_BENCHMARK_NUM_ITERATIONS"] = str(iterations)
    return harness.build_project(kernel, kernel.descriptor.board_name(kernel, target.name), app,
                                 f"latency_measure-{configuration}", defs,
                                 f"latency_measure image ({configuration})")


def measure(target, catalog: Catalog, profile: str = "rt") -> list[Measured]:
    """Build and run latency_measure both ways for `target` (a QemuTarget
    carrying Zephyr): stock first, then rebuilt."""
    base = {"type": "metric", "origin": "peer", "profile": profile,
            "id": f"{importer.TOOL_KEY}:latency_measure", "mapped": False,
            "source": {"tool": TOOL}}

    def failed(configuration: str, status: str, reason: str, **source) -> Measured:
        src = {**base["source"], "configuration": configuration, **source}
        return Measured(configuration, [{**base, "status": status, "reason": reason,
                                         "source": src}], None)

    app = target.kernel.src / APP
    if not (app / "CMakeLists.txt").is_file():
        return [failed(c, "unsupported", f"this Zephyr tree has no {APP} (latency_measure)")
                for c in CONFIGURATIONS]
    images: dict[str, Path | str] = {}
    for configuration in CONFIGURATIONS:
        try:
            images[configuration] = build(target, configuration)
        except RtbenchError as exc:
            images[configuration] = f"latency_measure did not build: {exc}"
    built = {c: kconfig(i.parent / ".config") for c, i in images.items() if isinstance(i, Path)}
    differs = differences(built["stock"], built["rebuilt"]) if len(built) == 2 else None
    out = []
    for configuration, image in images.items():
        if isinstance(image, str):
            out.append(failed(configuration, "failed", image))
            continue
        out.append(_run(target, catalog, profile, configuration, image, differs, failed))
    return out


def _run(target, catalog: Catalog, profile: str, configuration: str, image: Path,
         differs: list[list] | None, failed) -> Measured:
    from rtbench.targets import qemu

    kernel = target.kernel
    argv = qemu.boot_command(target.name, image)
    command = shlex.join(argv)
    try:
        text, done = run_until(argv, DONE, TIMEOUT_S)
    except OSError as exc:
        return failed(configuration, "failed", f"{qemu.QEMU}: {exc.strerror or exc}",
                      command=command)
    if not done:
        return failed(configuration, "failed", f"latency_measure did not print {DONE!r} within "
                                               f"{TIMEOUT_S:g} s (QEMU stopped)", command=command)
    try:
        figures, info = importer.read(source_of(text, "latency_measure console"))
    except RtbenchError as exc:
        return failed(configuration, "failed", f"latency_measure's output not understood: {exc}",
                      command=command)
    per_cycle = instructions_per_cycle(qemu.ICOUNT_SHIFT, COUNTER_HZ)
    recs = map_figures([_in_instructions(f, per_cycle, command) for f in figures], catalog)
    if kernel.userspace:
        _user_rows_to_process(recs, catalog)
    for rec in recs:
        rec["origin"], rec["profile"] = "peer", profile
        if isinstance(rec.get("source"), dict):
            rec["source"]["configuration"] = configuration
            if kernel.userspace:
                rec["source"]["build"] = "userspace"  # which causes apply (lm_causes.why)
    app = kernel.src / APP
    conf = conf_files(configuration, app, kernel.userspace)
    session = {"type": "session", "origin": "peer",
               "source": {"kind": PEER, **info, "configuration": configuration,
                          "command": command, "app": str(app),
                          "config": [str(c) for c in conf],
                          "changes": changes(conf[0]),
                          "counter_hz": COUNTER_HZ, "icount_shift": qemu.ICOUNT_SHIFT,
                          "instructions_per_cycle": per_cycle, "stats_given": ["mean"]}}
    if differs is not None:
        session["source"]["kconfig_differs"] = differs
    return Measured(configuration, recs, session)


# ---- the two builds' settings ----

_SETTING = re.compile(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$")
_UNSET = re.compile(r"^# (CONFIG_[A-Za-z0-9_]+) is not set$")


def changes(conf: Path) -> list[dict[str, str]]:
    """Each setting of one of rtbench's configuration files for
    latency_measure, with its reason: the comment above it (a comment runs
    over the settings below it, up to a blank line)."""
    out: list[dict[str, str]] = []
    comment: list[str] = []
    after_setting = False
    for raw in conf.read_text(encoding="utf-8").splitlines():
        text = raw.strip()
        if not text:
            comment, after_setting = [], False
        elif text.startswith("#"):
            if after_setting:
                comment, after_setting = [], False
            comment.append(text.lstrip("#").strip())
        elif m := _SETTING.match(text):
            out.append({"setting": f"{m[1]}={m[2]}", "reason": " ".join(comment)})
            after_setting = True
    return out


def kconfig(path: Path) -> dict[str, str]:
    """A build's .config: every symbol it sets, "n" for `# … is not set`."""
    out = {}
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if m := _SETTING.match(raw):
            out[m[1]] = m[2].strip('"')
        elif m := _UNSET.match(raw):
            out[m[1]] = "n"
    return out


def differences(stock: dict[str, str], rebuilt: dict[str, str]) -> list[list]:
    """[symbol, stock's value, rebuilt's value] for every Kconfig symbol the
    two builds set differently (None: the build does not have the symbol,
    its dependencies being off), by name."""
    return [[k, stock.get(k), rebuilt.get(k)] for k in sorted(set(stock) | set(rebuilt))
            if stock.get(k) != rebuilt.get(k)]


# ---- its figures ----

def instructions_per_cycle(shift: int, counter_hz: float) -> float:
    """Under -icount shift N an instruction is 2^N ns; a counter cycle is 1e9/f ns."""
    return (1e9 / counter_hz) / 2 ** shift


def _in_instructions(fig: Figure, per_cycle: float, command: str) -> Figure:
    """latency_measure's average, in instructions (its cycles × per_cycle)."""
    cycles = fig.source["cycles"]
    source = {**{k: v for k, v in fig.source.items() if k not in ("file", "line")},
              "ns": fig.stats.get("mean"), "command": command}
    return Figure(fig.tool_key, fig.label, {"mean": cycles * per_cycle}, source,
                  unit="instructions",
                  note=f"latency_measure's average: {cycles} cycles of its 25 MHz timing "
                       f"counter, {1 / per_cycle:g} cycles per instruction under -icount")


def _user_rows_to_process(recs: list[dict], catalog: Catalog) -> None:
    """On the userspace build, a row between two user threads (u_to_u,
    user.from.user) answers the .process row of the metric (rtbench's user
    threads), when the run has no figure for it yet."""
    have = {r["id"] for r in recs}
    for rec in recs:
        label = (rec.get("source") or {}).get("label", "")
        thread = rec.get("variant_of", "")
        if not thread.endswith(".thread") or not label.endswith(("u_to_u", "user.from.user")):
            continue
        process = thread[:-len(".thread")] + ".process"
        if catalog.get(process) is None or process in have:
            continue
        rec["id"] = process
        have.add(process)
        for key in ("mapped", "variant_of"):
            rec.pop(key, None)
        rec["note"] = rec["note"].split("; another variant")[0]


def run_until(argv: list[str], marker: str, timeout: float) -> tuple[str, bool]:
    """Run argv until a line holds `marker` (then stop it), it exits, or
    `timeout` passes: (its output, whether the marker came)."""
    proc = lifetime.popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT)
    out, done = b"", False
    deadline = time.monotonic() + timeout
    try:
        while not done and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 0.5)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            chunk = proc.stdout.read1(65536)
            if not chunk:
                break
            out += chunk
            done = marker.encode() in out
    finally:
        lifetime.end(proc)
    return out.decode("utf-8", "replace"), done



def settings_text(session: dict | None) -> str:
    """The Kconfig settings in which the stock and rebuilt builds differ,
    as one phrase ("" if unknown): `CONFIG_ASSERT` y → n, …"""
    differs = ((session or {}).get("source") or {}).get("kconfig_differs")
    if not differs:
        return ""
    def value(v):
        return "unset" if v is None else str(v)
    return ", ".join(f"{name} {value(a)} → {value(b)}" for name, a, b in differs)


def method(sessions: list[dict | None]) -> str:
    """How latency_measure measured, both builds, beside rtbench: a
    paragraph for the comparison page."""
    by = {((s or {}).get("source") or {}).get("configuration"): (s or {}).get("source") or {}
          for s in sessions}
    per = next((s.get("instructions_per_cycle") for s in by.values() if s), None)

    def changed(configuration: str) -> str:
        got = (by.get(configuration) or {}).get("changes") or []
        return "; ".join(f"{c['setting']} ({c['reason']})" if c.get("reason") else c["setting"]
                         for c in got)

    parts = [
        "latency_measure (Zephyr's tests/benchmarks/latency_measure, from the same tree) ran "
        "in the same QEMU with the same -icount, built with the same modules and compiler as "
        "rtbench's image, two ways, each a peer run of its own: stock, as Zephyr ships it (its "
        "own prj.conf: the figures Zephyr's users see), changed only where the emulated board "
        "cannot run it" + (f": {changed('stock')}" if changed("stock") else "")
        + "; and rebuilt with rtbench's kernel configuration "
        "(harness/peers/latency_measure/rtbench.conf"
        + (f": {changed('rebuilt')}" if changed("rebuilt") else "") + ")."]
    settings = settings_text(next((s for s in sessions if settings_text(s)), None))
    if settings:
        parts.append("The two builds' Kconfig settings differ in (stock → rebuilt, read from "
                     f"their .config files): {settings}.")
    parts.append(
        "It prints each row's average over its iterations (on most rows its timestamp overhead "
        "subtracted) in cycles of Zephyr's timing counter (SysTick, 25 MHz here) and ns; no "
        "median, no percentile, no maximum. Its cycles are "
        + (f"converted to instructions ({per:g} instructions per cycle under -icount)"
           if per else "converted to instructions")
        + " and set beside rtbench's mean for the same metric: a rebuilt row within "
        f"{AGREE} instructions agrees, any other names where the two definitions differ, each "
        "cause checked against an instruction trace of both images; a stock row differs by "
        "the configuration as well.")
    return " ".join(parts)


def beside(store: Store, run_id: int, catalog: Catalog, target,
           say: Callable[[str], None], profile: str = "rt") -> list[int]:
    """Measure latency_measure both ways and store each build as a run
    linked to `run_id` (stock, then rebuilt): their ids."""
    say(f"peer latency_measure: building Zephyr's own benchmark from {target.kernel.src} two ways "
        f"(stock: {CONFIGURATIONS['stock'][1]}; rebuilt: {CONFIGURATIONS['rebuilt'][1]}) and "
        f"running both on {target.name}…")
    ids = []
    for got in measure(target, catalog, profile):
        for rec in got.records:
            if rec["status"] != "ok":
                say(line(rec))
        ok = [r for r in got.records if r["status"] == "ok"]
        mapped = [r for r in ok if r.get("mapped", True)]
        say(f"  peer latency_measure ({got.configuration}): {len(mapped)} rows beside rtbench's, "
            f"{len(ok) - len(mapped)} more kept as zephyr:<id>")
        ids.append(store_beside(store, run_id, got.records,
                                f"latency_measure ({got.configuration}) beside run {run_id}", say,
                                got.session))
    return ids
