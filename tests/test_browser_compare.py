"""The comparisons' HTML in a real browser (issue 34, item 11), at a
1280 px wide window: run against run (`compare A B -o x.html`) says its
verdict before its rows, colours a row by the verdicts a test backs (not
by a max one sample each decides) and shows every column; the kernel
comparison's tables and configuration fit, so no kernel's column hides
behind a sideways scroll."""

import numpy as np
import pytest

import synth
from rtbench.compare import compare_runs, kernelpage
from rtbench.compare import kernels as kernelsheet
from rtbench.compare import views as compare_views
from rtbench.sheets import system as sysreport
from rtbench.sheets.pages import render
from rtbench.store import catalog
from test_browser import CHROMIUM, DRIVER, browser  # noqa: F401 (the fixture)

pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER),
                                reason="needs chromium and chromium-driver "
                                       "(RTBENCH_TEST_DEPS=1 ./scripts/setup.sh)")
CAT = catalog.load()
WIDTH = 1280

# Every table's right edge, and every element that scrolls sideways by more
# than it shows (a table cut at the viewport, behind a scroll bar).
OVERFLOW_JS = """
const w = document.documentElement.clientWidth;
const wide = [...document.querySelectorAll('table')]
  .filter(t => t.getBoundingClientRect().right > w + 1)
  .map(t => (t.className || 'table') + ':' + Math.round(t.getBoundingClientRect().right));
const scrolled = [...document.querySelectorAll('*')]
  .filter(e => e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0
          && ['auto', 'scroll'].includes(getComputedStyle(e).overflowX))
  .map(e => e.tagName + '.' + e.className + ':' + e.scrollWidth + '>' + e.clientWidth);
return [wide, scrolled, document.documentElement.scrollWidth, w];
"""


def _open(browser, tmp_path, html: str, name: str):
    page = tmp_path / name
    page.write_text(html, encoding="utf-8")
    browser.set_window_size(WIDTH, 1000)
    browser.get(page.as_uri())


def _fits(browser):
    wide, scrolled, doc_width, width = browser.execute_script(OVERFLOW_JS)
    assert wide == [] and scrolled == [] and doc_width <= width, (wide, scrolled, doc_width)


def _pair():
    """Two runs of every kernel row; in the second, one metric's max alone is
    three times the first's (one sample each: no test), another's every
    sample 30 % slower (a tested slow-down)."""
    ids = [m.id for m in CAT.metrics if not sysreport.is_system(m.service)]
    a = synth.full_run(ids, seed=1, run_id=1)
    b = synth.full_run(ids, seed=1, run_id=2)
    for rec in b.metrics:
        if rec["id"] == "sem.give.no_waiter":
            rec["max"] = rec["max"] * 3
        if rec["id"] == "sched.yield.ctx.thread":
            rng = np.random.default_rng(9)
            b.metrics[b.metrics.index(rec)] = synth.record(
                rec["id"], synth.latency(rng, 1.3 * rec["p50"]), profile="rt")
    return a, b


def test_a_run_comparison_fits_1280_px_with_its_verdict_first(browser, tmp_path):
    from selenium.webdriver.common.by import By

    cmp = compare_runs(list(_pair()), CAT)
    html = render(compare_views.run_comparison(cmp, html=True), "html")
    _open(browser, tmp_path, html, "compare.html")
    _fits(browser)
    # the verdict and the summary come before the first row of the table
    verdict = browser.find_element(By.XPATH, "//h2[normalize-space()='Verdict']")
    first_row = browser.find_element(By.CSS_SELECTOR, "table tbody tr")
    summary = browser.find_element(By.XPATH, "//p[starts-with(normalize-space(), 'Summary:')]")
    assert verdict.location["y"] < first_row.location["y"]
    assert summary.location["y"] < first_row.location["y"]
    # each column's header is on screen, the p99.9 and the max included
    heads = browser.find_elements(By.CSS_SELECTOR, "table thead tr:last-child th")
    assert {"p99.9", "max"} <= {h.text for h in heads}
    assert all(h.rect["x"] + h.rect["width"] <= WIDTH for h in heads)
    # a row coloured by its tested verdicts: the untested max leaves it plain
    rows = {r.find_element(By.CSS_SELECTOR, "td").text: r.get_attribute("class") or ""
            for r in browser.find_elements(By.CSS_SELECTOR, "table tbody tr")}
    assert "bad" not in rows["sem.give.no_waiter"]
    assert "bad" in rows["sched.yield.ctx.thread"]


def test_the_kernel_comparison_fits_1280_px(browser, tmp_path):
    ids = [m.id for m in CAT.metrics if not sysreport.is_system(m.service)]
    runs = [synth.board_run(ids, "freertos", run_id=1),
            synth.board_run(ids, "threadx", seed=2, scale=0.6, run_id=2),
            synth.board_run(ids, "threadx", seed=3, scale=0.8, run_id=3)]
    runs[2].host["os"], runs[2].host["kernel_version"] = "Zephyr", "v4.2.0"
    runs[2].session["target"]["kernel"] = "Zephyr v4.2.0 (a long configuration note that " \
        "a real kernel's facts carry: CONFIG_TIMESLICING=n, CONFIG_ASSERT=n, heap 64 KiB)"
    sheet = kernelsheet.build(runs, CAT, {})
    _open(browser, tmp_path, kernelpage.render(sheet, "html"), "kernels.html")
    _fits(browser)
