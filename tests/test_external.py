"""Standard programs (rtbench.peers.programs): parsing real captured outputs, fake
programs on PATH, the unsupported path, and that nothing is ever invented."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from rtbench.peers import programs as external
from rtbench.cli import main
from rtbench.store import catalog

DATA = Path(__file__).parent / "data" / "external"
STATS = ("min", "max", "mean", "stddev", "p50", "p90", "p99", "p999")


def _fake(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


@pytest.fixture
def bin_dir(tmp_path, monkeypatch) -> Path:
    """A PATH holding only the fake programs (the real ones must not be found)."""
    d = tmp_path / "bin"
    d.mkdir()
    monkeypatch.setenv("PATH", str(d))
    return d


def _printing(bin_dir: Path, name: str, capture: str, version: str = "") -> None:
    """A fake `name` printing a real captured output (and its version line)."""
    vers = f'case "$1" in --version|--help) echo "{version}"; exit 0;; esac\n' if version else ""
    _fake(bin_dir, name, f"{vers}/bin/cat '{DATA / capture}'")


def _records(ids, cpu=None) -> dict[str, dict]:
    out = {}
    external.run(ids, external.Context(cpu), lambda r: out.__setitem__(r["id"], r))
    return out


def _only_given(rec: dict) -> None:
    """The contract: only the statistics the source gave are present."""
    assert set(k for k in STATS if k in rec) == set(rec["stats_given"])


# ---- parsers ----

def test_stress_ng_stream_rates():
    figs = external.parse_stress_ng_stream((DATA / "stress-ng-stream.txt").read_text())
    assert figs["sys.prog.stressng.stream.read"].stats == {"mean": 4223.65}
    assert figs["sys.prog.stressng.stream.write"].stats == {"mean": 2815.77}
    assert figs["sys.prog.stressng.stream.read"].unit == "MB/s"


def test_stress_ng_too_short_gives_no_figure():
    assert external.parse_stress_ng_stream(
        (DATA / "stress-ng-stream-short.txt").read_text()) == {}


def test_sysbench_cpu():
    (fig,) = external.parse_sysbench_cpu((DATA / "sysbench-cpu.txt").read_text()).values()
    text = (DATA / "sysbench-cpu.txt").read_text()
    assert f"events per second:  {fig.stats['mean']:.2f}" in text
    assert fig.unit == "events/s" and fig.n is not None and f"{fig.n}" in text


@pytest.mark.parametrize("capture,mid", [("hackbench-socket.txt", "sys.prog.hackbench.socket"),
                                         ("hackbench-pipe.txt", "sys.prog.hackbench.pipe")])
def test_hackbench_time_and_messages(capture, mid):
    text = (DATA / capture).read_text()
    fig = external._hackbench(mid)(text)[mid]
    seconds = float(text.split("Time:")[1])
    assert fig.stats == {"mean": seconds * 1e9} and fig.unit == "ticks" and fig.n == 1
    assert fig.extra == {"ops": 4 * 10 * 10 * 500}  # groups · senders · receivers · loops


def test_stream_output_lines():
    # STREAM's result lines (stream.c prints them with "%s%12.1f  %11.6f  %11.6f  %11.6f")
    text = ("Function    Best Rate MB/s  Avg time     Min time     Max time\n"
            "Copy:           12000.5     0.013500     0.013333     0.014000\n"
            "Triad:          13000.0     0.018700     0.018462     0.019000\n")
    figs = external.parse_stream(text)
    assert figs["sys.prog.stream.copy"].stats == {"max": 12000.5}
    assert set(figs) == {"sys.prog.stream.copy", "sys.prog.stream.triad"}  # no Scale, no Add


# ---- every external catalogue entry is answered by a program ----

def test_catalogue_and_programs_agree():
    cat = catalog.load()
    ext = {m.id for m in cat.metrics if m.measured_by == "external"}
    answered = [i for p in external.PROGRAMS for i in p.ids]
    assert len(answered) == len(set(answered))
    assert ext == set(answered)
    assert all(m.service.startswith("System: ") for m in cat.metrics if m.id in ext)


# ---- running fake programs ----

def test_fake_programs_give_records(bin_dir):
    _printing(bin_dir, "stress-ng", "stress-ng-stream.txt",
              "stress-ng, version 0.15.06 (gcc 12.2.0, x86_64 Linux)")
    _printing(bin_dir, "sysbench", "sysbench-cpu.txt", "sysbench 1.0.20")
    _printing(bin_dir, "hackbench", "hackbench-pipe.txt", "hackbench V 2.40")
    ids = ["sys.prog.stressng.stream.read", "sys.prog.stressng.stream.write",
           "sys.prog.sysbench.cpu", "sys.prog.hackbench.pipe"]
    recs = _records(ids, cpu=sorted(os.sched_getaffinity(0))[-1])
    assert sorted(recs) == sorted(ids)
    for rec in recs.values():
        assert rec["status"] == "ok" and rec["origin"] == "external"
        _only_given(rec)
        assert rec["source"]["command"] and rec["source"]["label"]
    read = recs["sys.prog.stressng.stream.read"]
    assert read["mean"] == 4223.65 and read["unit"] == "MB/s" and "tick_hz" not in read
    assert read["source"]["version"] == "0.15.06" and read["source"]["tool"] == "stress-ng"
    assert read["source"]["command"].startswith("stress-ng --stream 1")
    pipe = recs["sys.prog.hackbench.pipe"]
    assert pipe["unit"] == "ticks" and pipe["tick_hz"] == 1_000_000_000 and pipe["ops"] == 20000 * 10
    assert pipe["source"]["version"] == "2.40" and pipe["placement"] == "pinned"
    assert recs["sys.prog.sysbench.cpu"]["source"]["version"] == "1.0.20"


def test_missing_programs_are_unsupported_never_a_number(bin_dir):
    ids = [m.id for m in catalog.load().metrics if m.measured_by == "external"]
    recs = _records(ids)
    assert sorted(recs) == sorted(ids)
    for rec in recs.values():
        assert rec["status"] == "unsupported" and rec["reason"]
        assert not any(k in rec for k in (*STATS, "unit", "n", "stats_given"))
    assert recs["sys.prog.hackbench.socket"]["reason"] == \
        "hackbench not installed (Debian package rt-tests)"
    assert recs["sys.prog.stressng.stream.read"]["reason"] == \
        "stress-ng not installed (Debian package stress-ng)"
    assert "no Debian or PyPI package" in recs["sys.prog.dhrystone"]["reason"]
    assert "no Debian or PyPI package" in recs["sys.prog.stream.triad"]["reason"]
    assert "no Debian or PyPI package" in recs["sys.prog.coremark"]["reason"]


def test_output_without_the_figure_fails_with_what_it_said(bin_dir):
    _printing(bin_dir, "stress-ng", "stress-ng-stream-short.txt")
    recs = _records(["sys.prog.stressng.stream.read", "sys.prog.stressng.stream.write"])
    for rec in recs.values():
        assert rec["status"] == "failed"
        assert "run duration too short to determine memory rate" in rec["reason"]
        assert not any(k in rec for k in STATS)


def test_a_program_that_fails_is_a_failed_record(bin_dir):
    _fake(bin_dir, "sysbench", 'echo "FATAL: something broke" >&2; exit 3')
    (rec,) = _records(["sys.prog.sysbench.cpu"]).values()
    assert rec["status"] == "failed" and rec["reason"] == \
        "sysbench exited 3: FATAL: something broke"
    assert "mean" not in rec


def _dead(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"


def _hanging(bin_dir: Path, pids: Path) -> None:
    """A fake hackbench that starts a child and hangs, writing both pids."""
    _fake(bin_dir, "hackbench", f"/bin/sleep 60 & echo $! >> '{pids}'\necho $$ >> '{pids}'\n"
                                "exec /bin/sleep 60")


def _wait_pids(pids: Path, n: int) -> list[int]:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if pids.exists() and len(pids.read_text().split()) >= n:
            return [int(p) for p in pids.read_text().split()]
        time.sleep(0.02)
    raise AssertionError("the fake program never started")


def test_timeout_kills_the_program_and_its_children(bin_dir, tmp_path):
    pids = tmp_path / "pids"
    _hanging(bin_dir, pids)
    prog = external.Program("hackbench", "hackbench", "Debian package rt-tests",
                            ("sys.prog.hackbench.pipe",), external._hackbench_argv(True),
                            external._hackbench("sys.prog.hackbench.pipe"), timeout=1.0)
    (rec,) = external.run_program(prog, external.Context(None))
    assert rec["status"] == "failed" and "did not finish in 1 s (killed)" in rec["reason"]
    assert all(_dead(p) for p in _wait_pids(pids, 2))


def test_ctrl_c_kills_the_program_and_keeps_what_was_given(bin_dir, tmp_path):
    pids = tmp_path / "pids"
    _printing(bin_dir, "sysbench", "sysbench-cpu.txt")
    _hanging(bin_dir, pids)
    got, failed = [], []

    def ctrl_c() -> None:
        try:
            _wait_pids(pids, 2)
        except AssertionError as exc:  # seen below, not lost in the thread
            failed.append(exc)
            return
        os.kill(os.getpid(), signal.SIGINT)

    # Ctrl-C as Python delivers it by default, whatever this worker inherited
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    blocked = signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    timer = threading.Thread(target=ctrl_c)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            external.run(["sys.prog.sysbench.cpu", "sys.prog.hackbench.socket"],
                         external.Context(None), got.append)
    finally:
        timer.join()
        signal.signal(signal.SIGINT, old)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    assert not failed, failed
    assert [r["id"] for r in got] == ["sys.prog.sysbench.cpu"]
    assert all(_dead(p) for p in _wait_pids(pids, 2))


# ---- rtbench run ----

def test_run_stores_program_records_and_no_programs_skips(fake, bin_dir, isolated):
    _printing(bin_dir, "hackbench", "hackbench-socket.txt")
    assert main(["run", "--quick", "--only", "sem.give.no_waiter,sys.prog.hackbench.*,"
                 "sys.prog.dhrystone", "--db", "r.db", "--out", "o"]) == 0
    env = json.loads((isolated / "o" / "results.json").read_text())
    by_id = {m["id"]: m for m in env["metrics"]}
    assert env["run"]["status"] == "complete"
    assert by_id["sem.give.no_waiter"]["status"] == "ok"
    sock = by_id["sys.prog.hackbench.socket"]
    assert sock["status"] == "ok" and sock["origin"] == "external" and sock["mean"] == 1.326e9
    assert by_id["sys.prog.hackbench.pipe"]["status"] == "ok"  # the same fake output
    assert by_id["sys.prog.dhrystone"]["status"] == "unsupported"
    sheet = (isolated / "o" / "datasheet.md").read_text()
    assert "System: standard programs" in sheet and "sys.prog.hackbench.socket" in sheet
    assert main(["run", "--quick", "--only", "sem.give.no_waiter,sys.prog.*", "--no-programs",
                 "--db", "r.db", "--out", "o2"]) == 0
    env = json.loads((isolated / "o2" / "results.json").read_text())
    assert [m["id"] for m in env["metrics"]] == ["sem.give.no_waiter"]
