"""The metric catalogue (data/catalog/*.toml): what every metric id means."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

from rtbench.errors import RtbenchError

_REQUIRED = ("id", "service", "title", "definition", "clock_start", "clock_stop", "unit")
MEASURED_BY = ("harness", "external")
# The statistic that defines a row (docs/method.md, "The statistic that
# defines a row, and rows too small or kept out"): "median" for a cost (one path of a call or a switch the
# scenario sets up the same way every sample; its tail is disturbance) and
# "max" for a latency bound (how long the system keeps something waiting,
# sampled at instants spread over what it is doing on purpose: the figure
# the row's vendor or tool quotes is the worst observed). The comparisons
# rank a row by it; the record's statistic it names is STATISTIC_KEY's.
STATISTICS = ("median", "max")
STATISTIC_KEY = {"median": "p50", "max": "max"}
STATISTIC_WORDS = {
    "median": "the median (a cost: every sample runs the same path; its tail is "
              "disturbance, shown beside it)",
    "max": "the max (a latency bound: the longest the system kept it waiting over the "
           "samples, an observation, not a proof)"}


class CatalogError(RtbenchError):
    pass


@dataclass(frozen=True)
class Metric:
    id: str
    service: str
    title: str
    definition: str
    clock_start: str
    clock_stop: str
    unit: str
    vendor: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # A point of a curve (e.g. the lat_mem_rd curve): {"series": name,
    # "x": number, "x_unit": "bytes"}; the report plots the series' points.
    curve: dict | None = None
    # Who measures it: "harness" (rtbench-harness registers it) or "external"
    # (a standard program rtbench runs, rtbench.peers.programs; not in the registry).
    measured_by: str = "harness"
    # The wording on a board (an RTOS) where it differs as a whole from the
    # Linux one above: any of title, definition, clock_start, clock_stop
    # ([metric.board]; the pieces of [[board_wording]] do the rest).
    board: dict[str, str] = field(default_factory=dict)
    # The statistic that defines the row and ranks it (STATISTICS).
    statistic: str = "median"

    @property
    def statistic_text(self) -> str:
        """The defining statistic in words, for listings and glossaries."""
        return f"Ranked by {STATISTIC_WORDS[self.statistic]}."

    @property
    def stat_key(self) -> str:
        """The record's statistic that defines the row: "p50" or "max"."""
        return STATISTIC_KEY[self.statistic]


@dataclass(frozen=True)
class Catalog:
    services: tuple[str, ...]
    metrics: tuple[Metric, ...]
    # (vendor key, row name, why): reference rows that are not kernel metrics
    not_applicable: tuple[tuple[str, str, str], ...] = ()
    # (vendor key, section prefix, why): whole sections of a sheet that are
    # not rtbench's to measure (e.g. the TI guide's device-driver tables)
    not_applicable_sections: tuple[tuple[str, str, str], ...] = ()
    # (group, metric ids): the key measurements of a sheet's first page, in
    # the vendors' order (services.toml [[first_page]]; rtbench.sheets.firstpage)
    first_page: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # (Linux's words, a board's words): pieces of the wording that speak of
    # Linux and what a board's sheet says instead (board-wording.toml)
    board_wording: tuple[tuple[str, str], ...] = ()
    worded_for: str = ""  # "": Linux's words, as loaded; else the kernel and board (for_board)

    @property
    def ids(self) -> list[str]:
        return [m.id for m in self.metrics]

    def get(self, metric_id: str) -> Metric | None:
        for m in self.metrics:
            if m.id == metric_id:
                return m
        return None

    @property
    def harness_ids(self) -> list[str]:
        """The ids rtbench-harness registers (measured_by "harness")."""
        return [m.id for m in self.metrics if m.measured_by == "harness"]

    def for_target(self, host: dict) -> "Catalog":
        """The catalogue in the words of the run's target: a run on a board
        (its host record names a target kind) gets the board's wording
        with its kernel and board named; any other run the catalogue as it
        is, whose implementation notes are Linux's."""
        if not host.get("target_kind") or self.worded_for:
            return self
        board = str(host.get("board") or host.get("target") or "the board")
        return self.for_board(str(host.get("os") or "the kernel"),
                              board.split(", emulated by")[0])

    def for_board(self, kernel: str, board: str) -> "Catalog":
        """Every metric's title, definition and clock points as a board's
        sheet says them: [metric.board] where a metric has it, else the
        Linux wording with each [[board_wording]] piece replaced."""
        pieces = sorted(self.board_wording, key=lambda p: -len(p[0]))  # the longest first

        def fill(text: str) -> str:
            return text.replace("{kernel}", kernel).replace("{board}", board)

        def word(text: str, own: str | None) -> str:
            if own is not None:
                return fill(own)
            for linux, theirs in pieces:
                if linux in text:
                    text = text.replace(linux, fill(theirs))
            return _tidy(text)

        return replace(self, worded_for=f"{kernel} on {board}", metrics=tuple(
            replace(m, **{f: word(getattr(m, f), m.board.get(f)) for f in BOARD_FIELDS})
            for m in self.metrics))

    def by_service(self, service: str) -> list[Metric]:
        return [m for m in self.metrics if m.service == service]

    def match(self, patterns: str | list[str] | None) -> list[str]:
        """Ids matching comma-separated glob patterns, in catalogue order.

        No pattern means every metric. A pattern that matches nothing is an
        error rather than silently measuring less than the user asked for.
        """
        pats = _split_patterns(patterns)
        if not pats:
            return self.ids
        chosen: set[str] = set()
        for pat in pats:
            hits = fnmatch.filter(self.ids, pat)
            if not hits:
                raise CatalogError(f"no metric matches {pat!r}"
                                   + (did_you_mean(pat, self.ids) or " (see `rtbench list`)"))
            chosen.update(hits)
        return [i for i in self.ids if i in chosen]


