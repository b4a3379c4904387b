"""Comparisons: a run against other runs, and a run against a vendor's
published reference sheet. Both build a plain model that the text,
Markdown, HTML and JSON renderings (cli, templates) lay out.

Run against run (docs/reports.md, "Run against run"): metrics are matched
by (id, profile); each later run is compared with the first on the median,
p99, p99.9 and max, each statistic with its own verdict from its own
function (VERDICTS). A change counts only if it is beyond the threshold and
the counter's resolution, and, where a test exists for the statistic,
significant. The tests rest on replicates, as pyperf's rest on worker
processes: a run is measured in interleaved blocks (rtbench.store.blocks), and
the median, p99 and p99.9 are judged by a Mann–Whitney U test of the two
runs' block figures (a block's median, p99, p99.9), leaving out the blocks
the canary marks as slow-host while each run keeps enough others. Thousands
of samples of one run are not independent replicates on a shared host (one
host episode moves them all), which made a rank test over samples report
two identical runs as 25 % apart with p < 1e-300. Runs without blocks (a
board's single block, runs of older rtbench) fall back to the tests over
samples, and say so; a max is one sample, so no test. "same" is never said
of a statistic that moved beyond the threshold: that is "slower", "faster"
or "not significant". Absolute limits (`irq.response<=100us`) check a run
against a budget.

Run against a reference sheet: catalogue metrics claim the sheet's rows by
name (rtbench.store.reference.row_key); each claimed row is shown beside our
figure, both normalised to cycles at each side's own clock where that is
known, with the ratio ours / theirs. Rows either side lacks are listed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import fnmatch
import re
from typing import Any

from rtbench import coverage
from rtbench.errors import RtbenchError
from rtbench.peers import rtosbench, rttests
from rtbench.sheets import system
from rtbench.sheets.configuration import core_clock_phrase
from rtbench.store import blocks as blocks_mod
from rtbench.store import reference, stats
from rtbench.store.catalog import Catalog
from rtbench.store.db import Run
from rtbench.store.items import items
from rtbench.store.records import MetricRecord, Session

ALPHA = 0.01  # significance level of the rank test
DEFAULT_THRESHOLD_PCT = 5.0


# ---- run against run ----

@dataclass
class Cell:
    """One run's figure for one (metric, profile), judged against the first run."""

    status: str  # ok, failed, unsupported, not measured, absent
    reason: str = ""
    n: int = 0
    unit: str = "ns"  # of the statistics below: "ns" for a time, "instructions" for a count
    p50: float | None = None  # None also when the source gave no median
    p99: float | None = None
    max: float | None = None
    mean: float | None = None  # shown where the source gave only a mean
    p999: float | None = None
    figure: str = ""  # a figure in another unit with its unit ("812 MB/s"), else ""
    change_pct: float | None = None  # median vs the first run's
    p_value: float | None = None
    verdict: str = ""  # "" (first run), slower, faster, same, not significant, not compared
    why: str = ""  # what decided the verdict
    # every judged statistic's change against the first run (p50's is also above)
    changes: dict[str, "StatChange"] = field(default_factory=dict)
    # the run's blocks (rtbench.store.blocks): each block's figure per statistic, in `unit`
    # per operation, the slow-host blocks left out when enough others remain
    blocks: dict[str, list[float]] = field(default_factory=dict, repr=False)
    slow_blocks: int = 0  # blocks the canary marked slow-host (left out of the test)
    window: str = ""  # the max's observed window, "2,000 samples in 16 ms" (blocks.window_text)

    def stat(self, name: str) -> float | None:
        return getattr(self, name)

    # The statistics as times, for what only shows times (None for a count).
    @property
    def p50_ns(self) -> float | None:
        return self.p50 if self.unit == "ns" else None

    @property
    def p99_ns(self) -> float | None:
        return self.p99 if self.unit == "ns" else None

    @property
    def max_ns(self) -> float | None:
        return self.max if self.unit == "ns" else None

    @property
    def mean_ns(self) -> float | None:
        return self.mean if self.unit == "ns" else None


@dataclass
class Row:
    id: str
    title: str
    service: str
    profile: str
    cells: list[Cell]

    @property
    def key(self) -> str:
        return f"{self.id} [{self.profile}]"


@dataclass
class StatChange:
    """One statistic of one metric, a later run against the first."""

    stat: str  # p50, p99, p999, max
    base: float | None
    value: float | None
    change_pct: float | None = None
    p_value: float | None = None  # the test's, where the statistic has one
    p_adjusted: float | None = None  # after Holm's correction over the comparison's tests (holm)
    verdict: str = "not compared"  # slower, faster, same, not significant, not compared
    why: str = ""


