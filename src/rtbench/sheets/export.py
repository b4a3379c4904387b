"""Exports of a stored run (CSV, JSON) and reading a results file back for
`rtbench import`.

JSON is the results envelope (`envelope`), described by the JSON Schema in
schema/results.schema.json (docs/results-schema.json is the same file).
CSV has one row per metric and profile; its columns are CSV_COLUMNS,
documented in docs/reports.md.

The reader stays beside the writer: `rtbench import FILE` reads back what
`envelope` wrote (upgrading schema 1), so one module owns the format.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import math
import os
import stat
import types
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Callable

import rtbench
from rtbench.errors import RtbenchError
from rtbench.store.catalog import Catalog
from rtbench.store.db import DEFAULT_PROFILE, Run, Store, now_utc
from rtbench.store.items import items
from rtbench.store import contract, records
from rtbench.store.text import ENCODING, HEAD, not_utf8
from rtbench.store.records import MetricRecord, strict_json

# 2: the counter's figures are `*_ticks` (schema 1 called them `*_cycles`,
# though they are counter ticks, cycles only where `unit` says so) and a
# figure that is not a time has every percentile (`p90_value` … `p999_value`).
CSV_SCHEMA = 2
CSV_COLUMNS = (
    "schema_version", "run_id", "run_uuid", "run_label", "metric_id", "profile", "service",
    "title", "status", "reason", "n", "tick_hz", "min_ns", "p50_ns", "p90_ns", "p99_ns",
    "p999_ns", "max_ns", "mean_ns", "stddev_ns", "min_ticks", "p50_ticks", "p99_ticks",
    "max_ticks", "realtime", "note",
    # records from other sources (docs/records.md): empty for the harness's
    "origin", "stats_given", "unit", "min_value", "p50_value", "mean_value", "max_value",
    # why the row is kept out of every ranking (docs/records.md), "" when ranked
    "unranked",
    # an emulated board's estimated cycles (docs/records.md `cycles`), empty elsewhere
    "est_cycles_min", "est_cycles_p50", "est_cycles_p50_lo", "est_cycles_p50_hi",
    "est_cycles_p99", "est_cycles_max", "est_us_p50", "est_cycles_model",
    # schema 2: a figure that is not a time, its high percentiles (after the above:
    # a reader by header names is unaffected)
    "p90_value", "p99_value", "p999_value",
)
_NS_STATS = ("min", "p50", "p90", "p99", "p999", "max", "mean", "stddev")
_TICK_STATS = ("min", "p50", "p99", "max")
_VALUE_STATS = ("min", "p50", "p90", "p99", "p999", "mean", "max")
ENVELOPE_SCHEMA = 3  # docs/results-schema.json


def envelope(run: Run, catalog: Catalog) -> dict[str, Any]:
    """The results file (docs/results-schema.json, schema_version 3)."""
    its = items(run, catalog)
    return {
        "schema_version": ENVELOPE_SCHEMA,
        "rtbench_version": rtbench.__version__,
        # a live run's file is a snapshot: incomplete (the schema knows no "running")
        "run": {"id": run.id, "uuid": run.uuid, "label": run.label,
                "status": "incomplete" if run.status == "running" else run.status,
                "started": run.started, "finished": run.finished, "argv": run.argv,
                "profiles": run.profiles, "imported_from": run.imported_from},
        "host": run.host,
        "session": run.session,
        "metrics": [{**rec, "profile": p} for it in its for p, rec in it.records.items()
                    if rec is not None],
        "not_measured": [{"id": mid, "profile": p} for mid, p in run.pending_keys()],
    }


class ResultsFileError(RtbenchError):
    """A results file that cannot be imported (the message names why)."""


def to_json(run: Run, catalog: Catalog) -> str:
    return strict_json(envelope(run, catalog), indent=2) + "\n"


def to_csv(run: Run, catalog: Catalog) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for it in items(run, catalog.for_target(run.host)):
        for profile, rec in it.records.items():
            row = {"schema_version": CSV_SCHEMA, "run_id": run.id, "run_uuid": run.uuid,
                   "run_label": run.label, "metric_id": it.id, "profile": profile,
                   "service": it.service, "title": it.title}
            if rec is None:
                row.update(status="not_measured", reason="run incomplete")
            else:
                row.update(csv_figures(rec))
            w.writerow([row.get(c, "") for c in CSV_COLUMNS])
    return buf.getvalue()


def csv_figures(rec: dict) -> dict[str, Any]:
    m = MetricRecord(rec)
    row: dict[str, Any] = {"status": m.status, "reason": m.reason, "n": rec.get("n", ""),
                           "note": rec.get("note", ""), "origin": m.origin,
                           "unranked": m.unranked}
    if "stats_given" in rec:
        row["stats_given"] = " ".join(m.stats_given)
    if not m.ok:
        return row
    if m.cycles:  # beside the instructions, labelled by the model's own words
        c = m.cycles
        row.update({f"est_cycles_{k}": c[k] for k in ("min", "p50", "p50_lo", "p50_hi", "p99",
                                                       "max")})
        row.update(est_us_p50=f"{c['p50'] / c['hz'] * 1e6:.3f}", est_cycles_model=c["label"])
    # An absent statistic stays an empty cell: never computed from the others.
    if not m.is_time:
        row["unit"] = m.unit
        for stat in _VALUE_STATS:
            if m.has(stat):
                row[f"{stat}_value"] = _num(rec[stat])
        return row
    row.update(tick_hz=rec["tick_hz"], realtime=str(rec.get("realtime", "")).lower())
    for stat in _NS_STATS:
        if m.has(stat):
            row[f"{stat}_ns"] = f"{m.ns(stat):.3f}"
    if not m.origin:  # an imported time's ticks are ns, not a counter's
        row["unit"] = m.unit  # "ticks", or "cycles" where the counter is the core's
        for stat in _TICK_STATS:
            row[f"{stat}_ticks"] = _num(rec[stat])
    return row


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.3f}"


# ---- reading results files ----

@lru_cache(maxsize=None)
def results_schema() -> dict:
    schema = resources.files("rtbench.sheets").joinpath("schema/results.schema.json")
    text = schema.read_text("utf-8")
    return json.loads(text)


class ResultsFile:
    """A results file read in two streaming passes, so that memory holds one
    metric record at a time, not the file: `check()` reads it all against
    the schema and the figures' bounds (nothing is stored from a file that
    fails anywhere); `metrics()` reads it again for the store. Only a
    regular file is read (a FIFO or /dev/zero would never end). Schema 1 is
    upgraded on the way (`upgrade_v1`)."""

    def __init__(self, path: Path, data: bytes | None = None):
        self.path = Path(path)
        self.data = data  # the file's bytes, where the caller read them (bounded) already
        self.head: dict = {}  # the envelope without its metrics
        self.count = 0  # metric records

    def check(self) -> dict:
        """The envelope's head (every key but `metrics`), checked whole."""
        if self.data is None:
            _regular_file(self.path)
        head: dict = {}
        profiles: dict[str, None] = {}
        seen: set[tuple[str, str]] = set()
        validator = _metric_validator()
        count, has_metrics = 0, False
        for key, value in _stream(self.path, self.data):
            if key != "metrics":
                head[key] = value
                continue
            has_metrics = True
            if not isinstance(value, types.GeneratorType):
                raise ResultsFileError(f"{self.path} does not match the results schema at "
                                       f"metrics: {str(value)[:40]!r} is not of type 'array'")
            v1 = head.get("schema_version") == 1  # every rtbench writes it before the metrics
            for i, rec in enumerate(value):
                if v1 and isinstance(rec, dict):
                    rec = {**rec, "profile": rec.get("profile", DEFAULT_PROFILE)}
                rec = records.upgrade(rec)  # versions 1 and 2: the fields' schema-1 names
                _check_metric(validator, rec, i, str(self.path))
                mkey = (rec["id"], rec["profile"])
                if mkey in seen:
                    raise ResultsFileError(f"{self.path} holds metric {rec['id']} "
                                           f"[{rec['profile']}] twice")
                seen.add(mkey)
                profiles.setdefault(rec["profile"], None)
                count += 1
        if "schema_version" not in head:
            raise ResultsFileError(f"{self.path} is not an rtbench results file "
                                   "(no schema_version)")
        version = head["schema_version"]
        if version == 1:
            head = upgrade_v1({**head, "metrics": []})
            head["run"]["profiles"] = list(profiles) or [DEFAULT_PROFILE]
        if version in (1, 2):  # 2 -> 3: the session's fields in schema 2's names
            head = {**head, "schema_version": ENVELOPE_SCHEMA,
                    "session": records.upgrade(head.get("session"))}
        elif version != ENVELOPE_SCHEMA:
            newer = isinstance(version, int) and not isinstance(version, bool) \
                and version > ENVELOPE_SCHEMA
            raise ResultsFileError(f"{self.path} has results schema_version {version!r}"
                                   + (", written by a newer rtbench" if newer else "")
                                   + f"; this rtbench reads versions 1 and {ENVELOPE_SCHEMA}")
        validate({**head, "metrics": []} if has_metrics else head, str(self.path))
        head.pop("metrics", None)
        why = contract.envelope_problem(head)  # the run, its host facts, its session
        if why:
            raise ResultsFileError(f"{self.path}: {why}")
        self.head, self.count = head, count
        return head

    def metrics(self):
        """The metric records again, as check() passed them (call it first)."""
        if self.data is None:
            _regular_file(self.path)
        for key, value in _stream(self.path, self.data):
            if key == "metrics":
                for rec in value:
                    rec = records.upgrade(rec)
                    yield rec if "profile" in rec else {**rec, "profile": DEFAULT_PROFILE}


