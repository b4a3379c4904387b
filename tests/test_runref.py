"""How a command names a stored run (store.runref, issue: a practitioner's
baseline): an id, `latest`, `latest~N`, `label:TEXT`; and a `latest` that
lands on an import or an unfinished run says so."""

import json

import pytest

from rtbench.cli import main
from rtbench.store.db import Store
from synth import full_run, store


@pytest.fixture
def db(isolated):
    path = isolated / "r.db"
    for rid, label in ((1, "baseline"), (2, ""), (3, "baseline"), (4, "")):
        r = full_run(["method.null"], run_id=rid)
        r.uuid, r.label = f"u{rid}", label
        store(path, r)
    return path


@pytest.mark.parametrize("ref, rid", [("latest", 4), ("latest~1", 3), ("latest~3", 1),
                                      ("label:baseline", 3), ("2", 2)])
def test_a_run_is_found_by_each_kind_of_name(db, ref, rid):
    with Store(db) as s:
        run = s.get_run(ref)
    assert run.id == rid and run.picked is None


@pytest.mark.parametrize("ref, says", [("latest~4", "no run latest~4 in"),
                                       ("label:nightly", "no run labelled 'nightly' in"),
                                       ("label:", "run must be an integer id, 'latest'"),
                                       ("latest~-1", "run must be"), ("latest~1x", "run must be")])
def test_a_name_that_finds_nothing_is_one_line_exit_2(db, ref, says, capsys):
    assert main(["report", ref, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rtbench: error: ") and err.count("\n") == 1 and says in err, err


def test_compare_takes_a_label_and_latest(db, capsys):
    assert main(["compare", "label:baseline", "latest", "--db", str(db), "--format",
                 "json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert [r["id"] for r in data["runs"]] == [3, 4]
    assert "note:" not in captured.err


def test_latest_on_an_import_or_an_interrupted_run_says_so(db, isolated, capsys):
    assert main(["report", "latest", "--db", str(db), "--format", "json", "-o", "a.json"]) == 0
    env = json.loads((isolated / "a.json").read_text())
    env["run"]["uuid"] = "elsewhere"
    (isolated / "a.json").write_text(json.dumps(env))
    assert main(["import", "a.json", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["compare", "latest~1", "latest", "--db", str(db)]) == 0
    err = capsys.readouterr().err
    assert "note: latest is run 5, imported; name a run by its id or label:TEXT" in err
    assert "latest~1" not in err  # run 4: measured here, whole
    with Store(db) as s:
        s.finish_run(5, "incomplete", None)
    assert main(["report", "latest", "--db", str(db), "-o", "b.md"]) == 0
    assert "note: latest is run 5, imported and incomplete" in capsys.readouterr().err
    assert main(["report", "5", "--db", str(db), "-o", "c.md"]) == 0
    assert "note:" not in capsys.readouterr().err  # named by id: the user chose it