@dataclass
class RunComparison:
    runs: list[Run]
    rows: list[Row]
    threshold_pct: float
    alpha: float
    warnings: list[str]
    limits: list["LimitCheck"] = field(default_factory=list)
    # (id, profile) -> each run's samples (from its histogram), for the plots
    samples: dict = field(default_factory=dict, repr=False)

    def regressions(self, stats: tuple[str, ...] = ("p50",)) -> list[tuple[Row, int, str]]:
        """(row, index of the run, statistic) of every significant slow-down
        in `stats`."""
        return [(r, i, st) for r in self.rows for i, c in enumerate(r.cells) for st in stats
                if st in c.changes and c.changes[st].verdict == "slower"]

    def counts(self, run_index: int) -> dict[str, dict[str, int]]:
        """Per statistic: how many metrics got each verdict (later run `run_index`)."""
        out: dict[str, dict[str, int]] = {st: {} for st in TAIL_STATS}
        for r in self.rows:
            for st, ch in r.cells[run_index].changes.items():
                out[st][ch.verdict] = out[st].get(ch.verdict, 0) + 1
        return out

    @property
    def limit_failures(self) -> list["LimitCheck"]:
        return [c for c in self.limits if c.passed is False]


def compare_runs(runs: list[Run], catalog: Catalog,
                 threshold_pct: float = DEFAULT_THRESHOLD_PCT,
                 limits: list["Limit"] | None = None) -> RunComparison:
    per_run = [{(it.id, p): (it, rec) for it in items(run, catalog)
                for p, rec in it.records.items()} for run in runs]
    order = {mid: n for n, mid in enumerate(catalog.ids)}
    keys = list(dict.fromkeys(k for table in per_run for k in table))
    keys.sort(key=lambda k: order.get(k[0], len(order)))
    resolution = max((_resolution_ns(r) for r in runs), default=0.0)
    baselines = [blocks_mod.canary_baseline(r.metrics) for r in runs]
    rows, samples = [], {}
    for key in keys:
        it = next(t[key][0] for t in per_run if key in t)
        cells = [_cell(t[key][1] if key in t else _ABSENT, base)
                 for t, base in zip(per_run, baselines)]
        grouped = [stats.grouped(t[key][1]) if key in t and t[key][1] else None
                   for t in per_run]
        for i in range(1, len(cells)):
            _judge(cells[0], cells[i], grouped[0], grouped[i], threshold_pct, resolution)
        rows.append(Row(key[0], it.title, it.service, key[1], cells))
        samples[key] = grouped
    for i in range(1, len(runs)):
        for st in TESTED_STATS:
            holm([r.cells[i].changes[st] for r in rows if st in r.cells[i].changes])
        for r in rows:  # the cell's own verdict is its median's
            med = r.cells[i].changes.get("p50")
            if med is not None and med.p_adjusted is not None \
                    and r.cells[i].verdict in ("slower", "faster"):
                r.cells[i].verdict, r.cells[i].why = med.verdict, med.why
    checked = runs[1:] or runs  # limits: the later runs, or the one run given
    checks = [c for lim in limits or [] for run in checked for c in check_limit(lim, run)]
    return RunComparison(runs, rows, threshold_pct, ALPHA, _environment_warnings(runs), checks,
                         samples)


_ABSENT = object()


MIN_BLOCKS = 5  # blocks each run needs for a replicate test (below it: samples, said so)


def _block_figures(rec: dict, m: MetricRecord, baseline: float | None) -> tuple[dict, int]:
    """Each block's median, p99 and p99.9 in the cell's unit per operation,
    the slow-host blocks left out while MIN_BLOCKS others remain; and how
    many were left out."""
    kept = rec.get("blocks") or []
    slow = 0
    if baseline:
        fast = [b for b in kept if not (b.get("canary") and b["canary"] > baseline
                                        * (1 + blocks_mod.SLOW_CANARY))]
        if len(fast) >= MIN_BLOCKS:
            slow, kept = len(kept) - len(fast), fast
    scale = 1.0 / float(rec.get("ops") or 1)
    if m.is_time:
        scale *= 1e9 / float(rec["tick_hz"])
    return ({st: [b[st] * scale for b in kept if st in b] for st in ("p50", "p99", "p999")},
            slow)


def _cell(rec: Any, baseline: float | None = None) -> Cell:
    if rec is _ABSENT:
        return Cell("absent", "not in this run")
    if rec is None:
        return Cell("not measured", "run incomplete")
    m = MetricRecord(rec)
    if not m.ok:
        return Cell(m.status, m.reason)
    if not (m.is_time or m.is_count):  # a program's figure in its own unit: shown, not judged
        figure = " / ".join(f"{k} {m.value(k):.4g} {m.unit}" for k in ("p50", "mean", "max")
                            if m.has(k))
        return Cell("ok", n=m.n or 0, unit=m.unit, figure=figure)
    cell = Cell("ok", n=m.n or 0, unit=m.base_unit, p50=m.value("p50"), p99=m.value("p99"),
                max=m.value("max"), mean=m.value("mean"), p999=m.value("p999"))
    if rec.get("blocks") and (m.is_time or m.is_count):
        cell.blocks, cell.slow_blocks = _block_figures(rec, m, baseline)
    cell.window = blocks_mod.window_text(rec)
    return cell


# ---- verdicts: one function per statistic ----

