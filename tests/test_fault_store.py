"""Fault injection, class 4 of issue 25: the store.

A database deleted while a run writes into it is an error at the run's
end (exit 1, the results file kept and importable); a board run's own
results.json imports back; a results file whose records hold fields of
the wrong type is refused in one line; reading commands open the
database read-only, so a normal user reads a database another user owns;
one bad stored run does not break the listing or the reading of the
others.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from faults import Leftovers, log_copy, one_line_error, spawn, stored, wait_for
from rtbench.cli import main
from rtbench.sheets import export
from rtbench.store import catalog
from rtbench.store.db import Store
from synth import full_run, store

LOG = Path(__file__).resolve().parent / "data" / "board" / "freertos-mps2-an385.log"


# ---- a database that vanishes during a run ----

def _a_run_that_has_stored(isolated: Path, left: Leftovers):
    """A run into r.db (out: o) that has stored a record and measures on
    (one block: its records are stored as they come, 0.1 s apart)."""
    db = isolated / "r.db"
    r = spawn(["run", "--quick", "--blocks", "1", "--no-programs", "--only", "method.*,sem.*",
               "--db", "r.db", "--out", "o"], isolated, {**left.env(), "FAKE_HARNESS_DELAY": "0.1"})
    wait_for("a stored record", lambda: stored(db), proc=r.proc)
    return db, r


@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_database_gone_during_a_run_is_an_error_and_the_results_kept(how, fake, isolated,
                                                                       left):
    db, r = _a_run_that_has_stored(isolated, left)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    if how == "replaced":
        with Store(db) as s:  # another database at the same path
            s.list_runs()
    rc, out, err = r.finish()
    assert rc == 1, (out, err)
    line = one_line_error(err)
    assert f"was {'deleted' if how == 'deleted' else 'replaced'}" in line, line
    assert "run 1 is in no database" in line and "o/results.json" in line
    env = json.loads((isolated / "o" / "results.json").read_text())
    assert env["run"]["status"] == "complete" and env["metrics"]
    assert main(["import", "o/results.json", "--db", "back.db"]) == 0
    with Store(isolated / "back.db") as s:
        assert len(s.get_run(1).metrics) == len(env["metrics"])
    left.check()


@pytest.mark.parametrize("how", ["header", "pages"])
def test_a_database_damaged_during_a_run_keeps_the_results(how, fake, isolated, left):
    """A database damaged while a run writes into it (its header or its
    pages overwritten) lost the measurement: exit 2, no results.json, no
    sheet. Now the run goes on measuring, its records kept beside the
    database, and ends as a deleted database does: exit 1, one line naming
    why, the results file written and importable."""
    db, r = _a_run_that_has_stored(isolated, left)
    # what a stray dd or a failing disk does: the file and its log overwritten
    # (the log alone would be written back over the file at the end)
    for path in (db, Path(f"{db}-wal")):
        with open(path, "r+b") as fh:
            fh.seek(0 if how == "header" else 4096)
            fh.write(b"\xde\xad" * (max(path.stat().st_size, 8192) // 2))
    rc, out, err = r.finish()
    line = one_line_error(err)
    assert rc == 1 and "run 1 is in no database" in line and "o/results.json" in line, err
    env = json.loads((isolated / "o" / "results.json").read_text())
    assert env["run"]["id"] == 1 and env["run"]["status"] in ("complete", "failed")
    assert {m["id"] for m in env["metrics"] if m["status"] == "ok"}
    assert (isolated / "o" / "datasheet.md").is_file()
    assert main(["import", "o/results.json", "--db", "back.db"]) == 0
    left.check()


def test_a_database_that_fails_its_writes_mid_run_loses_nothing(isolated):
    """When the database starts failing its writes (damaged pages SQLite
    reads back, an I/O error), the run's copy in memory goes on alone: every
    record after the failure is still in the run the sheet is written from,
    and the run ends saying why the database holds it no more."""
    from rtbench.measure.kept import KeptStore
    from rtbench.store.db import StoreError

    kept = KeptStore(Store(isolated / "r.db"))
    run_id = kept.create_run("u-1", "2026-01-01T00:00:00Z", ["method.null", "sem.give.no_waiter"])
    rec = {"type": "metric", "id": "method.null", "status": "unsupported", "reason": "x"}
    kept.add_metric(run_id, rec)

    def broken(*_args):
        raise StoreError("cannot write database r.db: database disk image is malformed")

    kept.store.add_metric = kept.store.finish_run = broken
    kept.add_metric(run_id, {**rec, "id": "sem.give.no_waiter"})
    kept.finish_run(run_id, "complete", "2026-01-01T00:01:00Z")
    run = kept.get_run(run_id)
    assert run.status == "complete" and {m["id"] for m in run.metrics} == {
        "method.null", "sem.give.no_waiter"}
    assert "disk image is malformed" in kept.vanished()
    kept.close()


# ---- results files ----

def test_a_board_runs_results_file_imports_back(isolated, capsys):
    """A board's figures are instructions, without tick_hz: the file its run
    wrote (here: the same run, read from its console log) imports back."""
    assert main(["import", "harness", str(LOG), "--db", "a.db"]) == 0
    assert main(["report", "1", "--db", "a.db", "--format", "json", "-o", "r.json"]) == 0
    assert json.loads((isolated / "r.json").read_text())["metrics"][0]["unit"] == "instructions"
    capsys.readouterr()
    assert main(["import", "r.json", "--db", "b.db"]) == 0, capsys.readouterr().err
    assert main(["show", "1", "--db", "b.db"]) == 0


@pytest.fixture
def results(isolated) -> dict:
    env = json.loads(export.to_json(full_run(catalog.load().ids[:3]), catalog.load()))
    env["run"]["uuid"] = "another-run"
    return env


@pytest.mark.parametrize("field, value", [
    ("blocks", "x"), ("blocks", [{"p50": "x"}]), ("reason", 5), ("note", []),
    ("realtime", "yes"), ("discarded", -3), ("overhead_ticks", "26"),
    ("hist", {"buckets": [[1, 2, "x"]]}), ("source", {"label": 5}), ("placement", 1),
])
def test_a_results_file_with_a_field_of_the_wrong_type_is_one_line(field, value, isolated,
                                                                   results, capsys):
    """`"blocks": "x"` imported, then crashed every reader of the run."""
    results["metrics"][0][field] = value
    (isolated / "bad.json").write_text(json.dumps(results))
    assert main(["import", "bad.json", "--db", "r.db"]) == 2
    line = one_line_error(capsys.readouterr().err)
    assert "bad.json" in line and field in line, line
    assert not (isolated / "r.db").exists()


@pytest.mark.parametrize("where, value, why", [
    # issue 35: stored, then `compare` raised TypeError, `show` and HTML crashed
    (("host", "target"), ["a"], "host.target is a list, not text"),
    (("host", "os"), ["Linux"], "host.os is a list, not text"),
    (("host", "image_size"), "big", "host.image_size is the text 'big', not an object"),
    (("host", "caches"), [{"level": 1, "size": "x"}],
     "host.caches[0].size is the text 'x', not a count"),
    (("host", "load_before"), [1, "x"], "host.load_before[1] is the text 'x', not a number"),
    (("host", "cores_online"), -2, "host.cores_online is the number -2, not a count"),
    # objects the readers index: all their fields, or none (show and HTML: KeyError)
    (("host", "caches"), [{"type": "Data", "size": 4096}], "host.caches[0] lacks level"),
    (("host", "image_size"), {"text": 5}, "host.image_size lacks data, bss"),
    (("host", "labgrid"), {"place": "p"}, "host.labgrid lacks coordinator, acquired_by"),
    (("host", "concurrent_harnesses"), [{"same_cpu": True}],
     "host.concurrent_harnesses[0] lacks pid"),
    # issue 35: a lone surrogate anywhere beside the records
    (("run", "label"), "\ud800", "run.label: a lone surrogate (U+D800) is no Unicode"),
    (("host", "hostname"), "h\udc00", "host.hostname: a lone surrogate (U+DC00)"),
    (("session", "port"), "p\ud800", "session.port: a lone surrogate (U+D800)"),
    (("not_measured",), [{"id": "x\ud800", "profile": "rt"}], "not_measured[0].id: a lone"),
])
def test_a_results_file_whose_run_or_host_is_no_run_or_host_is_one_line(where, value, why,
                                                                         isolated, results,
                                                                         capsys):
    """The run's fields beside its records pass the contract too
    (rtbench.store.contract.envelope_problem): typed, bounded, text."""
    node = results
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    (isolated / "bad.json").write_text(json.dumps(results))
    assert main(["import", "bad.json", "--db", "r.db"]) == 2
    line = one_line_error(capsys.readouterr().err)
    assert "bad.json" in line and why in line, line
    assert not (isolated / "r.db").exists()


# ---- reading another user's database ----

def test_a_normal_user_reads_a_database_another_user_owns(normal_user, user_dir, capsys):
    """World-readable, in a directory the reader may not write: every
    reading command works, and the file is left as it was (no -wal, -shm,
    migration). Every command opened it read-write and failed."""
    import os
    import shutil

    from faults import User

    shared = user_dir / "shared"
    shared.mkdir()
    db = shared / "r.db"
    assert main(["import", "harness", str(LOG), "--db", str(db)]) == 0
    assert main(["import", "harness", str(log_copy(LOG, user_dir, 1)), "--db", str(db)]) == 0
    owner = 65534 if normal_user.uid != 65534 else 0  # nobody: not the reader, not root
    shutil.chown(shared, owner, owner)
    shutil.chown(db, owner, owner)
    shared.chmod(0o755)
    db.chmod(0o644)
    before = (db.stat().st_mtime_ns, sorted(os.listdir(shared)))
    assert isinstance(normal_user, User)
    for args in (["runs"], ["show", "1"], ["report", "2", "--format", "csv"],
                 ["history", "method.null"], ["hist", "method.busywait", "1"],
                 ["compare", "1", "2"]):
        rc, out, err = spawn([*args, "--db", str(db)], user_dir, {}, normal_user).finish()
        assert rc == 0 and "Traceback" not in err, (args, out, err)
        assert out.strip(), args
    assert (db.stat().st_mtime_ns, sorted(os.listdir(shared))) == before


# ---- one bad stored run ----

def _damage(db: Path) -> None:
    """Run 2 as a database edited by hand, or written by a buggy rtbench,
    holds it: columns that are no JSON or JSON of the wrong kind, records
    whose fields the readers cannot take."""
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE runs SET host = 'not json', session = '[1, 2]', argv = '{' "
                     "WHERE id = 2")
        row = conn.execute("SELECT metric_id, record FROM metrics WHERE run_id = 2 "
                           "AND record IS NOT NULL ORDER BY rowid").fetchall()
        bad = [dict(json.loads(row[0][1]), blocks="x"), dict(json.loads(row[1][1]), n="many")]
        for (mid, _rec), rec in zip(row, bad):
            conn.execute("UPDATE metrics SET record = ? WHERE run_id = 2 AND metric_id = ?",
                         (json.dumps(rec), mid))
        conn.execute("UPDATE metrics SET record = '{\"id\": ' WHERE run_id = 2 AND "
                     "metric_id = ?", (row[2][0],))
    conn.close()


def test_one_bad_stored_run_breaks_no_listing_and_no_other_run(isolated, capsys):
    db = isolated / "r.db"
    for i in range(3):
        store(db, full_run(catalog.load().ids[:6], seed=i + 1, run_id=i + 1))
    _damage(db)
    for args in (["runs"], ["runs", "--format", "json"], ["show", "1"], ["show", "3"],
                 ["compare", "1", "3"], ["history", catalog.load().ids[0]],
                 ["report", "2", "--format", "json"], ["show", "2"], ["compare", "1", "2"]):
        rc = main([*args, "--db", str(db)])
        err = capsys.readouterr().err
        assert rc in (0, 1) and "Traceback" not in err, (args, err)
    assert main(["runs", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "unreadable" in out and out.count("complete") >= 3
    with sqlite3.connect(db) as conn:  # and the readers wrote nothing into it
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 3


def test_a_run_stored_before_its_strings_and_host_were_checked_is_read(isolated, capsys):
    """Issue 35: a lone surrogate stored by an earlier rtbench (`"\\ud800"`
    in a JSON column), bytes that are no UTF-8 in a text column, host facts
    of the wrong type: `runs` and `history` crashed for the whole database,
    `show`, `compare` and `report` for the run. Now the run reads, the
    surrogate as U+FFFD, the bad host fields left out and named."""
    db = isolated / "r.db"
    for i in range(2):
        store(db, full_run(catalog.load().ids[:4], seed=i + 1, run_id=i + 1))
    mid = catalog.load().ids[0]
    with sqlite3.connect(db) as conn:
        host = json.loads(conn.execute("SELECT host FROM runs WHERE id = 2").fetchone()[0])
        host.update(hostname="h\ud800", target=["a"], os=["Linux"], image_size="big")
        session = conn.execute("SELECT session FROM runs WHERE id = 2").fetchone()[0]
        rec = json.loads(conn.execute("SELECT record FROM metrics WHERE run_id = 2 AND "
                                      "metric_id = ?", (mid,)).fetchone()[0])
        rec["note"] = "n\udc00 \u202e"
        conn.execute("UPDATE runs SET host = ?, session = ?, label = CAST(X'6c61628f' AS TEXT) "
                     "WHERE id = 2", (json.dumps(host), session.replace('"', '"\\ud800', 1)))
        conn.execute("UPDATE metrics SET record = ? WHERE run_id = 2 AND metric_id = ?",
                     (json.dumps(rec), mid))
    for args in (["runs"], ["runs", "--format", "json"], ["show", "2"], ["history", mid],
                 ["compare", "1", "2"], ["report", "2"], ["report", "2", "--format", "html"]):
        rc = main([*args, "--db", str(db)])
        out, err = capsys.readouterr()
        assert rc in (0, 1) and "Traceback" not in err, (args, err)
        assert "\ufffd" in out or args[0] in ("history", "compare"), args
        assert not any(c in out for c in "\u202e\ud800\udc00"), args
    with Store(db) as s:
        run = s.get_run(2)
    assert run.host["hostname"] == "h\ufffd" and "target" not in run.host
    assert "host: target is a list, not text" in run.damaged

