"""A stored run's records by metric and profile, in catalogue order: what
the data sheet, the comparisons and the exports walk.
"""

from __future__ import annotations

from dataclasses import dataclass

from rtbench.store.catalog import Catalog, Metric
from rtbench.store.db import DEFAULT_PROFILE, Run


OTHER_SERVICE = "Other"


# Imported figures no catalogue metric answers (records with "mapped": false).
UNMAPPED_SERVICE = "Figures rtbench has no metric for"


@dataclass
class Item:
    """One metric of the run: its catalogue entry and a record per profile
    (None: selected but never measured)."""

    id: str
    meta: Metric | None
    records: dict[str, dict | None]

    @property
    def service(self) -> str:
        if self.meta:
            return self.meta.service
        unmapped = any(r and r.get("mapped") is False for r in self.records.values())
        return UNMAPPED_SERVICE if unmapped else OTHER_SERVICE

    @property
    def title(self) -> str:
        if self.meta:
            return self.meta.title
        labels = [(r.get("source") or {}).get("label") for r in self.records.values() if r]
        return next((lab for lab in labels if lab), self.id)  # an imported figure's own name


def items(run: Run, catalog: Catalog) -> list[Item]:
    """Every metric of the run in catalogue order (unknown ids last)."""
    by_id: dict[str, dict[str, dict | None]] = {}
    for rec in run.metrics:
        by_id.setdefault(rec["id"], {})[rec.get("profile", DEFAULT_PROFILE)] = rec
    for mid, profile in run.pending_keys():
        by_id.setdefault(mid, {}).setdefault(profile, None)
    index = {mid: n for n, mid in enumerate(catalog.ids)}
    ordered = sorted(by_id, key=lambda mid: index.get(mid, len(index)))
    return [Item(mid, catalog.get(mid), by_id[mid]) for mid in ordered]
