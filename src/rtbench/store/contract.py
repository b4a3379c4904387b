"""The one check of every record that enters the store, whatever carries
it: a harness line (the host's harness, a board's UART, a labgrid console,
a serial log), a results file, another tool's importer, a peer.

A record passes when

* its shape is bounded: JSON values only, at most MAX_DEPTH containers
  deep, MAX_TEXT characters a string, MAX_ITEMS items a list, MAX_KEYS keys
  an object, every number finite and within ±MAX_NUMBER (an integer of any
  length too: 10^400 is refused, never turned into a float that overflows);
  every string (a field's name too) Unicode text: no lone surrogate
  (`"\ud800"`), which no encoder writes and every terminal, file and
  SQLite text column would refuse later;
* each field has the JSON type its name has in the protocol
  (docs/records.md): the field tables below, and for the fields they do not
  name, the name's ending (`*_ticks`, `*_hz`, `*_s`, ... are numbers);
  any other field is held to its shape only. Nothing is required here that
  the protocol does not require, so a field added or renamed later passes
  by its shape;
* its figures are figures (records.figure_problem: finite, not negative
  beyond the read cost, not beyond any plausible value, in order:
  min <= p50 <= p90 <= p99 <= p999 <= max and min <= mean <= max, and
  none without a sample: `n` 0 holds no statistic), its histogram's
  buckets are `[lo, hi, count]` and its blocks are objects of numbers;
* a metric id is one line of printable text, and so is a record's
  `unranked` (why the row stays out of every ranking), of at most
  MAX_UNRANKED characters.

A run's facts beside its records are held to the same rules: `host_problem`
types every field of its host facts (HOST), `envelope_problem` a results
file's run, host facts and session (RUN). Text is cleaned by store/text.py.

`problem(rec)` says why not (None: it passes); `check(rec)` raises
RecordError. The run path, the importers, the results-file reader and the
store's import calls all call these, so no path stores what another would
refuse. The module stays whole: it is the one place that knows every
stored field's type and bound, and split it would be two contracts.
"""

from __future__ import annotations

import json
import math
from typing import Any

from rtbench.errors import HarnessError
from rtbench.store.text import (  # noqa: F401 (the store's terms for text, re-exported)
    BIDI, LINE_SEPARATORS, SURROGATE, clean, has_controls, one_line, printable)

STATUSES = ("ok", "unsupported", "failed")
STATS = ("min", "max", "mean", "stddev", "p50", "p90", "p99", "p999")
TIME_UNIT = "ticks"  # a time figure from other sources: ns ticks at `tick_hz` 1e9
TIME_UNITS = ("ticks", "cycles")  # harness units that are times (with tick_hz)


class RecordError(HarnessError):
    """A line that claims to be a record but breaks the protocol."""


MAX_DEPTH = 8          # containers inside containers (a record's hist buckets: 4)
MAX_TEXT = 1 << 16     # characters of one string (an imported note may be long)
MAX_ITEMS = 1 << 20    # items of one list (an imported cyclictest histogram: up to 1e6 µs)
MAX_KEYS = 1024        # keys of one object
MAX_NUMBER = 1e18      # beyond: no count, tick or rate of any counter (2^63 ~ 9.2e18)
MAX_ID = 256           # characters of a metric id
# characters of a record's `unranked` (why the row is kept out of every
# ranking: one sentence a sheet prints beside the figure, never a document)
MAX_UNRANKED = 512