TAIL_STATS = ("p50", "p99", "p999", "max")
STAT_NAMES = {"p50": "median", "p99": "p99", "p999": "p99.9", "max": "max"}
# A percentile is tested only when each run has this many samples beyond it.
TAIL_SAMPLES = 10


@dataclass
class Judge:
    """What every verdict function gets: the two runs' figures and samples."""

    base: Cell
    cell: Cell
    a: stats.Grouped | None  # the first run's samples (from its histogram)
    b: stats.Grouped | None
    threshold_pct: float
    resolution: float  # one counter step in the cells' unit
    res_unit: str

    def change(self, stat: str) -> StatChange | None:
        """The change of `stat`, or a StatChange that says why there is none."""
        x, y = self.base.stat(stat), self.cell.stat(stat)
        out = StatChange(stat, x, y)
        if x is None or y is None:
            out.why = ("first run: " if x is None else "") + f"no {STAT_NAMES[stat]} in the source"
            return out
        if x > 0:
            out.change_pct = 100 * (y - x) / x
        return out

    def settle(self, out: StatChange, tested: bool) -> StatChange:
        """The verdict once the test (if any) has set `p_value`: beyond the
        threshold, beyond one counter step, and significant where tested."""
        diff = out.value - out.base
        if out.change_pct is None:
            out.verdict, out.why = "same", "first run's figure ≤ 0: no ratio"
        elif abs(out.change_pct) <= self.threshold_pct:
            out.verdict, out.why = "same", f"within ±{self.threshold_pct:g} %"
        elif abs(diff) <= self.resolution * 1.001:  # one step, whatever each run's exact clock
            out.verdict = "same"
            out.why = f"within the counter's resolution ({self.resolution:.1f} {self.res_unit})"
        elif tested and out.p_value is not None and out.p_value >= ALPHA:
            out.verdict = "not significant"  # keep what was tested (blocks, left out)
            out.why = f"p = {out.p_value:.2g}" + (f"; {out.why}" if out.why else "")
        else:
            out.verdict = "slower" if diff > 0 else "faster"
            if not tested:
                out.why = out.why or "one sample each: no test"
        return out


def replicate_test(j: Judge, stat: str, out: StatChange) -> bool:
    """Mann–Whitney U of the two runs' block figures for `stat` (their
    replicates); False when either run has fewer than MIN_BLOCKS blocks."""
    a, b = j.base.blocks.get(stat) or [], j.cell.blocks.get(stat) or []
    if min(len(a), len(b)) < MIN_BLOCKS:
        return False
    out.p_value = stats.mann_whitney(stats.ungrouped(a), stats.ungrouped(b))[1]
    left = [f"{c.slow_blocks} slow-host" for c in (j.base, j.cell) if c.slow_blocks]
    out.why = f"{len(a)} vs {len(b)} blocks" + (f" ({' / '.join(left)} left out)"
                                                 if left else "")
    return True


def verdict_median(j: Judge) -> StatChange:
    """The median: Mann–Whitney U on the two runs' block medians; runs
    without blocks: on the two histograms' samples (said so)."""
    out = j.change("p50")
    if out.value is None or out.base is None:
        return out
    tested = replicate_test(j, "p50", out)
    if not tested:
        tested = bool(j.a and j.b and min(j.a.n, j.b.n) >= stats.MIN_SAMPLES_FOR_TEST)
        if tested:
            out.p_value = stats.mann_whitney(j.a, j.b)[1]
            out.why = "samples tested (no blocks to replicate: correlated on a shared host)"
        else:
            out.why = "no histograms to test (or fewer than 9 samples)"
    return j.settle(out, tested)


def verdict_percentile(j: Judge, stat: str, q: float) -> StatChange:
    """A high percentile: is the share of the later run's samples beyond
    the first run's percentile different from the first run's own share?
    (two-proportion test on the histograms). Too few samples beyond it in
    either run: judged on the threshold alone, and said so."""
    out = j.change(stat)
    if out.value is None or out.base is None:
        return out
    if replicate_test(j, stat, out):
        return j.settle(out, True)
    need = TAIL_SAMPLES / (1 - q)
    tested = bool(j.a and j.b and min(j.a.n, j.b.n) >= need)
    if tested:
        out.p_value = stats.exceedance_test(j.a, j.b, out.base)
    else:
        n = min(x.n for x in (j.a, j.b) if x) if (j.a or j.b) else 0
        out.why = (f"fewer than {TAIL_SAMPLES} samples beyond the {STAT_NAMES[stat]} "
                   f"(n = {n}): no test")
    return j.settle(out, tested)


def verdict_max(j: Judge) -> StatChange:
    """The max is one sample of each run: threshold and resolution only."""
    out = j.change("max")
    if out.value is None or out.base is None:
        return out
    return j.settle(out, False)


VERDICTS = {"p50": verdict_median,
            "p99": lambda j: verdict_percentile(j, "p99", 0.99),
            "p999": lambda j: verdict_percentile(j, "p999", 0.999),
            "max": verdict_max}


