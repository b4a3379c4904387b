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
    names: str = "situation"  # how the catalogue names a row (NAMES, row_key)

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


# How a sheet's rows are named in the catalogue's [metric.vendor] lists
# (sheets.toml, `names`).
NAMES = {
    # metric, then the situation's sub-levels, " / "-joined
    # ("semGive / No tasks in queue / Binary")
    "situation": "metric / situation",
    # the metric alone: the situation is the printed description
    # (latency_measure's labels)
    "metric": "metric",
    # the interval a timing-diagram row measures is its config (T1..T4), so
    # it is part of the name ("Wait/Wake / T1"); prose rows keep their
    # situation ("Task switch / caches disabled")
    "config": "metric / config",
}


def row_key(vendor_key: str, row: Row) -> str:
    """The name a catalogue entry lists (under `vendor_key`) to claim `row`,
    as its sheet's `names` says (NAMES)."""
    names = _names(vendor_key)
    if names == "metric":
        return row.metric
    if names == "config" and row.section != "Prose":
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


def _names(vendor_key: str) -> str:
    return next((s.names for s in sheets() if s.vendor_key == vendor_key), "situation")


def variant(vendor_key: str, row: Row) -> Variant:
    """The set-up a row was measured on. A sheet named by config (AMX names
    its timing-diagram intervals T1..T4 there) has it in the row's name
    already (row_key), so its set-ups are the boards alone."""
    config = "" if _names(vendor_key) == "config" else row.config
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
        if entry.get("names", "situation") not in NAMES:
            raise ReferenceError(f"sheets.toml: {entry['name']}: unknown names {entry['names']!r}")
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
