"""What must be equal for a comparison of kernels to compare kernels and
nothing else, after Thread-Metric's porting rules (a stated tick, no debug
checks, services called rather than inlined, the kernel's options
listed): the kernels' configuration side by side, the checks of the
settings that must agree, and the warnings of the kernel sheet.

Each function takes the kernel sheet's columns (kernels.Column: a run,
its title, target, unit and configuration facts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rtbench import kernels
from rtbench.store import kernel_profile
from rtbench.store.db import Run
from rtbench.store.records import Session, differences, is_note_key

# The kernels built as their own CMake project (their build sets the
# code-generation flags) and those rtbench's harness CMake builds alike.
def _and(words: list[str]) -> str:
    return " and ".join(words) if len(words) < 3 else f"{', '.join(words[:-1])} and {words[-1]}"


_OWN = _and([d.title for d in kernels.all() if d.own_project])
_HARNESS = _and([d.title for d in kernels.all() if not d.own_project])


@dataclass
class Check:
    """A setting a fair comparison needs equal (or off) in every kernel."""

    what: str
    values: list[str]
    fair: bool
    why: str = ""


# (label, fact key) in the order a reader compares them; a kernel without
# the fact shows "—". Facts no row names follow under their own key.
FACT_ROWS = (
    ("Kernel profile", kernel_profile.PROFILE),
    ("Kernel port", "kernel_port"),
    ("Asserts / parameter checks", "asserts"),
    ("Tick (Hz)", "tick_hz"),
    ("Preemption", "preemption"),
    ("Time slicing", "time_slicing"),
    ("Timer task / thread", "timer_task_priority"),
    ("Interrupt masking", "interrupt_masking"),
    ("Heap", "heap"),
    ("Task allocation", "task_allocation"),
    ("Stack filling", "stack_filling"),
    ("Mutex priority inheritance", "mutex_inheritance"),
    ("Notify callbacks", "notify_callbacks"),
)
_SHOWN_ELSEWHERE = {"kernel", "board", "cpu", "icount_shift", "irq_switch_at_exit"}


def _compiler(run: Run) -> str:
    s = run.session or {}
    if "compiler" not in s:
        return "—"
    return f"{s['compiler']}, {s.get('cflags', '').strip()} ({s.get('build_type', '?')})"


def _codegen_flags(run: Run) -> str:
    """The flags of a run's image that change its code: the -O level of the
    kernel and of rtbench's code (an image of a kernel profile says both:
    "…, the kernel at -Os, rtbench's code at -O2"; an older one has one -O
    for all) and every -f and -mabi flag, sorted; "?" where its record
    gives none. The board's -mcpu/-mthumb/-mfloat-abi are the same for
    every kernel on one board (checked with the board)."""
    cflags = (run.session or {}).get("cflags", "")
    kernel = re.search(r"the kernel at (-O[0-3sgz]?)\b", cflags)
    ours = re.search(r"rtbench's code at (-O[0-3sgz]?)\b", cflags)
    if kernel and ours:
        opt = [f"kernel {kernel[1]}, rtbench {ours[1]}"]
    else:
        opt = re.findall(r"(?<![\w-])-O[0-3sgz]?(?![\w-])", cflags)[-1:]
    rest = sorted(set(re.findall(r"(?<!\S)-(?:f[\w=-]+|mabi=[\w-]+)", cflags)))
    return "; ".join(opt + [" ".join(rest)]).strip("; ") or "?"


def _samples(run: Run) -> str:
    cfg = Session(run.session or {}).config
    return (f"{cfg.get('samples', '?')} samples, {cfg.get('warmup', '?')} warm-up, "
            + (f"budget {cfg['budget_ms']} ms" if cfg.get('budget_ms') else "no time budget"))


def _source(c) -> dict:
    """An imported run's source (tool, files, the statistics it gave); {} else."""
    return (c.run.session or {}).get("source") or {} if c.run.origin not in (
        "measured", "rtbench", "peer") else {}