def _judge(base: Cell, cell: Cell, a: stats.Grouped | None, b: stats.Grouped | None,
           threshold_pct: float, resolution_ns: float) -> None:
    if base.status != "ok" or cell.status != "ok":
        cell.verdict = "not compared"
        cell.why = f"first run: {base.status}" if base.status != "ok" else cell.status
        return
    if base.unit != cell.unit:  # instructions on an emulator against time on a host
        cell.verdict = "not compared"
        cell.why = f"different units ({base.unit} against {cell.unit}): no ratio"
        return
    if base.p50 is None or cell.p50 is None:  # a source that gave a mean, min and max:
        cell.verdict = "not compared"         # shown, never judged (no median made up)
        cell.why = ("first run: " if base.p50 is None else "") + "no median in the source"
        return
    # a count's step is one instruction; a time's the coarser run's counter step
    resolution, res_unit = (1.0, base.unit) if base.unit != "ns" else (resolution_ns, "ns")
    j = Judge(base, cell, a, b, threshold_pct, resolution, res_unit)
    cell.changes = {st: VERDICTS[st](j) for st in TAIL_STATS}
    median = cell.changes["p50"]
    cell.change_pct, cell.p_value = median.change_pct, median.p_value
    cell.verdict, cell.why = median.verdict, median.why
    if median.value is None:
        cell.verdict = "not compared"


# ---- many metrics at once ----

TESTED_STATS = ("p50", "p99", "p999")


def holm(changes: list[StatChange]) -> None:
    """Holm's step-down correction over the tests of one statistic across
    every metric of a comparison. A gate over some 370 metrics at the 1 %
    level would otherwise expect 3.7 chance findings in an identical pair
    (were the tests independent, at least one with 1 − 0.99^370 ≈ 98 %), and
    more where the host moved a little between the runs; with it,
    the chance that any of the metrics is called slower or faster when none
    changed stays at ALPHA. A verdict that the corrected p no longer
    supports becomes "not significant" and says both p-values. A real
    change measured in every block still passes: 20 blocks against 20 that
    do not overlap give p ≈ 7e-8, below 1 % / 370 = 2.7e-5."""
    tested = sorted((c for c in changes if c.p_value is not None), key=lambda c: c.p_value)
    m = len(tested)
    running = 0.0
    for k, c in enumerate(tested):
        running = max(running, min(1.0, (m - k) * c.p_value))
        c.p_adjusted = running
        if m > 1 and c.verdict in ("slower", "faster") and running >= ALPHA:
            c.verdict = "not significant"
            c.why = (f"p = {c.p_value:.2g}, {running:.2g} after Holm's correction over "
                     f"{m} tests" + (f"; {c.why}" if c.why else ""))


# ---- absolute limits (a CI budget; RTEMS keeps such limits per target) ----

LIMIT_UNITS = {"ns": (1.0, "ns"), "us": (1e3, "ns"), "µs": (1e3, "ns"), "ms": (1e6, "ns"),
               "s": (1e9, "ns"), "instr": (1.0, "instructions"),
               "instructions": (1.0, "instructions")}
LIMIT_STATS = {"p50": "p50", "median": "p50", "p99": "p99", "p999": "p999", "p99.9": "p999",
               "max": "max"}
_LIMIT = re.compile(r"^\s*(?P<metric>[^\s:<]+)(?::(?P<stat>[\w.]+))?\s*(?P<op><=|<)\s*"
                    r"(?P<value>[0-9]+(?:\.[0-9]+)?)\s*(?P<unit>[a-zµ]+)\s*$")


@dataclass(frozen=True)
class Limit:
    """`METRIC[:STAT]<=VALUE UNIT`: STAT (default max) of every metric the
    glob METRIC matches must stay at or below VALUE."""

    pattern: str
    stat: str
    op: str
    bound: float  # in `unit`
    unit: str  # "ns" or "instructions"
    text: str  # as written
    target: str = ""  # a limits file's [target.NAME] section: only runs on that target

    def holds(self, value: float) -> bool:
        return value <= self.bound if self.op == "<=" else value < self.bound


@dataclass
class LimitCheck:
    limit: Limit
    run: Run
    id: str
    profile: str
    value: float | None
    passed: bool | None  # None: not checked (why says)
    why: str = ""


def parse_limit(text: str, target: str = "", catalog: Catalog | None = None) -> Limit:
    m = _LIMIT.match(text)
    if not m:
        raise RtbenchError(f"limit {text!r}: write METRIC[:STAT]<=VALUE UNIT, e.g. "
                           "'irq.response<=100us' or 'sem.*:p99<=5us' (STAT: p50, p99, p99.9, "
                           "max; UNIT: ns, us, ms, s, instructions)")
    stat = LIMIT_STATS.get((m["stat"] or "max").lower())
    if stat is None:
        raise RtbenchError(f"limit {text!r}: unknown statistic {m['stat']!r} (one of: p50, "
                           "p99, p99.9, max)")
    unit = LIMIT_UNITS.get(m["unit"])
    if unit is None:
        raise RtbenchError(f"limit {text!r}: unknown unit {m['unit']!r} (one of: "
                           f"{', '.join(LIMIT_UNITS)})")
    if catalog is not None and not fnmatch.filter(catalog.ids, m["metric"]):
        from rtbench.store.catalog import did_you_mean

        raise RtbenchError(f"limit {text!r}: no metric matches {m['metric']!r}"
                           + did_you_mean(m["metric"], catalog.ids))
    return Limit(m["metric"], stat, m["op"], float(m["value"]) * unit[0], unit[1],
                 text.strip(), target)


