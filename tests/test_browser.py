"""The HTML sheet in a real browser: Debian's headless Chromium driven by
Selenium through chromium-driver (both installed by
`RTBENCH_TEST_DEPS=1 ./scripts/setup.sh`). The page must render: title,
table rows, every histogram with a size, no console error, and no request
for anything outside the file (it is self-contained)."""

import os
import re
import shutil

import pytest

from rtbench.sheets import datasheet as report
from rtbench.store import catalog
from synth import full_run

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER),
                                reason="needs chromium and chromium-driver "
                                       "(RTBENCH_TEST_DEPS=1 ./scripts/setup.sh)")


@pytest.fixture
def browser(monkeypatch, tmp_path_factory):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    monkeypatch.setenv("SE_AVOID_STATS", "true")  # Selenium Manager: no telemetry
    # Chromium keeps its profile and its singleton socket directory
    # (org.chromium.Chromium.*) in TMPDIR and leaves the latter behind on quit:
    # give it pytest's own temporary directory so a test run leaves nothing in /tmp.
    monkeypatch.setenv("TMPDIR", str(tmp_path_factory.mktemp("chromium")))
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,1600",
                "--hide-scrollbars", "--disable-dev-shm-usage"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


def test_sheet_renders_in_chromium(browser, tmp_path):
    from PIL import Image
    from selenium.webdriver.common.by import By

    cat = catalog.load()
    run = full_run(cat.ids, profiles=("rt", "cold"), scale=10)
    page = tmp_path / "datasheet.html"
    page.write_text(report.render_html(run, cat), encoding="utf-8")
    browser.get(page.as_uri())

    assert browser.title == "rtbench data sheet — Linux 6.1.0-rt on Test CPU 3000"
    rows = browser.find_elements(By.CSS_SELECTOR, "table.results tbody tr")
    assert len(rows) == len(cat.ids)
    svgs = browser.find_elements(By.CSS_SELECTOR, "figure:not(.curve) svg")
    assert len(svgs) == len(cat.ids)
    # the System part's curves (lat_mem_rd): one plot per series, laid out
    curves = browser.find_elements(By.CSS_SELECTOR, "figure.curve svg")
    assert len(curves) == len({m.curve["series"] for m in cat.metrics if m.curve}) >= 1
    assert all(c.size["width"] > 200 and c.size["height"] > 40 for c in curves)
    for svg in svgs[:20]:
        assert svg.size["width"] > 200 and svg.size["height"] > 40
    # Tick labels are laid out by the browser: they must have a size too.
    label = browser.find_element(By.CSS_SELECTOR, "figure svg text")
    assert label.size["width"] > 5
    # Self-contained: the page loaded no resource besides itself.
    assert browser.execute_script(
        "return performance.getEntriesByType('resource').length") == 0
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == []

    shot = tmp_path / "sheet.png"
    assert browser.save_screenshot(str(shot))
    with Image.open(shot) as img:
        assert img.size[0] >= 1200
        # Not a blank page: text, table stripes and plot colours.
        assert img.convert("RGB").getcolors(maxcolors=64) is None
    if os.environ.get("RTBENCH_KEEP_SCREENSHOT"):
        shutil.copy(shot, os.environ["RTBENCH_KEEP_SCREENSHOT"])


def _board_run(cat):
    """A FreeRTOS-like run on the emulated board: counts in instructions."""
    ids = [i for i in cat.ids if not i.startswith("sys.")]
    r = full_run(ids, seed=3)
    for rec in r.metrics:
        rec["unit"] = "instructions"
        rec.pop("tick_hz", None)
        rec["hist"]["offset"] = 0
    r.host = {"target": "mps2-an385", "target_kind": "emulator", "os": "FreeRTOS",
              "kernel_version": "V11.3.0", "board": "Arm MPS2 AN385", "cpu_model": "Cortex-M3",
              "emulator": "QEMU 7.2", "icount": "shift=7"}
    r.session["ts"].update(unit="instructions", hz_measured=0, resolution=1,
                           overhead_min=10, overhead_median=10)
    r.session["target"] = {"kernel": "FreeRTOS V11.3.0", "tick_hz": "1000", "preemption": "on",
                           "asserts": "off"}
    return r


def _first_screen(browser, page, height=900):
    from selenium.webdriver.common.by import By

    browser.set_window_size(1280, height)
    browser.get(page.as_uri())
    fold = browser.execute_script("return window.innerHeight")

    def above_fold(css):
        els = browser.find_elements(By.CSS_SELECTOR, css)
        return [e for e in els if e.is_displayed() and e.location["y"] < fold]
    return above_fold