# The JSON type of each field the readers use, by record type and path
# (docs/records.md). "text": a string; "flag": a boolean; "count": an
# integer >= 0; "integer": an integer (a CPU: -1 when not pinned); "number": a
# finite number; "object", "list": containers.
_METRIC = {
    "type": "text", "id": "text", "status": "text", "reason": "text", "unit": "text",
    "note": "text", "profile": "text", "origin": "text", "placement": "text",
    "rt_reason": "text", "tasks": "text", "emulated": "text", "variant_of": "text",
    "allocation": "text", "kernel_calls": "count",
    "unranked": "text", "window_holds": "text",
    "realtime": "flag", "budget_exhausted": "flag", "cross_cpu": "flag", "cold": "flag",
    "mapped": "flag",
    "n": "count", "ops": "count", "bytes": "count", "discarded": "count", "invalid": "count",
    "cpu": "integer", "irqs": "count", "batch": "count",
    **{s: "number" for s in STATS}, "tick_hz": "number", "expected": "number",
    "overhead": "number", "batch_overhead": "number", "canary": "number",
    "hist.offset": "number",
    "hist": "object", "source": "object", "blocks": "list", "stats_given": "list",
    "hist.scheme": "text", "hist.sub_bucket_bits": "count", "hist.overflow": "count",
    "hist.buckets": "list", "source.label": "text", "source.tool": "text",
    "source.file": "text", "source.line": "count",
    # an emulated board's estimated cycles (rtbench's, docs/cycles.md)
    "cycles": "object", "cycles.status": "text", "cycles.reason": "text",
    "cycles.unit": "text", "cycles.label": "text", "cycles.core": "text",
    "cycles.hz": "number", "cycles.n": "count",
    **{f"cycles.{k}": "number" for k in ("min", "max", "mean", "stddev", "p50", "p90", "p99",
                                          "p999", "p50_lo", "p50_hi", "mean_lo", "mean_hi",
                                          "max_lo", "max_hi")},
    "cycles.hist": "object", "cycles.window": "object",
    **{f"cycles.window.{k}": "count" for k in ("instructions", "kernel", "api", "ours")},
}
_SESSION = {
    "type": "text", "port": "text", "harness_version": "text", "compiler": "text",
    "cflags": "text", "build_type": "text", "origin": "text", "schema": "count",
    "ts": "object", "rt": "object", "config": "object", "target": "object", "source": "object",
    "ts.source": "text", "ts.unit": "text", "ts.unit_detail": "text", "ts.ref_clock": "text",
    "ts.core_hz_method": "text", "ts.hz_measured": "number", "ts.hz_nominal": "number",
    "ts.core_hz": "number", "ts.overhead_pass_means": "list", "ts.resolution": "number",
    "ts.step": "number",
    "ts.overhead": "number", "ts.overhead_min": "number", "ts.overhead_median": "number",
    "ts.overhead_mean": "number", "ts.overhead_samples": "count",
    "rt.realtime": "flag", "rt.mlock": "flag", "rt.policy": "text", "rt.reason": "text",
    "rt.cpu": "integer", "rt.cpus_online": "count",
    "config.profile": "text", "config.cold": "flag", "config.samples": "count",
    "config.warmup": "count", "config.budget_ms": "count", "config.blocks": "count",
    "target.*": "scalar",  # the port's facts: strings (a flag or a number at most)
}
_OTHER = {"type": "text", "id": "text", "supported": "flag", "reason": "text",
          "metrics": "count"}
FIELDS = {"metric": _METRIC, "session": _SESSION}

