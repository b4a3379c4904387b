"""The vendors' published data sheets shipped in data/reference/.

A reference sheet is the CSV transcription of one seed document plus its
entry in sheets.toml. Each CSV row is one published figure. `row_key` turns
a row into the name the catalogue's [metric.vendor] lists use, so that the
coverage test, `rtbench list --coverage` and `rtbench compare --ref` all
match rows to metrics the same way.
"""

from __future__ import annotations

import csv
import io
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from rtbench.errors import RtbenchError

_DIR = "data/reference"


class ReferenceError(RtbenchError):
    pass


@dataclass(frozen=True)
class Row:
    source: str
    system: str
    platform: str
    clock_mhz: str
    mode: str
    config: str
    section: str
    metric: str
    situation: str
    value: str
    unit: str
    note: str


# What a published figure is, and the statistic of ours set beside it
# (`compare --ref` pairs like with like: a worst case with our max, an
# average with our mean; one path's count or an unstated figure with our
# median, said so).
STATISTICS = {"mean": "mean", "max": "max", "path": "p50", "unstated": "p50"}
STATISTIC_WORDS = {"mean": "average", "max": "maximum", "path": "single-path count",
                   "unstated": "statistic not stated"}


@dataclass(frozen=True)
class Sheet:
    name: str
    file: str
    title: str
    source: str
    vendor_key: str
    kernel: bool
    clock_note: str
    caveat: str = ""  # the vendor's own words on how far its figures carry, if any
    statistic: str = "unstated"  # what its figures are (STATISTICS), unless a row says
    statistic_note: str = ""  # where the sheet says so
    statistic_rows: tuple[tuple[str, str], ...] = ()  # (row name, statistic) exceptions

    def rows(self) -> list[Row]:
        return _rows(self.file)

    def statistic_of(self, key: str) -> str:
        """What the published figure of row `key` is (STATISTICS)."""
        return dict(self.statistic_rows).get(key, self.statistic)

    def variants(self) -> list["Variant"]:
        """The distinct set-ups (platform, clock, mode, config) the sheet
        publishes figures for, in document order."""
        seen: dict[Variant, None] = {}
        for r in self.rows():
            seen.setdefault(variant(self.vendor_key, r), None)
        return list(seen)

    def units(self) -> list[str]:
        return list(dict.fromkeys(r.unit for r in self.rows()))

    def keys(self) -> list[str]:
        """The distinct row keys of this sheet, in document order."""
        seen: dict[str, None] = {}
        for r in self.rows():
            seen.setdefault(row_key(self.vendor_key, r), None)
        return list(seen)


def row_key(vendor_key: str, row: Row) -> str:
    """The name a catalogue entry lists (under `vendor_key`) to claim `row`.

    - Zephyr: the metric id alone (its `situation` is the printed description).
    - AMX: the interval a timing-diagram row measures is its config (T1..T4),
      so it is part of the name ("Wait/Wake / T1"); prose rows keep their
      situation ("Task switch / caches disabled").
    - Everything else: metric, then the situation's sub-levels, " / "-joined
      ("semGive / No tasks in queue / Binary").
    """
    if vendor_key == "zephyr":
        return row.metric
    if vendor_key == "amx" and row.section != "Prose":
        return f"{row.metric} / {row.config}"
    return f"{row.metric} / {row.situation}" if row.situation else row.metric


@dataclass(frozen=True)
class Variant:
    """One set-up a sheet measured on: a column of `rtbench compare --ref`."""

    platform: str
    clock_mhz: str
    mode: str
    config: str

    @property
    def clock_hz(self) -> float | None:
        """The stated clock, None if the sheet states none."""
        try:
            return float(self.clock_mhz) * 1e6 if self.clock_mhz.strip() else None
        except ValueError:
            return None

    def label(self, varying: tuple[str, ...] = ("platform", "mode", "config")) -> str:
        """A short column title from the fields that differ between the
        sheet's variants (a part already inside the platform name is not
        repeated: DSP/BIOS "TMS320C54x (Near)" is also config "Near")."""
        parts: list[str] = []
        for name in ("platform", "mode", "config"):
            value = _READABLE.get(getattr(self, name), getattr(self, name))
            if name in varying and value and not any(value in p for p in parts):
                parts.append(value)
        text = " / ".join(parts) or self.platform
        if self.clock_mhz and "platform" in varying:
            text += f" @ {self.clock_mhz} MHz"
        return text


def variant(vendor_key: str, row: Row) -> Variant:
    """The set-up a row was measured on. AMX names its timing-diagram
    intervals (T1..T4) in `config`, which row_key already makes part of the
    row's name, so AMX set-ups are the boards alone."""
    config = "" if vendor_key == "amx" else row.config
    return Variant(row.platform, row.clock_mhz, row.mode, config)


def varying_fields(variants: list[Variant]) -> tuple[str, ...]:
    """The fields (platform, mode, config) whose values differ between variants."""
    out = tuple(f for f in ("platform", "mode", "config")
                if len({getattr(v, f) for v in variants}) > 1)
    return out or ("platform",)


@lru_cache(maxsize=None)
def sheets() -> tuple[Sheet, ...]:
    text = resources.files("rtbench.store").joinpath(f"{_DIR}/sheets.toml").read_text("utf-8")
    out = []
    for entry in tomllib.loads(text)["sheet"]:
        entry["statistic_rows"] = tuple(entry.get("statistic_rows", {}).items())
        for stat in (entry.get("statistic", "unstated"), *(v for _k, v in entry["statistic_rows"])):
            if stat not in STATISTICS:  # a shipped file: a test holds it, never a user's input
                raise ReferenceError(f"sheets.toml: {entry['name']}: unknown statistic {stat!r}")
        out.append(Sheet(**entry))
    return tuple(out)


def get(name: str) -> Sheet:
    """A shipped sheet by name, in any case (`--ref VxWorks`)."""
    for s in sheets():
        if s.name.lower() == name.strip().lower():
            return s
    known = ", ".join(s.name for s in sheets())
    raise ReferenceError(f"no reference sheet named {name!r} (shipped: {known})")


# Parser wording of a variant that must not reach a column header: what the
# column is, in words a reader can use.
_READABLE = {"value column 2 (unlabelled)": "second figure (its column has no label in "
                                            "the source)"}


@lru_cache(maxsize=None)
def _rows(file: str) -> list[Row]:
    text = resources.files("rtbench.store").joinpath(f"{_DIR}/{file}").read_text("utf-8")
    return [Row(**r) for r in csv.DictReader(io.StringIO(text))]
