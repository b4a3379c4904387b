"""A run beside the peers measured with it (`rtbench run --with-peers`,
then `rtbench compare RUN`): every peer figure beside rtbench's for the
same catalogue metric, each side in its own unit (ns for rt-tests on
Linux, instructions for rtos-benchmark on an emulated board, as rtbench's
there), with why each figure differs (each peer's WHY) and how the suite
measured. Thread-Metric beside a kernel is the kernel sheet's (kernels.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rtbench.peers import latency_measure, rtosbench, rttests, threadmetric
from rtbench.store.catalog import Catalog
from rtbench.store.db import Run
from rtbench.store.records import MetricRecord


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
    ours_status: str  # "ok", "unsupported", "failed", "none" (no rtbench metric), or
                      # "not in this run" (a metric of ours the run did not measure)
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
class LmRow:
    """One row of Zephyr's latency_measure, both builds beside rtbench's
    figure for the same metric (instructions; None: no figure)."""

    label: str          # latency_measure's name for it
    id: str             # the catalogue metric, or "zephyr:<label>" (no rtbench metric)
    ours: float | None  # rtbench's mean
    rebuilt: float | None  # latency_measure's average, built with rtbench's configuration
    stock: float | None    # latency_measure's average, as Zephyr ships it
    build: str = ""        # "userspace": latency_measure's userspace build (its causes)


@dataclass
class PeerComparison:
    run: Run
    peers: list[Run]
    rows: list[PeerRow]
    families: list[str]  # "rt-tests", "rtos-benchmark": the suites of the peer runs
    methods: list[str]  # how a suite measured beside rtbench, a paragraph each
    # latency_measure's two builds row by row, and the Kconfig settings in
    # which they differ ([symbol, stock's value, rebuilt's value])
    lm_rows: list[LmRow] = field(default_factory=list)
    lm_settings: list[list] = field(default_factory=list)

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
    lm_runs = [pr for pr in peer_runs if _is_lm(pr)]
    for pr in peer_runs:
        for rec in pr.metrics:
            src = rec.get("source") or {}
            program = src.get("tool", rec["id"])
            if src.get("configuration"):  # latency_measure: which of its two builds
                program = f"{program} ({src['configuration']})"
            meta = catalog.get(rec["id"])
            mine = ours.get(rec["id"]) if rec.get("mapped", True) else None
            (p_unit, p_stats), (o_unit, o_stats) = _stats(rec), _stats(mine)
            rows.append(PeerRow(
                rec["id"], meta.title if meta else src.get("label", program), program,
                src.get("label", program), src.get("command", ""),
                rec["status"], rec.get("reason", ""), p_unit, p_stats, rec.get("n"),
                (mine["status"] if mine else "not in this run" if meta and rec.get("mapped", True)
                 else "none"), o_unit, o_stats, (mine or {}).get("n"),
                _why(rec, mine, pr.session)))
            fam = _family(rec)
            if rec["status"] == "ok" and fam not in families:  # a peer that ran: named above
                families.append(fam)
                if fam == rtosbench.TOOL:
                    methods.append(rtosbench.method(pr.session, run.session))
                if fam == "latency_measure":
                    methods.append(latency_measure.method([r.session for r in lm_runs]))
    settings = next((s for r in lm_runs
                     if (s := ((r.session or {}).get("source") or {}).get("kconfig_differs"))), [])
    return PeerComparison(run, peer_runs, rows, families, methods, _lm_rows(ours, lm_runs),
                          settings)


def _is_lm(run: Run) -> bool:
    return any((r.get("source") or {}).get("tool") == latency_measure.TOOL for r in run.metrics)


def _lm_rows(ours: dict[str, dict], lm_runs: list[Run]) -> list[LmRow]:
    """latency_measure's rows, each with both builds' averages and rtbench's
    mean, in the order latency_measure prints them."""
    figures: dict[str, dict[str, float]] = {}
    ids: dict[str, str] = {}
    builds: dict[str, str] = {}
    for run in lm_runs:
        for rec in run.metrics:
            src = rec.get("source") or {}
            if rec["status"] != "ok" or "label" not in src:
                continue
            m = MetricRecord(rec)
            figures.setdefault(src["label"], {})[src.get("configuration", "rebuilt")] = \
                m.value("mean") if m.has("mean") else None
            ids.setdefault(src["label"], rec["id"])  # the same in both builds
            builds.setdefault(src["label"], src.get("build", ""))
    out = []
    for label, got in figures.items():
        mine = ours.get(ids[label])
        mean = MetricRecord(mine).value("mean") if (
            mine and mine.get("status") == "ok" and MetricRecord(mine).has("mean")
            and MetricRecord(mine).unit == "instructions") else None
        out.append(LmRow(label, ids[label], mean, got.get("rebuilt"), got.get("stock"),
                         builds[label]))
    return out


def _stats(rec: dict | None) -> tuple[str, dict[str, float | None]]:
    """(unit, the statistics in it): ns for a time, else the record's unit."""
    if not rec:
        return "ns", {k: None for k in PEER_STATS}
    m = MetricRecord(rec)
    return m.base_unit, {k: m.value(k) for k in PEER_STATS}


def _as_ns(stats: dict[str, float | None], unit: str) -> dict[str, float | None]:
    return {k: (v if unit == "ns" else None) for k, v in stats.items()}


def _why(rec: dict, ours: dict | None = None, session: dict | None = None) -> str:
    """Why this peer record's figure differs from rtbench's for its metric:
    per rt-tests program, per rtos-benchmark row and port (rtosbench.why,
    on Zephyr with whether the two agree); for latency_measure, whether the
    two agree (latency_measure.agreement)."""
    src = rec.get("source") or {}
    if src.get("tool") == latency_measure.TOOL:
        return latency_measure.agreement(rec, ours)
    if src.get("tool") == rtosbench.TOOL:
        return rtosbench.why(rec, ours, session)
    return rttests.WHY.get(src.get("tool", rec["id"]), "")


# A peer tool's suite, by the tool its records name
_FAMILIES = {latency_measure.TOOL: "latency_measure", threadmetric.TOOL: threadmetric.TOOL,
             rtosbench.TOOL: rtosbench.TOOL}


def _family(rec: dict) -> str:
    """The suite a peer record comes from: "rt-tests", "rtos-benchmark",
    "latency_measure" or "Thread-Metric"."""
    tool = (rec.get("source") or {}).get("tool", "")
    return _FAMILIES.get(tool, "rt-tests")  # every rt-tests program names itself
