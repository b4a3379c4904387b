"""How the kernel comparison ranks a row (rtbench.compare.ranking): by the
statistic that defines it (the catalogue's `statistic`), by a difference
where the row is too small to rank, and not at all where a kernel's record
says `unranked`; the verdicts follow, and every rendering says so."""

import dataclasses
import json

import numpy as np
import pytest

import synth
from rtbench.compare import kernelpage, ranking
from rtbench.compare import kernels as kernelsheet
from rtbench.store import catalog

CAT = catalog.load()


def samples(median: int, worst: int, n: int = 500) -> np.ndarray:
    """n samples: the median most of the time, one sample at `worst`."""
    x = np.full(n, median)
    x[: n // 10] = median - 1
    x[-1] = worst
    return x


def kernels(figures: dict[str, tuple], unranked: dict[str, str] | None = None):
    """A FreeRTOS and a ThreadX run of these rows: id -> (FreeRTOS samples,
    ThreadX samples); `unranked`: id -> why, on FreeRTOS's record."""
    runs = []
    for k, kernel in enumerate(("freertos", "threadx")):
        run = synth.board_run([], kernel, run_id=k + 1)
        for mid, per_kernel in figures.items():
            rec = {**synth.count_record(mid, per_kernel[k]), "profile": "rt"}
            if k == 0 and unranked and mid in unranked:
                rec["unranked"] = unranked[mid]
            run.metrics.append(rec)
        runs.append(run)
    return runs


def rows(sheet):
    return {r.id: r for s in sheet.sections for r in s.rows}


def verdict(sheet, section):
    return next(v for v in sheet.verdicts if v.section == section)


# FreeRTOS keeps interrupts off longer (its max) though its usual response is
# shorter (its median): a latency bound is ranked by the max.
LATENCY = {"irq.kernel_latency": (samples(20, 213), samples(40, 102)),
           "sched.yield.ctx.thread": (samples(100, 900), samples(150, 400))}


def test_a_latency_bound_is_ranked_by_its_max_a_cost_by_its_median():
    assert CAT.get("irq.kernel_latency").statistic == "max"
    sheet = kernelsheet.build(kernels(LATENCY), CAT, {})
    lat, yld = rows(sheet)["irq.kernel_latency"], rows(sheet)["sched.yield.ctx.thread"]
    assert lat.statistic == "max" and yld.statistic == "median"
    fr, tx = lat.cells
    assert (fr.fig("p50"), tx.fig("p50")) == (20, 40)  # by the median FreeRTOS would win
    assert tx.ratio == 1.0 and fr.ratio == pytest.approx(213 / 102)
    fr, tx = yld.cells  # the same shape of samples, a cost: by the median
    assert fr.ratio == 1.0 and tx.ratio == pytest.approx(1.5)
    v = verdict(sheet, "Interrupts")
    assert v.order[0] == ("ThreadX", 1.0) and v.order[1][1] == pytest.approx(213 / 102)
    assert v.rows == 1 and v.by_max == 1 and "the max on 1 latency-bound row" in v.text()
    assert verdict(sheet, "Task context switches").order[0][0] == "FreeRTOS"
    # the same runs with the row defined by its median rank the other way
    median_cat = dataclasses.replace(CAT, metrics=tuple(
        dataclasses.replace(m, statistic="median") if m.id == "irq.kernel_latency" else m
        for m in CAT.metrics))
    by_median = kernelsheet.build(kernels(LATENCY), median_cat, {})
    fr, tx = rows(by_median)["irq.kernel_latency"].cells
    assert fr.ratio == 1.0 and tx.ratio == pytest.approx(2.0)
    assert verdict(by_median, "Interrupts").order[0][0] == "FreeRTOS"


def test_every_rendering_shows_the_statistic_p999_and_max_beside_the_median():
    sheet = kernelsheet.build(kernels(LATENCY), CAT, {})
    md = kernelpage.render(sheet, "md")
    key = md.split("## Key rows")[1].split("## Fastest")[0]
    fr = rows(sheet)["irq.kernel_latency"].cells[0]
    p999 = kernelpage.fmt(fr.fig("p999"), "instructions")
    assert (f"| Kernel interrupt latency (interrupts-off region), by max | 20 | {p999} | 213 "
            "| ×2.09 |") in key
    assert "| FreeRTOS median | FreeRTOS p99.9 | FreeRTOS max | FreeRTOS × fastest |" in key
    line = next(ln for ln in md.splitlines() if "| irq.kernel_latency |" in ln)
    assert "| irq.kernel_latency | max | 19 | 20 | " in line and "| ×2.09 |" in line
    html = kernelpage.render(sheet, "html")
    # a row per kernel under the metric (every kernel on a 1280 px page), its unit beside it
    assert "<th class=\"num\">p99.9</th>" in html and "FreeRTOS (instr)" in html
    assert "interrupts-off region) · irq.kernel_latency" in html
    data = json.loads(json.dumps(kernelsheet.to_jsonable(sheet)))
    row = next(r for s in data["sections"] for r in s["rows"] if r["id"] == "irq.kernel_latency")
    assert row["statistic"] == "max" and row["cells"][0]["values"]["p999"] == fr.fig("p999")
    assert row["cells"][0]["values"]["max"] == 213
    assert data["verdicts"][0]["by_max"] == 1


def test_a_row_too_small_to_rank_gets_a_difference_and_no_verdict():
    """Every figure under SMALL_STEPS instructions: "+2 instr.", no ratio,
    out of the section's verdict, which says so."""
    figures = {"sem.give.no_waiter": (np.full(50, 3), np.full(50, 5)),
               "sem.take.available": (np.full(50, 1000), np.full(50, 1001)),  # a tie: ranked
               "sem.create": (np.full(50, 300), np.full(50, 600))}
    sheet = kernelsheet.build(kernels(figures), CAT, {})
    small, tied, ranked = (rows(sheet)[i] for i in figures)
    assert [c.ratio for c in small.cells] == [None, None]
    assert [c.diff for c in small.cells] == [0, 2]
    assert small.small == {"instructions": "every figure under 10 counter steps"}
    assert [c.ratio for c in tied.cells] == [1.0, 1.001] and not tied.small
    assert [c.ratio for c in ranked.cells] == [1.0, 2.0] and not ranked.small
    v = verdict(sheet, "Semaphores")
    assert v.rows == 2 and v.small == 1
    assert v.order[1][0] == "ThreadX" and v.order[1][1] == pytest.approx((2 * 1.001) ** 0.5)
    assert "1 row too small to rank" in v.text()
    md = kernelpage.render(sheet, "md")
    line = next(ln for ln in md.splitlines() if "| sem.give.no_waiter |" in ln)
    assert "| +0 instr. |" in line and "| +2 instr. |" in line and "×" not in line
    assert "too small to rank in instr (every figure under 10 counter steps)" in line
    assert kernelpage.fmt_diff(0.5, "ns") == "+0.5 ns"


def test_the_step_of_a_time_counter_is_its_resolution():
    """On a counter of time the step is the session's resolution in ns:
    a TSC moving 26 ticks at 2.6 GHz steps 10 ns, so under 100 ns is too
    small to rank; per operation where a sample timed several."""
    rec = synth.record("sem.give.no_waiter", np.full(50, 130))  # 50 ns
    cell = kernelsheet._cell(rec, True, "p50", resolution=26)
    assert cell.step == pytest.approx(10.0) and cell.fig("p50") == pytest.approx(50.0)
    assert kernelsheet._cell({**rec, "ops": 4}, True, "p50", 26).step == pytest.approx(2.5)
    assert ranking.too_small([50.0, 90.0], [10.0, 10.0])
    assert not ranking.too_small([50.0, 120.0], [10.0, 10.0])
    assert ranking.too_small([0.0, 500.0], [1.0, 1.0]).startswith("a figure of 0")


UNRANKED = "the kernel adds nothing: the handler is the interrupt's vector"


def test_an_unranked_row_shows_its_figure_and_reason_and_stays_out_of_the_verdict():
    figures = {"irq.response": (np.full(50, 1), np.full(50, 9)),
               "irq.task_response.resched": (samples(300, 400), samples(200, 900)),
               "irq.return.different": (samples(150, 200), samples(100, 300))}
    sheet = kernelsheet.build(kernels(figures, {"irq.task_response.resched": UNRANKED}),
                              CAT, {})
    row = rows(sheet)["irq.task_response.resched"]
    fr, tx = row.cells
    assert fr.unranked == UNRANKED and fr.fig("p50") == 300  # shown, not ranked
    assert fr.ratio is None and fr.diff is None and tx.ratio is None  # alone: nothing to rank
    assert sheet.not_ranked == [(UNRANKED, ["FreeRTOS: irq.task_response.resched"])]
    v = verdict(sheet, "Interrupts")
    assert (v.rows, v.small, v.left_out_unranked) == (1, 1, 1)  # return.different alone ranks
    assert v.unranked == {"FreeRTOS": 1, "ThreadX": 0}
    assert [k for k, _r in v.order] == ["ThreadX", "FreeRTOS"]
    assert v.order[1][1] == pytest.approx(1.5)
    assert "1 row not ranked on a kernel (FreeRTOS 1" in v.text()
    for fmt in ("md", "html"):
        text = kernelpage.render(sheet, fmt)
        assert "not ranked [1]" in text.replace("\\[", "[").replace("\\]", "]")
        assert UNRANKED.replace("'", "&#39;" if fmt == "html" else "'") in text
        assert "Not ranked" in text
    md = kernelpage.render(sheet, "md")
    line = next(ln for ln in md.splitlines() if "| irq.task_response.resched |" in ln)
    assert "| 300 |" in line and f"FreeRTOS: not ranked: {UNRANKED}" in line
    assert "×" not in line
    data = json.loads(json.dumps(kernelsheet.to_jsonable(sheet)))
    cell = next(r for s in data["sections"] for r in s["rows"]
                if r["id"] == "irq.task_response.resched")["cells"][0]
    assert cell["unranked"] == UNRANKED and cell["ratio"] is None
    assert data["not_ranked"] == [[UNRANKED, ["FreeRTOS: irq.task_response.resched"]]]
    assert "FreeRTOS 3 measured (1 not ranked); ThreadX 3 measured" in \
        kernelsheet.summary_line(sheet)


def test_an_unranked_cell_leaves_the_others_ranked_among_themselves():
    """Three kernels, one unranked: the other two keep their ratio on the
    row, but the row leaves the verdict (it compares all three on the same
    rows)."""
    figures = {"sched.yield.ctx.thread": (samples(100, 200), samples(150, 300))}
    fr, tx = kernels(figures, {"sched.yield.ctx.thread": UNRANKED})
    zx = synth.board_run([], "threadx", run_id=3)
    zx.host["os"], zx.host["kernel_version"] = "Zephyr", "v4.2.0"
    zx.metrics.append({**synth.count_record("sched.yield.ctx.thread", samples(300, 400)),
                       "profile": "rt"})
    sheet = kernelsheet.build([fr, tx, zx], CAT, {})
    a, b, c = rows(sheet)["sched.yield.ctx.thread"].cells
    assert a.ratio is None and b.ratio == 1.0 and c.ratio == 2.0
    v = verdict(sheet, "Task context switches")
    assert v.rows == 0 and v.left_out_unranked == 1 and v.text().startswith(
        "Task context switches: no row to rank; 1 row not ranked on a kernel")
