"""`rtbench run --with-peers` (rtbench.peers.rttests) with fake rt-tests programs on
PATH printing the real outputs of tests/data/import/rt-tests/."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from rtbench.cli import main
from rtbench.peers import rttests as peers
from rtbench.store import catalog
from rtbench.store.db import Store

DATA = Path(__file__).parent / "data" / "import" / "rt-tests"
OUTPUTS = {  # program -> (stdout capture, --json capture or None)
    "cyclictest": ("cyclictest-h200.txt", "cyclictest-h.json"),
    "ptsematest": ("ptsematest.txt", None),
    "pmqtest": ("pmqtest.txt", "pmqtest.json"),
    "svsematest": ("svsematest.txt", None),
    "sigwaittest": ("sigwaittest.txt", None),
}


def _fake(bin_dir: Path, program: str, log: Path, body: str | None = None) -> None:
    text, js = OUTPUTS[program]
    copy = (f'for a in "$@"; do case "$a" in --json=*) /bin/cp \'{DATA / js}\' "${{a#--json=}}";; '
            'esac; done\n') if js else ""
    body = body if body is not None else f"{copy}/bin/cat '{DATA / text}'"
    path = bin_dir / program
    path.write_text(f"#!/bin/sh\necho \"{program} $*\" >> '{log}'\n{body}\n")
    path.chmod(0o755)


@pytest.fixture
def fakes(tmp_path, monkeypatch) -> Path:
    """PATH with only the five fake programs; returns the log of their argv."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "peers.log"
    for program in OUTPUTS:
        _fake(bin_dir, program, log)
    monkeypatch.setenv("PATH", str(bin_dir))
    return log


def _measure(ctx: peers.Context) -> list[dict]:
    got: list[dict] = []
    peers.measure(catalog.load(), ctx, got.append)
    return got


def test_every_peer_runs_bounded_on_the_cpu_with_rtbench_priorities(fakes, monkeypatch):
    monkeypatch.setattr(peers, "realtime_allowed", lambda no_rt: (True, ""))
    recs = _measure(peers.Context(cpu=1))
    assert [r["source"]["tool"] for r in recs] == list(OUTPUTS)
    for rec in recs:
        assert rec["status"] == "ok" and rec["origin"] == "peer" and rec["profile"] == "rt"
        assert "file" not in rec["source"] and "line" not in rec["source"]
        assert set(rec["stats_given"]) <= set(rec) and rec["source"]["command"]
    argv = {line.split()[0]: line.split()[1:] for line in fakes.read_text().splitlines()}
    cyc = argv["cyclictest"]
    assert "--affinity=1" in cyc and cyc[cyc.index("-p") + 1] == "70" and "-m" in cyc
    assert int(cyc[cyc.index("-l") + 1]) * int(cyc[cyc.index("-i") + 1]) <= 3_000_000  # ≤ 3 s
    for prog in ("ptsematest", "pmqtest", "svsematest", "sigwaittest"):
        a = argv[prog]
        assert "--affinity=1" in a and a[a.index("-p") + 1] == "60"
        assert int(a[a.index("-l") + 1]) * int(a[a.index("-i") + 1]) <= 3_000_000
    by_tool = {r["source"]["tool"]: r for r in recs}
    cyc_rec = by_tool["cyclictest"]
    assert cyc_rec["id"] == "sys.timer.wakeup.idle"  # the catalogue's rttests name
    assert "p50" in cyc_rec["stats_given"] and cyc_rec["hist"]["scheme"] == "linear"  # from --json
    assert cyc_rec["source"]["version"]  # the JSON names rt-tests' version
    assert cyc_rec["source"]["command"].startswith("cyclictest --affinity=1 -p 70")
    pts = by_tool["ptsematest"]
    assert pts["stats_given"] == ["min", "max", "mean"] and pts["max"] == 55_000  # µs -> ns


def test_without_realtime_no_priority_and_the_note_says_so(fakes):
    recs = _measure(peers.Context(cpu=None, no_rt=True))
    for line in fakes.read_text().splitlines():
        assert " -p " not in f" {line} " and "--affinity" not in line and " -m" not in line
    assert all("run without -p: --no-rt given" in r["note"] for r in recs)


def test_missing_peers_are_unsupported_never_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing installed
    recs = _measure(peers.Context(cpu=1))
    assert len(recs) == len(peers.PEERS)
    for rec in recs:
        assert rec["status"] == "unsupported" and rec["origin"] == "peer"
        assert rec["reason"] == f"{rec['source']['tool']} not installed (Debian package rt-tests)"
        assert not any(k in rec for k in ("min", "mean", "max", "p50", "stats_given"))
    ids = {r["source"]["tool"]: r["id"] for r in recs}
    assert ids["cyclictest"] == "sys.timer.wakeup.idle"


