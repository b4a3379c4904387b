"""`rtbench import KIND FILE…` into the store: every file read and checked
before the database is opened, then one run stored (`say` reports each as
it lands). A results.json (`rtbench import FILE`) is rtbench's own format
and is read back beside its writer (sheets/export.py).
"""

from __future__ import annotations

import hashlib
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


# The namespace of the uuids of imported runs: uuid5 of their files' content.
IMPORT_NS = uuid.UUID("6f1d2a3c-8e4b-5c7d-9a0b-1c2d3e4f5a6b")


def content_hash(kind: str, files: list[Path], program: str | None = None) -> str:
    """The sha256 of what an import reads (its kind, --program and every
    file's bytes, in any order): the same files imported again have it,
    and the run's uuid is made from it, so the store refuses them."""
    digests = []
    for f in files:
        h = hashlib.sha256()
        try:
            with open(f, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
        except OSError as exc:
            raise RtbenchError(f"cannot read {f}: {exc.strerror or exc}") from exc
        digests.append(h.hexdigest())
    whole = "\n".join([kind, program or "", *sorted(digests)])
    return hashlib.sha256(whole.encode()).hexdigest()


def _twice(files: list[Path], digest: str) -> str:
    """What a second import of the same files is called in the refusal."""
    return f"{', '.join(map(str, files))} (the same content, sha256 {digest[:12]}…)"


def harness_logs(files: list[Path], label: str, db: Path | None,
                 say: Callable[[str], None]) -> None:
    """A board's console logs of the harness: each stored as a measured run.
    Every log is checked whole before the database is opened, then read
    again a record at a time into one transaction per log."""
    logs = []
    for f in files:  # every file read and checked before the database
        _readable([f])
        logs.append(harness_log.read(Source(str(f), path=f)))
    digests = [content_hash("harness", [f]) for f in files]
    with Store(db) as store:
        for f, log, digest in zip(files, logs, digests):
            when = now_utc()
            run_id = store.import_records(
                log.records(), origin="harness", imported_at=when,
                uuid=str(uuid.uuid5(IMPORT_NS, digest)), what=_twice([f], digest),
                source=f"harness log: {f.resolve()} (sha256 {digest})", started=when, label=label,
                argv=["rtbench", "import", "harness", str(f)], host=log.host(str(f)),
                session=log.session, status="complete" if log.complete else "incomplete")
            say(f"imported {f} as run {run_id} ({log.count} metric records"
                + ("" if log.complete else f"; incomplete: {log.why}") + ")")


def foreign(kind: str, files: list[Path], label: str, program: str | None, db: Path | None,
            say: Callable[[str], None]) -> None:
    """Another tool's outputs (zephyr, rt-tests, lmbench, rtos-benchmark): one run."""
    _readable(files)
    imported = read_files(kind, files, catalog_mod.load(), program)  # before the database
    digest = content_hash(kind, files, program)
    imported.session["source"]["sha256"] = digest
    when = now_utc()
    with Store(db) as store:
        run_id = store.import_records(
            imported.records, origin=kind, imported_at=when,
            uuid=str(uuid.uuid5(IMPORT_NS, digest)), what=_twice(files, digest),
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
