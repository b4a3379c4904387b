"""The System part of the sheet: units per cell, bandwidth from bytes, curves."""

import numpy as np
import pytest

from rtbench.sheets import advice, datasheet as report, system as sysreport
from rtbench.store.catalog import Catalog, Metric

import synth


def _meta(mid, service, unit="time", curve=None):
    return Metric(mid, service, f"title of {mid}", "def", "start", "stop", unit, curve=curve)


def _catalog():
    return Catalog(
        services=("Semaphores", "System: bandwidth", "System: memory latency"),
        metrics=(
            _meta("sem.give.no_waiter", "Semaphores"),
            _meta("sys.bw.mem.rd.1m", "System: bandwidth", "bandwidth"),
            _meta("sys.bw.imported", "System: bandwidth", "bandwidth"),
            *(_meta(f"sys.memlat.s128.{k}k", "System: memory latency",
                    curve={"series": "lat_mem_rd stride=128", "x": k * 1024, "x_unit": "bytes"})
              for k in (16, 64, 2048)),
        ))


def _run():
    rng = np.random.default_rng(3)
    bw = synth.record("sys.bw.mem.rd.1m", synth.latency(rng, 260_000))  # 100 µs per pass
    bw.update(ops=1, bytes=1_000_000)
    imported = {"type": "metric", "id": "sys.bw.imported", "status": "ok", "unit": "MB/s",
                "origin": "import", "stats_given": ["mean"], "mean": 1234.5,
                "source": {"tool": "lmbench bw_mem"}}
    lat = []
    for k, med in ((16, 10_400), (64, 26_000), (2048, 260_000)):  # 1000 loads per sample
        r = synth.record(f"sys.memlat.s128.{k}k", synth.latency(rng, med))
        r.update(ops=1000, bytes=0)
        lat.append(r)
    host = {"os": "Linux", "kernel_release": "6.1", "cpu_model": "Test", "cores_online": 2,
            "caches": [{"level": 1, "type": "Data", "size": 32768},
                       {"level": 2, "type": "Unified", "size": 1 << 20}]}
    return synth.run([synth.record("sem.give.no_waiter", synth.latency(rng, 52)), bw,
                      imported, *lat], host=host)


def test_bandwidth_is_bytes_over_the_sample_time():
    run = _run()
    bw = next(r for r in run.metrics if r["id"] == "sys.bw.mem.rd.1m")
    ns = bw["p50"] * 1e9 / bw["tick_hz"]
    assert sysreport.mb_per_s(bw, "p50") == pytest.approx(1e6 / ns * 1e3)
    # the worst bandwidth comes from the slowest sample
    assert sysreport.mb_per_s(bw, "max") < sysreport.mb_per_s(bw, "p50")


def test_times_are_per_operation_and_absent_statistics_stay_absent():
    run = _run()
    lat = next(r for r in run.metrics if r["id"] == "sys.memlat.s128.16k")
    cells = sysreport.figures(lat, 1.0)  # in a table whose unit is ns (the header says it)
    assert float(cells["p50"]) == pytest.approx(
        lat["p50"] * 1e9 / lat["tick_hz"] / 1000, abs=1e-3)
    imported = next(r for r in run.metrics if r["id"] == "sys.bw.imported")
    cells = sysreport.figures(imported)
    assert cells["rate"] == "1,234 (mean)" or cells["rate"].startswith("1,23")
    assert {cells[k] for k in ("min", "p50", "p99", "max", "rate_worst", "n")} == {"—"}


def test_sheet_has_a_system_part_with_the_curve_and_cache_marks():
    run, cat = _run(), _catalog()
    md = report.render_markdown(run, cat)
    assert md.index("## System") > md.index("### Semaphores")
    assert "MB/s at median" in md
    html = report.render_html(run, cat)
    assert '<h2 id="system">System</h2>' in html
    assert "lat_mem_rd stride=128" in html and "L1 32 KiB" in html
    flat = advice.resolution_rows(advice.Facts(run))  # their values are said, not drawn
    assert html.count("<svg") >= 1 + len(run.metrics) - 1 - len(flat)  # the curve + histograms


def test_ti_rows_line_up_in_their_units():
    """`compare --ref ti-am654x`: a bandwidth against MB/s (ratio theirs/ours, so
    above 1 still means slower), a per-load latency against ns."""
    from rtbench import compare
    from rtbench.compare import views
    from rtbench.store import reference

    cat = Catalog(
        services=("System: bandwidth", "System: memory latency"),
        metrics=(
            Metric("sys.bw.mem.rd.1m", "System: bandwidth", "t", "d", "a", "b", "bandwidth",
                   vendor={"ti": ("bw_mem-rd-1mb",)}),
            Metric("sys.memlat.s128.16k", "System: memory latency", "t", "d", "a", "b", "time",
                   vendor={"ti": ("lat_mem_rd-stride128-sz31k",)}),
        ))
    cmp = compare.compare_reference(_run(), reference.get("ti-am654x"), cat)
    rows = {r.id: r for r in cmp.rows}
    bw = rows["sys.bw.mem.rd.1m"]
    cell = bw.cells[0]
    assert cell.mb_s == pytest.approx(3319.10)
    assert cell.ratio_time == pytest.approx(3319.10 / bw.ours_mb_s)
    lat = rows["sys.memlat.s128.16k"]
    assert lat.ours_ns == pytest.approx(4.0, rel=0.05)  # 10 400 ticks / 1000 loads at 2.6 GHz
    assert lat.ours_cycles == pytest.approx(10.4, rel=0.05)
    assert lat.cells[0].ratio_time == pytest.approx(lat.ours_ns / 6.39)
    text = views.ref_comparison(cmp)
    assert text is not None
