"""The cycle model against a cycle counter: an emulated run's estimated
cycles (docs/cycles.md) beside a run of the same image on silicon measured
in cycles (DWT CYCCNT), model ÷ measured per row.

Both runs state what they are, so nothing here is guessed: the emulated
run's records carry `cycles` (the model's median and its range), the
silicon run's records are in the unit `cycles` (a counter of the core's
clock, net of its own stamp overhead as the harness calibrated it), and
each run names its image (`image_sha256`). A calibration is only said to
be one when both ran the same image; otherwise the section says what it
sets side by side. A ratio below 1 is a model that under-counts the chip
(flash wait states, bus contention: docs/cycles.md says what it leaves
out); a measured median inside the model's [lo, hi] is a row the model's
own uncertainty covers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from rtbench.sheets.pages import Page, Table
from rtbench.store.db import Run, Store
from rtbench.store.records import MetricRecord, Session

MEASURED_UNIT = "cycles"  # a record's unit when a cycle counter measured it


@dataclass(frozen=True)
class Row:
    id: str
    profile: str
    instructions: float  # the emulated run's median, guest instructions
    est: float           # the model's median estimate, cycles
    lo: float            # the model's range of that median
    hi: float
    measured: float      # the counter's median on silicon, cycles

    @property
    def ratio(self) -> float:
        return self.est / self.measured

    @property
    def covered(self) -> bool:
        """The measured median lies inside the model's own range."""
        return self.lo <= self.measured <= self.hi


@dataclass
class Calibration:
    emulated: Run
    measured: Run
    rows: list[Row] = field(default_factory=list)
    left_out: list[tuple[str, str]] = field(default_factory=list)  # (id, why)

    @property
    def same_image(self) -> bool:
        a, b = _image(self.emulated), _image(self.measured)
        return bool(a) and a == b

    @property
    def geomean(self) -> float | None:
        usable = [r.ratio for r in self.rows if r.ratio > 0]
        return math.exp(sum(map(math.log, usable)) / len(usable)) if usable else None

    @property
    def covered(self) -> int:
        return sum(r.covered for r in self.rows)


def _image(run: Run) -> str:
    return str(run.host.get("image_sha256") or "")


def is_estimated(run: Run) -> bool:
    """Some record carries the cycle model's estimate (an emulated board run)."""
    return any(MetricRecord(r).cycles for r in run.metrics)


def is_measured(run: Run) -> bool:
    """Some ok record was counted in core cycles by a counter on a chip
    (not an emulator: QEMU's DWT does not count)."""
    return (run.host.get("target_kind") != "emulator"
            and any(r.get("status") == "ok" and r.get("unit") == MEASURED_UNIT
                    for r in run.metrics))


def pair(runs: list[Run]) -> Calibration | None:
    """The calibration two runs make (one estimated, one measured, in
    either order), or None."""
    if len(runs) != 2:
        return None
    for emulated, measured in (runs, runs[::-1]):
        if is_estimated(emulated) and is_measured(measured):
            return calibrate(emulated, measured)
    return None


def calibrate(emulated: Run, measured: Run) -> Calibration:
    """Model ÷ measured for every row both runs measured (same id and profile)."""
    cal = Calibration(emulated, measured)
    counted = {(r.get("id"), r.get("profile")): r for r in measured.metrics
               if r.get("status") == "ok"}
    for rec in emulated.metrics:
        key = (rec.get("id"), rec.get("profile"))
        if rec.get("status") != "ok" or key not in counted:
            continue
        c, other = MetricRecord(rec).cycles, counted[key]
        if not c:
            cal.left_out.append((key[0], "no estimate: " + _why_not(rec)))
        elif other.get("unit") != MEASURED_UNIT:
            cal.left_out.append((key[0], f"measured in {other.get('unit')}, not cycles"))
        elif rec.get("ops", 1) != other.get("ops", 1):  # the windows hold different batches
            cal.left_out.append((key[0], f"{rec.get('ops', 1)} calls per window emulated, "
                                         f"{other.get('ops', 1)} measured"))
        elif not other.get("p50"):
            cal.left_out.append((key[0], "a measured median of 0 cycles takes no ratio"))
        else:
            cal.rows.append(Row(key[0], key[1], float(rec["p50"]), float(c["p50"]),
                                float(c["p50_lo"]), float(c["p50_hi"]), float(other["p50"])))
    return cal