# A run's host facts (`runs.host`, results.json's `host`): what the targets
# write (targets/sysinfo.py on a PC; the board targets' describe(); a
# serial log's session), what measure adds (profiles, load, tuning, the
# machine during the run) and what the importers take from a tool's
# output. Readers format, index and compare these: each field has its type
# (a kind as above, `None | kind` where null is written for "not known"; an
# object's named fields, those under "+" in every object that is not empty;
# a list's items); a field not named is held to its shape only.
_NUMBERS = ["number"]
HOST: dict[str, Any] = {
    "target": "text", "target_kind": "text", "board": "text", "cpu_model": "text",
    "os": "text", "kernel_release": "text", "kernel_version": "text",
    "kernel_profile": (None, "text"), "kernel_src": "text", "zephyr_modules": ["text"],
    "machine": "text", "preemption": "text",
    "preemption_model": {"model": "text", "how": "text", "dynamic": "flag"},
    "timerlat": {"available": (None, "flag"), "why": "text"},
    "clocksource": "text", "rt_throttling": "text", "hypervisor": "text",
    "caches": [{"level": "count", "type": "text", "size": "count", "+": ("level", "size")}],
    "isolated_cpus": {"isolated": (None, "text"), "nohz_full": (None, "text")},
    "cores_online": "count", "load_before": (None, _NUMBERS), "load_after": (None, _NUMBERS),
    "others_cpu_pct": "number", "steal_pct": "number", "load": "text",
    "concurrent_harnesses": [{"pid": "count", "pinned": ["integer"], "same_cpu": "flag",
                              "+": ("pid",)}],
    "tuning": {"done": "flag", "why": "text", "rt_runtime": (None, "text"),
               "irqs_moved": ["text"], "irqs_left": ["text"]},
    "hostname": "text", "python": "text", "date": "text", "rtbench_version": "text",
    "git_revision": "text", "harness_source_hash": "text", "profiles": ["text"],
    "not_applicable": ["text"], "emulator": "text", "icount": "text", "cross_compiler": "text",
    "image": "text", "image_sha256": "text", "counter": "text", "runner_host": "text",
    "place": "text", "log": "text",
    "image_size": {"text": "count", "data": "count", "bss": "count",
                   "+": ("text", "data", "bss")},
    "labgrid": {"place": "text", "coordinator": "text", "acquired_by": "text",
                "+": ("place", "coordinator", "acquired_by")},
}
# The run of a results file (its `run` object), beside its records.
RUN: dict[str, Any] = {
    "id": "count", "uuid": "text", "label": "text", "status": "text", "started": "text",
    "finished": (None, "text"), "argv": ["text"], "profiles": ["text"],
    "imported_from": (None, "text"),
}

# Fields no table names: the name's ending says what it is.
_SUFFIXES = (("_ticks", "number"), ("_hz", "number"), ("_ns", "number"), ("_ms", "number"),
             ("_s", "number"), ("_pct", "number"))


# ---- figures ----------------------------------------------------------------------

MAX_FIGURE = 1e15  # ns (11.6 days) or the unit of a non-time figure; beyond: not a figure
MAX_COUNT = 1e15  # samples, operations, bytes per sample, histogram bounds in ticks


def _number(v: Any) -> bool:
    """A finite number within ±MAX_NUMBER. An integer is bounded before
    anything makes a float of it: math.isfinite(10**400) raises
    OverflowError (any integer of 309 digits or more)."""
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return -MAX_NUMBER <= v <= MAX_NUMBER
    return isinstance(v, float) and math.isfinite(v)


# The statistics in the order their values must keep (each at most the next),
# and the mean between the extremes. Slack: the harness prints the mean to
# three decimals (rounded), an importer converts each statistic on its own.
ORDER = ("min", "p50", "p90", "p99", "p999", "max")


def _above(a: float, b: float) -> bool:
    return a > b + 1e-3 + 1e-9 * max(abs(a), abs(b))


def read_cost(rec: dict[str, Any]) -> float:
    """What the harness subtracted from every raw figure of `rec` (one
    counter read), whatever the field is called: the largest of its
    `overhead*` fields and its histogram's offset, 0 when it names none."""
    costs = [abs(v) for k, v in rec.items() if k.startswith("overhead") and _number(v)]
    hist = rec.get("hist")
    if isinstance(hist, dict):
        costs += [abs(v) for k, v in hist.items() if k.startswith("offset") and _number(v)]
    return max(costs, default=0.0)


