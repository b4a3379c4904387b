"""Kernels in both kernel profiles side by side (docs/profiles.md): what a
shoot-out (`rtbench run --target mps2-an385 --kernel freertos,threadx,zephyr`)
prints after its comparison per profile.

* the key rows (the catalogue's first-page groups) with each kernel's median
  in each profile, side by side, so a reader sees what a vendor's speed
  settings change and whether the ranking holds in both;
* the compiler flags each image was built with, per profile;
* each kernel's settings per profile, with the value each image was
  compiled with, why and its source: read from the runs' own records
  (rtbench.store.kernel_profile), never from the data of the rtbench that
  prints them.
"""

from __future__ import annotations

from rtbench.sheets.pages import Page, Table
from rtbench.store import kernel_profile
from rtbench.store.catalog import Catalog
from rtbench.store.db import Run
from rtbench.store.records import MetricRecord, Session


def page(runs: dict[tuple[str, str], Run], catalog: Catalog) -> Page:
    """`runs`: (profile, kernel) -> its run, in the order to show."""
    profiles = list(dict.fromkeys(p for p, _k in runs))
    kernels = list(dict.fromkeys(k for _p, k in runs))
    p = Page("Kernel profiles side by side",
             "each kernel in each kernel profile (docs/profiles.md)")
    for name in profiles:
        means = next((kernel_profile.means(_facts(r)) for (q, _k), r in runs.items()
                      if q == name and kernel_profile.means(_facts(r))), "")
        p.p(f"**{name}**: {means}")
    _key_rows(p, runs, profiles, kernels, catalog)
    _flags(p, runs, profiles, kernels)
    for kernel in kernels:
        _settings(p, kernel, {q: runs[(q, kernel)] for q in profiles if (q, kernel) in runs})
    return p


def _facts(run: Run) -> dict:
    return Session(run.session or {}).target


def _title(run: Run, kernel: str) -> str:
    return _facts(run).get("kernel") or run.host.get("os") or kernel


def _key_rows(p: Page, runs, profiles: list[str], kernels: list[str], catalog: Catalog) -> None:
    cols = [(q, k) for k in kernels for q in profiles if (q, k) in runs]
    medians = {c: {m["id"]: MetricRecord(m) for m in runs[c].metrics} for c in cols}
    units = {r.unit for recs in medians.values() for r in recs.values() if r.ok}
    rows = []
    for _group, ids in catalog.first_page:
        for mid in ids:
            cells = []
            for c in cols:
                rec = medians[c].get(mid)
                cells.append(f"{rec.value('p50'):,.0f}" if rec is not None and rec.ok
                             else rec.status if rec is not None else "—")
            if any(cell[:1].isdigit() for cell in cells):
                metric = catalog.get(mid)
                rows.append([metric.title if metric else mid, mid, *cells])
    if not rows:
        return
    unit = ", ".join(sorted(units)) or "—"
    p.h2(f"Key rows in every profile (median, {unit})")
    p.table(Table(["metric", "id", *[f"{runs[c].host.get('os') or c[1]} {c[0]}" for c in cols]],
                  rows, "ll" + "r" * len(cols)))


def _flags(p: Page, runs, profiles: list[str], kernels: list[str]) -> None:
    rows = [[_title(next(r for (q, k2), r in runs.items() if k2 == k), k),
             *[(runs[(q, k)].session or {}).get("cflags", "—") if (q, k) in runs else "—"
               for q in profiles]] for k in kernels]
    p.h2("Compiler flags per profile")
    p.table(Table(["kernel", *profiles], rows))


def _settings(p: Page, kernel: str, runs: dict[str, Run]) -> None:
    """One kernel's settings, a row per setting, a value column per profile."""
    by_profile = {q: {s.name: s for s in kernel_profile.settings(_facts(r))}
                  for q, r in runs.items()}
    names = list(dict.fromkeys(n for found in by_profile.values() for n in found))
    if not names:
        return
    rows = []
    for name in names:
        found = {q: by_profile[q][name] for q in runs if name in by_profile[q]}
        values = [found[q].value if q in found else "(not listed: as shipped)" for q in runs]
        rows.append([name, *values, _joined(found, "why"), _joined(found, "source")])
    first = next(iter(runs.values()))
    p.h2(f"{_title(first, kernel)}: its settings per profile")
    p.table(Table(["setting", *runs, "why", "source"], rows))


def _joined(found: dict, attr: str) -> str:
    """One text where every profile says the same, else each profile's."""
    texts = {q: getattr(s, attr) for q, s in found.items()}
    if len(set(texts.values())) == 1:
        return next(iter(texts.values()))
    return "; ".join(f"{q}: {t}" for q, t in texts.items())
