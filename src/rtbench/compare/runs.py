"""A run against other runs: a plain model that the text, Markdown, HTML
and JSON renderings (compare/views.py) lay out.

Run against run (docs/reports.md, "Run against run"): metrics are matched
by (id, profile); each later run is compared with the first on the median,
p99, p99.9 and max, each statistic with its own verdict from its own
function (VERDICTS). A change counts only if it is beyond the threshold and
the counter's resolution, and, where a test exists for the statistic,
significant. The tests rest on replicates, as pyperf's rest on worker
processes: a run is measured in interleaved blocks (rtbench.store.blocks), and
the median, p99, p99.9 and max are judged by a Mann–Whitney U test of the
two runs' block figures (a block's median, p99, p99.9, max), leaving out the blocks
the canary marks as slow-host while each run keeps enough others. Thousands
of samples of one run are not independent replicates on a shared host (one
host episode moves them all), which made a rank test over samples report
two identical runs as 25 % apart with p < 1e-300. Runs without blocks (a
board's single block, runs of older rtbench) fall back to the tests over
samples, and say so; their max is one sample, so no test (and no gate
fails on it: RunComparison.regressions). "same" is never said
of a statistic that moved beyond the threshold: that is "slower", "faster"
or "not significant". Absolute limits (`irq.response<=100us`) check a run
against a budget. Whether the runs measured under the same conditions is
conditions.py's, said above the verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
import fnmatch
import math
import re
from typing import Any

from rtbench.compare import conditions
from rtbench.errors import RtbenchError
from rtbench.store import blocks as blocks_mod
from rtbench.store import stats
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
    # the record's `unranked`: why the row is kept out of every ranking (shown, marked;
    # still judged here, a before/after of the same figure)
    unranked: str = ""
    # an emulated board's estimated cycles (docs/records.md `cycles`): shown
    # beside the instructions, not judged (the instructions are)
    cycles: dict | None = None
    res: float = 0.0  # the clock's step in the median: no digit finer is shown (fmt_scaled)

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


def gated(cell: "Cell", stat: str) -> bool:
    """Whether a slower verdict can fail a gate: tested, or an exact count."""
    return cell.changes[stat].p_value is not None or cell.unit != "ns"


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
        in `stats`: a test's verdict, or an exact count's (an emulated
        board's instructions: the same on every run, so any change is one).
        A time's slow-down no test backs (one sample each) fails no gate:
        `untested` lists them."""
        return [(r, i, st) for r, i, st in self._slower(stats) if gated(r.cells[i], st)]

    def untested(self, stats: tuple[str, ...] = ("p50",)) -> list[tuple[Row, int, str]]:
        """The slow-downs in `stats` a gate does not fail on: no test backs them."""
        return [(r, i, st) for r, i, st in self._slower(stats) if not gated(r.cells[i], st)]

    def _slower(self, stats: tuple[str, ...]) -> list[tuple[Row, int, str]]:
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

    @property
    def limit_unit_mismatches(self) -> list["LimitCheck"]:
        """Checks whose limit is in another unit than the run's figure (a
        limit in µs on a run in instructions): a gate that checks nothing."""
        return [c for c in self.limits if c.unit_mismatch]