def figure_problem(rec: dict[str, Any], hist: bool = True) -> str | None:
    """Why an ok record's figures cannot be shown, or None. Each statistic
    must be a finite number of at most MAX_FIGURE in its unit (times in
    ns); none may be negative, except a harness figure, which may go below 0
    by up to its read cost (`read_cost`: subtracted from raw figures,
    which are never negative). Records read from files are checked with
    this before anything is stored (rtbench import); `hist`: the histogram's
    buckets too (not for histograms an importer built itself)."""
    if rec.get("status") != "ok":
        return None
    is_time = rec.get("unit", TIME_UNIT) in TIME_UNITS
    hz = rec.get("tick_hz")
    if is_time and not (_number(hz) and 0 < hz <= MAX_COUNT):
        return f"tick_hz {_short(hz)} is not a positive clock rate"
    floor = 0.0 if "stats_given" in rec else -read_cost(rec)
    for stat in STATS:
        if stat not in rec:
            continue
        v = rec[stat]
        if not _number(v):
            big = isinstance(v, int) and not isinstance(v, bool)
            return f"{stat} {_short(v)} is {'beyond any figure' if big else 'not a finite number'}"
        if v < (0.0 if stat == "stddev" else floor):
            return f"{stat} {_short(v)} is negative"
        if abs(v * 1e9 / hz if is_time else v) > MAX_FIGURE:
            unit = "ns" if is_time else printable(rec.get("unit"), 20)
            return f"{stat} {_short(v)} is beyond any figure ({MAX_FIGURE:g} {unit})"
    for key in ("n", "ops", "bytes"):
        v = rec.get(key)
        if v is not None and not (_number(v) and 0 <= v <= MAX_COUNT):
            return f"{key} {_short(v)} is not a count"
    if rec.get("ops") == 0:
        return "ops 0: a sample times at least one operation"
    given = [stat for stat in STATS if stat in rec]
    if rec.get("n") == 0 and given:
        return f"n 0 with statistics ({', '.join(given)}): a statistic needs a sample"
    order = [stat for stat in ORDER if stat in rec]
    for lo, hi in [*zip(order, order[1:]),
                   *((("min", "mean"), ("mean", "max")) if "mean" in rec else ())]:
        if lo in rec and hi in rec and _above(rec[lo], rec[hi]):
            return (f"{lo} {_short(rec[lo])} is above {hi} {_short(rec[hi])}: "
                    "statistics out of order")
    for lo, hi, count in (rec.get("hist") or {}).get("buckets") or () if hist else ():
        if not all(_number(x) and abs(x) <= MAX_COUNT for x in (lo, hi, count)):
            return f"histogram bucket {printable([lo, hi, count], 60)} out of range"
    return None


# ---- the check ---------------------------------------------------------------------

def problem(rec: Any) -> str | None:
    """Why `rec` may not enter the store, or None."""
    if not isinstance(rec, dict):
        return f"a record is an object, not {_kind(rec)}"
    kind = rec.get("type", "metric")  # records read back from a results file may omit it
    if kind == "metric":  # the figures first: their words say most
        why = figure_problem(rec, hist=False)
        if why:
            return why
    why = shape_problem(rec, ("hist.buckets",) if kind == "metric" else ())
    if why:
        return why
    why = _fields_problem(rec, FIELDS.get(kind, _OTHER))
    if why:
        return why
    return _metric_problem(rec) if kind == "metric" else None


def host_problem(host: Any) -> str | None:
    """Why `host` may not be stored as a run's host facts, or None: bounded
    like a record (`shape_problem`), each field HOST names of its type."""
    if not isinstance(host, dict):
        return f"the host facts are an object, not {_kind(host)}"
    why = shape_problem(host)
    return f"host: {why}" if why else _spec_problem(host, HOST, "host")


def envelope_problem(head: Any) -> str | None:
    """Why the head of a results file (every key but its metrics: its run,
    host facts, session, the metrics it did not measure) may not be
    stored, or None: bounded, its strings text, the run's and the host's
    fields of their types, the session a session record `problem` passes."""
    why = shape_problem(head)
    if why:
        return why
    why = _spec_problem(head.get("run"), RUN, "run") or (
        host_problem(head["host"]) if head.get("host") is not None else None)
    if why:
        return why
    session = head.get("session")
    if isinstance(session, dict):
        why = problem(session)
        return f"session: {why}" if why else None
    return None


