import sqlite3

import pytest

from rtbench.records import failed_record
from rtbench.store import SCHEMA_VERSION, Store, StoreError

SESSION = {"type": "session", "schema": 1, "ts": {"hz_measured": 1e9}, "rt": {"realtime": True}}


def _metric(mid, status="ok"):
    return {"type": "metric", "id": mid, "status": status, "reason": "", "n": 1}


def test_create_add_finish_reopen(tmp_path):
    db = tmp_path / "sub" / "r.db"
    with Store(db) as s:
        rid = s.create_run("u-1", "2024-01-01T00:00:00+00:00", ["a", "b"], "lbl",
                           ["rtbench", "run"], {"cpu_model": "X"})
        s.set_session(rid, SESSION)
        s.add_metric(rid, _metric("a"))
        s.add_metric(rid, failed_record("b", "timeout after 1s"))
        s.finish_run(rid, "complete", "2024-01-01T00:01:00+00:00")
    with Store(db) as s:
        run = s.get_run(rid)
        assert s.get_run("latest").id == rid
        assert [r.id for r in s.list_runs()] == [rid]
    assert run.status == "complete" and run.label == "lbl" and run.argv == ["rtbench", "run"]
    assert run.host == {"cpu_model": "X"} and run.session == SESSION
    assert [m["id"] for m in run.metrics] == ["a", "b"] and run.pending == []
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 1
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT status, reason FROM metrics WHERE metric_id='b'").fetchone() == (
        "failed", "timeout after 1s")


def test_run_left_running_reads_as_incomplete(tmp_path):
    with Store(tmp_path / "r.db") as s:
        rid = s.create_run("u", "t", ["a", "b"])
        s.add_metric(rid, _metric("a"))
    # The process that owned the run died without finishing it.
    with Store(tmp_path / "r.db") as s:
        run = s.get_run(rid)
    assert run.stored_status == "running" and run.status == "incomplete"
    assert [m["id"] for m in run.metrics] == ["a"] and run.pending == ["b"]


def test_newer_schema_is_refused(tmp_path):
    db = tmp_path / "r.db"
    Store(db).close()
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 7")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="database schema 7 is newer than this rtbench"):
        Store(db)


def test_unknown_run_and_missing_db(tmp_path):
    with Store(tmp_path / "r.db") as s:
        with pytest.raises(StoreError, match="no run 3"):
            s.get_run(3)
        with pytest.raises(StoreError, match="no run latest"):
            s.get_run("latest")
        with pytest.raises(StoreError, match="integer"):
            s.get_run("abc")
    with pytest.raises(StoreError, match="no database"):
        Store(tmp_path / "absent.db", create=False)
    assert not (tmp_path / "absent.db").exists()


def test_unwritable_location_is_a_clean_error(tmp_path):
    afile = tmp_path / "file"
    afile.write_text("x")
    with pytest.raises(StoreError, match="cannot open database"):
        Store(afile / "r.db")


def test_delete_run(tmp_path):
    with Store(tmp_path / "r.db") as s:
        rid = s.create_run("u", "t", ["a"])
        s.delete_run(rid)
        assert s.list_runs() == []