def import_files(files: list[Path], label: str, db: Path | None,
                 say: Callable[[str], None]) -> None:
    """`rtbench import FILE…`: every file checked whole before the database
    is opened; then read again, record by record, into one transaction per
    file (`say` reports each run as it lands)."""
    results = [ResultsFile(f) for f in files]
    for r in results:
        r.check()
    with Store(db) as store:
        for file, r in zip(files, results):
            env = r.head
            if label:
                env["run"]["label"] = label
            host = (env.get("host") or {}).get("hostname") or "unknown host"
            source = f"{file.resolve()} (run {env['run']['id']} on {host})"
            run_id = store.import_run(env, source, now_utc(), metrics=r.metrics())
            say(f"imported {file} as run {run_id} ({r.count} metric records)")


MAX_COMPARED_FILE = 1 << 28  # bytes: a whole host run with every histogram is ~20 MiB


def compared_run(path: Path, name: str) -> Run:
    """A results.json as a run, for `rtbench compare a.json latest` (as
    pyperf's compare_to and Google Benchmark's compare.py take files),
    without importing it: read whole but bounded (store.text.read_input:
    a regular file of at most MAX_COMPARED_FILE bytes), checked as an
    import is (the schema, its versions upgraded, the envelope's head), and
    every record by the store's own contract, so a comparison never meets
    a record the database would have refused. Its id and name are `name`
    (the file as the command line gave it): no integer that a stored run's
    id could be mistaken for."""
    from rtbench.store.text import read_input

    data = read_input(path, "results file", MAX_COMPARED_FILE)
    results = ResultsFile(path, data)
    head = results.check()
    metrics = []
    for rec in results.metrics():
        why = contract.problem(rec)
        if why:
            raise ResultsFileError(f"{path}: record {contract.printable(rec.get('id'), 60)!r}: "
                                   f"{why}")
        metrics.append(contract.clean(rec))
    r, host = head["run"], contract.clean(head.get("host") or {})
    pending = [(m["id"], m.get("profile", DEFAULT_PROFILE)) for m in head.get("not_measured")
               or []]
    return Run(id=name, uuid=r["uuid"], started=r["started"], finished=r.get("finished"),
               stored_status=r["status"], label=contract.clean(r.get("label", "")),
               argv=list(r.get("argv") or []), host=host,
               session=contract.clean(head["session"]) if head.get("session") else None,
               metrics=metrics, pending=[p[0] for p in pending],
               pending_profiles=[p[1] for p in pending], file=name)


