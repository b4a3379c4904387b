"""What every importer shares: reading a source line by line with bounds,
the one error type, building records by the contract (docs/records.md,
"Records from other sources") and mapping them onto the catalogue.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from rtbench.errors import RtbenchError
from rtbench.store.catalog import Catalog
from rtbench.store import text
from rtbench.store.records import STATS

TICK_HZ = 1_000_000_000  # imported times are in ns: ticks at 1 GHz
MAX_LINE = 65536  # characters; a longer line is not any tool's output
UTF8_BOM = b"\xef\xbb\xbf"  # what a Windows tool may put first in a UTF-8 file


class ImportFormatError(RtbenchError):
    """A file an importer cannot read: `FILE:LINE: reason` (line 0: the file
    as a whole, e.g. it holds no figure)."""

    def __init__(self, file: str, line: int, reason: str):
        super().__init__(f"{file}:{line}: {reason}")
        self.file, self.line, self.reason = file, line, reason


@dataclass
class Source:
    """A file (read streaming) or a text already in memory, and its name."""

    name: str
    path: Path | None = None
    text: str | None = None

    def lines(self) -> Iterator[tuple[int, str]]:
        """(line number from 1, line without its end), never holding more
        than one line; a line longer than MAX_LINE is an error. Lines end at
        "\n" only (as `blocks` and `grep -n` count them): a console's "\r"
        (rtos-benchmark ends its lines "\n\r") stays in the line."""
        if self.text is not None:
            yield from _numbered(self.name, io.StringIO(self.text))
            return
        assert self.path is not None
        fh = self.open(newline="\n")
        with fh:
            try:
                yield from _numbered(self.name, fh)
            except OSError as exc:
                raise ImportFormatError(self.name, 0,
                                        f"cannot read: {exc.strerror or exc}") from exc

    def open(self, newline: str | None) -> Any:
        """The file as UTF-8 text (bytes that are not read as U+FFFD; a
        UTF-8 byte-order mark skipped); a file in UTF-16 or UTF-32 (what
        some Windows capture tools write) is an error that says so, not
        text that looks like no tool's output."""
        assert self.path is not None
        try:
            fh = open(self.path, encoding=text.ENCODING, errors="replace", newline=newline)
            why = text.not_utf8(fh.buffer.peek(text.HEAD)[:text.HEAD])
        except OSError as exc:
            raise ImportFormatError(self.name, 0, f"cannot read: {exc.strerror or exc}") from exc
        if why:
            fh.close()
            raise ImportFormatError(self.name, 0, why)
        return fh

    def blocks(self, size: int = 1 << 20) -> Iterator[tuple[int, list[bytes]]]:
        """(number of the first line, lines as bytes without their "\n"), about
        `size` bytes at a time: the fast path for files of millions of
        lines (cyclictest histograms). A line longer than MAX_LINE bytes is
        an error; lines may end in "\r" and hold any bytes (see `decode`)."""
        if self.text is not None:
            fh: Any = io.BytesIO(self.text.encode("utf-8", "surrogatepass"))
        else:
            try:
                fh = open(self.path, "rb")
            except OSError as exc:
                raise ImportFormatError(self.name, 0,
                                        f"cannot read: {exc.strerror or exc}") from exc
        with fh:
            n, rest, first = 0, b"", True
            while True:
                try:
                    data = fh.read(size)
                except OSError as exc:
                    raise ImportFormatError(self.name, 0,
                                            f"cannot read: {exc.strerror or exc}") from exc
                if first:  # the file's start: what its text is in
                    why = text.not_utf8(data[:text.HEAD])
                    if why:
                        raise ImportFormatError(self.name, 0, why)
                    data, first = data.removeprefix(UTF8_BOM), False
                if not data:
                    if rest:
                        yield n + 1, [rest]
                    return
                buf = rest + data
                cut = buf.rfind(b"\n")
                if cut < 0:
                    rest = buf
                else:
                    lines = buf[:cut].split(b"\n")
                    rest = buf[cut + 1:]
                    if max(map(len, lines)) > MAX_LINE:
                        i = next(i for i, line in enumerate(lines) if len(line) > MAX_LINE)
                        raise ImportFormatError(self.name, n + 1 + i,
                                                f"line longer than {MAX_LINE} characters")
                    yield n + 1, lines
                    n += len(lines)
                if len(rest) > MAX_LINE:
                    raise ImportFormatError(self.name, n + 1,
                                            f"line longer than {MAX_LINE} characters")

    def decode(self, n: int, raw: bytes) -> str:
        """A line from `blocks` as text (what `lines` would have given)."""
        if b"\x00" in raw:
            raise ImportFormatError(self.name, n, "binary data (NUL byte) in a text output")
        return raw.decode("utf-8", "replace").rstrip("\r")

    def head(self, limit: int = 4096) -> str:
        """The first characters of the source (for detecting its format)."""
        if self.text is not None:
            return self.text[:limit]
        with self.open(newline=None) as fh:
            try:
                return fh.read(limit)
            except OSError as exc:
                raise ImportFormatError(self.name, 0,
                                        f"cannot read: {exc.strerror or exc}") from exc


