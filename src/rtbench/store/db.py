"""SQLite store of runs and their metric records.

A run is inserted as `running` with one `pending` row per selected metric
(and profile), and each metric is committed the moment it arrives, so a
killed rtbench leaves a readable partial run behind. The database is in WAL
mode with a busy timeout, so several `rtbench run`s can write into one
database at once; each write is one short transaction.

The schema has a version (`PRAGMA user_version`) and a list of migrations;
a database written by a newer rtbench is refused before anything is written
to it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import sqlite3
import stat
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import platformdirs

from rtbench.errors import RtbenchError
from rtbench.store import contract
from rtbench.store import records
from rtbench.store import runref

RUN_STATUSES = ("running", "complete", "incomplete", "failed")


class StoreError(RtbenchError):
    pass


def _v1(conn: sqlite3.Connection) -> None:
    # One execute() per statement: executescript() would commit the
    # migration's transaction half-way.
    conn.execute("""
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            uuid TEXT UNIQUE,
            started TEXT,
            finished TEXT,
            status TEXT CHECK(status IN ('running','complete','incomplete','failed')),
            label TEXT,
            argv TEXT,
            host TEXT,      -- json
            session TEXT    -- json: the harness session record
        )""")
    conn.execute("""
        CREATE TABLE metrics (
            run_id INTEGER REFERENCES runs(id),
            metric_id TEXT,
            status TEXT,    -- pending until the record arrives
            reason TEXT,
            record TEXT,    -- the full json record
            PRIMARY KEY(run_id, metric_id)
        )""")


def _v2(conn: sqlite3.Connection) -> None:
    """Profiles: a run may measure each metric under several profiles
    (`rtbench run --profile default,rt,cold`); records without one are "rt"."""
    conn.execute("""
        CREATE TABLE metrics_v2 (
            run_id INTEGER REFERENCES runs(id),
            metric_id TEXT,
            profile TEXT NOT NULL DEFAULT 'rt',
            status TEXT,    -- pending until the record arrives
            reason TEXT,
            record TEXT,    -- the full json record
            PRIMARY KEY(run_id, metric_id, profile)
        )""")
    conn.execute("INSERT INTO metrics_v2(run_id, metric_id, status, reason, record) "
                 "SELECT run_id, metric_id, status, reason, record FROM metrics ORDER BY rowid")
    conn.execute("DROP TABLE metrics")
    conn.execute("ALTER TABLE metrics_v2 RENAME TO metrics")
    conn.execute("CREATE INDEX metrics_by_metric ON metrics(metric_id, profile)")


def _v3(conn: sqlite3.Connection) -> None:
    """Imported runs: where they came from and when they were imported."""
    conn.execute("ALTER TABLE runs ADD COLUMN imported_from TEXT")  # NULL: measured here
    conn.execute("ALTER TABLE runs ADD COLUMN imported_at TEXT")


def _v4(conn: sqlite3.Connection) -> None:
    """Runs from other sources: `origin` says what made the run (NULL: this
    rtbench measured it, or an older import of a results.json; "rtbench": a
    results.json import; "zephyr", "rt-tests", "lmbench": `rtbench import
    KIND`; "peer": rt-tests run beside rtbench), `linked_to` the run it
    belongs with (the rtbench run a peers' run was measured beside)."""
    conn.execute("ALTER TABLE runs ADD COLUMN origin TEXT")
    conn.execute("ALTER TABLE runs ADD COLUMN linked_to INTEGER REFERENCES runs(id)")


# MIGRATIONS[n] takes a database from schema n to n+1.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_v1, _v2, _v3, _v4]
SCHEMA_VERSION = len(MIGRATIONS)
DEFAULT_PROFILE = "rt"  # the profile of records that name none
BUSY_TIMEOUT_S = 30.0  # how long a writer waits for another one (concurrent runs)


def now_utc() -> str:
    """A run's timestamps (started, finished, imported): UTC, to the second."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def default_path() -> Path:
    return Path(platformdirs.user_data_dir("rtbench")) / "rtbench.db"


@dataclass
class Run:
    id: int
    uuid: str
    started: str
    finished: str | None
    stored_status: str
    label: str
    argv: list[str]
    host: dict[str, Any]
    session: dict[str, Any] | None
    # records that arrived, each with its "profile" filled in
    metrics: list[dict[str, Any]] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)  # ids selected, never measured
    pending_profiles: list[str] = field(default_factory=list)  # the profile of each pending id
    imported_from: str | None = None  # None: measured by this rtbench into this database
    imported_at: str | None = None
    origin_kind: str | None = None  # the runs.origin column (see _v4); None: measured here
    linked_to: int | None = None  # the run this one belongs with (peers beside a run)
    damaged: list[str] = field(default_factory=list)  # what of the stored row could not be read
    picked: str | None = None  # a positional name (latest) landed on an import or unfinished run
    calibrations: list = field(default_factory=list)  # sheets.calibration.find: set by a renderer
    file: str | None = None  # a results.json compared without importing it: its name, and its id

    @property
    def origin(self) -> str:
        """What made the run: "measured" (this rtbench), "rtbench" (a results.json
        import), an import kind ("zephyr", "rt-tests", "lmbench") or "peer"."""
        if self.origin_kind:
            return self.origin_kind
        return "rtbench" if self.imported_from else "measured"

    @property
    def status(self) -> str:
        """The stored status; a `running` run whose process is gone (killed) reads as
        incomplete: a run is live while a process here holds its lock (process.locks)."""
        if self.stored_status != "running":
            return self.stored_status
        from rtbench.process import locks

        return "running" if locks.run_alive(self.uuid) else "incomplete"

    def pending_keys(self) -> list[tuple[str, str]]:
        """(metric id, profile) of every selected metric never measured."""
        return [(mid, self.pending_profiles[i] if i < len(self.pending_profiles)
                 else DEFAULT_PROFILE) for i, mid in enumerate(self.pending)]

    @property
    def profiles(self) -> list[str]:
        """The profiles of this run, in the order they were first stored."""
        seen: dict[str, None] = {}
        for rec in self.metrics:
            seen.setdefault(rec.get("profile", DEFAULT_PROFILE), None)
        for _mid, p in self.pending_keys():
            seen.setdefault(p, None)
        return list(seen) or [DEFAULT_PROFILE]


@dataclass
class RunSummary:
    """A stored run without its records, with counts by metric status."""

    run: Run
    counts: dict[str, int]  # ok / failed / unsupported / pending
    profiles: list[str]


@dataclass
class HistoryPoint:
    run: Run  # without its records
    profile: str
    record: dict[str, Any]


class Store:
    def __init__(self, path: Path | str | None = None, create: bool = True):
        self.path = Path(path) if path else default_path()
        if not create and not _exists(self.path):
            # Reading commands must not leave an empty database behind.
            raise StoreError(f"no database at {self.path}")
        # Reading commands (create=False) open it read-only: a database they
        # may read and not write (another user's) is read, never migrated.
        self.conn = _connect(self.path) if create else _connect_readonly(self.path)
        self._identity = _identity(self.path)

    def vanished(self) -> str | None:
        """Why the database is no longer at its path (deleted, moved, replaced), or
        None. A run checks this at its end: SQLite writes on into a deleted file."""
        now = _identity(self.path)
        if now is None:
            return f"the database {self.path} was deleted or moved while it was written"
        if now != self._identity:
            return f"the database {self.path} was replaced by another file while it was written"
        return None

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "Store":
        return self

    @contextlib.contextmanager
    def _write(self) -> Iterator[None]:
        """One transaction; a database that cannot be written (read-only,
        full disk, locked for longer than the busy timeout) is a StoreError
        and the transaction is rolled back."""
        try:
            with self.conn:
                yield
        except sqlite3.Error as exc:
            raise StoreError(f"cannot write database {self.path}: {_why(exc)}") from exc

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def create_run(self, uuid: str, started: str, ids: list[str], label: str = "",
                   argv: list[str] | None = None, host: dict | None = None,
                   profiles: list[str] | None = None, run_id: int | None = None) -> int:
        """Insert a running run with a pending row per id and profile (under
        `run_id` when given: a copy of a run another store numbered).

        The profiles are `profiles`, else the run's `host["profiles"]`
        (what `rtbench run --profile` records), else the default one.
        """
        profiles = profiles or list((host or {}).get("profiles") or []) or [DEFAULT_PROFILE]
        host_json = _host_column(host)
        with self._write():
            cur = self.conn.execute(
                "INSERT INTO runs(id, uuid, started, status, label, argv, host) "
                "VALUES (?, ?, ?, 'running', ?, ?, ?)",
                (run_id, uuid, started, contract.clean(label), contract.dumps(argv or []),
                 host_json))
            run_id = cur.lastrowid
            self.conn.executemany(
                "INSERT INTO metrics(run_id, metric_id, profile, status) "
                "VALUES (?, ?, ?, 'pending')",
                [(run_id, i, p) for p in profiles for i in ids])
        return run_id

    def set_session(self, run_id: int, session: dict) -> None:
        with self._write():
            self.conn.execute("UPDATE runs SET session = ? WHERE id = ?",
                              (contract.dumps(session), run_id))

    def update_host(self, run_id: int, host: dict) -> None:
        """Replace the run's host facts (what is learnt only at its end: the
        load after it, other runs seen measuring)."""
        host_json = _host_column(host)
        with self.conn:
            self.conn.execute("UPDATE runs SET host = ? WHERE id = ?", (host_json, run_id))

    def add_metric(self, run_id: int, record: dict) -> None:
        """Store a metric record under its profile (`"profile"`, default "rt")."""
        with self._write():
            self._insert_metric(run_id, record)

    def _insert_metric(self, run_id: int, record: dict) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO metrics(run_id, metric_id, profile, status, reason, record) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (run_id, record["id"], record.get("profile", DEFAULT_PROFILE), record["status"],
             contract.clean(record.get("reason", "")), contract.dumps(record)))

    def import_run(self, env: dict, source: str, imported_at: str,
                   metrics: Iterable[dict] | None = None) -> int:
        """Add a run from a results envelope (already checked against the
        schema); its records are `metrics` (an iterable: they may be read
        from the file one at a time) or else env["metrics"].

        One transaction: the run lands whole or not at all. A run whose uuid
        is already stored is refused (importing the same file twice).
        """
        r = env["run"]
        host_json = _host_column(env.get("host"))
        with self._write():
            self.conn.execute("BEGIN IMMEDIATE")
            self._refuse_stored(r["uuid"], f"run {r['uuid']}")
            cur = self.conn.execute(
                "INSERT INTO runs(uuid, started, finished, status, label, argv, host, session, "
                "imported_from, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (r["uuid"], r["started"], r.get("finished"), r["status"],
                 contract.clean(r.get("label", "")), contract.dumps(r.get("argv", [])), host_json,
                 contract.dumps(env["session"]) if env.get("session") else None,
                 contract.clean(source), imported_at))
            run_id = cur.lastrowid
            for rec in env["metrics"] if metrics is None else metrics:
                self._insert_metric(run_id, rec)
            self.conn.executemany(
                "INSERT INTO metrics(run_id, metric_id, profile, status) "
                "VALUES (?, ?, ?, 'pending')",
                [(run_id, m["id"], m.get("profile", DEFAULT_PROFILE))
                 for m in env.get("not_measured", [])])
        return run_id

    def import_records(self, records: Iterable[dict], *, origin: str, source: str,
                       imported_at: str, uuid: str, started: str, label: str = "",
                       argv: list[str] | None = None, host: dict | None = None, what: str = "",
                       session: dict | None = None, status: str = "complete") -> int:
        """Add a run made of records read from files (`rtbench import KIND`), in one
        transaction: all or nothing; a uuid already stored (`what` again) is refused."""
        host_json = _host_column(host)
        with self._write():
            self.conn.execute("BEGIN IMMEDIATE")
            self._refuse_stored(uuid, what or f"run {uuid}")
            cur = self.conn.execute(
                "INSERT INTO runs(uuid, started, finished, status, label, argv, host, session, "
                "imported_from, imported_at, origin) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (uuid, started, imported_at, status, contract.clean(label),
                 contract.dumps(argv or []), host_json,
                 contract.dumps(session) if session else None, contract.clean(source),
                 imported_at, origin))
            run_id = cur.lastrowid
            for rec in records:
                why = contract.problem(rec)  # whatever read them, the one check
                if why:
                    rid = rec.get("id") if isinstance(rec, dict) else None
                    raise StoreError(f"record {contract.printable(rid, 60)!r} not stored: "
                                     f"{why}")
                self._insert_metric(run_id, rec)
        return run_id

    def _refuse_stored(self, uuid: str, what: str) -> None:
        if (dup := self.conn.execute("SELECT id FROM runs WHERE uuid = ?", (uuid,)).fetchone()):
            raise StoreError(f"{what} is already in {self.path} as run {dup['id']}")

    def finish_run(self, run_id: int, status: str, finished: str) -> None:
        if status not in RUN_STATUSES:
            raise ValueError(f"bad run status {status!r}")
        with self._write():
            self.conn.execute("UPDATE runs SET status = ?, finished = ? WHERE id = ?",
                              (status, finished, run_id))

    def delete_run(self, run_id: int) -> None:
        """Undo a run that never measured anything (rejected arguments)."""
        with self._write():
            self.conn.execute("DELETE FROM metrics WHERE run_id = ?", (run_id,))
            self.conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))

    def get_run(self, ref: int | str) -> Run:
        """A run by its name (store.runref: an id, latest, latest~N,
        label:TEXT); StoreError if there is none. A positional name that
        lands on an import or an unfinished run sets the run's `picked`."""
        try:
            name = runref.parse(ref)
        except runref.RunRefError as exc:
            raise StoreError(str(exc)) from None
        if name.kind == "file":  # read by `compare` only (sheets.export.compared_run)
            raise StoreError(runref.file_here(name))
        row = runref.find(self.conn, name)
        if row is None:
            what = (f"labelled {contract.printable(name.value, 60)!r}" if name.kind == "label"
                    else str(name))
            raise StoreError(f"no run {what} in {self.path}")
        run = self._load(row)
        run.picked = runref.note(name, run.id, run.origin, run.status)
        return run

    def list_runs(self) -> list[Run]:
        rows = self.conn.execute("SELECT * FROM runs ORDER BY id").fetchall()
        return [self._load(r, with_metrics=False) for r in rows]

    def summaries(self) -> list[RunSummary]:
        """Every run with its metric counts by status and its profiles."""
        counts: dict[int, dict[str, int]] = {}
        profiles: dict[int, dict[str, None]] = {}
        for row in self.conn.execute(
                "SELECT run_id, profile, status, COUNT(*) AS n FROM metrics "
                "GROUP BY run_id, profile, status ORDER BY MIN(rowid)"):
            c = counts.setdefault(row["run_id"], {})
            c[row["status"]] = c.get(row["status"], 0) + row["n"]
            profiles.setdefault(row["run_id"], {}).setdefault(row["profile"], None)
        return [RunSummary(run, counts.get(run.id, {}), list(profiles.get(run.id, {})))
                for run in self.list_runs()]

    def history(self, metric_id: str, profile: str | None = None) -> list[HistoryPoint]:
        """Every stored record of `metric_id` (optionally of one profile), oldest run first."""
        sql = ("SELECT runs.*, metrics.profile AS m_profile, metrics.record AS m_record "
               "FROM metrics JOIN runs ON runs.id = metrics.run_id "
               "WHERE metrics.metric_id = ? AND metrics.record IS NOT NULL")
        args: list[Any] = [metric_id]
        if profile is not None:
            sql += " AND metrics.profile = ?"
            args.append(profile)
        points = []
        for row in self.conn.execute(sql + " ORDER BY runs.id, metrics.rowid", args):
            rec = contract.stored_record(row["m_record"], metric_id, [])
            if rec is None:
                continue
            rec = records.upgrade(rec)
            rec.setdefault("profile", row["m_profile"])
            points.append(HistoryPoint(self._load(row, with_metrics=False), row["m_profile"], rec))
        return points

    def metric_ids(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT DISTINCT metric_id FROM metrics")}

    def _load(self, row: sqlite3.Row, with_metrics: bool = True) -> Run:
        """A stored run as readers see it. Whatever a row holds (a run stored
        by an older rtbench, a database edited by hand), the run loads: a
        column that is no JSON, or JSON of the wrong kind, reads as empty and
        is named in `Run.damaged`; control characters in its strings are
        removed (rtbench.store.contract.clean), so no terminal obeys them.
        Records of schema 1 are read in schema 2's names (records.upgrade)."""
        damaged: list[str] = []
        text = contract.stored_text
        session = contract.column(row["session"], dict, "session", damaged)
        run = Run(id=row["id"], uuid=text(row["uuid"]), started=text(row["started"]),
                  finished=row["finished"] if isinstance(row["finished"], str) else None,
                  stored_status=row["status"] if row["status"] in RUN_STATUSES else "failed",
                  label=text(row["label"]),
                  argv=[a for a in contract.column(row["argv"], list, "argv", damaged) or []
                        if isinstance(a, str)],
                  host=contract.stored_host(row["host"], damaged),
                  session=records.upgrade(session) if session is not None else None,
                  imported_from=text(row["imported_from"]) or None,
                  imported_at=text(row["imported_at"]) or None,
                  origin_kind=text(row["origin"]) or None, linked_to=row["linked_to"])
        run.damaged = damaged
        if with_metrics:
            for m in self.conn.execute(
                    "SELECT metric_id, profile, record FROM metrics WHERE run_id = ? "
                    "ORDER BY rowid", (run.id,)):
                if m["record"] is None:
                    run.pending.append(text(m["metric_id"]))
                    run.pending_profiles.append(text(m["profile"]) or DEFAULT_PROFILE)
                    continue
                rec = contract.stored_record(m["record"], m["metric_id"], damaged)
                if rec is not None:
                    rec = records.upgrade(rec)
                    rec.setdefault("profile", m["profile"])
                    run.metrics.append(rec)
        return run


def _host_column(host: dict | None) -> str:
    """A run's host facts as stored: its strings cleaned (a path that is no
    UTF-8 keeps its name, a lone surrogate made U+FFFD), every field of its
    type (rtbench.store.contract.HOST) or a StoreError: whatever wrote
    them, no reader meets a list where it formats a name."""
    host = contract.clean(host or {})
    why = contract.host_problem(host)
    if why:
        raise StoreError(f"run not stored: {why}")
    return contract.dumps(host)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _exists(path: Path) -> bool:
    """Whether a database file is there; anything but a regular file (a
    directory, /dev/null, a FIFO), or a path that cannot be looked at, is
    an error: SQLite would write a journal beside it or fail later."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise StoreError(f"cannot open database {path}: {_why(exc)}") from exc
    if not stat.S_ISREG(st.st_mode):
        raise StoreError(f"cannot open database {path}: not a regular file")
    return True


def _text(value: bytes) -> str:
    """A text column as read: bytes that are no UTF-8 (a database edited by
    hand) read as U+FFFD, never an error that stops every listing."""
    return value.decode("utf-8", "replace")


def _connect(path: Path) -> sqlite3.Connection:
    existed = _exists(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot open database {path}: {_why(exc)}") from exc
    conn.row_factory, conn.text_factory = sqlite3.Row, _text
    try:
        _check_version(conn)  # before anything writes to a newer database
        _wal(conn)
        conn.execute("PRAGMA foreign_keys=ON")
        _migrate(conn)
    except (sqlite3.Error, StoreError) as exc:
        conn.close()
        if not existed:  # do not leave an empty database behind
            for suffix in ("", "-wal", "-shm", "-journal"):
                try:
                    Path(str(path) + suffix).unlink(missing_ok=True)
                except OSError:
                    pass
        if isinstance(exc, StoreError):
            raise
        raise StoreError(f"cannot open database {path}: {_why(exc)}") from exc
    return conn


def _connect_readonly(path: Path) -> sqlite3.Connection:
    """The database for reading only. A WAL database whose -wal and -shm
    files are not there (nobody has it open) and cannot be created (a
    directory the reader may not write) is opened immutable: SQLite's way to
    read it. A schema older than this rtbench's needs its migration, which
    needs write access: then it is opened for writing (as before), or, where
    the reader may not write, the error says so."""
    uri = "file:" + urllib.parse.quote(str(path.resolve())) + "?mode=ro"
    for suffix in ("", "&immutable=1"):
        conn = None
        try:
            conn = sqlite3.connect(uri + suffix, uri=True, timeout=BUSY_TIMEOUT_S)
            conn.row_factory, conn.text_factory = sqlite3.Row, _text
            version = _check_version(conn)
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            if conn is not None:
                conn.close()
            if suffix:
                raise StoreError(f"cannot open database {path}: {_why(exc)}") from exc
            continue
        except StoreError:
            conn.close()
            raise
        if version == SCHEMA_VERSION:
            return conn
        conn.close()
        try:
            return _connect(path)  # an older schema: migrated, if this user may
        except StoreError as exc:
            raise StoreError(f"database {path} has schema {version}; this rtbench reads "
                             f"{SCHEMA_VERSION}, and upgrading it needs write access: "
                             f"{exc}") from exc
    raise AssertionError("unreachable")


def _wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL mode. Two processes creating the database at once can
    get SQLITE_BUSY at once from the switch (the busy timeout does not cover
    it), so it is retried until the other one has switched."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _check_version(conn: sqlite3.Connection) -> int:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError(f"database schema {version} is newer than this rtbench "
                         f"(knows {SCHEMA_VERSION})")
    return version


def _migrate(conn: sqlite3.Connection) -> None:
    while _check_version(conn) < SCHEMA_VERSION:
        # One transaction per step: a failed migration leaves the old schema.
        # BEGIN IMMEDIATE takes the write lock first and the version is read
        # again under it, so two processes opening a new database at once
        # do not both migrate it.
        with conn:
            conn.execute("BEGIN IMMEDIATE")
            version = _check_version(conn)
            if version >= SCHEMA_VERSION:
                break
            MIGRATIONS[version](conn)
            conn.execute(f"PRAGMA user_version = {version + 1}")


def _why(exc: Exception) -> str:
    return getattr(exc, "strerror", None) or str(exc)