def load_results(path: Path) -> dict:
    """A whole results file in memory, checked (see ResultsFile); for
    callers that want the dict. `rtbench import` streams instead."""
    results = ResultsFile(path)
    head = results.check()
    return {**head, "metrics": list(results.metrics())}


def _regular_file(path: Path) -> None:
    try:
        st = os.stat(path)
    except OSError as exc:
        raise ResultsFileError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(st.st_mode):
        raise ResultsFileError(f"cannot read {path}: not a regular file")


@lru_cache(maxsize=None)
def _metric_validator():
    import jsonschema

    schema = results_schema()
    return jsonschema.Draft202012Validator({"$ref": "#/$defs/metric", "$defs": schema["$defs"]})


def _check_metric(validator, rec: Any, i: int, name: str) -> None:
    import jsonschema

    # The histogram's buckets (up to millions) are checked below in plain
    # Python, the same rule as the schema's: jsonschema takes ~50 µs a bucket.
    hist = rec.get("hist") if isinstance(rec, dict) else None
    buckets = hist.get("buckets") if isinstance(hist, dict) else None
    shallow = {**rec, "hist": {**hist, "buckets": []}} if isinstance(buckets, list) else rec
    error = jsonschema.exceptions.best_match(validator.iter_errors(shallow))
    if error is not None:
        where = "/".join(["metrics", str(i), *map(str, error.absolute_path)])
        raise ResultsFileError(f"{name} does not match the results schema at {where}: "
                               f"{_short(error.message)}")
    for j, b in enumerate(buckets if shallow is not rec else ()):
        if not (type(b) is list and len(b) == 3 and _is_num(b[0]) and _is_num(b[1])
                and type(b[2]) is int and b[2] >= 0):
            raise ResultsFileError(f"{name} does not match the results schema at metrics/{i}/"
                                   f"hist/buckets/{j}: {_short(repr(b))} is not [lo, hi, count]")
    problem = contract.problem(rec)
    if problem:
        raise ResultsFileError(f"{name}: metrics/{i} ({contract.printable(rec['id'])} "
                               f"[{contract.printable(rec['profile'])}]): "
                               f"{problem}")