def _numbered(name: str, fh) -> Iterator[tuple[int, str]]:
    n = 0
    while True:
        line = fh.readline(MAX_LINE + 1)
        if not line:
            return
        n += 1
        if len(line) > MAX_LINE and not line.endswith("\n"):
            raise ImportFormatError(name, n, f"line longer than {MAX_LINE} characters")
        if "\x00" in line:
            raise ImportFormatError(name, n, "binary data (NUL byte) in a text output")
        yield n, line.rstrip("\r\n")


def source_of(path_or_text: Path | str, name: str | None = None) -> Source:
    """A pathlib.Path is a file; a str is the tool's output itself."""
    if isinstance(path_or_text, Path):
        return Source(name or str(path_or_text), path=path_or_text)
    return Source(name or "<text>", text=path_or_text)


@dataclass
class Figure:
    """One figure read from a source, before it is mapped onto the catalogue."""

    tool_key: str  # the catalogue's vendor key and the prefix of unmapped ids
    label: str  # the source's own name for it (the vendor name)
    stats: dict[str, float]  # statistic -> value (ns for times, else `unit`)
    source: dict[str, Any]  # tool, version, file, line, ... (contract `source`)
    unit: str = "ticks"
    n: int | None = None
    note: str = ""
    hist: dict | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # more record keys


def record(fig: Figure) -> dict[str, Any]:
    """The metric record of a figure (its id filled in by `map_figures`)."""
    bad = [k for k in fig.stats if k not in STATS]
    assert not bad, bad
    rec: dict[str, Any] = {"type": "metric", "id": "", "status": "ok", "reason": "",
                           "origin": "import", "unit": fig.unit}
    if fig.unit == "ticks":
        rec["tick_hz"] = TICK_HZ
    given = [k for k in STATS if k in fig.stats]
    rec.update({k: fig.stats[k] for k in given})
    rec["stats_given"] = given
    if fig.n is not None:
        rec["n"] = fig.n
    if fig.hist is not None:
        rec["hist"] = fig.hist
    rec["source"] = {**fig.source, "label": fig.label}
    rec["note"] = fig.note
    rec.update(fig.extra)
    return rec


def vendor_index(catalog: Catalog, key: str) -> dict[str, tuple[str, int]]:
    """Vendor name -> (metric id, its position in that metric's list); the
    first metric in catalogue order that claims the name wins."""
    out: dict[str, tuple[str, int]] = {}
    for m in catalog.metrics:
        for pos, name in enumerate(m.vendor.get(key, ())):
            out.setdefault(name, (m.id, pos))
    return out


def map_figures(figures: list[Figure], catalog: Catalog,
                fallback: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Records for the figures, each under the catalogue metric that claims
    its label (vendor key = `tool_key`), else kept as "<tool_key>:<label>"
    with "mapped": false.

    A run holds one record per metric: when several figures map to one
    metric (Zephyr's k_to_k / u_to_u variants), the one whose label comes
    first in the metric's vendor list is stored under the metric, and the
    others are kept unmapped with "variant_of": the metric id.
    `fallback` maps labels to metric ids the catalogue does not claim (yet).
    """
    indexes: dict[str, dict[str, tuple[str, int]]] = {}
    recs = [record(f) for f in figures]
    best: dict[str, tuple[int, int]] = {}  # metric id -> (vendor position, index)
    target: list[str | None] = []
    for i, fig in enumerate(figures):
        index = indexes.setdefault(fig.tool_key, vendor_index(catalog, fig.tool_key))
        hit = index.get(fig.label)
        if hit is None and fallback and fig.label in fallback:
            hit = (fallback[fig.label], 0)
        target.append(hit[0] if hit else None)
        if hit and (hit[0] not in best or (hit[1], i) < best[hit[0]]):
            best[hit[0]] = (hit[1], i)
    for i, (fig, rec) in enumerate(zip(figures, recs)):
        mid = target[i]
        if mid is not None and best[mid][1] == i:
            rec["id"] = mid
            continue
        rec["id"] = f"{fig.tool_key}:{fig.label}"
        rec["mapped"] = False
        if mid is not None:
            rec["variant_of"] = mid
            rec["note"] = _join(rec["note"], f"another variant of {mid}, which holds "
                                f"{figures[best[mid][1]].label}")
    return recs


def _join(a: str, b: str) -> str:
    return f"{a}; {b}" if a else b


def check_unique(figures: list[Figure]) -> None:
    """One figure per (tool, label): a second one is an error at its line."""
    seen: dict[tuple[str, str], Figure] = {}
    for f in figures:
        key = (f.tool_key, f.label)
        if key in seen:
            first = seen[key].source
            raise ImportFormatError(
                f.source.get("file", "?"), f.source.get("line", 0),
                f"{f.label!r} appears a second time (first in {first.get('file', '?')} line "
                f"{first.get('line', '?')}): import one run of each figure at a time")
        seen[key] = f


_NUM = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")


def number(text: str, file: str, line: int, what: str) -> float:
    """A finite decimal number, else an error naming `what`."""
    text = text.strip()
    if len(text) > 40 or not _NUM.fullmatch(text):
        raise ImportFormatError(file, line, f"{what} is not a number: {text[:40]!r}")
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ImportFormatError(file, line, f"{what} is not a finite number: {text[:40]!r}")
    return value


_COUNT = re.compile(r"[0-9]+")


def integer(text: str, file: str, line: int, what: str) -> int:
    text = text.strip()
    if len(text) > 19 or not _COUNT.fullmatch(text):
        raise ImportFormatError(file, line, f"{what} is not a count: {text[:40]!r}")
    return int(text)
