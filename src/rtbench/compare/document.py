"""One JSON document for every `rtbench compare` mode (`--format json`,
docs/compare-schema.json): run against run, a run beside a vendor's sheet
(`--ref`), a run beside its peers, kernels side by side. A CI job or a
notebook reads the same top level whatever the runs were: the schema and
its version, the mode, the runs compared (each with its id, or the
results.json file it was read from), one row per metric and profile with
each side's figures and, where the mode judges, one verdict per
statistic, and a `summary` object of counts with the exit status.
The mode's own model, every field its pages show, stays under `detail`
(as `--format json` gave it before the common schema).
"""

from __future__ import annotations

from typing import Any

from rtbench.compare.jsonable import run_entry, to_jsonable
from rtbench.compare.runs import TAIL_STATS, RunComparison

SCHEMA = "rtbench-compare"
SCHEMA_VERSION = 1
VERDICTS = ("slower", "faster", "same", "not significant", "not compared")
# and a vendor's own words for its figure: a single-path count, or a statistic its
# sheet does not say (store.reference.STATISTICS)
STAT_KEYS = ("min", "p50", "p90", "p99", "p999", "max", "mean", "path", "unstated")


def empty_summary(text: str, exit_status: int) -> dict[str, Any]:
    """The summary's counts, zero, for a mode that judges nothing."""
    return {"text": text, "exit_status": exit_status, "rows": 0, "compared": 0,
            **{v.replace(" ", "_"): 0 for v in VERDICTS},
            "by_statistic": {st: {v.replace(" ", "_"): 0 for v in VERDICTS}
                             for st in TAIL_STATS},
            "not_gated": 0, "regressions": 0, "limits_checked": 0, "limits_failed": 0,
            "statuses": {}}


def _doc(mode: str, runs: list, rows: list[dict], summary: dict, detail: Any,
         reference: dict | None = None, fail_on: tuple[str, ...] = (),
         threshold_pct: float | None = None) -> dict[str, Any]:
    return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "mode": mode,
            "runs": runs, "reference": reference, "fail_on": list(fail_on),
            "threshold_pct": threshold_pct, "rows": rows, "summary": summary,
            "detail": detail}


def _figure(source: str, status: str, unit: str, values: dict, n=None, reason: str = "",
            **extra) -> dict[str, Any]:
    kept = {k: v for k in STAT_KEYS if (v := values.get(k)) is not None and v == v}  # no NaN
    return {"source": source, "status": status, "reason": reason, "unit": unit or "",
            "n": n, "values": to_jsonable(kept), **extra}


def _estimate(source: str, cycles: dict | None) -> list[dict[str, Any]]:
    """An emulated board's estimated cycles of the same samples (records.md
    `cycles`), a figure of its own beside the instructions: unit `est.
    cycles`, `estimate` the model's own label; never judged, never a
    measurement."""
    if not isinstance(cycles, dict) or cycles.get("status", "ok") != "ok":
        return []
    return [_figure(source, "ok", cycles.get("unit") or "est. cycles", cycles, cycles.get("n"),
                    estimate=str(cycles.get("label") or "est. cycles: a model's estimate"))]


# ---- run against run ----