def _spec_problem(value: Any, spec: Any, where: str) -> str | None:
    """`value` against a type spec: a kind (`_is`), `(None, spec)` (null or
    that), a dict (an object: the fields it names, each of its spec, those
    under "+" there unless it is empty) or a one-item list (a list of items
    of that spec). Iterative."""
    stack = [(value, spec, where)]
    while stack:
        v, sp, at = stack.pop()
        if type(sp) is tuple:
            if v is None:
                continue
            sp = sp[1]
        if type(sp) is str:
            if not _is(v, sp):
                return f"{at} is {_kind(v)}, not {_WORDS[sp]}"
        elif type(sp) is dict:
            if type(v) is not dict:
                return f"{at} is {_kind(v)}, not an object"
            lacks = [k for k in sp.get("+", ()) if k not in v] if v else []
            if lacks:
                return f"{at} lacks {', '.join(lacks)}"
            stack.extend((v[k], sub, f"{at}.{k}") for k, sub in sp.items()
                         if k in v and k != "+")
        else:
            if type(v) is not list:
                return f"{at} is {_kind(v)}, not a list"
            stack.extend((item, sp[0], f"{at}[{i}]") for i, item in enumerate(v))
    return None


def read_problem(rec: Any) -> str | None:
    """Why a record read back from the store cannot be shown, or None: the
    fields' types and the histogram's and blocks' structure, as `problem`
    checks them, but not the figures' plausibility (a run an older rtbench
    stored may hold a NaN: the readers show it as absent)."""
    if not isinstance(rec, dict):
        return f"a record is an object, not {_kind(rec)}"
    why = _fields_problem(rec, _METRIC)
    if why:
        return why
    if not isinstance(rec.get("id"), str) or rec.get("status") not in STATUSES:
        return "a metric record without its id or status"
    hist = rec.get("hist")
    why = _hist_problem(hist, bounds=False) if hist is not None else None
    return why or _blocks_problem(rec)


def check(rec: Any) -> dict:
    """`rec` if it passes, else RecordError naming why."""
    why = problem(rec)
    if why:
        rid = rec.get("id") if isinstance(rec, dict) else None
        named = isinstance(rid, str) and rid and rec.get("type", "metric") == "metric"
        raise RecordError(f"metric {printable(rid)}: {why}" if named else why)
    return rec


# ---- the shape of any JSON value -------------------------------------------------