def test_output_it_cannot_read_is_a_failed_record(fakes, tmp_path):
    _fake(tmp_path / "bin", "sigwaittest", fakes, body="echo 'something else entirely'")
    rec = next(r for r in _measure(peers.Context(cpu=1)) if r["source"]["tool"] == "sigwaittest")
    assert rec["status"] == "failed" and "not understood" in rec["reason"]
    assert "mean" not in rec


def test_run_with_peers_links_a_run_and_compare_shows_it(fake, fakes, isolated, capsys):
    from rtbench.peers import linked as peers  # the linked run is every peer's (peers/linked.py)

    assert main(["run", "--quick", "--only", "sys.timer.wakeup.idle", "--no-programs",
                 "--with-peers", "--db", "r.db", "--out", "o"]) == 0
    out = capsys.readouterr().out
    assert "peer cyclictest" in out and "linked to run 1" in out
    conn = sqlite3.connect(isolated / "r.db")
    assert conn.execute("SELECT id, origin, linked_to FROM runs ORDER BY id").fetchall() == [
        (1, None, None), (2, "peer", 1)]
    with Store(isolated / "r.db", create=False) as store:
        (linked,) = peers.linked_runs(store, 1)
        assert linked.id == 2 and linked.origin == "peer"
        assert {r["id"] for r in linked.metrics} >= {"sys.timer.wakeup.idle"}
    assert main(["compare", "1", "--db", "r.db", "--format", "json"]) == 0
    whole = json.loads(capsys.readouterr().out)
    data = whole["detail"]
    assert data["run"]["id"] == 1 and [r["id"] for r in data["peers"]] == [2]
    row = next(r for r in data["rows"] if r["program"] == "cyclictest")
    assert row["id"] == "sys.timer.wakeup.idle" and row["ours_status"] == "ok"
    assert row["peer_ns"]["mean"] > 0 and row["ours_ns"]["p50"] > 0
    assert "cyclictest" in row["command"] and row["why"]
    # only the statistics the program printed: the pair programs give no median
    pair = next(r for r in data["rows"] if r["program"] == "ptsematest")
    assert pair["peer_status"] != "ok" or pair["peer_ns"]["p50"] is None
    sig = next(r for r in data["rows"] if r["program"] == "sigwaittest")
    assert sig["ours_status"] == "none"  # no rtbench metric: said, not matched
    assert main(["compare", "1", "--db", "r.db", "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert "beside rt-tests" in md and "why the figures differ" in md
    summary = md.rstrip().splitlines()[-1]  # every row counted: sigwaittest has no metric of ours
    assert summary.startswith(f"Summary: run 1 beside rt-tests: {len(data['rows'])} peer "
                              "figures: ") and "1 unmatched (no rtbench metric)" in summary
    assert sum(int(p.split()[0]) for p in summary.split("figures: ")[1].rstrip(".").split(", ")) \
        == len(data["rows"]) and whole["summary"]["text"] == summary
    # the README's `rtbench run --with-peers && rtbench compare latest`: latest is
    # the peers' run, stored last; compare shows it beside the run it belongs to
    assert main(["compare", "latest", "--db", "r.db", "--format", "md"]) == 0
    assert capsys.readouterr().out == md


def test_compare_of_a_lone_run_without_peers_is_still_an_error(fake, isolated, capsys):
    assert main(["run", "--quick", "--only", "method.null", "--no-programs", "--db", "r.db",
                 "--out", "o"]) == 0
    capsys.readouterr()
    assert main(["compare", "1", "--db", "r.db"]) == 2
    assert "needs two runs or more" in capsys.readouterr().err


def test_the_page_names_the_peers_that_ran_and_only_them():
    """A run beside Thread-Metric (which ran) and rtos-benchmark (no sources):
    the heading and summary name Thread-Metric, not rt-tests, and not the
    peer that gave no figure (its row says why)."""
    from types import SimpleNamespace

    from rtbench.compare import peers as compare_peers
    from rtbench.compare import views

    run = SimpleNamespace(id=1, metrics=[], session={}, host={}, label="", origin=None)
    tm = {"id": "thread-metric:basic_processing", "status": "ok", "unit": "count per period",
          "mapped": False, "n": 3, "p50": 941.0, "source": {"tool": "Thread-Metric"}}
    rb = {"id": "rtosbench:bench_all", "status": "unsupported", "mapped": False,
          "reason": "rtos-benchmark sources not given", "source": {"tool": "rtos-benchmark"}}
    peer_runs = [SimpleNamespace(id=2, metrics=[tm], session={}),
                 SimpleNamespace(id=3, metrics=[rb], session={})]
    cmp = compare_peers.compare_peers(run, peer_runs, catalog.load())
    assert cmp.families == ["Thread-Metric"]
    summary = views.peer_summary(cmp)
    assert summary.startswith("Summary: run 1 beside Thread-Metric: 2 peer figures")
    assert "rt-tests" not in summary and "rtos-benchmark" not in summary