def test_first_page_in_chromium(browser, tmp_path):
    """The sheet opens on what an engineer opens it for: the key figures in
    the vendors' order, the worst cases and the condition badges, all on
    the first screen; the glossary is folded away."""
    from selenium.webdriver.common.by import By

    cat = catalog.load()
    run = full_run(cat.ids, scale=10)
    run.host.update(hypervisor="KVM (kvm-clock clocksource)", preemption="PREEMPT_DYNAMIC",
                    isolated_cpus={"isolated": "", "nohz_full": None},
                    load_before=[3.5, 2.0, 1.0], load_after=[3.9, 2.2, 1.1],
                    others_cpu_pct=40.0, rt_throttling="950000 µs of every 1000000 µs")
    page = tmp_path / "datasheet.html"
    page.write_text(report.render_html(run, cat), encoding="utf-8")
    above = _first_screen(browser, page)

    # the key figures, in the catalogue's first-page order, with numbers
    groups = [e.text for e in above("table.key tr.group th")]
    assert groups[:2] == [g for g, _ids in cat.first_page][:2]
    first = browser.find_elements(By.CSS_SELECTOR, "table.key tbody tr:not(.group)")
    assert first[0].text.startswith(cat.get(cat.first_page[0][1][0]).title)
    assert re.search(r"\d+\.\d+", first[0].text)
    assert len(above("table.key tbody tr")) >= 8
    # the badges: not real-time conditions called out, in red
    badges = {e.text for e in above("ul.badges li.badge")}
    assert "✓ Real-time policy: SCHED_FIFO granted" in badges
    assert "✗ Preemption: not PREEMPT_RT (PREEMPT_DYNAMIC)" in badges
    assert "✗ Machine: virtual machine" in badges
    assert "✗ Isolated CPUs: none" in badges
    assert "✗ Load: 3.5 → 3.9" in badges
    assert "! RT throttling: on" in badges
    assert {"✓ null measurement: pass", "✓ busy-wait: pass"} <= badges or any(
        "null measurement" in b for b in badges)
    bad = browser.find_elements(By.CSS_SELECTOR, "li.badge.bad")
    assert {b.value_of_css_property("border-color") for b in bad} == {"rgb(229, 83, 75)"}
    # the worst cases: the largest maxima, with links to their histograms
    worst = above("table.worst tbody tr")
    assert len(worst) >= 5
    link = worst[0].find_element(By.CSS_SELECTOR, "a").get_attribute("href")
    assert browser.find_element(By.ID, link.split("#", 1)[1]).tag_name == "figure"
    # warnings with advice, on the first screen too
    advice = above("ul.advice li")
    assert any("virtual machine" in a.text and "bare metal" in a.text for a in advice)
    assert any("machine was busy" in a.text for a in advice)
    # the glossary is a section the reader opens, not pages to scroll past
    glossary = browser.find_element(By.ID, "glossary")
    assert glossary.tag_name == "details" and glossary.get_attribute("open") is None
    assert not browser.find_element(By.CSS_SELECTOR, "#glossary dl.defs").is_displayed()

    shot = tmp_path / "first.png"
    assert browser.save_screenshot(str(shot))
    if os.environ.get("RTBENCH_KEEP_FIRST_SCREEN"):
        shutil.copy(shot, os.environ["RTBENCH_KEEP_FIRST_SCREEN"])


def test_first_page_of_a_board_run_is_in_its_unit(browser, tmp_path):
    cat = catalog.load()
    page = tmp_path / "datasheet.html"
    page.write_text(report.render_html(_board_run(cat), cat), encoding="utf-8")
    above = _first_screen(browser, page)
    heading = above("h2#key-figures")[0].text
    assert heading == "Key figures (instructions)"
    first = above("table.key tbody tr:not(.group)")[0].text
    assert re.fullmatch(r"Interrupt response [\d,]+ [\d,]+ [\d,]+ \d+", first)  # whole counts
    badges = {e.text for e in above("ul.badges li.badge")}
    assert {"○ Target: emulated", "○ Unit: instructions", "✓ Asserts: off",
            "○ Tick: 1000 Hz"} <= badges
    assert not any("PREEMPT_RT" in b or "Machine" in b for b in badges)


def test_console_errors_would_be_caught(browser, tmp_path):
    """The console check above is not vacuous: a page with an error shows one."""
    page = tmp_path / "broken.html"
    page.write_text("<!doctype html><title>x</title><script>undefinedFunction()</script>")
    browser.get(page.as_uri())
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors and "undefinedFunction" in errors[0]["message"]