def compare_runs(runs: list[Run], catalog: Catalog,
                 threshold_pct: float = DEFAULT_THRESHOLD_PCT,
                 limits: list["Limit"] | None = None) -> RunComparison:
    per_run = [{(it.id, p): (it, rec) for it in items(run, catalog)
                for p, rec in it.records.items()} for run in runs]
    order = {mid: n for n, mid in enumerate(catalog.ids)}
    keys = list(dict.fromkeys(k for table in per_run for k in table))
    keys.sort(key=lambda k: order.get(k[0], len(order)))
    resolution = max((_resolution_ns(r) for r in runs), default=0.0) + _calibration_ns(runs)
    baselines = [(blocks_mod.canary_baseline(r.metrics), Session(r.session or {}).clock_step)
                 for r in runs]
    rows, samples = [], {}
    for key in keys:
        it = next(t[key][0] for t in per_run if key in t)
        cells = [_cell(t[key][1] if key in t else _ABSENT, *base)
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
    return RunComparison(runs, rows, threshold_pct, ALPHA, conditions.warnings(runs), checks,
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
    time = 1e9 / float(rec["tick_hz"]) if m.is_time else 1.0
    return ({st: [b[st] * time / m.divisor(st) for b in kept if st in b]
             for st in ("p50", "p99", "p999", "max")}, slow)


def _cell(rec: Any, baseline: float | None = None, clock: float = 0.0) -> Cell:
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
                max=m.value("max"), mean=m.value("mean"), p999=m.value("p999"),
                unranked=m.unranked, cycles=m.cycles, res=m.step("p50", clock))
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
    """The max: Mann–Whitney U on the two runs' block maxima (each block's
    worst sample: a replicate of the max); runs without blocks have one
    sample each, judged on threshold and resolution only, with no test (so
    no gate fails on it: RunComparison.regressions)."""
    out = j.change("max")
    if out.value is None or out.base is None:
        return out
    return j.settle(out, replicate_test(j, "max", out))


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

TESTED_STATS = ("p50", "p99", "p999", "max")  # each corrected over the metrics (holm)


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
    general: bool = False  # a limits file's [limits]: every run measured in its unit

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
    unit_mismatch: str = ""  # the run's unit, where the limit is in another


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
    value = float(m["value"]) * unit[0]
    if not math.isfinite(value) or value > MAX_LIMIT:
        raise RtbenchError(f"limit {text[:60]!r}: {m['value'][:20]}… is beyond any figure")
    return Limit(m["metric"], stat, m["op"], value, unit[1], text.strip(), target)


def load_limits(path, catalog: Catalog | None = None) -> list[Limit]:
    """A limits file (TOML): `[limits]` for every run measured in the
    limit's unit (a time limit on the host's runs, one in instructions on a
    board's: one file for both), `[target.NAME.limits]` for runs on one
    target (host, mps2-an385, ...); each key a metric glob,
    each value one limit or a list of them without the metric:
    `"irq.response" = ["p99 <= 50us", "max <= 100us"]`."""
    data = _limits_data(path)
    sections = [("", data.get("limits", {}))]
    targets = data.get("target") or {}
    if not isinstance(targets, dict) or not all(isinstance(t, dict) for t in targets.values()):
        raise RtbenchError(f"limits file {path}: [target.NAME.limits] tables, e.g. "
                           "[target.host.limits]")
    sections += [(name, t.get("limits", {})) for name, t in targets.items()]
    out = []
    for target, table in sections:
        if not isinstance(table, dict):
            raise RtbenchError(f"limits file {path}: limits is a table of METRIC = LIMIT")
        for metric, specs in table.items():
            if not isinstance(specs, (str, list)):
                raise RtbenchError(f"limits file {path}: {metric!r}: a limit is a string "
                                   "such as \"max <= 100us\", or a list of them")
            for spec in ([specs] if isinstance(specs, str) else specs):
                if not isinstance(spec, str):
                    raise RtbenchError(f"limits file {path}: {metric!r}: a limit is a string "
                                       "such as \"max <= 100us\"")
                m = re.match(r"\s*([\w.]+)\s*(<=|<)(.*)$", spec)
                text = (f"{metric}:{m[1]}{m[2]}{m[3]}" if m and m[1].lower() in LIMIT_STATS
                        else f"{metric}{spec}")
                lim = parse_limit(text, target, catalog)
                out.append(replace(lim, general=not target))
    return out


MAX_LIMITS_FILE = 1 << 20  # bytes: a limits file is a few lines
MAX_LIMIT = 1e18  # in ns or instructions: beyond any figure rtbench stores


def _limits_data(path) -> dict[str, Any]:
    """The limits file's TOML: a regular file (a FIFO would wait for ever,
    /dev/zero never end) of at most MAX_LIMITS_FILE bytes, UTF-8 and TOML."""
    import tomllib

    from rtbench.store.text import read_input

    data = read_input(path, "limits file", MAX_LIMITS_FILE)
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise RtbenchError(f"limits file {path} is not UTF-8 text") from exc
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise RtbenchError(f"limits file {path} is not valid TOML: {exc}") from exc


def check_limit(lim: Limit, run: Run) -> list[LimitCheck]:
    """The limit on every metric of `run` it matches."""
    target = run.host.get("target") or "host"
    if lim.target and lim.target != target:
        return []
    out, other = [], ""
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
        elif m.base_unit != lim.unit and lim.general:
            other = m.base_unit  # [limits] holds every target's: a board's instructions,
            continue             # a host's times; each checks the runs in its unit
        elif m.base_unit != lim.unit:
            check.why = f"the limit is in {lim.unit}, the run in {m.base_unit}: not checked"
            check.unit_mismatch = m.base_unit
        elif (value := m.value(lim.stat)) is None:
            check.why = f"no {STAT_NAMES[lim.stat]} in the source"
        else:
            check.value, check.passed = value, lim.holds(value)
        out.append(check)
    if not out:
        why = (f"[limits] applies to runs measured in {lim.unit}; run {run.id} measured "
               f"in {other}: write its limits under [target.{target}.limits]" if other
               else f"no metric of run {run.id} matches")
        out.append(LimitCheck(lim, run, lim.pattern, "", None, None, why))
    return out


def _resolution_ns(run: Run) -> float:
    """One step of the run's clock as a sample sees it, in ns (clock_step)."""
    s = Session(run.session or {})
    return (s.ticks_ns(s.clock_step) or 0.0) if s.clock_step else 0.0


def _calibration_ns(runs: list[Run]) -> float:
    """How far the runs' subtracted overheads differ, in ns: every figure of
    a run moves by its own, so a change that small is the calibration's."""
    sessions = [Session(r.session or {}) for r in runs]
    got = [g for s in sessions if isinstance(o := s.ts.get("overhead"), (int, float))
           and (g := s.ticks_ns(o)) is not None]
    return max(got) - min(got) if len(got) > 1 else 0.0
