"""CSV and JSON exports, the results schema, and `rtbench import`."""

import csv
import io
import json
from pathlib import Path

import jsonschema
import pytest

from rtbench.cli import main
from rtbench.sheets import export
from rtbench.store import catalog
from rtbench.store.db import Store
from synth import full_run, record, run, store

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def cat():
    return catalog.load()


def _schema():
    return json.loads((ROOT / "docs" / "results-schema.json").read_text())


def test_docs_schema_is_the_packaged_one():
    assert _schema() == export.results_schema()
    jsonschema.Draft202012Validator.check_schema(_schema())


def test_json_export_matches_the_schema(cat):
    r = full_run(cat.ids[:5], profiles=("rt", "cold"))
    r.metrics.append({"type": "metric", "id": cat.ids[5], "status": "failed",
                      "reason": "timeout after 3s", "n": 0, "origin": "rtbench"})
    r.pending = [cat.ids[6]]
    data = json.loads(export.to_json(r, cat))
    jsonschema.validate(data, _schema())
    assert data["schema_version"] == 3 and data["run"]["profiles"] == ["rt", "cold"]
    assert {(m["id"], m["profile"]) for m in data["metrics"]} >= {(cat.ids[0], "cold")}


def test_schema_rejects_what_it_should():
    good = json.loads(export.to_json(run([record("method.null", [1, 2])]), catalog.load()))
    export.validate(good)
    for path, value in ((("schema_version",), 4), (("run", "status"), "running"),
                        (("metrics", 0, "status"), "bogus"), (("metrics", 0, "tick_hz"), 0)):
        bad = json.loads(json.dumps(good))
        target = bad
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        with pytest.raises(export.ResultsFileError, match="does not match the results schema"):
            export.validate(bad)
    bad = json.loads(json.dumps(good))
    del bad["metrics"][0]["p50"]  # an ok record needs its statistics
    with pytest.raises(export.ResultsFileError, match="p50"):
        export.validate(bad)


def test_csv_one_row_per_metric_and_profile(cat):
    r = full_run(cat.ids[:3], profiles=("rt", "cold"))
    r.pending = [cat.ids[3]]
    rows = list(csv.DictReader(io.StringIO(export.to_csv(r, cat))))
    assert list(rows[0]) == list(export.CSV_COLUMNS)
    assert len(rows) == 3 * 2 + 1
    first = rows[0]
    rec = r.metrics[0]
    assert first["schema_version"] == "2" and first["metric_id"] == cat.ids[0]
    assert first["profile"] == "rt" and first["status"] == "ok"
    assert float(first["p50_ns"]) == pytest.approx(rec["p50"] * 1e9 / rec["tick_hz"], abs=1e-3)
    # counter ticks, named for what they are (schema 1 called them cycles)
    assert float(first["p50_ticks"]) == rec["p50"] and first["unit"] == "ticks"
    assert not any(c.endswith("_cycles") for c in export.CSV_COLUMNS)
    assert rows[-1]["status"] == "not_measured" and rows[-1]["p50_ns"] == ""


def test_import_round_trip(cat, isolated, capsys):
    r = full_run(cat.ids[:4], profiles=("rt", "default"))
    r.label = "from afar"
    store(isolated / "a.db", r)
    assert main(["report", "1", "--db", "a.db", "-o", "res.json"]) == 0
    assert main(["import", "res.json", "--db", "b.db"]) == 0
    assert "as run 1 (8 metric records)" in capsys.readouterr().out
    with Store(isolated / "a.db") as a, Store(isolated / "b.db") as b:
        ra, rb = a.get_run(1), b.get_run(1)
    assert rb.uuid == ra.uuid and rb.label == "from afar" and rb.status == "complete"
    assert rb.metrics == ra.metrics and rb.profiles == ["rt", "default"]
    assert rb.imported_from.startswith(str(isolated / "res.json")) and "on bench" in rb.imported_from
    assert main(["runs", "--db", "b.db"]) == 0
    assert "imported from" in capsys.readouterr().out


def test_import_upgrades_schema_1(cat, isolated):
    r = full_run(cat.ids[:2])
    data = json.loads(export.to_json(r, cat))
    data["schema_version"] = 1
    del data["run"]["profiles"], data["run"]["imported_from"]
    for m in data["metrics"]:
        del m["profile"]
    data["not_measured"] = ["sem.take.available"]
    (isolated / "old.json").write_text(json.dumps(data))
    assert main(["import", "old.json", "--db", "r.db"]) == 0
    with Store(isolated / "r.db") as s:
        run_ = s.get_run(1)
    assert run_.pending_keys() == [("sem.take.available", "rt")]
    assert [m["profile"] for m in run_.metrics] == ["rt", "rt"]


def test_an_unranked_row_keeps_its_reason_in_every_export(cat, isolated):
    """The record's `unranked` (docs/records.md) travels with it: in
    results.json as it is (valid against the schema, read back by import),
    in its own CSV column; a longer one than the contract allows is refused
    on import."""
    why = "holds the tick's phase"
    r = run([{**record("timer.expiry.to_routine", [6100, 6200, 6400]), "unranked": why},
             record("sem.give.no_waiter", [30, 31])])
    data = json.loads(export.to_json(r, cat))
    export.validate(data)
    recs = {m["id"]: m for m in data["metrics"]}
    assert recs["timer.expiry.to_routine"]["unranked"] == why
    assert "unranked" not in recs["sem.give.no_waiter"]
    rows = {row["metric_id"]: row for row in csv.DictReader(io.StringIO(export.to_csv(r, cat)))}
    assert rows["timer.expiry.to_routine"]["unranked"] == why
    assert rows["sem.give.no_waiter"]["unranked"] == ""
    assert list(export.CSV_COLUMNS)[-12] == "unranked"  # the estimated cycles, p90… after it
    (isolated / "res.json").write_text(json.dumps(data))
    assert main(["import", "res.json", "--db", "b.db"]) == 0
    with Store(isolated / "b.db") as b:
        back = {m["id"]: m for m in b.get_run(1).metrics}
    assert back["timer.expiry.to_routine"]["unranked"] == why
    recs["timer.expiry.to_routine"]["unranked"] = "x" * 513
    (isolated / "bad.json").write_text(json.dumps(data))
    with pytest.raises(export.ResultsFileError, match="unranked"):
        export.load_results(isolated / "bad.json")


def test_a_figure_that_is_no_time_keeps_its_high_percentiles_in_the_csv(cat):
    """A board's instructions (a count, not a time) have their p90 … p99.9 in
    the CSV as the sheet shows them (schema 1 had min, p50, mean, max only)."""
    r = full_run(cat.ids[:1])
    rec = r.metrics[0]
    rec.update(unit="instructions", tick_hz=0, min=10, p50=12, p90=14, p99=20, p999=31,
               max=40, mean=12.5)
    row = next(csv.DictReader(io.StringIO(export.to_csv(r, cat))))
    assert row["unit"] == "instructions" and row["p50_ns"] == "" and row["p50_ticks"] == ""
    assert [row[f"{s}_value"] for s in ("p90", "p99", "p999", "max")] == ["14", "20", "31", "40"]