def of_runs(cmp: RunComparison, gate: tuple[str, ...], text: str, exit_status: int
            ) -> dict[str, Any]:
    names = [run_entry(r)["name"] for r in cmp.runs]
    regressions = {(r.id, r.profile, i, st) for r, i, st in cmp.regressions(gate)} \
        if gate else set()
    untested = {(r.id, r.profile, i, st) for r, i, st in cmp.untested(gate)} if gate else set()
    rows, summary = [], empty_summary(text, exit_status)
    statuses: dict[str, int] = {}
    for row in cmp.rows:
        figures = [f for i, c in enumerate(row.cells) for f in [_figure(
            names[i], c.status, c.unit, {"p50": c.p50, "p99": c.p99, "p999": c.p999,
                                         "max": c.max, "mean": c.mean}, c.n, c.reason),
            *_estimate(names[i], c.cycles)]]
        verdicts = []
        for i, cell in enumerate(row.cells[1:], start=1):
            if not cell.changes:
                verdicts.append({"run": names[i], "against": names[0], "statistic": None,
                                 "verdict": "not compared", "why": cell.why or cell.reason,
                                 "unit": cell.unit, "tested": False, "regression": False})
                statuses[cell.why or cell.status] = statuses.get(cell.why or cell.status, 0) + 1
                continue
            summary["compared"] += 1
            for st, ch in cell.changes.items():
                key = (row.id, row.profile, i, st)
                verdicts.append({
                    "run": names[i], "against": names[0], "statistic": st,
                    "base": to_jsonable(ch.base), "value": to_jsonable(ch.value),
                    "unit": cell.unit, "change_pct": to_jsonable(ch.change_pct),
                    "p_value": to_jsonable(ch.p_value), "p_adjusted": to_jsonable(ch.p_adjusted),
                    "verdict": ch.verdict, "why": ch.why,
                    # backed by a test, or an exact count (a board's instructions): only
                    # such a change can fail a gate; `regression`: it does (--fail-on)
                    "tested": ch.p_value is not None or cell.unit != "ns",
                    "regression": key in regressions})
                v = ch.verdict.replace(" ", "_")
                summary[v] = summary.get(v, 0) + 1
                summary["by_statistic"][st][v] = summary["by_statistic"][st].get(v, 0) + 1
        rows.append({"metric": row.id, "profile": row.profile, "title": row.title,
                     "figures": figures, "verdicts": verdicts})
    checked = [c for c in cmp.limits if c.passed is not None]
    summary.update(rows=len(rows), not_gated=len(untested), regressions=len(regressions),
                   limits_checked=len(checked), limits_failed=len(cmp.limit_failures),
                   statuses=statuses)
    summary["not_compared"] += sum(statuses.values())
    return _doc("runs", [run_entry(r) for r in cmp.runs], rows, summary,
                to_jsonable(cmp), fail_on=gate, threshold_pct=cmp.threshold_pct)


# ---- the modes that put figures side by side without a verdict ----

def _count(rows: list[dict], text: str, exit_status: int) -> dict[str, Any]:
    summary = empty_summary(text, exit_status)
    statuses: dict[str, int] = {}
    for r in rows:
        key = " / ".join(f"{f['status']}" for f in r["figures"])
        statuses[key] = statuses.get(key, 0) + 1
    summary.update(rows=len(rows), statuses=statuses)
    return summary


def of_reference(cmp, text: str) -> dict[str, Any]:
    """A run beside a vendor's sheet: our figure, then each variant's published one."""
    name = run_entry(cmp.run)["name"]
    rows = []
    for r in cmp.rows:
        ours = ({r.ours_stat: r.ours_count} if r.ours_count is not None else
                {r.ours_stat: r.ours_ns} if r.ours_ns is not None else {})
        unit = r.ours_unit or ("ns" if r.ours_ns is not None else "")
        figures = [_figure(name, r.ours_status, unit, ours, reason=r.ours_reason,
                           statistic=r.ours_stat or None)]
        for variant, cell in zip(cmp.variants, r.cells):
            if cell is None:
                continue
            # the published figure as a time where its clock is known, else in cycles;
            # a sheet that does not say which statistic it printed: "unstated"
            unit, value = (("ns", cell.time_ns) if cell.time_ns is not None else
                           ("cycles", cell.cycles) if cell.cycles is not None else ("", None))
            where = variant.platform
            for x in (variant.clock_mhz and f"{variant.clock_mhz} MHz", variant.mode,
                      variant.config):
                where += f" {x}" if x and x not in where else ""
            figures.append(_figure(
                f"{cmp.sheet.name}: {where}", "ok" if cell.figures else "none", unit,
                {r.their_stat: value}, statistic=r.their_stat,
                printed=[f"{v} {u}" for v, u in cell.figures],
                ratio_time=to_jsonable(cell.ratio_time),
                ratio_cycles=to_jsonable(cell.ratio_cycles)))
        rows.append({"metric": r.id, "profile": r.profile, "title": r.title, "row": r.key,
                     "figures": figures, "verdicts": []})
    sheet = {"name": cmp.sheet.name, "title": cmp.sheet.title, "source": cmp.sheet.source}
    return _doc("reference", [run_entry(cmp.run)], rows, _count(rows, text, 0),
                to_jsonable(cmp), reference=sheet)


