"""`rtbench compare --format json`: one document for every mode, checked
against docs/compare-schema.json (run against run, --ref, peers, kernels),
with a summary of counts and the exit status; and a results.json file as
a run (`compare a.json latest`, `compare a.json b.json`), named by its file
on every page, refused in one line when it is no valid results file."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import jsonschema
import pytest

import synth
from rtbench.cli import main
from test_compare import _run
from test_kernel_sheet import two_kernels
from test_peer_board import _runs as board_and_peer

SCHEMA = json.loads((Path(__file__).parent.parent / "docs" / "compare-schema.json").read_text())
SLOW = {"msgq.send.wake_ctx.thread": 1.25}


def _valid(doc: dict) -> dict:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    return doc


def _json(capsys, *args) -> tuple[int, dict, str]:
    capsys.readouterr()
    code = main(["compare", *args, "--format", "json"])
    out = capsys.readouterr()
    return code, _valid(json.loads(out.out)), out.err


@pytest.fixture
def two_runs(isolated):
    synth.store(isolated / "r.db", _run(1, seed=1))
    synth.store(isolated / "r.db", _run(2, SLOW, seed=2))
    return isolated / "r.db"


def test_run_against_run_has_a_verdict_per_statistic_and_counts_them(two_runs, capsys):
    code, doc, err = _json(capsys, "1", "2", "--db", str(two_runs), "--fail-on", "p50,max")
    assert code == 1 and doc["mode"] == "runs" and doc["fail_on"] == ["p50", "max"]
    assert [(r["id"], r["file"], r["name"]) for r in doc["runs"]] == [
        (1, None, "run 1"), (2, None, "run 2")]
    s = doc["summary"]
    assert s["exit_status"] == code == 1 and s["text"].startswith("Summary: run 2 vs run 1")
    assert s["regressions"] == err.count("rtbench: regression:") == 1
    row = next(r for r in doc["rows"] if r["metric"] == "msgq.send.wake_ctx.thread")
    assert [f["source"] for f in row["figures"]] == ["run 1", "run 2"]
    med = next(v for v in row["verdicts"] if v["statistic"] == "p50")
    assert med["verdict"] == "slower" and med["regression"] and med["tested"]
    assert med["change_pct"] == pytest.approx(25, abs=2) and med["unit"] == "ns"
    verdicts = [v for r in doc["rows"] for v in r["verdicts"]]
    assert len(verdicts) == 4 * 4 and s["compared"] == 4
    for word in ("slower", "faster", "same", "not significant"):
        assert s[word.replace(" ", "_")] == sum(v["verdict"] == word for v in verdicts)
        assert s[word.replace(" ", "_")] == sum(c[word.replace(" ", "_")]
                                                for c in s["by_statistic"].values())
    assert doc["detail"]["rows"][0]["cells"][1]["changes"]  # the model, whole
    code, doc, _err = _json(capsys, "1", "2", "--db", str(two_runs), "--threshold", "40")
    assert code == doc["summary"]["exit_status"] == 0 and doc["summary"]["regressions"] == 0


def test_limits_are_counted_in_the_summary(two_runs, capsys):
    code, doc, _err = _json(capsys, "2", "--db", str(two_runs), "--limit", "sem.*:p50<=2500ns")
    s = doc["summary"]
    assert code == s["exit_status"] == 1
    assert (s["limits_checked"], s["limits_failed"]) == (3, 1)


def test_a_run_beside_a_vendors_sheet_has_the_same_top_level(two_runs, capsys):
    code, doc, _err = _json(capsys, "1", "--ref", "dspbios", "--db", str(two_runs))
    assert code == 0 and doc["mode"] == "reference" and doc["reference"]["name"] == "dspbios"
    assert doc["summary"]["text"].startswith("Summary: dspbios:")
    assert doc["summary"]["exit_status"] == 0 and doc["summary"]["rows"] == len(doc["rows"])
    ok = [r for r in doc["rows"] if r["figures"][0]["status"] == "ok"]
    assert ok and all(r["figures"][0]["source"] == "run 1" for r in ok)
    assert all(r["verdicts"] == [] for r in doc["rows"])  # a sheet is no verdict


def test_kernels_side_by_side_have_the_same_top_level(isolated, capsys):
    for r in two_kernels():
        synth.store(isolated / "r.db", r)
    code, doc, _err = _json(capsys, "1", "2", "--db", "r.db")
    assert code == 0 and doc["mode"] == "kernels"
    assert [r["kernel"] for r in doc["runs"]] == ["FreeRTOS V11.3.0", "ThreadX 6.4.2"]
    row = doc["rows"][0]
    assert len(row["figures"]) == 2 and row["figures"][0]["unit"] == "instructions"
    assert doc["summary"]["text"].startswith("Summary: 2 kernels")


def test_a_run_beside_its_peers_has_the_same_top_level(isolated, capsys):
    ours, peer = board_and_peer()
    synth.store(isolated / "r.db", ours)
    synth.store(isolated / "r.db", peer)
    with sqlite3.connect(isolated / "r.db") as conn:  # as `run --with-peers` stores it
        conn.execute("UPDATE runs SET origin = 'peer', linked_to = 1 WHERE id = 2")
    code, doc, _err = _json(capsys, "1", "--db", "r.db")
    assert code == 0 and doc["mode"] == "peers"
    assert [r["name"] for r in doc["runs"]] == ["run 1", "run 2"]
    row = next(r for r in doc["rows"] if r["metric"] == "sched.yield.ctx.thread")
    assert [f["source"] for f in row["figures"]] == ["run 1", "rtos-benchmark"]
    assert row["figures"][1]["values"]["mean"] == 72
    assert doc["summary"]["text"].startswith("Summary: run 1 beside rtos-benchmark")


# ---- a results.json as a run ----

def _files(two_runs, capsys) -> tuple[Path, Path]:
    a, b = two_runs.parent / "a.json", two_runs.parent / "b.json"
    assert main(["report", "1", "--db", str(two_runs), "-o", str(a)]) == 0
    assert main(["report", "2", "--db", str(two_runs), "-o", str(b)]) == 0
    capsys.readouterr()
    return a, b


def test_a_results_file_is_compared_named_by_its_file_never_by_its_run_id(two_runs, capsys):
    _a, _b = _files(two_runs, capsys)
    # a.json holds run 1 of the database: the page must not call it "run 1"
    assert main(["compare", "a.json", "latest", "--db", str(two_runs),
                 "--fail-on-regression"]) == 1
    out = capsys.readouterr()
    assert "run a.json" in out.out and "run 1" not in out.out + out.err
    assert "msgq.send.wake_ctx.thread [rt] run 2: median" in out.err
    code, doc, _err = _json(capsys, "a.json", "latest", "--db", str(two_runs))
    assert doc["runs"][0] == {**doc["runs"][0], "id": None, "file": "a.json", "name": "a.json",
                              "uuid": "uuid-1", "origin": "results.json file"}
    assert doc["runs"][1]["id"] == 2
    with sqlite3.connect(two_runs) as conn:  # read, never imported
        assert conn.execute("SELECT COUNT(*) FROM runs").fetchone() == (2,)


def test_two_results_files_need_no_database(two_runs, capsys):
    _files(two_runs, capsys)
    two_runs.unlink()
    assert main(["compare", "a.json", "b.json", "--fail-on-regression"]) == 1
    out = capsys.readouterr()
    assert "msgq.send.wake_ctx.thread [rt] run b.json: median" in out.err
    assert not two_runs.exists()  # no database made either


def test_a_results_file_where_a_stored_run_is_read_says_how_to_use_it(two_runs, capsys):
    _files(two_runs, capsys)
    assert main(["report", "a.json", "--db", str(two_runs)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a.json is a results file" in err and "import" in err


def _refused(capsys, name: str, *words: str) -> None:
    capsys.readouterr()
    assert main(["compare", name, "b.json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rtbench: error: ") and err.count("\n") == 1, err
    for w in words:
        assert w in err, err


def test_no_valid_results_file_is_one_line_and_exit_2(two_runs, capsys, monkeypatch):
    a, _b = _files(two_runs, capsys)
    good = json.loads(a.read_text())
    Path("x.json").write_text("{not json")
    _refused(capsys, "x.json", "not valid JSON")
    Path("x.json").write_text('{"rows": []}')
    _refused(capsys, "x.json", "not an rtbench results file")
    bad = {**good, "metrics": [{**good["metrics"][0], "n": "many"}]}
    Path("x.json").write_text(json.dumps(bad))
    _refused(capsys, "x.json", "does not match the results schema")
    # the schema lets it through; the store's record contract does not
    rec = {**good["metrics"][0]}
    rec["min"], rec["max"] = rec["max"] + 10, rec["min"]
    Path("x.json").write_text(json.dumps({**good, "metrics": [rec]}))
    _refused(capsys, "x.json", "statistics out of order")
    _refused(capsys, "missing.json", "cannot read")
    os.mkfifo("fifo.json")
    _refused(capsys, "fifo.json", "not a regular file")
    from rtbench.sheets import export

    monkeypatch.setattr(export, "MAX_COMPARED_FILE", 1000)
    _refused(capsys, "a.json", "larger than 1,000 bytes")
