import sqlite3

import pytest

from rtbench.store.db import SCHEMA_VERSION, Store, StoreError
from rtbench.store.records import failed_record

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
    assert [m["profile"] for m in run.metrics] == ["rt", "rt"]  # records without one are "rt"
    assert run.imported_from is None
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
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


def _v1_database(path):
    """A database as rtbench 0.1.0 (schema 1) left it, with one run."""
    from rtbench.store.db import _v1

    conn = sqlite3.connect(path)
    with conn:
        _v1(conn)
        conn.execute("PRAGMA user_version = 1")
        conn.execute("INSERT INTO runs(id, uuid, started, status, label, argv, host) "
                     "VALUES (1, 'u-old', 't', 'complete', 'old', '[]', '{}')")
        conn.execute("INSERT INTO metrics VALUES (1, 'a', 'ok', '', ?)",
                     ('{"type": "metric", "id": "a", "status": "ok", "n": 1}',))
        conn.execute("INSERT INTO metrics VALUES (1, 'b', 'pending', NULL, NULL)")
    conn.close()


def test_migration_from_schema_1_keeps_runs(tmp_path):
    db = tmp_path / "old.db"
    _v1_database(db)
    with Store(db) as s:
        run = s.get_run(1)
        assert [(m["id"], m["profile"]) for m in run.metrics] == [("a", "rt")]
        assert run.pending_keys() == [("b", "rt")] and run.label == "old"
        assert run.imported_from is None
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    cols = [r[1] for r in conn.execute("PRAGMA table_info(metrics)")]
    assert cols == ["run_id", "metric_id", "profile", "status", "reason", "record"]
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_profiles_are_separate_rows(tmp_path):
    with Store(tmp_path / "r.db") as s:
        rid = s.create_run("u", "t", ["a", "b"], profiles=["default", "rt", "cold"])
        for p in ("default", "rt"):
            s.add_metric(rid, {**_metric("a"), "profile": p})
        s.add_metric(rid, {**_metric("a"), "profile": "rt", "n": 2})  # replaces, not duplicates
        run = s.get_run(rid)
        assert [(m["id"], m["profile"], m["n"]) for m in run.metrics] == [
            ("a", "default", 1), ("a", "rt", 2)]
        assert sorted(run.pending_keys()) == [("a", "cold"), ("b", "cold"), ("b", "default"),
                                              ("b", "rt")]
        assert run.profiles == ["default", "rt", "cold"]
        (summary,) = s.summaries()
        assert summary.counts == {"ok": 2, "pending": 4}
        assert summary.profiles == ["default", "rt", "cold"]


def test_create_run_takes_profiles_from_host(tmp_path):
    # `rtbench run --profile` records the profiles in the host facts.
    with Store(tmp_path / "r.db") as s:
        rid = s.create_run("u", "t", ["a"], host={"profiles": ["cold", "default"]})
        assert s.get_run(rid).pending_keys() == [("a", "cold"), ("a", "default")]


def test_history_across_runs(tmp_path):
    with Store(tmp_path / "r.db") as s:
        for n in (1, 2):
            rid = s.create_run(f"u{n}", f"t{n}", ["a", "b"], label=f"l{n}")
            s.add_metric(rid, {**_metric("a"), "n": n})
        s.add_metric(rid, {**_metric("a"), "profile": "cold"})
        points = s.history("a")
        assert [(p.run.id, p.run.label, p.profile, p.record["n"]) for p in points] == [
            (1, "l1", "rt", 1), (2, "l2", "rt", 2), (2, "l2", "cold", 1)]
        assert [p.run.id for p in s.history("a", "cold")] == [2]
        assert s.history("b") == []  # pending rows are not history
        assert s.metric_ids() == {"a", "b"}


def _envelope(uuid="u-imp"):
    return {"schema_version": 2, "rtbench_version": "0.1.0",
            "run": {"id": 9, "uuid": uuid, "label": "far", "status": "complete",
                    "started": "t", "finished": "t2", "argv": ["rtbench", "run"],
                    "profiles": ["rt"]},
            "host": {"hostname": "elsewhere"}, "session": SESSION,
            "metrics": [{**_metric("a"), "profile": "rt"}],
            "not_measured": [{"id": "b", "profile": "rt"}]}


def test_import_run_and_refuse_duplicates(tmp_path):
    with Store(tmp_path / "r.db") as s:
        rid = s.import_run(_envelope(), "/x/results.json (run 9 on elsewhere)", "now")
        run = s.get_run(rid)
        assert run.uuid == "u-imp" and run.label == "far" and run.status == "complete"
        assert run.imported_from == "/x/results.json (run 9 on elsewhere)"
        assert run.imported_at == "now" and run.session == SESSION
        assert [m["id"] for m in run.metrics] == ["a"] and run.pending == ["b"]
        with pytest.raises(StoreError, match="run u-imp is already in .* as run 1"):
            s.import_run(_envelope(), "again", "later")
        assert len(s.list_runs()) == 1