def _unit(c) -> str:
    s = Session(c.run.session or {})
    if s.is_count:
        return s.unit
    if src := _source(c):
        given = src.get("stats_given") or []
        return (f"time (ns, as {src.get('tool', c.run.origin)} printed it"
                + ("; means only" if given == ["mean"] else "") + ")")
    return f"time (ns; counter {s.ts.get('source', '?')})"


def _target(c) -> str:
    h = c.run.host
    if h.get("target_kind"):
        return f"{h.get('board', c.target)}; {h.get('emulator', '?')}, -icount {h.get('icount', '?')}"
    if c.target != "host":  # an imported log of an RTOS: the board it ran on
        src = _source(c)
        board = src.get("board") or "the board is not given in the log"
        return f"{board}; imported from {src.get('tool', c.run.origin)} output"
    return f"this host: {h.get('cpu_model', '?')}, {h.get('preemption', '?')}"


def _image(c) -> str:
    size = c.run.host.get("image_size") or {}
    if not size:
        return "—"
    return f"text {size['text']:,} B, data {size['data']:,} B, bss {size['bss']:,} B"


def config(columns: list) -> list[tuple[str, list[str]]]:
    rows: list[tuple[str, list[str]]] = [
        ("Kernel", [c.facts.get("kernel") or c.title for c in columns]),
        ("Target", [_target(c) for c in columns]),
        ("CPU", [c.facts.get("cpu") or c.run.host.get("cpu_model", "—") for c in columns]),
        ("Unit", [_unit(c) for c in columns]),
        ("Compiler and flags", [_compiler(c.run) for c in columns]),
        ("Scheduling", [(c.run.session or {}).get("rt", {}).get("policy", "—") for c in columns]),
    ]
    for label, key in FACT_ROWS:
        values = [c.facts.get(key, "—") for c in columns]
        if key == "preemption":
            values = [v if v != "—" or c.run.host.get("target_kind") else
                      c.run.host.get("preemption", "—") for v, c in zip(values, columns)]
        rows.append((label, values))
    named = {k for _l, k in FACT_ROWS} | _SHOWN_ELSEWHERE
    extra = list(dict.fromkeys(k for c in columns for k in c.facts
                               if k not in named and not is_note_key(k)
                               and not kernel_profile.is_profile_key(k)))
    rows += [(k.replace("_", " ").capitalize(), [c.facts.get(k, "—") for c in columns])
             for k in extra]
    if any(kernel_profile.settings(c.facts) for c in columns):  # each kernel's own names
        rows.append(("Kernel settings of the profile (each with its reason and source on the "
                     "run's data sheet)", [kernel_profile.summary(c.facts) or "—"
                                           for c in columns]))
    rows += fairness_notes(columns)
    rows += [
        ("Samples per metric", [_samples(c.run) for c in columns]),
        ("Image size", [_image(c) for c in columns]),
        ("Harness source", [c.run.host.get("harness_source_hash", "—") for c in columns]),
        ("Run", [f"{c.run.id} ({c.run.started}, {c.run.status})"
                 + (f", “{c.run.label}”" if c.run.label else "") for c in columns]),
    ]
    return rows


def fairness_notes(columns: list) -> list[tuple[str, list[str]]]:
    """Where a kernel's own convention puts more in some rows' windows than
    the catalogue's definition (each port's "differs:" facts), one row per
    set of rows: the figures stay, the difference is said (and repeated
    on each such row of the sheet)."""
    notes: dict[str, list[str]] = {}
    for i, c in enumerate(columns):
        for patterns, text in differences(c.facts):
            notes.setdefault(", ".join(patterns), ["—"] * len(columns))[i] = text
    return [(f"Fairness note: {rows}", values) for rows, values in notes.items()]


def _same(what: str, values: list[str], why: str = "") -> Check:
    return Check(what, values, len(set(values)) <= 1, why)


