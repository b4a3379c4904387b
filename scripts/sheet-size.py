#!/usr/bin/env python3
"""The length of a data sheet: the HTML's rendered height in headless
Chromium (at the 1280 px window the browser test uses) and the Markdown's
bytes, each with the share of its glossary/definitions.

usage: .venv/bin/python scripts/sheet-size.py DIR   (a folder `rtbench run` wrote)
"""

import shutil
import sys
from pathlib import Path


def html_height(path: Path) -> tuple[int, int]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,1600",
                "--hide-scrollbars", "--disable-dev-shm-usage"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    try:
        driver.get(path.resolve().as_uri())
        total = driver.execute_script("return document.documentElement.scrollHeight")
        glossary = driver.execute_script(
            "const g = document.getElementById('glossary');"
            "return g ? document.documentElement.scrollHeight - "
            "(g.getBoundingClientRect().top + window.scrollY) : 0")
    finally:
        driver.quit()
    return int(total), int(glossary)


def main() -> None:
    d = Path(sys.argv[1])
    md = (d / "datasheet.md").read_text(encoding="utf-8")
    cut = md.find("\n## Definitions")
    defs = len(md[cut:].encode()) if cut >= 0 else 0
    total, glossary = html_height(d / "datasheet.html")
    print(f"HTML height: {total} px ({glossary} px = {100 * glossary / total:.0f} % from the "
          f"glossary on)")
    print(f"Markdown: {len(md.encode())} bytes ({defs} = {100 * defs / len(md.encode()):.0f} % "
          "definitions)")
    print(f"HTML file: {(d / 'datasheet.html').stat().st_size} bytes")


if __name__ == "__main__":
    main()
