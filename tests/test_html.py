"""The HTML data sheet: self-contained, one histogram per measured metric,
profiles side by side, glossary from the catalogue; the plot helpers."""

import re

import numpy as np
import pytest

from rtbench.sheets import advice, datasheet as report, plots
from rtbench.store import catalog, stats
from synth import full_run, record, run


@pytest.fixture(scope="module")
def cat():
    return catalog.load()


def test_full_sheet_is_self_contained(cat):
    ids = cat.ids
    r = full_run(ids)
    r.metrics[1] = {"type": "metric", "id": ids[1], "status": "unsupported",
                    "reason": "the port lacks it", "n": 0, "profile": "rt"}
    html = report.render_html(r, cat)
    assert html.startswith("<!doctype html>")
    assert "<title>rtbench data sheet — Linux 6.1.0-rt on Test CPU 3000</title>" in html
    # Nothing is fetched at view time: no script, no external URL in src/href.
    assert "<script" not in html
    assert not re.search(r'(src|href)="(https?:)?//', html)
    assert "@import" not in html and "url(http" not in html
    # One histogram per measured metric plus one plot per curve series, unique
    # ids; rows at the counter's resolution say their values instead.
    series = {m.curve["series"] for m in cat.metrics if m.curve}
    flat = set(advice.resolution_rows(advice.Facts(r))) - {ids[1]}
    assert flat and html.count("resolution, so no histogram") == len(flat)
    assert html.count("<svg") == len(ids) - 1 - len(flat) + len(series)
    ids_attr = re.findall(r' id="([^"]+)"', html)
    assert len(ids_attr) == len(set(ids_attr))
    for service in {m.service for m in cat.metrics}:
        assert f">{service}</h3>" in html or f">{service.replace('&', '&amp;')}</h3>" in html
    assert f"<code>{ids[1]}</code> — the port lacks it." in html  # one line, no row
    # The glossary is built from the catalogue's definitions, folded away.
    m = cat.metrics[0]
    assert f'<dt id="d-{m.id}">' in html and "Clock starts:" in html
    assert '<details id="glossary">' in html
    assert "median (p50), p99, p99.9" in html
    assert "which is not the CPU core clock" in html


def test_profiles_side_by_side(cat):
    ids = cat.ids[:4]
    r = full_run(ids, profiles=("default", "rt", "cold"), scale=10)
    html = report.render_html(r, cat)
    assert 'colspan="4"' in html  # one column group per profile
    for p in ("default", "rt", "cold"):
        assert f"</span>{p}</th>" in html
    assert html.count("<svg") == len(ids)  # the profiles share one histogram
    md = report.render_markdown(r, cat)
    assert "| default median ns |" in md and "| cold max ns |" in md


def test_profiles_are_described_by_their_own_records(cat):
    """The run keeps the first profile's session record; each profile's
    real-time status and placement come from its records."""
    ids = cat.ids[:3]
    r = full_run(ids, profiles=("default", "rt"))
    r.session["rt"].update(realtime=False, reason="--no-rt given", cpu=-1)
    for rec in r.metrics:
        if rec["profile"] == "default":
            rec.update(realtime=False, rt_reason="--no-rt given", placement="unpinned", cpu=-1)
    md = report.render_markdown(r, cat)
    assert "Not real-time" not in md  # the untuned profile is not real-time on purpose
    assert ("**Profiles:** default: not real-time (--no-rt given), unpinned; "
            "rt: real-time, pinned to CPU 1") in md
    assert "Scheduling policy granted (profile default)" in md
    assert "Placement and scheduling differ by profile: default: not real-time" in md
    assert "pinned to CPU -1" not in md
    assert "tasks on CPU" not in md and "tasks not pinned" not in md
    for rec in r.metrics:
        if rec["profile"] == "rt":
            rec.update(realtime=False, rt_reason="sched_setscheduler: EPERM")
    md = report.render_markdown(r, cat)
    assert "Not real-time in profile rt: sched_setscheduler: EPERM." in md


def test_negative_and_zero_samples_are_said_not_drawn(cat):
    r = run([record("method.null", [-26, 0, 0, 0, 26])])
    html = report.render_html(r, cat)
    assert "4 of 5 samples ≤ 0 ns, left of the log axis" in html
    r = run([record("method.null", [-26, 0, 0])])
    html = report.render_html(r, cat)
    assert "<svg" not in html and "no histogram" in html


def test_html_escapes_text(cat):
    r = run([record("method.null", [5, 6])], label="<b>&lab")
    html = report.render_html(r, cat)
    assert "&lt;b&gt;&amp;lab" in html and "<b>&lab" not in html


def test_log_ticks():
    assert plots.log_ticks(1, 1000) == [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000][::2]
    assert plots.log_ticks(900, 1100) == [900, 1000, 1100]  # narrow: linear steps
    ticks = plots.log_ticks(3, 3e7)
    assert 2 <= len(ticks) <= 6 and all(3 <= t <= 3e7 for t in ticks)


def test_fmt_time():
    assert plots.fmt_time(12) == "12 ns"
    assert plots.fmt_time(1500) == "1.5 µs"
    assert plots.fmt_time(2_000_000) == "2 ms"


def test_histogram_svg_is_small_and_tidy():
    rng = np.random.default_rng(0)
    g = stats.grouped(record("a", np.round(rng.lognormal(8, 0.3, 5000))))
    with plots.HistogramPlotter() as p:
        one = p.svg([plots.Series(g, {"p50": 3000.0, "p99": 5000.0, "max": 9000.0},
                                  plots.COLOURS[0])])
        two = p.svg([plots.Series(g, {}, plots.COLOURS[0])])
    assert one.startswith('<svg role="img"') and "<?xml" not in one
    assert "<metadata" not in one and 'width="' not in one.split(">")[0]
    assert len(one) < 12_000
    assert re.search(r"<text [^>]*>\d[^<]* (ns|µs)</text>", one)  # tick labels
    # Referenced ids are unique per plot; unreferenced ones are dropped.
    refs1 = set(re.findall(r'id="([^"]+)"', one))
    refs2 = set(re.findall(r'id="([^"]+)"', two))
    assert refs1 and not refs1 & refs2
    assert all(r.startswith("h1-") for r in refs1)