def _is_num(v: Any) -> bool:
    return type(v) in (int, float)


# ---- a streaming reader of the envelope ----

BLOCK = 1 << 18  # characters read at a time (the window grows for a longer record)
MAX_VALUE = 1 << 30  # characters of one value (one metric record); beyond: not a results file
MAX_DIGITS = 40  # of a number; beyond: not a figure (and int() would refuse 4300)


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def _int(text: str) -> int:
    if len(text) > MAX_DIGITS:
        raise ValueError(f"a number of {len(text)} digits")
    return int(text)


def _float(text: str) -> float:
    if len(text) > MAX_DIGITS:
        raise ValueError(f"a number of {len(text)} characters")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is beyond a floating-point number")
    return value


_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_int=_int, parse_float=_float)


class _Text:
    """The file's text in a sliding window: `buf[pos:]` is what is unread;
    `line`/`col` say where `buf[0]` is in the file (for error messages)."""

    def __init__(self, path: Path, data: bytes | None = None):
        self.path = path
        self.fh = io.BytesIO(data) if data is not None else open(path, "rb")
        self.dec = codecs.getincrementaldecoder(ENCODING)()  # a UTF-8 BOM skipped
        self.buf, self.pos, self.eof = "", 0, False
        self.line, self.col = 1, 1

    def more(self, want: int = BLOCK) -> bool:
        """Read about `want` more characters; False at end of file."""
        if self.eof:
            return False
        data = self.fh.read(want)
        if self.fh.tell() == len(data):  # the file's start: UTF-16 is named as such
            why = not_utf8(data[:HEAD])
            if why:
                raise ResultsFileError(f"cannot read {self.path}: {why}")
        try:
            chars = self.dec.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            raise ResultsFileError(f"cannot read {self.path}: not UTF-8 text ({exc.reason})") \
                from None
        self.eof = not data
        # drop what was read, keeping line/column of the new start
        nl = self.buf.count("\n", 0, self.pos)
        self.line += nl
        self.col = (self.pos - self.buf.rfind("\n", 0, self.pos)) if nl else self.col + self.pos
        self.buf = self.buf[self.pos:] + chars
        self.pos = 0
        return True

    def skip_ws(self) -> str:
        """The next character that is not white space ("" at the end)."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in " \t\r\n":
                self.pos += 1
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.more():
                return ""

    def expect(self, chars: str, what: str) -> str:
        c = self.skip_ws()
        if not c or c not in chars:
            self.fail(f"Expecting {what}", self.pos)
        self.pos += 1
        return c

    def value(self) -> Any:
        """The next JSON value, read whole (the window grows as it must)."""
        self.skip_ws()
        want = BLOCK
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if len(self.buf) - self.pos > MAX_VALUE:
                    self.fail(f"a value longer than {MAX_VALUE} characters", self.pos)
                if self.more(want):
                    want = max(want, len(self.buf))  # doubling: linear in the value's size
                    continue
                self.fail(exc.msg, exc.pos)
            except RecursionError:
                self.fail("JSON nested too deeply", self.pos)
            except ValueError as exc:
                self.fail(str(exc), self.pos)
            if end == len(self.buf) and not self.eof and isinstance(value, (int, float)):
                self.more()  # a number cut at the window's end: read it whole
                continue
            self.pos = end
            return value

    def fail(self, msg: str, at: int) -> None:
        nl = self.buf.count("\n", 0, at)
        line = self.line + nl
        col = (at - self.buf.rfind("\n", 0, at)) if nl else self.col + at
        raise ResultsFileError(f"{self.path} is not valid JSON: {msg} at line {line} "
                               f"column {col}")

    def close(self) -> None:
        self.fh.close()


def _stream(path: Path, data: bytes | None = None):
    """(key, value) for each top-level key of the results object (of `data`,
    else read from `path`); the value of "metrics" is an iterator over its
    records, read one at a time."""
    try:
        text = _Text(path, data)
    except OSError as exc:
        raise ResultsFileError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        if text.skip_ws() != "{":
            if text.skip_ws() in "[\"0123456789-tfn":
                raise ResultsFileError(f"{path} is not an rtbench results file "
                                       "(no schema_version)")
            text.fail("Expecting value", text.pos)
        text.pos += 1
        if text.skip_ws() == "}":
            text.pos += 1
        else:
            while True:
                key = text.value()
                if not isinstance(key, str):
                    text.fail("Expecting property name enclosed in double quotes", text.pos)
                text.expect(":", "':' delimiter")
                if key == "metrics" and text.skip_ws() == "[":
                    text.pos += 1
                    yield key, _array(text)
                else:
                    yield key, text.value()
                if text.expect(",}", "',' delimiter") == "}":
                    break
        if text.skip_ws():
            text.fail("Extra data", text.pos)
    except OSError as exc:
        raise ResultsFileError(f"cannot read {path}: {exc.strerror or exc}") from exc
    finally:
        text.close()


def _array(text: _Text):
    if text.skip_ws() == "]":
        text.pos += 1
        return
    while True:
        yield text.value()
        if text.expect(",]", "',' delimiter") == "]":
            return


def validate(data: Any, name: str = "results") -> None:
    import jsonschema

    validator = jsonschema.Draft202012Validator(results_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "top level"
        raise ResultsFileError(f"{name} does not match the results schema at {where}: "
                           f"{_short(error.message)}")
    seen = set()
    for rec in data["metrics"]:
        key = (rec["id"], rec["profile"])
        if key in seen:
            raise ResultsFileError(f"{name} holds metric {rec['id']} [{rec['profile']}] twice")
        seen.add(key)


def _short(message: str, limit: int = 160) -> str:
    message = " ".join(message.split())
    return message if len(message) <= limit else message[:limit - 1] + "…"


def upgrade_v1(data: dict) -> dict:
    """Schema 1 (rtbench 0.1.0) → 2: records gain their profile ("rt"),
    not_measured becomes {id, profile} objects, the run lists its profiles."""
    out = dict(data, schema_version=ENVELOPE_SCHEMA)
    run = dict(data.get("run") or {})
    metrics = [dict(m, profile=m.get("profile", DEFAULT_PROFILE)) if isinstance(m, dict) else m
               for m in data.get("metrics") or []]
    not_measured = [{"id": m, "profile": DEFAULT_PROFILE} if isinstance(m, str) else m
                    for m in data.get("not_measured") or []]
    run.setdefault("profiles", list(dict.fromkeys(
        m["profile"] for m in metrics if isinstance(m, dict))) or [DEFAULT_PROFILE])
    out.update(run=run, metrics=metrics, not_measured=not_measured)
    return out
