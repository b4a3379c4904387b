"""The command line: errors exit 2 and write nothing; runs store and render."""

import json
import sqlite3
from pathlib import Path

import pytest

from conftest import invocations, tree
from fake_harness import registry as fake_ids
from rtbench.cli import main


def _db_runs(db: Path) -> list[tuple]:
    return sqlite3.connect(db).execute("SELECT id, status FROM runs").fetchall()


@pytest.fixture
def afile(tmp_path):
    path = tmp_path / "a-file"
    path.write_text("not a directory\n")
    return path


BAD_ARGS = {
    "unknown option": ["--bogus"],
    "unknown metric": ["--only", "no.such.metric"],
    "one unknown pattern": ["--only", "method.*,nope*"],
    "samples 0": ["--samples", "0"],
    "samples -1": ["--samples", "-1"],
    "samples abc": ["--samples", "abc"],
    "samples too many": ["--samples", "10000001"],
    "timeout shorter than budget": ["--budget-ms", "5000", "--timeout", "2"],
    "cpu not allowed": ["--cpu", "4096"],
    "out under a file": ["--out", "{afile}/out"],
    "out is a file": ["--out", "{afile}"],
    "out in /proc": ["--out", "/proc/rtbench-out"],
    "db under a file": ["--db", "{afile}/r.db"],
    "db in /proc": ["--db", "/proc/rtbench.db"],
}