def of_peers(cmp, text: str) -> dict[str, Any]:
    """A run beside its peers (rt-tests, rtos-benchmark): ours, then the peer's."""
    name = run_entry(cmp.run)["name"]
    rows = [{"metric": r.id, "profile": None, "title": r.title, "peer": r.label,
             "figures": [_figure(name, r.ours_status, r.ours_unit, r.ours, r.ours_n),
                         _figure(r.program, r.peer_status, r.peer_unit, r.peer, r.peer_n,
                                 r.peer_reason)],
             "verdicts": []} for r in cmp.rows]
    return _doc("peers", [run_entry(r) for r in (cmp.run, *cmp.peers)], rows,
                _count(rows, text, 0), to_jsonable(cmp))


def of_kernels(sheet, text: str) -> dict[str, Any]:
    """Kernels side by side: a figure per kernel, its ratio to the row's fastest."""
    rows = []
    for section in sheet.sections:
        for r in section.rows:
            figures = [f for c, cell in zip(sheet.columns, r.cells) for f in [
                _figure(c.label, cell.status, cell.unit, cell.values, None, cell.reason,
                        ratio=to_jsonable(cell.ratio), statistic=r.stat,
                        unranked=cell.unranked), *_estimate(c.label, cell.cycles)]]
            rows.append({"metric": r.id, "profile": None, "title": r.title,
                         "section": section.name, "figures": figures, "verdicts": []})
    return _doc("kernels", [run_entry(c.run) | {"kernel": c.title} for c in sheet.columns],
                rows, _count(rows, text, 0), to_jsonable(sheet))


# ---- the same document as CSV (`compare --format csv`, `-o FILE.csv`) ----

CSV_SCHEMA = 1
CSV_COLUMNS = ("schema_version", "mode", "metric_id", "profile", "title", "source", "status",
               "reason", "statistic", "unit", "value", "estimate", "printed", "against",
               "base_value", "change_pct", "p_value", "p_adjusted", "verdict", "why", "tested",
               "regression")


def to_csv(doc: dict[str, Any]) -> str:
    """One line per metric, profile, side and statistic, as a spreadsheet
    filters it: the figure in `unit` (ns for a time, never counter ticks;
    a board's instructions), and on a later run's line its verdict against
    the first run; a side without a figure has one line with its status."""
    from rtbench.sheets.tabular import csv_text

    lines = []
    for row in doc["rows"]:
        base = {"schema_version": CSV_SCHEMA, "mode": doc["mode"], "metric_id": row["metric"],
                "profile": row["profile"], "title": row["title"]}
        judged = {(v["run"], v["statistic"]): v for v in row["verdicts"]}
        for fig in row["figures"]:
            side = {**base, "source": fig["source"], "status": fig["status"],
                    "reason": fig.get("reason"), "unit": fig["unit"],
                    "estimate": fig.get("estimate"),  # the model's label: no measurement
                    "printed": "; ".join(fig.get("printed") or ())}
            stats = list(fig["values"]) or [None]
            for st in stats:
                v = None if fig.get("estimate") else judged.get((fig["source"], st)) or (
                    judged.get((fig["source"], None)) if st is None else None)
                line = {**side, "statistic": st, "value": fig["values"].get(st) if st else None}
                if v is not None:
                    line.update(against=v["against"], base_value=v.get("base"),
                                change_pct=v.get("change_pct"), p_value=v.get("p_value"),
                                p_adjusted=v.get("p_adjusted"), verdict=v["verdict"],
                                why=v["why"], tested=v["tested"], regression=v["regression"])
                lines.append(line)
    return csv_text(CSV_COLUMNS, lines)