def shape_problem(value: Any, skip: tuple[str, ...] = ()) -> str | None:
    """Bounded depth, sizes and numbers (iterative: no recursion to exhaust;
    scalars checked in place). `skip`: paths of lists checked by their own
    rule (a metric's histogram buckets: `_hist_problem`), only their length
    here."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        v, where, depth = stack.pop()
        if type(v) is not dict and type(v) is not list:
            why = _scalar_problem(v)
            if why:
                return f"{where or 'a value'}: {why}"
            continue
        if depth >= MAX_DEPTH:
            return f"{where or 'the record'}: nested deeper than {MAX_DEPTH} levels"
        if type(v) is dict:
            if len(v) > MAX_KEYS:
                return f"{where or 'the record'}: more than {MAX_KEYS} fields"
            items = v.items()
        else:
            if len(v) > MAX_ITEMS:
                return f"{where}: more than {MAX_ITEMS} items"
            items = enumerate(v)
        for k, item in items:
            t = type(item)
            if t is dict or t is list:
                path = _where(where, k)
                if path in skip and t is list:
                    if len(item) > MAX_ITEMS:
                        return f"{path}: more than {MAX_ITEMS} items"
                    continue
                stack.append((item, path, depth + 1))
            elif t is not bool and item is not None and (
                    t is str and (len(item) > MAX_TEXT or not item.isascii())
                    or t is not str) and _scalar_problem(item):
                return f"{_where(where, k)}: {_scalar_problem(item)}"
            if type(k) is str and (len(k) > MAX_ID or not k.isascii()):
                if len(k) > MAX_ID:
                    return f"{where or 'the record'}: a field name longer than {MAX_ID} characters"
                if text_problem(k):
                    return f"{where or 'the record'}: a field name with {text_problem(k)}"
    return None


def text_problem(v: str) -> str | None:
    if len(v) > MAX_TEXT:
        return f"text longer than {MAX_TEXT} characters"
    if not v.isascii():
        bad = SURROGATE.search(v)
        if bad:
            return f"a lone surrogate (U+{ord(bad.group()):04X}) is no Unicode character"
    return None


def _scalar_problem(v: Any) -> str | None:
    t = type(v)
    if t is bool or v is None:
        return None
    if t is str:
        return text_problem(v)
    if t is int:
        return None if -MAX_NUMBER <= v <= MAX_NUMBER else f"{_short(v)} is beyond any figure"
    if t is float:
        if not math.isfinite(v):
            return f"{v!r} is not a finite number"
        return None if abs(v) <= MAX_NUMBER else f"{v:g} is beyond any figure"
    return f"{t.__name__} is not a JSON value"


def _where(where: str, key: Any) -> str:
    if type(key) is int:
        return f"{where}[{key}]"
    return f"{where}.{printable(key, 40)}" if where else printable(key, 40)


# ---- each field's type ---------------------------------------------------------------

def _fields_problem(rec: dict, table: dict[str, str]) -> str | None:
    for path, value, name in _fields(rec, table):
        want = table.get(path) or table.get(path.rpartition(".")[0] + ".*") or _by_suffix(name)
        if want is None:
            continue
        if not _is(value, want):
            return f"{path} is {_kind(value)}, not {_WORDS[want]}"
    return None


def _fields(rec: dict, table: dict[str, str]):
    """(path, value, name) of the record's fields and of the fields of the
    objects the table names (one level in: `hist.scheme`, `ts.unit`)."""
    for k, v in rec.items():
        yield k, v, k
        if isinstance(v, dict) and (table.get(k) == "object"):
            for k2, v2 in v.items():
                yield f"{k}.{k2}", v2, k2


def _by_suffix(name: str) -> str | None:
    return next((kind for end, kind in _SUFFIXES if name.endswith(end)), None)


def _is(value: Any, want: str) -> bool:
    t = type(value)
    if want == "text":
        return t is str
    if want == "flag":
        return t is bool
    if want == "count":
        return t is int and value >= 0 or t is float and value >= 0 and value.is_integer()
    if want == "integer":
        return t is int or t is float and value.is_integer()
    if want == "number":
        return t in (int, float)
    if want == "object":
        return t is dict
    if want == "list":
        return t is list
    return t in (str, int, float, bool) or value is None  # scalar


_WORDS = {"text": "text", "flag": "true or false", "count": "a count (an integer, 0 or more)",
          "integer": "an integer",
          "number": "a number", "object": "an object", "list": "a list",
          "scalar": "text, a number or a flag"}


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a flag"
    if isinstance(value, (int, float)):
        return f"the number {_short(value)}"
    if isinstance(value, str):
        return f"the text {printable(value, 20)!r}"
    return "a list" if isinstance(value, list) else "an object"


def _short(v: Any) -> str:
    try:
        text = repr(v)
    except ValueError:  # an integer beyond Python's 4300 digits for text
        return f"an integer of {v.bit_length()} bits"
    return text if len(text) <= 24 else text[:12] + "…" + text[-4:]


# ---- a metric record's content ----------------------------------------------------------

def _metric_problem(rec: dict) -> str | None:
    rid = rec.get("id")
    if not isinstance(rid, str) or not rid:
        return "a metric record without its id"
    if len(rid) > MAX_ID or not rid.isprintable():
        return f"metric id {printable(rid, 40)!r} is not one line of text"
    if rec.get("status") not in STATUSES:
        return f"unknown status {printable(rec.get('status'), 20)!r}"
    for key in ("unranked", "window_holds"):  # one sentence a sheet prints beside the row
        text = rec.get(key)
        if isinstance(text, str) and (len(text) > MAX_UNRANKED or not text.isprintable()):
            return (f"{key} is not one line of at most {MAX_UNRANKED} characters: "
                    f"{printable(text, 40)!r}")
    given = rec.get("stats_given")
    if given is not None and not all(s in STATS for s in given):
        return f"stats_given names something that is not a statistic: {printable(given, 60)}"
    hist = rec.get("hist")
    if hist is not None:
        why = _hist_problem(hist)
        if why:
            return why
    return _blocks_problem(rec)


def _blocks_problem(rec: dict) -> str | None:
    for i, block in enumerate(rec.get("blocks") or ()):
        if type(block) is not dict or not all(type(v) in _NUM for v in block.values()):
            return f"blocks[{i}] is not an object of figures"
    return None


def _hist_problem(hist: dict, bounds: bool = True) -> str | None:
    buckets = hist.get("buckets", [])
    if type(buckets) is not list:
        return "hist.buckets is not a list"
    for j, b in enumerate(buckets):
        if not (type(b) is list and len(b) == 3 and type(b[0]) in _NUM and type(b[1]) in _NUM
                and type(b[2]) is int and (not bounds or 0 <= b[2] <= MAX_COUNT
                                           and -MAX_COUNT <= b[0] <= b[1] <= MAX_COUNT)):
            return f"hist.buckets[{j}] is not [lo, hi, count] in range: {printable(b, 40)}"
    return None


_NUM = (int, float)


# ---- JSON columns of the store, written and read back ---------------------------------

def dumps(obj: Any) -> str:
    """A JSON column as it is stored: the strings in it without control
    characters (`clean`), whatever sent them."""
    text = json.dumps(obj)
    return json.dumps(clean(obj)) if has_controls(text) else text


def column(text: Any, kind: type, name: str, damaged: list[str]) -> Any:
    """A stored JSON column of the kind expected, cleaned; None (and `name`
    in `damaged`) when it is not: a run an older rtbench stored, a database
    edited by hand, is read, never a crash."""
    if text is None:
        return None
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        damaged.append(f"{name}: not JSON")
        return None
    if not isinstance(value, kind):
        damaged.append(f"{name}: not {'an object' if kind is dict else 'a list'}")
        return None
    try:
        return clean(value) if has_controls(text) else value
    except RecursionError:
        damaged.append(f"{name}: nested too deeply")
        return None


def stored_record(text: Any, metric_id: Any, damaged: list[str]) -> dict | None:
    """A stored record readers can show, or None (named in `damaged`): one
    whose fields are of the wrong kind is left out of the run it is in."""
    name = f"record of {printable(metric_id)}"
    rec = column(text, dict, name, damaged)
    why = read_problem(rec) if rec is not None else None
    if why:
        damaged.append(f"{name}: {why}")
        return None
    return rec


def stored_host(text: Any, damaged: list[str]) -> dict:
    """A run's stored host facts readers can use: a field of the wrong type
    (stored before they were typed, a database edited by hand) is left out
    and named in `damaged`, the others kept."""
    host = column(text, dict, "host", damaged) or {}
    bad = [k for k in host if k in HOST and _spec_problem(host[k], HOST[k], k)]
    for k in bad:
        damaged.append(f"host: {_spec_problem(host.pop(k), HOST[k], k)}")
    return host


def stored_text(value: Any) -> str:
    """A stored text column, cleaned ("" for none)."""
    if value is None:
        return ""
    return clean(value) if isinstance(value, str) else str(value)