def load_limits(path, catalog: Catalog | None = None) -> list[Limit]:
    """A limits file (TOML): `[limits]` for every run, `[target.NAME.limits]`
    for runs on one target (host, mps2-an385, ...); each key a metric glob,
    each value one limit or a list of them without the metric:
    `"irq.response" = ["p99 <= 50us", "max <= 100us"]`."""
    import tomllib

    try:
        data = tomllib.loads(open(path, encoding="utf-8").read())
    except OSError as exc:
        raise RtbenchError(f"cannot read limits file {path}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise RtbenchError(f"limits file {path} is not valid TOML: {exc}") from exc
    sections = [("", data.get("limits", {}))]
    sections += [(name, t.get("limits", {})) for name, t in (data.get("target") or {}).items()]
    out = []
    for target, table in sections:
        for metric, specs in table.items():
            for spec in ([specs] if isinstance(specs, str) else specs):
                if not isinstance(spec, str):
                    raise RtbenchError(f"limits file {path}: {metric!r}: a limit is a string "
                                       "such as \"max <= 100us\"")
                m = re.match(r"\s*([\w.]+)\s*(<=|<)(.*)$", spec)
                text = (f"{metric}:{m[1]}{m[2]}{m[3]}" if m and m[1].lower() in LIMIT_STATS
                        else f"{metric}{spec}")
                out.append(parse_limit(text, target, catalog))
    return out


def check_limit(lim: Limit, run: Run) -> list[LimitCheck]:
    """The limit on every metric of `run` it matches."""
    target = run.host.get("target") or "host"
    if lim.target and lim.target != target:
        return []
    out = []
    for rec in run.metrics:
        if not fnmatch.fnmatchcase(rec["id"], lim.pattern):
            continue
        profile = rec.get("profile", "rt")
        m = MetricRecord(rec)
        check = LimitCheck(lim, run, rec["id"], profile, None, None)
        if m.status == "failed":
            check.passed, check.why = False, f"failed: {m.reason}"
        elif not m.ok:
            check.why = f"{m.status}: {m.reason}"
        elif m.base_unit != lim.unit:
            check.why = f"the limit is in {lim.unit}, the run in {m.base_unit}: not checked"
        elif (value := m.value(lim.stat)) is None:
            check.why = f"no {STAT_NAMES[lim.stat]} in the source"
        else:
            check.value, check.passed = value, lim.holds(value)
        out.append(check)
    if not out:
        out.append(LimitCheck(lim, run, lim.pattern, "", None, None,
                              f"no metric of run {run.id} matches"))
    return out


def _resolution_ns(run: Run) -> float:
    s = Session(run.session or {})
    res = s.ts.get("resolution_ticks")
    return (s.ticks_ns(res) or 0.0) if res else 0.0


def _environment_warnings(runs: list[Run]) -> list[str]:
    """Like pyperf: say when the runs did not measure under the same conditions."""
    out = []
    targets = [f"{r.host.get('target', 'host')} ({r.host.get('os', '?')} "
               f"{r.host.get('kernel_version' if r.host.get('target') else 'kernel_release', '')})"
               for r in runs]
    units = [Session(r.session or {}).unit for r in runs if r.session]
    if len(set(targets)) > 1:
        out.append("different targets and kernels: " + ", ".join(
            f"run {r.id}: {t}" for r, t in zip(runs, targets)))
    if len(set(units)) > 1:
        out.append("different units (instructions on an emulator are not times): their figures "
                   "stand side by side, without a ratio or a verdict")
    for key, what in (("hostname", "hosts"), ("cpu_model", "CPU models"),
                      ("kernel_release", "kernels"), ("preemption", "preemption models")):
        values = [r.host.get(key, "?") for r in runs]
        if len(set(values)) > 1:
            out.append(f"different {what}: " + ", ".join(f"run {r.id}: {v}"
                                                         for r, v in zip(runs, values)))
    # rt-tests beside a run (`rtbench run --with-peers`): no harness session to compare;
    # their priority and sample count are in each record's source.command
    peers = [r for r in runs if r.origin == "peer"]
    out += [f"run {r.id}: rt-tests programs run beside run {r.linked_to} (--with-peers)"
            for r in peers]
    runs = [r for r in runs if r.origin != "peer"]
    rt = [Session(r.session or {}).rt.get("realtime") for r in runs]
    if len(set(rt)) > 1:
        out.append("not every run had real-time scheduling: " + ", ".join(
            f"run {r.id}: {'yes' if v else 'no'}" for r, v in zip(runs, rt)))
    out += _host_speed_warnings(runs)
    cfg = [Session(r.session or {}).config.get("samples") for r in runs]
    if len(set(cfg)) > 1:
        out.append("different sample counts: " + ", ".join(
            f"run {r.id}: {v}" for r, v in zip(runs, cfg)))
    return out


HOST_SPEED_PCT = 10.0  # canaries further apart than this: the host ran at another speed


def _canary_ns(run: Run) -> float | None:
    """The run's usual canary (blocks.canary_baseline) in ns, or None."""
    base = blocks_mod.canary_baseline(run.metrics)
    hz = next((m.get("tick_hz") for m in run.metrics if m.get("blocks") and m.get("tick_hz")),
              None)
    return base * 1e9 / hz if base and hz else None


def _host_speed_warnings(runs: list[Run]) -> list[str]:
    """The canary (the same fixed work timed around every block) of a later
    run against the first's: when the host itself ran slower or faster
    between the runs, every short operation moves with it, and the verdicts
    may be the host's rather than the kernel's. Said, not corrected."""
    first = _canary_ns(runs[0]) if runs else None
    out = []
    for r in runs[1:]:
        c = _canary_ns(r)
        if first and c and abs(c / first - 1) * 100 > HOST_SPEED_PCT:
            out.append(f"the host ran {'slower' if c > first else 'faster'} in run {r.id} than "
                       f"in run {runs[0].id}: the canary (a fixed pointer chase and null system "
                       f"call timed around every block) took {c / 1e3:.2f} µs against "
                       f"{first / 1e3:.2f} µs ({100 * (c / first - 1):+.0f} %); changes of "
                       "that size in short operations may be the host's, not the kernel's")
    return out


# ---- run against a published reference sheet ----

@dataclass
class Published:
    """One reference cell: the sheet's figures for a row on one variant."""

    figures: list[tuple[str, str]]  # (value as printed, unit)
    time_ns: float | None
    cycles: float | None
    note: str = ""
    mb_s: float | None = None  # a published bandwidth (MB/s)
    ratio_cycles: float | None = None  # our cycles / theirs, each at its own clock
    ratio_time: float | None = None  # our time / theirs
    ratio_count: float | None = None  # our instructions / their cycles (a count run)


@dataclass
class RefRow:
    id: str
    title: str
    profile: str
    key: str  # the sheet's row name
    ours_status: str
    ours_reason: str
    ours_ns: float | None
    ours_cycles: float | None  # counter ticks, or core cycles where the run measured the
                               # core clock (RefComparison.cycles_note says which)
    cells: list[Published | None]
    ours_mb_s: float | None = None  # our bandwidth at the median sample (bandwidth metrics)
    ours_stat: str = "p50"  # the statistic ours is: the median, or the mean of a
                            # source that gave no median (an imported figure)
    ours_count: float | None = None  # a count run's figure (instructions), never a time
    ours_unit: str = ""


@dataclass
class RefComparison:
    run: Run
    sheet: reference.Sheet
    columns: list[str]
    variants: list[reference.Variant]
    rows: list[RefRow]
    published_only: list[tuple[str, str]]  # (row name, why we have no figure)
    ours_only: list[tuple[str, str, str]]  # (metric id, profile, title)
    our_clock_hz: float
    our_clock: str
    our_unit: str = "ticks"  # "instructions": an emulator's count, set beside their cycles
    our_unit_detail: str = ""
    our_core_hz: float = 0.0  # the core clock ours_cycles are at (0: they are counter ticks)
    cycles_note: str = ""  # what our cycles are, in words for the output


def compare_reference(run: Run, sheet: reference.Sheet, catalog: Catalog) -> RefComparison:
    cells = _published_cells(sheet)  # (row key, variant) -> Published
    claims: dict[str, list[str]] = {}  # row key -> metric ids claiming it
    for m in catalog.metrics:
        for key in m.vendor.get(sheet.vendor_key, ()):
            claims.setdefault(key, []).append(m.id)
    session = Session(run.session or {})
    its = items(run, catalog)
    rows: list[RefRow] = []
    ours_only = []
    sheet_keys = {key for key, _variant in cells}
    for it in its:
        keys = [k for k in (it.meta.vendor.get(sheet.vendor_key, ()) if it.meta else ())
                if k in sheet_keys]
        for profile, rec in it.records.items():
            if not keys:
                if rec is not None and rec.get("status") == "ok":
                    ours_only.append((it.id, profile, it.title))
                continue
            for key in keys:
                rows.append(_ref_row(it, profile, rec, key, session.core_cycles_hz))
    used = [v for v in sheet.variants() if any((r.key, v) in cells for r in rows)]
    for r in rows:
        r.cells = [_with_ratio(cells.get((r.key, v)), r) for v in used]
    measured = {r.key for r in rows}
    published_only = [(key, _why_not(key, claims, its, sheet, catalog))
                      for key in sheet.keys() if key not in measured]
    varying = reference.varying_fields(used or sheet.variants())
    return RefComparison(run, sheet, [v.label(varying) for v in used], used, rows,
                         published_only, ours_only, session.hz,
                         f"{session.hz / 1e6:.3f} MHz" if session.hz else "unknown",
                         session.unit, session.ts.get("counter_unit_detail")
                         or session.ts.get("unit_detail", ""), session.core_cycles_hz,
                         _cycles_note(session))


def _cycles_note(session: Session) -> str:
    """What our figure beside their CPU cycles is: core cycles at the measured
    core clock, or the counter's own ticks (which a TSC's are not)."""
    if session.is_count:
        return ""
    if session.core_cycles_hz:
        return (f"core cycles: ns × {session.core_hz / 1e9:.2f} GHz, the "
                f"{core_clock_phrase(session)}")
    if session.unit == "cycles":
        return "cycles of the core's own cycle counter"
    clock = f" at {session.hz / 1e9:.3f} GHz" if session.hz else ""
    return (f"counter ticks{clock}, not core cycles: the run has no measured core clock "
            "(the counter's rate need not be the core's)")


def _ref_row(it, profile: str, rec: dict | None, key: str, core_hz: float = 0.0) -> RefRow:
    """Our figure for one published row; beside their CPU cycles, the counter's
    ticks, or core cycles (the time × core_hz) where the run measured the core
    clock and the ticks are not the core's."""
    if rec is None:
        return RefRow(it.id, it.title, profile, key, "not measured", "run incomplete",
                      None, None, [])
    m = MetricRecord(rec)
    if not m.ok:
        return RefRow(it.id, it.title, profile, key, m.status, m.reason, None, None, [])
    stat = "p50" if m.has("p50") else "mean" if m.has("mean") else None
    if stat is None:
        return RefRow(it.id, it.title, profile, key, "ok", "", None, None, [], ours_stat="")
    mb_s = system.mb_per_s(rec, stat)
    if m.is_count:  # instructions (an emulator): beside their cycles, never as a time
        return RefRow(it.id, it.title, profile, key, "ok", "", None, None, [], None, stat,
                      ours_count=m.count(stat), ours_unit=m.unit)
    if not m.is_time:  # a figure in its own unit (e.g. MB/s from a program)
        return RefRow(it.id, it.title, profile, key, "ok", "", None, None, [], mb_s, stat)
    # per operation: a sample that timed `ops` operations is divided (records.md)
    cycles = m.ns(stat) * core_hz / 1e9 if core_hz else float(rec[stat]) / m.ops
    return RefRow(it.id, it.title, profile, key, "ok", "", m.ns(stat), cycles, [], mb_s, stat)


_TIME_UNITS = {"us": 1000.0, "ns": 1.0}


def _published_cells(sheet: reference.Sheet) -> dict[tuple[str, reference.Variant], Published]:
    out: dict[tuple[str, reference.Variant], Published] = {}
    for row in sheet.rows():
        var = reference.variant(sheet.vendor_key, row)
        cell = out.setdefault((reference.row_key(sheet.vendor_key, row), var),
                              Published([], None, None))
        cell.figures.append((row.value, row.unit))
        if row.note and row.note not in cell.note:
            cell.note = f"{cell.note}; {row.note}" if cell.note else row.note
        try:
            value = float(row.value)
        except ValueError:
            continue
        hz = var.clock_hz
        if row.unit in _TIME_UNITS and cell.time_ns is None:
            cell.time_ns = value * _TIME_UNITS[row.unit]
            if hz and cell.cycles is None:
                cell.cycles = cell.time_ns * hz / 1e9
        elif row.unit == "MB/s" and cell.mb_s is None:
            cell.mb_s = value
        elif row.unit == "cycles" and cell.cycles is None:
            cell.cycles = value
            if hz and cell.time_ns is None:
                cell.time_ns = value / hz * 1e9
    return out


def _with_ratio(cell: Published | None, row: RefRow) -> Published | None:
    if cell is None or row.ours_status != "ok":
        return cell
    c = Published(cell.figures, cell.time_ns, cell.cycles, cell.note, cell.mb_s)
    if c.mb_s and row.ours_mb_s:  # as a time ratio: above 1, we are slower
        c.ratio_time = c.mb_s / row.ours_mb_s
    if c.cycles and row.ours_cycles is not None:
        c.ratio_cycles = row.ours_cycles / c.cycles
    if c.time_ns and row.ours_ns is not None:
        c.ratio_time = row.ours_ns / c.time_ns
    if c.cycles and row.ours_count is not None:
        c.ratio_count = row.ours_count / c.cycles
    return c


def _why_not(key: str, claims: dict[str, list[str]], its, sheet: reference.Sheet,
             catalog: Catalog) -> str:
    na = coverage.not_applicable(catalog, sheet).get(key)
    if na is not None:
        return f"not applicable: {na}"
    if key not in claims:
        return "no rtbench metric measures it yet"
    in_run = {it.id for it in its}
    return ("claimed by " + ", ".join(claims[key]) + ", "
            + ("not in this run" if not in_run & set(claims[key]) else "no figure in this run"))


def to_jsonable(obj: Any) -> Any:
    """The comparison models as plain JSON values (runs reduced to their ids)."""
    import dataclasses

    if isinstance(obj, Run):
        return {"id": obj.id, "uuid": obj.uuid, "label": obj.label, "started": obj.started,
                "status": obj.status, "host": obj.host.get("hostname", "")}
    if isinstance(obj, reference.Sheet):
        return {"name": obj.name, "title": obj.title, "source": obj.source,
                "clock_note": obj.clock_note, "caveat": obj.caveat}
    if dataclasses.is_dataclass(obj):  # fields not for JSON are left out (repr=False)
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)
                if f.repr}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, float) and obj != obj:  # never NaN in JSON
        return None
    return obj


