"""A run's rows written twice: to the database and to a copy in memory, so
that a database damaged while the run writes into it (overwritten, a disk
that fails) loses nothing the run measured. The run goes on measuring into
the copy, writes its sheet and results.json from it, and ends as a run
whose database was deleted does (rtbench.measure.run._finish): exit 1, one
line naming why, the results file to import.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from rtbench.errors import RtbenchError
from rtbench.store.db import BUSY_TIMEOUT_S, Store
from rtbench.store.text import one_line


class KeptStore:
    """`store` for a run (create_run, set_session, add_metric, update_host,
    finish_run, get_run of this run), with its copy; everything else (the
    peers' linked runs) is the database's alone."""

    def __init__(self, store: Store):
        self.store = store
        self.copy = Store(":memory:")
        self.run_id: int | None = None
        self.lost: str | None = None  # why the database holds the run no more

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def __enter__(self) -> "KeptStore":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self.copy.close()
        self.store.close()

    def _both(self, name: str, *args: Any) -> None:
        getattr(self.copy, name)(*args)
        if self.lost is None:
            try:
                getattr(self.store, name)(*args)
            except (RtbenchError, sqlite3.Error) as exc:  # the copy goes on alone
                self.lost = (f"the database {self.store.path} could not be written any more "
                             f"({exc})")

    def create_run(self, uuid: str, started: str, ids: list[str], label: str = "",
                   argv: list[str] | None = None, host: dict | None = None) -> int:
        self.run_id = self.store.create_run(uuid, started, ids, label, argv, host)
        self.copy.create_run(uuid, started, ids, label, argv, host, run_id=self.run_id)
        return self.run_id

    def set_session(self, run_id: int, session: dict) -> None:
        self._both("set_session", run_id, session)

    def update_host(self, run_id: int, host: dict) -> None:
        self._both("update_host", run_id, host)

    def add_metric(self, run_id: int, record: dict) -> None:
        self._both("add_metric", run_id, record)

    def finish_run(self, run_id: int, status: str, finished: str) -> None:
        self._both("finish_run", run_id, status, finished)

    def delete_run(self, run_id: int) -> None:
        self.copy.delete_run(run_id)
        if self.lost is None:
            self.store.delete_run(run_id)

    def get_run(self, ref: int | str):
        return self.copy.get_run(ref) if ref == self.run_id else self.store.get_run(ref)

    def vanished(self) -> str | None:
        """Why the database no longer holds the run: deleted, replaced,
        unwritable since, or damaged (read afresh); None if it does."""
        if self.lost is None:
            self.lost = self.store.vanished()
        if self.lost is None and (why := damaged(self.store.path)):
            self.lost = f"the database {self.store.path} was damaged while it was written ({why})"
        return self.lost


def damaged(path) -> str | None:
    """Why the database file, read afresh (a new connection: the run's own
    cache hides a file overwritten under it), is no database any more, or
    None."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                               timeout=BUSY_TIMEOUT_S)
        try:
            rows = conn.execute("PRAGMA quick_check(1)").fetchall()
        finally:
            conn.close()
    except (sqlite3.Error, OSError) as exc:
        return one_line(exc)[:200]
    return None if rows == [("ok",)] else one_line(rows[0][0])[:200]
