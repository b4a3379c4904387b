"""`rtbench compare RUN…`: which comparison the runs get, and its page.

Runs of different kernels (or one run with Thread-Metric beside it) get
the kernel sheet, one run measured `--with-peers` the peers beside it, one
run and `--ref NAME` the vendor's sheet beside it; otherwise run against
run with its verdicts, gates (`--fail-on`) and limits. The command line
(cli/) chooses where the outcome goes and the exit status.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtbench.compare import document, junit, kernelpage, kernels, views
from rtbench.compare.peers import compare_peers
from rtbench.compare.runs import (LIMIT_STATS, STAT_NAMES, compare_runs, load_limits,
                                  parse_limit)
from rtbench.compare.vendors import compare_reference
from rtbench.errors import RtbenchError
from rtbench.peers.linked import linked_runs
from rtbench.sheets import calibration
from rtbench.sheets.pages import Page
from rtbench.store import catalog as catalog_mod
from rtbench.store import reference, runref
from rtbench.store.db import Store
from rtbench.store.records import STATS


EXIT_FAILED = 1  # a gated slow-down or an exceeded limit (the cli's exit status)


@dataclass
class Outcome:
    """What the comparison shows: its page (or, for the kernel sheet in
    Markdown or HTML, that sheet's own text) and its JSON; the regressions
    and exceeded limits (lines for stderr, after it); the summary line a
    CI log should end on; whether a gate or a limit failed."""

    page: Page | None
    data: Any
    text: str | None = None
    problems: list[str] = field(default_factory=list)
    summary: str | None = None
    failed: bool = False
    notes: list[str] = field(default_factory=list)  # what `latest` landed on (store.runref)
    junit: str | None = None  # the verdicts as JUnit XML (run against run, limits)


def fail_on(text: str | None, fail_on_regression: bool) -> tuple[str, ...]:
    """--fail-on p50,p99,max (p99.9 or p999, median): the statistics whose
    slow-down fails the command; --fail-on-regression is --fail-on p50."""
    names = [t.strip().lower() for t in (text or "").split(",") if t.strip()]
    bad = [n for n in names if n not in LIMIT_STATS]
    if bad:
        raise RtbenchError(f"--fail-on: unknown statistic {bad[0]!r} (of: p50, p99, p99.9, max)")
    stats = [LIMIT_STATS[n] for n in names] + (["p50"] if fail_on_regression else [])
    return tuple(dict.fromkeys(stats))


def compare(runs: tuple[str, ...], ref_name: str | None, threshold: float,
            gate: tuple[str, ...], limits: tuple[str, ...], limits_file: Path | None, fmt: str,
            db: Path | None, junit: bool = False) -> Outcome:
    """The comparison RUNS get (store.runref names), in format `fmt`; a
    `latest` that landed on an import or an unfinished run says so; with
    `junit`, its verdicts as JUnit XML too (a comparison with verdicts only)."""
    picked: list[str] = []
    out = _compare(runs, ref_name, threshold, gate, limits, limits_file, fmt, db, picked)
    out.notes = picked
    if fmt == "csv":  # every mode's rows, from the one document (document.to_csv)
        out.text = document.to_csv(out.data)
    if junit and out.junit is None:
        raise RtbenchError("--junit reports verdicts: compare runs of one kernel, or a run "
                           "with limits (not --ref, kernels side by side or peers)")
    return out


def _compare(runs: tuple[str, ...], ref_name: str | None, threshold: float,
             gate: tuple[str, ...], limits: tuple[str, ...], limits_file: Path | None, fmt: str,
             db: Path | None, picked: list[str]) -> Outcome:
    cat = catalog_mod.load()
    wanted = [parse_limit(t, catalog=cat) for t in limits]
    if limits_file is not None:
        wanted += load_limits(limits_file, cat)
    sheet = reference.get(ref_name) if ref_name else None
    if sheet and len(runs) != 1:
        raise RtbenchError("--ref compares exactly one run with a reference sheet")
    if sheet and wanted:  # the sheet's comparison checks no limit: a gate would pass unchecked
        raise RtbenchError("limits are checked on runs, not beside a reference sheet: "
                           "leave out --ref, or the limits")
    files = _files(runs)
    with contextlib.ExitStack() as stack:
        # `compare a.json b.json` needs no database; runs named by id, latest or label do
        store = None if len(files) == len(runs) else stack.enter_context(
            Store(db, create=False))
        stored = [files.get(r) or store.get_run(r) for r in runs]
        picked += [r.picked for r in stored if r.picked]
        if len(stored) == 1 and stored[0].origin == "peer" and stored[0].linked_to \
                and store is not None:
            # `rtbench run --with-peers && rtbench compare latest`: latest is the
            # peers' run, stored last; compare the run they were measured beside
            stored = [store.get_run(stored[0].linked_to)]
        beside = (_linked(store, stored[0])
                  if not sheet and len(stored) == 1 and not wanted else [])
        linked = {} if sheet or wanted else {r.id: _linked(store, r) for r in stored}
    if not sheet and len(stored) < 2 and not beside and not wanted:
        raise RtbenchError("compare needs two runs or more, one run measured --with-peers, "
                           "one run and --ref NAME, or one run and limits (--limit)")
    cat = _worded(cat, stored)
    if linked and kernels.applies(stored, linked):  # kernels side by side: no verdict
        ks = kernels.build(stored, cat, linked)
        summary = kernels.summary_line(ks)
        if fmt in ("md", "html"):
            return Outcome(None, None, kernelpage.render(ks, fmt), summary=summary)
        return Outcome(kernelpage.page(ks), document.of_kernels(ks, summary), summary=summary)
    if beside:  # one run and its peers: the same metrics side by side
        peer_cmp = compare_peers(stored[0], beside, cat)
        summary = views.peer_summary(peer_cmp)
        return Outcome(views.peer_comparison(peer_cmp),
                       document.of_peers(peer_cmp, summary), summary=summary)
    if sheet:
        ref_cmp = compare_reference(stored[0], sheet, cat)
        summary = views.ref_summary(ref_cmp)
        return Outcome(views.ref_comparison(ref_cmp),
                       document.of_reference(ref_cmp, summary), summary=summary)
    return _runs(stored, cat, threshold, gate, wanted, fmt)


def _files(runs: tuple[str, ...]) -> dict[str, Any]:
    """The runs named by a results.json file, read (never imported): name -> run."""
    from rtbench.sheets import export

    return {r: export.compared_run(Path(r), r) for r in dict.fromkeys(runs)
            if runref.is_file(r)}


def _linked(store, run) -> list:
    """The peers stored beside a run; a results file's are not in the database."""
    return [] if store is None or run.file else linked_runs(store, run.id)


def _worded(cat, runs) -> Any:
    """Runs all on boards (an imported RTOS log's too: kernels.kernel_key)
    are set out in a board's words (their titles and definitions name no
    Linux call); runs with Linux among them keep the catalogue's own."""
    if not runs or not all(kernels.kernel_key(r)[0] != "host" for r in runs):
        return cat
    board = next((r for r in runs if r.host.get("target_kind")), None)
    if len({r.host.get("os") for r in runs}) == 1:
        return cat.for_target(board.host) if board else cat.for_board(
            str(runs[0].host.get("os") or "the kernel"), "the board")
    return cat.for_board("each kernel", "the board")


def _runs(stored, cat, threshold: float, gate: tuple[str, ...], limits, fmt: str) -> Outcome:
    """Run against run (same kernel, same unit or not: the verdicts say)."""
    cmp = compare_runs(stored, cat, threshold, limits)
    _refuse_unit_mismatches(cmp)
    _refuse_limits_that_check_nothing(cmp, limits)
    summary = views.summary_line(cmp, gate)
    failing = cmp.regressions(gate) if gate else []
    failed = bool(failing or cmp.limit_failures)
    data = document.of_runs(cmp, gate, summary, EXIT_FAILED if failed else 0)
    problems = ["rtbench: regression: " + views.regression_line(
        row, cmp.runs[i], cmp.runs[0], row.cells[i], stat) for row, i, stat in failing]
    problems += ["rtbench: not gated (no test): " + views.regression_line(
        row, cmp.runs[i], cmp.runs[0], row.cells[i], stat)
        for row, i, stat in (cmp.untested(gate) if gate else [])]
    problems += [f"rtbench: limit exceeded: {c.limit.text}: {c.id} [{c.profile}] run "
                 f"{c.run.id}: " + (c.why or views.limit_value(c)) for c in cmp.limit_failures]
    page = views.run_comparison(cmp, gate, fmt == "html")
    if (cal := calibration.pair(stored)) is not None:  # an emulated run and the chip's cycles
        calibration.add_to(page, cal)
        data["calibration"] = calibration.jsonable(cal)
    return Outcome(page, data, None, problems, summary, failed, junit=junit.render(cmp, gate))


def _refuse_unit_mismatches(cmp) -> None:
    """A limit in another unit than the run's figures checks nothing, and a
    CI gate that checks nothing must not pass: one line, exit 2, naming the
    run's unit and how to write the limit in it."""
    bad = cmp.limit_unit_mismatches
    if not bad:
        return
    c = bad[0]
    ids = list(dict.fromkeys(x.id for x in bad if x.limit == c.limit and x.run is c.run))
    shown = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
    fix = {"instructions": "write the limit in instructions, e.g. 'sem.*<=300instructions'",
           "ns": "write the limit as a time, e.g. 'sem.*<=5us'"}.get(
        c.unit_mismatch, f"narrow its pattern to the metrics measured in {c.limit.unit}")
    target = c.run.host.get("target") or "host"
    # a limit in µs is a time, whatever unit rtbench keeps it in (ns)
    is_ = "is a time" if c.limit.unit == "ns" else f"is in {c.limit.unit}"
    as_ = "as times" if c.unit_mismatch == "ns" else f"in {c.unit_mismatch}"
    raise RtbenchError(f"limit {c.limit.text!r} {is_}, but run {c.run.id} measured {shown} "
                       f"{as_}: nothing would be checked; "
                       f"{fix} (a limits file keeps one target's limits under "
                       f"[target.{target}.limits])")


def _refuse_limits_that_check_nothing(cmp, limits: list) -> None:
    """As for a limit in another unit: a limit whose metrics in a run all
    lack its statistic (an import whose source gave means only), or limits
    that check nothing at all ("0 exceeded of 0 checked"), are one line,
    exit 2, on every kind of run, never a gate that passes."""
    if not limits:
        return
    if not cmp.limits:  # a limits file's sections all for other targets
        run = cmp.runs[-1]
        target = run.host.get("target") or "host"
        raise RtbenchError(f"no limit applies to run {run.id} (target {target}): the limits "
                           f"are all for other targets (a limits file keeps this one's under "
                           f"[target.{target}.limits], every target's under [limits]); a "
                           "gate that checks nothing does not pass")
    groups: dict[tuple[int, int], list] = {}
    for c in cmp.limits:
        groups.setdefault((id(c.limit), id(c.run)), []).append(c)
    for checks in groups.values():
        lim, run = checks[0].limit, checks[0].run
        absent = [c for c in checks if c.profile and c.why.startswith("no ")]
        if absent and all(c.passed is None for c in checks):
            ids = list(dict.fromkeys(c.id for c in absent))
            shown = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
            given = sorted({s for r in run.metrics if r.get("id") in ids
                            for s in r.get("stats_given") or ()}, key=STATS.index)
            usable = [STAT_NAMES[s] for s in given if s in STAT_NAMES]
            fix = (f"limit the {' or '.join(usable)} instead" if usable else
                   "no statistic a limit checks (median, p99, p99.9, max) is there: leave "
                   "these metrics out of its pattern")
            raise RtbenchError(
                f"limit {lim.text!r} is on the {STAT_NAMES[lim.stat]}, but run {run.id} gives "
                f"none for {shown} (its source gave {', '.join(given) or 'no statistic'}): "
                f"nothing would be checked; {fix}")
    if not any(c.passed is not None for c in cmp.limits):
        c = cmp.limits[0]
        raise RtbenchError(f"the limits check nothing in run "
                           f"{', '.join(dict.fromkeys(str(x.run.id) for x in cmp.limits))}: "
                           f"{c.limit.text}: {c.why or 'nothing to check'}; a gate that "
                           "checks nothing does not pass")