@pytest.mark.parametrize("args", BAD_ARGS.values(), ids=BAD_ARGS.keys())
def test_bad_input_exits_2_and_writes_nothing(args, fake, afile, isolated, tmp_path, capsys):
    args = [a.format(afile=afile) for a in args]
    before = tree(tmp_path)
    assert main(["run", "--quick", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rtbench: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    # No database, no results directory, nothing anywhere new (harness log aside).
    assert [p for p in tree(tmp_path) if p not in before and p != "harness.log"] == []


def test_non_rtbench_out_dir_is_refused(fake, isolated, capsys):
    out = isolated / "precious"
    out.mkdir()
    (out / "thesis.tex").write_text("x")
    assert main(["run", "--quick", "--out", str(out), "--db", "r.db"]) == 2
    assert "not empty" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["thesis.tex"]
    assert not (isolated / "r.db").exists()


def test_newer_db_schema_is_a_clean_error(fake, isolated, capsys):
    db = isolated / "r.db"
    sqlite3.connect(db).execute("PRAGMA user_version = 99")
    assert main(["run", "--quick", "--db", str(db)]) == 2
    assert "schema 99 is newer" in capsys.readouterr().err
    assert not (isolated / "rtbench-results").exists()


def test_run_writes_db_and_outputs(fake, isolated, tmp_path, capsys):
    assert main(["run", "--quick", "--only", "method.*,sem.give.*", "--label", "t1"]) == 0
    out = capsys.readouterr().out
    (folder,) = (isolated / "rtbench-results").iterdir()
    assert folder.name.endswith("-run1")
    assert f"data sheet: rtbench-results/{folder.name}/datasheet.md" in out
    assert "method.null" in out and "median" in out
    env = json.loads((folder / "results.json").read_text())
    assert env["run"]["status"] == "complete" and env["run"]["label"] == "t1"
    wanted = [i for i in fake_ids() if i.startswith(("method.", "sem.give."))]
    assert "sem.give.wake_ctx.thread" in wanted
    assert sorted(m["id"] for m in env["metrics"]) == sorted(wanted)
    assert (folder / "datasheet.md").read_text().startswith("# rtbench data sheet")
    db = tmp_path / "xdg-data" / "rtbench" / "rtbench.db"
    assert _db_runs(db) == [(1, "complete")]
    # --quick defaults reach the harness, cut into 6 blocks (one pass each):
    # 1000 samples, 50 warm-up and 500 ms in all
    argvs = invocations(tmp_path)
    assert len(argvs) == 6
    assert sum(int(a[a.index("--samples") + 1]) for a in argvs) == 1000
    for argv in argvs:
        assert argv[argv.index("--samples") + 1] in ("166", "167")
        assert argv[argv.index("--warmup") + 1] == "10"
        assert argv[argv.index("--budget-ms") + 1] == "83"
    assert env["session"]["config"]["samples"] == 1000
    assert env["session"]["config"]["blocks"] == 6


def test_explicit_values_beat_quick_and_out_is_reusable(fake, isolated, tmp_path, capsys):
    args = ["run", "--quick", "--samples", "7", "--only", "method.null", "--db", "r.db",
            "--out", "res"]
    assert main(args) == 0
    assert main(args) == 0  # an existing rtbench result dir may be overwritten
    assert json.loads((isolated / "res" / "results.json").read_text())["run"]["id"] == 2
    assert all(a[a.index("--samples") + 1] == "7" for a in invocations(tmp_path))


def test_show_renders_stored_run(fake, isolated, capsys):
    assert main(["run", "--quick", "--only", "mutex.*", "--db", "r.db", "--out", "o"]) == 0
    capsys.readouterr()
    assert main(["show", "latest", "--db", "r.db"]) == 0
    shown = capsys.readouterr().out
    assert shown == (isolated / "o" / "datasheet.md").read_text()
    assert main(["show", "1", "--db", "r.db"]) == 0


@pytest.mark.parametrize("ref", ["2", "latest", "abc"])
def test_show_unknown_run(ref, isolated, capsys):
    # No database yet for "latest": still a one-line error, and none is created.
    if ref != "latest":
        from rtbench.store.db import Store
        Store(isolated / "r.db").close()
    assert main(["show", ref, "--db", "r.db"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rtbench: error: ") and err.count("\n") == 1


def test_list(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "sem.give.no_waiter" in out and "semGive / No tasks in queue / Binary" not in out
    assert main(["list", "--long"]) == 0  # definitions and vendor names
    out = capsys.readouterr().out
    assert "sem.give.no_waiter" in out and "semGive / No tasks in queue / Binary" in out
    assert main(["list", "--service", "mutexes"]) == 0
    out = capsys.readouterr().out
    assert "mutex.lock.uncontended" in out and "sem.give.no_waiter" not in out
    assert main(["list", "--service", "nope"]) == 2


def test_watchdog_through_the_cli(fake, isolated, monkeypatch, capsys):
    monkeypatch.setenv("RTBENCH_INJECT_FAULT", "hang:sem.give.no_waiter")
    assert main(["run", "--quick", "--only", "sem.*", "--timeout", "2", "--db", "r.db",
                 "--out", "o"]) == 0
    env = json.loads((isolated / "o" / "results.json").read_text())
    by_id = {m["id"]: m for m in env["metrics"]}
    assert env["run"]["status"] == "complete"
    assert by_id["sem.give.no_waiter"]["status"] == "failed"
    assert by_id["sem.give.no_waiter"]["reason"] == "timeout after 2s"
    sem_ids = [i for i in fake_ids() if i.startswith("sem.")]
    assert len(by_id) == len(sem_ids)
    assert sum(m["status"] == "ok" for m in by_id.values()) == len(sem_ids) - 1
    assert "*Failed (1):* `sem.give.no_waiter` — timeout after 2s." in (
        isolated / "o" / "datasheet.md").read_text()


def test_crash_through_the_cli(fake, isolated, monkeypatch):
    monkeypatch.setenv("RTBENCH_INJECT_FAULT", "crash:mutex.lock.uncontended")
    assert main(["run", "--quick", "--only", "mutex.*", "--db", "r.db", "--out", "o"]) == 0
    env = json.loads((isolated / "o" / "results.json").read_text())
    assert env["metrics"][0]["reason"] == "harness crashed (signal SIGSEGV)"
    assert env["metrics"][1]["status"] == "ok"


def test_harness_usage_error_leaves_nothing(fake, isolated, monkeypatch, capsys):
    monkeypatch.setenv("RTBENCH_INJECT_FAULT", "explode")
    assert main(["run", "--quick", "--db", "r.db"]) == 2
    assert "bad --fault explode" in capsys.readouterr().err
    assert _db_runs(isolated / "r.db") == []
    assert not (isolated / "rtbench-results").exists()


def test_harness_failure_marks_run_failed(fake, isolated, monkeypatch, capsys):
    monkeypatch.setenv("FAKE_HARNESS_EXIT_EARLY", "3")
    assert main(["run", "--quick", "--db", "r.db", "--out", "o"]) == 1
    assert _db_runs(isolated / "r.db") == [(1, "failed")]
    assert "**Failed run:**" in (isolated / "o" / "datasheet.md").read_text()


def test_unsupported_and_no_rt(fake, isolated, monkeypatch):
    monkeypatch.setenv("FAKE_HARNESS_UNSUPPORTED", "msgq.send.no_waiter")
    assert main(["run", "--quick", "--no-rt", "--only", "msgq.send.*", "--db", "r.db",
                 "--out", "o"]) == 0
    sheet = (isolated / "o" / "datasheet.md").read_text()
    assert "*Unsupported (1):* `msgq.send.no_waiter` — fake port lacks it." in sheet
    assert "Not real-time: --no-rt. The tasks ran under the normal scheduler" in sheet


def test_no_command_and_help(capsys):
    assert main([]) == 2
    assert main(["--help"]) == 0
    assert main(["run", "--help"]) == 0
    assert "--harness" not in capsys.readouterr().out  # the test hook stays hidden


def test_profiles_are_columns_of_one_run(fake, isolated, tmp_path):
    assert main(["run", "--quick", "--only", "sem.give.no_waiter", "--profile", "default,rt",
                 "--db", "r.db", "--out", "o"]) == 0
    log = invocations(tmp_path)
    assert any("--no-pin" in argv and "default" in argv for argv in log)
    assert any("--cpu" in argv and "rt" in argv for argv in log)
    env = json.loads((isolated / "o" / "results.json").read_text())
    assert sorted(m.get("profile") for m in env["metrics"]) == ["default", "rt"]


@pytest.mark.parametrize("bad", ["nope", "rt,rt", ","])
def test_bad_profile_is_a_clean_error(fake, isolated, capsys, bad):
    assert main(["run", "--quick", "--profile", bad, "--db", "r.db"]) == 2
    assert "profile" in capsys.readouterr().err
    assert not (isolated / "r.db").exists()


def test_load_runs_beside_and_is_gone_afterwards(fake, isolated):
    assert main(["run", "--quick", "--only", "method.null", "--load", "--db", "r.db",
                 "--out", "o"]) == 0
    left = [p for p in Path("/proc").glob("[0-9]*/cmdline")
            if b"rtbench.measure.load" in p.read_bytes()]
    assert left == []


# ---- issue 24: the kernel from --kernel-src alone; Thread-Metric's sources by option ----

def _checkout(root: Path, marker: str) -> Path:
    (root / marker).parent.mkdir(parents=True)
    (root / marker).write_text("/* marker */\n")
    return root


def test_kernel_src_without_kernel_tells_the_kernel_from_its_files(tmp_path, capsys):
    from rtbench import kernels
    from rtbench.targets import profiles

    fr = _checkout(tmp_path / "fr", "include/FreeRTOS.h")
    tx = _checkout(tmp_path / "tx", "common/inc/tx_api.h")
    assert kernels.resolve(None, fr, profiles.default()).name == "freertos"
    assert kernels.resolve(None, tx, profiles.default()).name == "threadx"
    neither = tmp_path / "neither"
    neither.mkdir()
    assert main(["run", "--target", "mps2-an385", "--kernel-src", str(neither)]) == 2
    err = capsys.readouterr().err
    assert "not a kernel checkout rtbench knows" in err and "include/FreeRTOS.h" in err
    assert err.count("\n") == 1


def test_thread_metric_sources_by_option(tmp_path, isolated, capsys):
    from types import SimpleNamespace

    from rtbench.peers import threadmetric

    tx = _checkout(tmp_path / "tx", f"{threadmetric.TM_SUBDIR}/tm_api.h")
    on_freertos = SimpleNamespace(kernel=SimpleNamespace(name="freertos"))
    assert threadmetric.sources(on_freertos) is None  # no environment variable set
    assert threadmetric.sources(on_freertos, tx) == tx / threadmetric.TM_SUBDIR
    assert threadmetric.sources(on_freertos, tx / threadmetric.TM_SUBDIR) == \
        tx / threadmetric.TM_SUBDIR
    assert main(["run", "--thread-metric-src", str(tx), "--db", "r.db"]) == 2
    assert "--thread-metric-src: Thread-Metric's sources for --with-peers on a board" in \
        capsys.readouterr().err
    assert not (isolated / "r.db").exists()