BOARD_FIELDS = ("title", "definition", "clock_start", "clock_stop")


def _tidy(text: str) -> str:
    """A text a piece was taken out of: no doubled or stray spaces."""
    text = re.sub(r" {2,}", " ", text)
    return re.sub(r" ([.,;)])(?=[\s.,;)]|$)", r"\1", text).strip()


def did_you_mean(word: str, choices, n: int = 3) -> str:
    """" (did you mean a, b?)" for the closest of `choices`, or ""."""
    import difflib

    close = difflib.get_close_matches(word, list(dict.fromkeys(choices)), n=n, cutoff=0.6)
    return f" (did you mean {', '.join(close)}?)" if close else ""


def _split_patterns(patterns: str | list[str] | None) -> list[str]:
    if patterns is None:
        return []
    if isinstance(patterns, str):
        patterns = [patterns]
    out = []
    for item in patterns:
        out.extend(p.strip() for p in item.split(",") if p.strip())
    return out


def load(path: Path | None = None) -> Catalog:
    """Load and check the catalogue: the packaged folder unless `path` is given.

    `path` may be a folder laid out like data/catalog (services.toml plus
    NN-*.toml) or a single TOML file holding everything.
    """
    if path is None:
        root = resources.files("rtbench.store").joinpath("data/catalog")
        texts = [(f.name, f.read_text("utf-8")) for f in sorted(root.iterdir(), key=_order)
                 if f.name.endswith(".toml")]
    elif Path(path).is_dir():
        texts = [(f.name, f.read_text("utf-8")) for f in sorted(Path(path).glob("*.toml"),
                                                               key=_order)]
    else:
        texts = [(Path(path).name, Path(path).read_text("utf-8"))]
    raw: dict = {"services": {"order": []}, "metric": [], "not_applicable": [],
                 "first_page": [], "board_wording": []}
    for name, text in texts:
        try:
            part = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise CatalogError(f"catalogue file {name} is not valid TOML: {exc}") from exc
        if "services" in part:  # a single-file catalogue
            raw["services"] = part["services"]
        service = part.get("service")
        if service is not None:  # a service file: its metrics belong to it
            raw["services"]["order"].append(service)
            for entry in part.get("metric", []):
                if entry.setdefault("service", service) != service:
                    raise CatalogError(f"catalogue metric {entry.get('id', '?')!r} in {name} "
                                       f"says service {entry['service']!r}, the file {service!r}")
        raw["metric"].extend(part.get("metric", []))
        raw["not_applicable"].extend(part.get("not_applicable", []))
        raw["first_page"].extend(part.get("first_page", []))
        raw["board_wording"].extend(part.get("board_wording", []))
    return _build(raw)


def _order(f) -> tuple[int, str]:
    """services.toml first, then the service files in name order."""
    return (0 if f.name == "services.toml" else 1, f.name)


# The mixed pairs of a .thread switch metric marked `user_kernel_pairs = true`
# (rtb/bench.h RTB_THREAD_PROCESS_AND_MIXED): the mode suffix, the title's
# words and the definition's last sentence. A reference row whose name ends
# in the suffix (latency_measure's k_to_u / u_to_k labels) answers the
# metric of that mode, under whichever vendor key lists it.
MIXED_PAIRS = {
    "k_to_u": ("kernel-mode to user-mode task",
               "Here the task the switch leaves runs in kernel mode and the task it enters in "
               "user mode (latency_measure's k_to_u: a kernel thread and a K_USER thread, "
               "CONFIG_USERSPACE); where every task runs in one mode the row is unsupported."),
    "u_to_k": ("user-mode to kernel-mode task",
               "Here the task the switch leaves runs in user mode and the task it enters in "
               "kernel mode (latency_measure's u_to_k: a K_USER thread and a kernel thread, "
               "CONFIG_USERSPACE); where every task runs in one mode the row is unsupported."),
}


