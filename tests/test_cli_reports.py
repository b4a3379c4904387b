"""The report, compare, history, runs and import commands: formats, output
files, and bad input (one-line error, exit 2, database unchanged)."""

import json
import sqlite3

import pytest

from rtbench.cli import main
from rtbench.store import catalog
from rtbench.store.db import SCHEMA_VERSION, Store
from synth import full_run, store

IDS = ["method.null", "sem.give.no_waiter", "sem.give.wake_ctx.thread"]


@pytest.fixture
def db(isolated):
    path = isolated / "r.db"
    store(path, full_run(IDS, seed=1, run_id=1))
    store(path, full_run(IDS, seed=2, run_id=2, scale=1.01))
    return path


def _dump(path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [f"user_version {conn.execute('PRAGMA user_version').fetchone()[0]}",
                *conn.iterdump()]
    finally:
        conn.close()


@pytest.mark.parametrize("fmt, start", [("md", "# rtbench data sheet"),
                                        ("html", "<!doctype html>"),
                                        ("csv", "schema_version,run_id,"),
                                        ("json", "{\n  \"schema_version\": 3")])
def test_report_formats(db, fmt, start, capsys):
    assert main(["report", "latest", "--db", str(db), "--format", fmt]) == 0
    assert capsys.readouterr().out.startswith(start)


def test_report_output_file_picks_format_from_suffix(db, isolated, capsys):
    assert main(["report", "1", "--db", str(db), "-o", "sheet.html"]) == 0
    assert (isolated / "sheet.html").read_text().startswith("<!doctype html>")
    assert "wrote sheet.html" in capsys.readouterr().err
    assert main(["report", "1", "--db", str(db), "-o", "sheet.txt", "--format", "csv"]) == 0
    assert (isolated / "sheet.txt").read_text().startswith("schema_version,")


def test_show_still_prints_markdown(db, capsys):
    assert main(["show", "1", "--db", str(db)]) == 0
    assert capsys.readouterr().out.startswith("# rtbench data sheet")


def test_runs_and_history(db, capsys):
    with Store(db) as s:
        s.conn.execute("UPDATE runs SET label = 'baseline' WHERE id = 1")
        s.conn.commit()
    assert main(["runs", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "baseline" in out and "3 ok" in out and "Test CPU 3000" in out
    assert main(["runs", "--db", str(db), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in data] == [1, 2] and data[0]["counts"] == {"ok": 3}
    assert main(["history", "sem.give.wake_ctx.thread", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "Task unblocked by available semaphore" in out and "baseline" in out
    assert main(["history", "sem.give.wake_ctx.thread", "--db", str(db), "--format",
                 "html"]) == 0
    html = capsys.readouterr().out
    assert html.count("<svg") == 1 and html.count("<tr") == 3
    # A catalogue metric no run measured: an empty history, not an error.
    assert main(["history", "msgq.send.no_waiter", "--db", str(db)]) == 0
    assert "No stored run measured msgq.send.no_waiter" in capsys.readouterr().out


def _write(path, text):
    path.write_text(text)
    return str(path)


def _results(db, isolated, **change):
    main(["report", "1", "--db", str(db), "-o", str(isolated / "ok.json")])
    data = json.loads((isolated / "ok.json").read_text())
    data.update(change)
    return data


BAD = {
    "unknown run": (["report", "9"], "no run 9"),
    "run not a number": (["report", "abc"],
                         "an integer id, 'latest', 'latest~N' or 'label:TEXT'"),
    "compare unknown run": (["compare", "1", "7"], "no run 7"),
    "compare one run": (["compare", "1"], "needs two runs or more"),
    "unknown reference": (["compare", "1", "--ref", "vxwork"],
                          "no reference sheet named 'vxwork' (shipped: dspbios, vxworks"),
    "ref with two runs": (["compare", "1", "2", "--ref", "vxworks"], "exactly one run"),
    "unknown metric": (["history", "no.such.metric"], "no metric 'no.such.metric'"),
    "bad format": (["report", "1", "--format", "pdf"], "Invalid value for '--format'"),
    "output dir missing": (["report", "1", "-o", "nodir/x.md"], "cannot write nodir/x.md"),
    "output of no format": (["report", "1", "-o", "sheet.pdf"],
                            "-o sheet.pdf: this command writes md, html, csv, json"),
    "compare output of no format": (["compare", "1", "2", "-o", "c.xlsx"], "-o c.xlsx: "),
    "import missing file": (["import", "absent.json"], "cannot read absent.json"),
    "import malformed": (["import", "{bad}"], "is not valid JSON: Expecting"),
    "import not results": (["import", "{list}"], "is not an rtbench results file"),
    "import newer schema": (["import", "{v99}"], "schema_version 99, written by a newer"),
    "import other schema": (["import", "{v0}"], "schema_version 0; this rtbench reads"),
    "import breaks schema": (["import", "{broken}"],
                             "does not match the results schema at run/status"),
    "import twice": (["import", "{dup}"], "is already in"),
}


@pytest.mark.parametrize("args, message", BAD.values(), ids=BAD.keys())
def test_bad_input_is_one_line_exit_2_and_changes_nothing(args, message, db, isolated,
                                                          capsys):
    files = {
        "bad": _write(isolated / "bad.json", '{"schema_version": 2, "run": '),
        "list": _write(isolated / "list.json", "[1, 2]"),
        "v99": _write(isolated / "v99.json", json.dumps(_results(db, isolated,
                                                                 schema_version=99))),
        "v0": _write(isolated / "v0.json", json.dumps(_results(db, isolated, schema_version=0))),
        "broken": _write(isolated / "broken.json", json.dumps(_results(
            db, isolated, run={**_results(db, isolated)["run"], "status": "sideways"}))),
        "dup": str(isolated / "ok.json"),  # run 1's own uuid: already stored
    }
    capsys.readouterr()
    args = [a.format(**files) for a in args]
    before = _dump(db)
    assert main([*args, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rtbench: error: ") and err.count("\n") == 1, err
    assert message in err, err
    assert _dump(db) == before


@pytest.mark.parametrize("args", [["report", "1"], ["compare", "1", "2"], ["runs"],
                                  ["history", "method.null"], ["import", "x.json"],
                                  ["show", "1"]])
def test_database_from_a_newer_rtbench(args, db, isolated, capsys):
    # A valid results file of a run this database does not have yet.
    data = _results(db, isolated)
    data["run"]["uuid"] = "another"
    (isolated / "x.json").write_text(json.dumps(data))
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 42")
    conn.commit()
    conn.close()
    before = (db.read_bytes(), _dump(db))
    capsys.readouterr()
    assert main([*args, "--db", str(db)]) == 2
    assert capsys.readouterr().err == ("rtbench: error: database schema 42 is newer than "
                                       f"this rtbench (knows {SCHEMA_VERSION})\n")
    assert (db.read_bytes(), _dump(db)) == before


def test_no_database_is_an_error_not_a_new_file(isolated, capsys):
    for args in (["report", "1"], ["runs"], ["compare", "1", "2"], ["history", "method.null"]):
        assert main([*args, "--db", "none.db"]) == 2
        assert "no database at none.db" in capsys.readouterr().err
    assert not (isolated / "none.db").exists()


def test_catalogue_loads():
    assert catalog.load().get("method.null") is not None