# ---- a run beside its peers (`rtbench run --with-peers`): rt-tests, rtos-benchmark ----

PEER_STATS = ("min", "p50", "mean", "p99", "max")


@dataclass
class PeerRow:
    id: str  # the catalogue metric both answer, or the peer's own name if none
    title: str
    program: str  # the peer program (rt-tests' cyclictest…, rtos-benchmark)
    label: str  # the peer's own name for the figure (the program, or rtos-benchmark's row)
    command: str
    peer_status: str
    peer_reason: str
    peer_unit: str  # "ns" for a time, else the figures' unit ("instructions")
    peer: dict[str, float | None]  # only the statistics the program gave, in peer_unit
    peer_n: int | None
    ours_status: str  # "ok", "unsupported", "failed", or "none" (no rtbench metric)
    ours_unit: str
    ours: dict[str, float | None]
    ours_n: int | None
    why: str
    # The same statistics as times, for what only shows times (None for a count).
    peer_ns: dict[str, float | None] = field(init=False)
    ours_ns: dict[str, float | None] = field(init=False)

    def __post_init__(self) -> None:
        self.peer_ns = _as_ns(self.peer, self.peer_unit)
        self.ours_ns = _as_ns(self.ours, self.ours_unit)


@dataclass
class PeerComparison:
    run: Run
    peers: list[Run]
    rows: list[PeerRow]
    families: list[str]  # "rt-tests", "rtos-benchmark": the suites of the peer runs
    methods: list[str]  # how a suite measured beside rtbench, a paragraph each

    @property
    def units(self) -> list[str]:
        """The units the figures are in ("ns", "instructions"), first seen first."""
        seen = [r.peer_unit for r in self.rows if r.peer_status == "ok"]
        seen += [r.ours_unit for r in self.rows if r.ours_status == "ok"]
        return list(dict.fromkeys(seen))