def _with_mixed_pairs(entries: list[dict]) -> list[dict]:
    """Every entry, each .thread one marked user_kernel_pairs followed by its
    .k_to_u and .u_to_k metrics (which take the reference rows of their
    mode from it)."""
    out = []
    for entry in entries:
        entry = dict(entry)
        pairs = entry.pop("user_kernel_pairs", False)
        out.append(entry)
        if not pairs:
            continue
        if not str(entry.get("id", "")).endswith(".thread"):
            raise CatalogError(f"catalogue metric {entry.get('id', '?')!r}: user_kernel_pairs "
                               "is for a .thread metric")
        vendor = {key: list(names) for key, names in entry.get("vendor", {}).items()}
        entry["vendor"] = {key: [n for n in names if not n.endswith(tuple(MIXED_PAIRS))]
                           for key, names in vendor.items()}
        for mode, (words, sentence) in MIXED_PAIRS.items():
            more = {"title": f", {words}", "definition": f" {sentence}"}
            board = {k: v.rstrip() + more.get(k, "") for k, v in entry.get("board", {}).items()}
            mine = {key: [n for n in names if n.endswith(mode)] for key, names in vendor.items()}
            out.append({**entry, "id": entry["id"][:-len("thread")] + mode,
                        "title": entry["title"] + more["title"],
                        "definition": entry["definition"].rstrip() + more["definition"],
                        "vendor": {key: names for key, names in mine.items() if names},
                        **({"board": board} if board else {})})
    return out


def _build(raw: dict) -> Catalog:
    services = tuple(raw.get("services", {}).get("order", []))
    metrics = []
    seen = set()
    for entry in _with_mixed_pairs(raw.get("metric", [])):
        missing = [k for k in _REQUIRED if not str(entry.get(k, "")).strip()]
        if missing:
            raise CatalogError(f"catalogue metric {entry.get('id', '?')!r} "
                               f"lacks {', '.join(missing)}")
        if entry["id"] in seen:
            raise CatalogError(f"catalogue metric id {entry['id']!r} is duplicated")
        if entry["service"] not in services:
            raise CatalogError(f"catalogue metric {entry['id']!r}: service {entry['service']!r} "
                               "is not in [services] order")
        seen.add(entry["id"])
        vendor = {k: tuple(v) for k, v in entry.get("vendor", {}).items()}
        curve = entry.get("curve")
        if curve is not None and not (isinstance(curve.get("series"), str)
                                      and isinstance(curve.get("x"), (int, float))):
            raise CatalogError(f"catalogue metric {entry['id']!r}: curve needs series and x")
        measured_by = entry.get("measured_by", "harness")
        if measured_by not in MEASURED_BY:
            raise CatalogError(f"catalogue metric {entry['id']!r}: measured_by must be one of "
                               f"{', '.join(MEASURED_BY)}, not {measured_by!r}")
        statistic = entry.get("statistic", "median")
        if statistic not in STATISTICS:
            raise CatalogError(f"catalogue metric {entry['id']!r}: statistic must be one of "
                               f"{', '.join(STATISTICS)} (the statistic that defines the "
                               f"row), not {statistic!r}")
        board = entry.get("board", {})
        if not (isinstance(board, dict) and set(board) <= set(BOARD_FIELDS)
                and all(isinstance(v, str) and v.strip() for v in board.values())):
            raise CatalogError(f"catalogue metric {entry['id']!r}: [metric.board] holds a "
                               f"board's {', '.join(BOARD_FIELDS)} as text, not {board!r}")
        metrics.append(Metric(**{k: entry[k] for k in _REQUIRED}, vendor=vendor, curve=curve,
                              measured_by=measured_by, board=dict(board),
                              statistic=statistic))
    entries = raw.get("not_applicable", [])
    bad = [e for e in entries if not ("vendor" in e and "why" in e
                                      and ("name" in e) != ("section" in e))]
    if bad:
        raise CatalogError(f"[[not_applicable]] needs vendor, why and one of name or "
                           f"section: {bad[0]}")
    na = tuple((e["vendor"], e["name"], e["why"]) for e in entries if "name" in e)
    na_sections = tuple((e["vendor"], e["section"], e["why"]) for e in entries
                        if "section" in e)
    first_page = []
    for g in raw.get("first_page", []):
        ids = g.get("ids") if isinstance(g, dict) else None
        if not (isinstance(g.get("group"), str) and isinstance(ids, list) and ids):
            raise CatalogError(f"[[first_page]] needs a group and a list of ids: {g}")
        unknown = [i for i in ids if i not in seen]
        if unknown:
            raise CatalogError(f"[[first_page]] {g['group']!r}: no metric {unknown[0]!r}")
        first_page.append((g["group"], tuple(ids)))
    wording = raw.get("board_wording", [])
    bad = [w for w in wording if not (isinstance(w, dict) and set(w) == {"linux", "board"}
                                      and isinstance(w["linux"], str) and w["linux"]
                                      and isinstance(w["board"], str))]
    if bad:
        raise CatalogError(f"[[board_wording]] needs linux (the words, exactly) and board "
                           f"(what a board's sheet says instead, or \"\"): {bad[0]}")
    return Catalog(services=services, metrics=tuple(metrics), not_applicable=na,
                   not_applicable_sections=na_sections, first_page=tuple(first_page),
                   board_wording=tuple((w["linux"], w["board"]) for w in wording))