def _why_not(rec: dict) -> str:
    c = rec.get("cycles") or {}
    return str(c.get("reason") or c.get("status") or "the run was made --no-cycles")


def find(store: Store, run: Run) -> list[Calibration]:
    """The calibrations stored for an emulated run: every run of the same
    image measured in cycles on a chip, newest first."""
    sha = _image(run)
    if not sha or not is_estimated(run):
        return []
    twins = [store.get_run(r.id) for r in reversed(store.list_runs())
             if r.id != run.id and _image(r) == sha and r.host.get("target_kind") != "emulator"]
    return [calibrate(run, t) for t in twins if is_measured(t)]


# ---- renderings ----

def heading(cal: Calibration) -> str:
    m = cal.measured
    counter = (m.host.get("counter") or Session(m.session or {}).ts.get("source")
               or "cycle counter")
    return (f"The cycle model against measured cycles: run {cal.emulated.id} "
            f"(emulated, est. cycles) ÷ run {m.id} "
            f"({m.host.get('board') or m.host.get('target', 'a board')}, {counter})")


def summary(cal: Calibration) -> str:
    if not cal.rows:
        return "No row was measured by both runs with an estimate and a cycle count."
    g = cal.geomean
    lo, hi = min(r.ratio for r in cal.rows), max(r.ratio for r in cal.rows)
    same = ("Both ran the same image (sha256 " + _image(cal.emulated)[:12] + "…)."
            if cal.same_image else
            "The runs did not run one image (their image_sha256 differ or are unknown): this "
            "sets two builds side by side and calibrates nothing.")
    return (f"{same} Model ÷ measured over {len(cal.rows)} rows: geometric mean "
            f"×{g:.2f}, from ×{lo:.2f} to ×{hi:.2f}; the measured median lies inside the "
            f"model's own [lo, hi] in {cal.covered} of {len(cal.rows)}. Below 1 the model "
            "counts fewer cycles than the chip spent (flash wait states, bus contention and "
            "what else docs/cycles.md says it leaves out); the range is the model's "
            "uncertainty, not a spread.")


def table(cal: Calibration) -> Table:
    rows = [[r.id + (f" [{r.profile}]" if r.profile not in ("", "rt") else ""),
             f"{r.instructions:,.0f}", f"{r.est:,.0f} [{r.lo:,.0f}, {r.hi:,.0f}]",
             f"{r.measured:,.0f}",
             f"×{r.ratio:.2f} [{r.lo / r.measured:.2f}, {r.hi / r.measured:.2f}]",
             "yes" if r.covered else "no"] for r in cal.rows]
    return Table(["metric", "median instr (emulated)", "median est. cycles [lo, hi]",
                  "median measured cycles", "model ÷ measured [lo, hi]", "inside [lo, hi]"],
                 rows, align="lrrrrl")


def add_to(page: Page, cal: Calibration) -> None:
    page.h2(heading(cal))
    page.p(summary(cal))
    if cal.rows:
        page.table(table(cal))
    if cal.left_out:
        page.bullets([f"{i}: {why}" for i, why in cal.left_out])


def model(cals: list[Calibration]) -> dict | None:
    """The emulated run's sheet section (both templates lay it out): the
    newest calibration in full, the others named."""
    if not cals:
        return None
    cal = cals[0]
    t = table(cal)
    return {"heading": heading(cal), "summary": summary(cal), "headers": t.headers,
            "rows": t.rows, "left_out": cal.left_out,
            "older": [c.measured.id for c in cals[1:]]}


def jsonable(cal: Calibration) -> dict:
    return {"emulated_run": cal.emulated.id, "measured_run": cal.measured.id,
            "same_image": cal.same_image, "geomean_model_over_measured": cal.geomean,
            "covered": cal.covered,
            "rows": [{"id": r.id, "profile": r.profile, "instructions": r.instructions,
                      "est_cycles": r.est, "est_lo": r.lo, "est_hi": r.hi,
                      "measured_cycles": r.measured, "model_over_measured": r.ratio}
                     for r in cal.rows],
            "left_out": [{"id": i, "why": w} for i, w in cal.left_out]}
