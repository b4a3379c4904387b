"""`rtbench import KIND FILE…` into the store: every file read and checked
before the database is opened, then one run stored (`say` reports each as
it lands). A results.json (`rtbench import FILE`) is rtbench's own format
and is read back beside its writer (sheets/export.py).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Callable

from rtbench.errors import RtbenchError
from rtbench.importers import harness_log, read_files
from rtbench.importers.base import Source
from rtbench.store import catalog as catalog_mod
from rtbench.store.db import Store, now_utc


def _readable(files: list[Path]) -> None:
    for f in files:
        if not f.is_file():
            raise RtbenchError(f"cannot read {f}: " + ("not a file" if f.exists()
                                                       else "no such file"))


def harness_logs(files: list[Path], label: str, db: Path | None,
                 say: Callable[[str], None]) -> None:
    """A board's console logs of the harness: each stored as a measured run.
    Every log is checked whole before the database is opened, then read
    again a record at a time into one transaction per log."""
    logs = []
    for f in files:  # every file read and checked before the database
        _readable([f])
        logs.append(harness_log.read(Source(str(f), path=f)))
    with Store(db) as store:
        for f, log in zip(files, logs):
            when = now_utc()
            run_id = store.import_records(
                log.records(), origin="harness", imported_at=when, uuid=str(uuid.uuid4()),
                source=f"harness log: {f.resolve()}", started=when, label=label,
                argv=["rtbench", "import", "harness", str(f)], host=log.host(str(f)),
                session=log.session, status="complete" if log.complete else "incomplete")
            say(f"imported {f} as run {run_id} ({log.count} metric records"
                + ("" if log.complete else f"; incomplete: {log.why}") + ")")


def foreign(kind: str, files: list[Path], label: str, program: str | None, db: Path | None,
            say: Callable[[str], None]) -> None:
    """Another tool's outputs (zephyr, rt-tests, lmbench, rtos-benchmark): one run."""
    _readable(files)
    imported = read_files(kind, files, catalog_mod.load(), program)  # before the database
    when = now_utc()
    with Store(db) as store:
        run_id = store.import_records(
            imported.records, origin=kind, imported_at=when, uuid=str(uuid.uuid4()),
            source=f"{kind}: " + ", ".join(str(f.resolve()) for f in files),
            started=imported.started or when, label=label,
            argv=["rtbench", "import", kind, *map(str, files)],
            host=imported.host, session=imported.session)
    mapped = len(imported.records) - len(imported.unmapped)
    say(f"imported {len(imported.records)} figures from {len(files)} file(s) as run "
        f"{run_id}: {mapped} answer an rtbench metric, {len(imported.unmapped)} kept "
        "without one")
    for rec in imported.unmapped:
        why = f" (another variant of {rec['variant_of']})" if rec.get("variant_of") else ""
        say(f"  no rtbench metric: {rec['source']['label']}{why}")
