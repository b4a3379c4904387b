"""SQLite store of runs and their metric records.

A run is inserted as `running` with one `pending` row per selected metric,
and each metric is committed the moment it arrives, so a killed rtbench
leaves a readable partial run behind.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import platformdirs

from rtbench.errors import RtbenchError

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


# MIGRATIONS[n] takes a database from schema n to n+1.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_v1]
SCHEMA_VERSION = len(MIGRATIONS)


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
    metrics: list[dict[str, Any]] = field(default_factory=list)  # records that arrived
    pending: list[str] = field(default_factory=list)  # selected, never measured

    @property
    def status(self) -> str:
        # Nobody finishes a run whose process was killed: read it as incomplete.
        return "incomplete" if self.stored_status == "running" else self.stored_status


class Store:
    def __init__(self, path: Path | str | None = None, create: bool = True):
        self.path = Path(path) if path else default_path()
        if not create and not self.path.is_file():
            # Reading commands must not leave an empty database behind.
            raise StoreError(f"no database at {self.path}")
        self.conn = _connect(self.path)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def create_run(self, uuid: str, started: str, ids: list[str], label: str = "",
                   argv: list[str] | None = None, host: dict | None = None) -> int:
        with self.conn:
            cur = self.conn.execute(
                "INSERT INTO runs(uuid, started, status, label, argv, host) "
                "VALUES (?, ?, 'running', ?, ?, ?)",
                (uuid, started, label, json.dumps(argv or []), json.dumps(host or {})))
            run_id = cur.lastrowid
            self.conn.executemany(
                "INSERT INTO metrics(run_id, metric_id, status) VALUES (?, ?, 'pending')",
                [(run_id, i) for i in ids])
        return run_id

    def set_session(self, run_id: int, session: dict) -> None:
        with self.conn:
            self.conn.execute("UPDATE runs SET session = ? WHERE id = ?",
                              (json.dumps(session), run_id))

    def add_metric(self, run_id: int, record: dict) -> None:
        with self.conn:
            self.conn.execute(
                "INSERT OR REPLACE INTO metrics(run_id, metric_id, status, reason, record) "
                "VALUES (?, ?, ?, ?, ?)",
                (run_id, record["id"], record["status"], record.get("reason", ""),
                 json.dumps(record)))

    def finish_run(self, run_id: int, status: str, finished: str) -> None:
        if status not in RUN_STATUSES:
            raise ValueError(f"bad run status {status!r}")
        with self.conn:
            self.conn.execute("UPDATE runs SET status = ?, finished = ? WHERE id = ?",
                              (status, finished, run_id))

    def delete_run(self, run_id: int) -> None:
        """Undo a run that never measured anything (rejected arguments)."""
        with self.conn:
            self.conn.execute("DELETE FROM metrics WHERE run_id = ?", (run_id,))
            self.conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))

    def get_run(self, ref: int | str) -> Run:
        """A run by integer id or "latest"; StoreError if there is none."""
        if str(ref) == "latest":
            row = self.conn.execute("SELECT * FROM runs ORDER BY id DESC LIMIT 1").fetchone()
        else:
            try:
                run_id = int(ref)
            except ValueError:
                raise StoreError(f"run must be an integer id or 'latest', not {ref!r}") from None
            row = self.conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise StoreError(f"no run {ref} in {self.path}")
        return self._load(row)

    def list_runs(self) -> list[Run]:
        rows = self.conn.execute("SELECT * FROM runs ORDER BY id").fetchall()
        return [self._load(r, with_metrics=False) for r in rows]

    def _load(self, row: sqlite3.Row, with_metrics: bool = True) -> Run:
        run = Run(id=row["id"], uuid=row["uuid"], started=row["started"],
                  finished=row["finished"], stored_status=row["status"], label=row["label"] or "",
                  argv=json.loads(row["argv"] or "[]"), host=json.loads(row["host"] or "{}"),
                  session=json.loads(row["session"]) if row["session"] else None)
        if with_metrics:
            for m in self.conn.execute(
                    "SELECT metric_id, record FROM metrics WHERE run_id = ? ORDER BY rowid",
                    (run.id,)):
                if m["record"] is None:
                    run.pending.append(m["metric_id"])
                else:
                    run.metrics.append(json.loads(m["record"]))
        return run


def _connect(path: Path) -> sqlite3.Connection:
    existed = path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot open database {path}: {_why(exc)}") from exc
    conn.row_factory = sqlite3.Row
    try:
        conn.execute("PRAGMA journal_mode=WAL")
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


def _migrate(conn: sqlite3.Connection) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError(f"database schema {version} is newer than this rtbench "
                         f"(knows {SCHEMA_VERSION})")
    for target in range(version, SCHEMA_VERSION):
        # One transaction per step: a failed migration leaves the old schema.
        with conn:
            conn.execute("BEGIN")
            MIGRATIONS[target](conn)
            conn.execute(f"PRAGMA user_version = {target + 1}")


def _why(exc: Exception) -> str:
    return getattr(exc, "strerror", None) or str(exc)