def compare_peers(run: Run, peer_runs: list[Run], catalog: Catalog) -> PeerComparison:
    """Every peer figure beside rtbench's for the same catalogue metric, each
    side in its own unit (ns for rt-tests on Linux, instructions for
    rtos-benchmark on an emulated board, as rtbench's there)."""
    ours = {}
    for rec in run.metrics:  # the first profile that has it (rt unless the run had none)
        ours.setdefault(rec["id"], rec)
    rows, families, methods = [], [], []
    for pr in peer_runs:
        for rec in pr.metrics:
            src = rec.get("source") or {}
            program = src.get("tool", rec["id"])
            meta = catalog.get(rec["id"])
            mine = ours.get(rec["id"]) if rec.get("mapped", True) else None
            (p_unit, p_stats), (o_unit, o_stats) = _stats(rec), _stats(mine)
            rows.append(PeerRow(
                rec["id"], meta.title if meta else src.get("label", program), program,
                src.get("label", program), src.get("command", ""),
                rec["status"], rec.get("reason", ""), p_unit, p_stats, rec.get("n"),
                (mine["status"] if mine else "none"), o_unit, o_stats, (mine or {}).get("n"),
                _why(rec)))
            fam = _family(rec)
            if fam not in families:
                families.append(fam)
                if fam == "rtos-benchmark":
                    methods.append(rtosbench.method(pr.session, run.session))
    return PeerComparison(run, peer_runs, rows, families, methods)


def _stats(rec: dict | None) -> tuple[str, dict[str, float | None]]:
    """(unit, the statistics in it): ns for a time, else the record's unit."""
    if not rec:
        return "ns", {k: None for k in PEER_STATS}
    m = MetricRecord(rec)
    return m.base_unit, {k: m.value(k) for k in PEER_STATS}


def _as_ns(stats: dict[str, float | None], unit: str) -> dict[str, float | None]:
    return {k: (v if unit == "ns" else None) for k, v in stats.items()}


def _why(rec: dict) -> str:
    """Why this peer record's figure differs from rtbench's for its metric:
    per rt-tests program, per rtos-benchmark row (each peer's WHY)."""
    src = rec.get("source") or {}
    if src.get("tool") == "rtos-benchmark":
        return rtosbench.WHY.get(src.get("label", ""), "")
    return rttests.WHY.get(src.get("tool", rec["id"]), "")


def _family(rec: dict) -> str:
    """The suite a peer record comes from: "rt-tests" or "rtos-benchmark"."""
    tool = (rec.get("source") or {}).get("tool", "")
    return "rtos-benchmark" if tool == "rtos-benchmark" else "rt-tests"