def test_kernel_sheet_renders_in_chromium(browser, tmp_path):
    """The kernel comparison sheet: a column group per kernel, the
    configuration side by side, a plot per section with both kernels, the
    Thread-Metric table; self-contained and without console errors."""
    from PIL import Image
    from selenium.webdriver.common.by import By

    import synth
    from rtbench.compare import kernelpage
    from rtbench.compare import kernels as kernelsheet
    from rtbench.sheets import system as sysreport

    cat = catalog.load()
    ids = [m.id for m in cat.metrics if not sysreport.is_system(m.service)]
    fr = synth.board_run(ids, "freertos", run_id=1)
    tx = synth.board_run(ids, "threadx", seed=2, scale=0.6, run_id=2,
                         unsupported={"pipe.write.frame": "ThreadX has no byte pipe"})
    linked = {2: [synth.thread_metric_run({"cooperative_scheduling": 118231,
                                           "basic_processing": 952}, "ThreadX 6.4.2", 3, 2)],
              1: [synth.thread_metric_run({"cooperative_scheduling": 134542,
                                           "basic_processing": 952}, "FreeRTOS V11.3.0", 4, 1)]}
    sheet = kernelsheet.build([fr, tx], cat, linked)
    page = tmp_path / "kernels.html"
    page.write_text(kernelpage.render(sheet, "html"), encoding="utf-8")
    browser.get(page.as_uri())

    assert browser.title == "rtbench kernel comparison — FreeRTOS V11.3.0 · ThreadX 6.4.2"
    # a row per metric and kernel, stacked under the metric (every kernel on screen)
    kernels = [td.text for td in browser.find_elements(
        By.CSS_SELECTOR, "table.results tbody tr td:nth-child(3)")]
    assert kernels[:2] == ["FreeRTOS (instr)", "ThreadX (instr)"]
    rows = browser.find_elements(By.CSS_SELECTOR, "table.results tbody tr.first")
    assert len(rows) == len(ids)
    config = browser.find_elements(By.CSS_SELECTOR, "table.kernels tbody tr")
    assert len(config) == len(sheet.config)
    plots = browser.find_elements(By.CSS_SELECTOR, "figure.kplot svg")
    assert len(plots) == len(sheet.sections)
    assert all(p.size["width"] > 300 and p.size["height"] > 40 for p in plots[:10])
    legend = plots[0].find_elements(By.CSS_SELECTOR, "text")
    assert any("ThreadX" in t.text for t in legend)  # both kernels named in each plot
    peers = browser.find_elements(By.CSS_SELECTOR, "table.peers tbody tr")
    assert len(peers) == len(sheet.peer_rows) >= 2
    assert browser.execute_script(
        "return performance.getEntriesByType('resource').length") == 0
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == []
    shot = tmp_path / "kernels.png"
    assert browser.save_screenshot(str(shot))
    with Image.open(shot) as img:
        assert img.convert("RGB").getcolors(maxcolors=64) is None


def test_kernel_sheet_first_screen_is_the_key_table(browser, tmp_path):
    """The kernel comparison opens on its verdict: in the first 1,000 px of
    the page, the key rows by title with each kernel's median, p99.9, max
    and ratio to the row's fastest; the configuration tables come after."""
    from selenium.webdriver.common.by import By

    import synth
    from rtbench.compare import kernelpage
    from rtbench.compare import kernels as kernelsheet
    from rtbench.sheets import system as sysreport

    cat = catalog.load()
    ids = [m.id for m in cat.metrics if not sysreport.is_system(m.service)]
    runs = [synth.board_run(ids, "freertos", run_id=1),
            synth.board_run(ids, "threadx", seed=2, scale=0.6, run_id=2)]
    sheet = kernelsheet.build(runs, cat, {})
    page = tmp_path / "kernels.html"
    page.write_text(kernelpage.render(sheet, "html"), encoding="utf-8")
    above = _first_screen(browser, page, height=1000)

    assert [e.text for e in above("h2#key-rows")] == ["Key rows (instructions)"]
    kernels = [e.text for e in above("table.kernel-key thead th.group")]
    assert kernels == [c.short for c in sheet.columns]
    heads = [e.text for e in above("table.kernel-key thead tr:last-child th")]
    assert heads == ["metric", *["median", "p99.9", "max", "× fastest"] * len(sheet.columns)]
    groups = [e.text for e in above("table.kernel-key tr.group th")]
    assert groups[:2] == [g.name for g in sheet.key][:2]
    rows = above("table.kernel-key tbody tr:not(.group)")
    assert len(rows) >= 8
    first = sheet.key[0].rows[0]
    cells = [td.text for td in rows[0].find_elements(By.CSS_SELECTOR, "td")]
    assert cells == [first.title, *[x for c in first.cells for x in (
        kernelpage.fmt(c.fig("p50"), c.unit), kernelpage.fmt(c.fig("p999"), c.unit),
        kernelpage.fmt(c.fig("max"), c.unit), kernelpage.fmt_ratio(c.ratio))]]
    # the whole key table: its last row above the fold, the configuration below it
    bottom, fold = browser.execute_script(
        "return [document.querySelector('table.kernel-key').getBoundingClientRect().bottom,"
        " window.innerHeight]")
    assert bottom <= fold
    assert not above("table.kernels") and not above("h2#configuration")