def checks(columns: list) -> list[Check]:
    """The settings that must agree for the figures to compare kernels and
    nothing else (Thread-Metric's porting rules: a stated tick, no services
    as macros, the kernel's options listed; here also the same harness,
    compiler, board, unit and sample counts)."""
    boards = [c for c in columns if c.run.host.get("target_kind")]
    checks = [
        _same("the same harness sources (scenarios, core, counter read)",
              [c.run.host.get("harness_source_hash", "?") for c in columns]),
        _same("the same unit", [c.unit for c in columns],
              "instructions (an emulator's count) and times never share a ratio"),
        _same("the same samples, warm-up and budget", [_samples(c.run) for c in columns]),
    ]
    if len(boards) > 1:
        checks += [
            _same("the same board, emulator and -icount", [_target(c) for c in boards]),
            _same("the same compiler", [(c.run.session or {}).get("compiler", "?")
                                        for c in boards]),
            _same("the same kernel profile (docs/profiles.md)",
                  [kernel_profile.name(c.facts) or "?" for c in boards],
                  "defaults: each kernel as shipped; speed: each vendor's speed settings"),
            _same(f"the same compiler flags (the profile's -O level and {_OWN}'s code-generation "
                  "flags)", [_codegen_flags(c.run) for c in boards],
                  f"{_OWN}'s build sets them itself, rtbench's CMake gives {_HARNESS} the same"),
            _same("the same kernel tick", [c.facts.get("tick_hz", "?") for c in boards]),
            _checks(boards),
            Check("time slicing off (equal-priority tasks switch only when they yield or block)",
                  [c.facts.get("time_slicing", "?") for c in boards],
                  all(c.facts.get("time_slicing", "").startswith("off") for c in boards)),
            _same("the same stack filling on task create",
                  [c.facts.get("stack_filling", "?").split(" ")[0] for c in boards]),
        ]
    return checks


def _checks(boards: list) -> Check:
    """Asserts and parameter checks as the profile has them: off on every
    kernel in speed (each vendor's advice); in defaults as each vendor ships
    them, which may differ (ThreadX ships its _txe_ checks on), and the
    check says so instead of calling it unfair."""
    values = [c.facts.get("asserts", "?") for c in boards]
    if {kernel_profile.name(c.facts) for c in boards} == {"defaults"}:
        return Check("asserts and parameter checks as each vendor ships them (the defaults "
                     "profile)", values, True, "they differ where the vendors' defaults do")
    return Check("every kernel's debug checks off (vendors publish that way)", values,
                 all(v.startswith("off") for v in values))


def warnings(columns: list) -> list[str]:
    out = []
    if len({c.unit for c in columns}) > 1:
        out.append("Different units: " + ", ".join(f"{c.title} in {c.unit}" for c in columns)
                   + ". Instructions counted under an emulator are not times; they stand "
                   "side by side, and ratios are only taken between kernels of one unit.")
    for c in columns:
        if c.run.status != "complete":
            out.append(f"{c.label}: the run is {c.run.status}; its missing rows say so.")
    return out


FAIR_TEXT = (
    "A fair comparison measures every kernel with the same harness (the same scenarios, the "
    "same counter read with its cost subtracted, the same samples) on the same board under the "
    "same emulator, built by the same compiler with the same flags, every kernel in one kernel "
    "profile (docs/profiles.md: defaults, each kernel as its vendor ships it; speed, each "
    "vendor's own documented speed settings; in both the same tick, no stack fill, no time "
    "slicing), and lists every option that changes a figure with its source: after "
    "Thread-Metric's porting rules (a stated tick, "
    "services called rather than inlined as macros, the kernel's options listed). The "
    "configuration below puts the kernels' options side by side; the table under it says "
    "which of the settings that must be equal are equal for these runs. Where a port builds a "
    "service its kernel lacks, or a kernel has none, the row's note says so; where a kernel's "
    "own convention puts more in a window than the definition (a timer daemon's round trip, an "
    "interrupt entry of the kernel's, a callback test), the configuration lists it as a "
    "fairness note and each such row repeats it.")
