"""Fault injection: bad options and paths, errors of any class while a run
starts, profiles, and runs that meet each other (same second, same CPU).

Bad input: one line, exit 2, nothing stored and nothing written; an error
of any class before measuring takes back the run row and its directories.
"""

from __future__ import annotations

import errno
import json
import os
import signal
from pathlib import Path

import pytest

from conftest import tree
from faults import intact, one_line_error, spawn, stored, wait_for
from rtbench.cli import main
from rtbench.measure import outdir, run as runcmd


def _nothing_written(before: list[str], root: Path) -> None:
    new = [p for p in tree(root) if p not in before and p != "harness.log"]
    assert new == [], new


def _beside_dev_null() -> set[str]:
    """What SQLite would write beside /dev/null (journal, WAL)."""
    return {p.name for p in Path("/dev").glob("null?*")}


# ---- options ----

BAD = {
    "timeout inf": ["--timeout", "inf"],
    "timeout nan": ["--timeout", "nan"],
    "timeout 1e10": ["--timeout", "1e10"],
    "only empty": ["--only", ""],
    "only commas": ["--only", " , "],
    "warmup beyond the harness's limit": ["--warmup", "1000001"],
    "db /dev/null": ["--db", "/dev/null"],
    "db a directory": ["--db", "{tmp}"],
}


@pytest.mark.parametrize("args", BAD.values(), ids=BAD.keys())
def test_bad_run_options_are_one_line_and_write_nothing(args, fake, isolated, tmp_path,
                                                        capsys):
    args = [a.format(tmp=tmp_path) for a in args]
    before, dev = tree(tmp_path), _beside_dev_null()
    assert main(["run", "--quick", *args]) == 2
    one_line_error(capsys.readouterr().err)
    _nothing_written(before, tmp_path)
    assert _beside_dev_null() == dev


def test_a_directory_named_like_an_output_is_refused_before_measuring(fake, isolated, capsys):
    out = isolated / "o"
    (out / "datasheet.md").mkdir(parents=True)
    assert main(["run", "--quick", "--only", "method.null", "--db", "r.db", "--out",
                 str(out)]) == 2
    assert "datasheet.md exists and is not a regular file" in one_line_error(
        capsys.readouterr().err)
    assert not (isolated / "r.db").exists() and tree(out) == ["datasheet.md"]


@pytest.mark.parametrize("args", [
    ["report", "1", "-o", ""], ["report", "1", "-o", "{dir}"], ["show", "99999999999999999999999"],
    ["show", "-1"], ["show", "1", "--db", "/dev/null"], ["runs", "--db", "/dev/zero"],
    ["history", "method.null", "-o", ""],
], ids=["report -o ''", "report -o DIR", "show a huge id", "show -1", "show --db /dev/null",
        "runs --db /dev/zero", "history -o ''"])
def test_bad_report_arguments_are_one_line(args, fake, isolated, capsys):
    assert main(["run", "--quick", "--only", "method.null", "--out", "o"]) == 0
    capsys.readouterr()
    (isolated / "adir").mkdir()
    before = intact(Path(os.environ["XDG_DATA_HOME"]) / "rtbench" / "rtbench.db")
    dev = _beside_dev_null()
    assert main([a.format(dir=isolated / "adir") for a in args]) == 2
    one_line_error(capsys.readouterr().err)
    assert intact(Path(os.environ["XDG_DATA_HOME"]) / "rtbench" / "rtbench.db") == before
    assert _beside_dev_null() == dev


# ---- an error of any class while the run starts ----

@pytest.mark.parametrize("error, code", [
    (OSError(errno.ENOSPC, "No space left on device"), 2),
    (KeyboardInterrupt(), 130),
], ids=["OSError", "KeyboardInterrupt"])
def test_an_error_after_the_run_row_takes_everything_back(error, code, fake, isolated,
                                                          monkeypatch, capsys):
    """The run row exists and the results folder is about to be made."""
    def fail(*_args):
        raise error

    monkeypatch.setattr(outdir, "default_dir", fail)
    assert main(["run", "--quick", "--only", "method.null", "--db", "r.db"]) == code
    one_line_error(capsys.readouterr().err)
    assert intact(isolated / "r.db") == []
    assert not (isolated / "rtbench-results").exists()


# ---- profiles ----

def test_failure_records_stay_in_their_profile(fake, isolated, monkeypatch):
    """The runner's own records (a timeout here) name the profile measured:
    no phantom rt column in a --profile default run."""
    monkeypatch.setenv("RTBENCH_INJECT_FAULT", "hang:sem.give.no_waiter")
    assert main(["run", "--quick", "--only", "sem.give.*", "--timeout", "1", "--profile",
                 "default", "--db", "r.db", "--out", "o"]) == 0
    env = json.loads((isolated / "o" / "results.json").read_text())
    assert env["run"]["profiles"] == ["default"]
    assert {m["profile"] for m in env["metrics"]} == {"default"}
    failed = [m for m in env["metrics"] if m["status"] == "failed"]
    assert [m["id"] for m in failed] == ["sem.give.no_waiter"]
    assert " rt " not in (isolated / "o" / "datasheet.md").read_text().split("### ")[1]


def test_suspend_and_resume_in_the_default_profile(real_exe, isolated, monkeypatch):
    """They died of the suspend signal (38, 39) when memory was not locked."""
    monkeypatch.setenv("RTBENCH_HARNESS", str(real_exe))
    assert main(["run", "--samples", "200", "--profile", "default", "--only",
                 "task.suspend.*,task.resume.*", "--timeout", "20", "--no-programs",
                 "--db", "r.db", "--out", "o"]) == 0
    env = json.loads((isolated / "o" / "results.json").read_text())
    bad = [(m["id"], m["reason"]) for m in env["metrics"]
           if m["status"] not in ("ok", "unsupported")]
    assert bad == [] and len(env["metrics"]) == 20


# ---- runs that meet ----

def test_runs_started_in_the_same_second_get_their_own_folders(fake, isolated, monkeypatch):
    """Two databases, so both runs are run 1, and one clock second."""
    monkeypatch.setattr(runcmd, "now_utc", lambda: "2026-11-21T12:00:00+00:00")
    for db in ("a.db", "b.db"):
        assert main(["run", "--quick", "--only", "method.null", "--db", db,
                     "--label", db]) == 0
    folders = sorted((isolated / "rtbench-results").iterdir())
    assert [f.name for f in folders] == ["20261121-120000-run1", "20261121-120000-run1-2"]
    labels = [json.loads((f / "results.json").read_text())["run"]["label"] for f in folders]
    assert labels == ["a.db", "b.db"]


def test_a_results_folder_made_by_another_run_meanwhile_is_fine(isolated, monkeypatch):
    """Two runs both find no rtbench-results and both make it: the second
    mkdir meets the first's folder (it was 'File exists')."""
    (isolated / "rtbench-results").mkdir()
    real_lexists = os.path.lexists
    monkeypatch.setattr(os.path, "lexists",
                        lambda p: False if Path(p).name == "rtbench-results" else real_lexists(p))
    created = outdir.CreatedDirs()
    created.make(outdir.DEFAULT_PARENT, "results directory")
    assert created.dirs == []  # not ours: a rollback leaves it


def test_a_second_run_on_the_same_cpu_waits_and_says_so(fake, isolated, tmp_path, left):
    spans = tmp_path / "spans"
    env = {**left.env(), "FAKE_HARNESS_DELAY": "0.05", "FAKE_HARNESS_SPANS": str(spans)}
    first = spawn(["run", "--quick", "--only", "sem.give.*", "--db", "a.db", "--out", "a"],
                  isolated, env)
    wait_for("the first run's first record", lambda: stored(isolated / "a.db"),
             proc=first.proc)
    second = spawn(["run", "--quick", "--only", "sem.give.*", "--db", "b.db", "--out", "b"],
                   isolated, env)
    rc2, out2, err2 = second.finish()
    rc1, out1, err1 = first.finish()
    assert (rc1, rc2) == (0, 0), (err1, err2)
    assert "is in use by another rtbench run" in out2 and "is free: measuring" in out2
    # every harness instance of both runs (a run measures in several passes,
    # rtbench.store.blocks): none overlaps another
    got = sorted(tuple(map(float, ln.split())) for ln in spans.read_text().splitlines())
    assert len(got) >= 2
    for (_s, end), (start, _e) in zip(got, got[1:]):
        assert end <= start, "two harnesses measured on one CPU at the same time"
    left.check()


# ---- a live run and a killed one ----

def test_a_live_run_is_running_and_a_killed_one_incomplete(fake, isolated, left, capsys):
    r = spawn(["run", "--quick", "--db", "r.db", "--out", "o"], isolated,
              {**left.env(), "FAKE_HARNESS_DELAY": "0.2"})
    wait_for("a stored record", lambda: stored(isolated / "r.db"), proc=r.proc)

    def status() -> str:
        assert main(["runs", "--db", "r.db", "--format", "json"]) == 0
        (run,) = json.loads(capsys.readouterr().out)
        return run["status"]

    assert status() == "running"
    assert main(["show", "1", "--db", "r.db"]) == 0
    assert "**Running:**" in capsys.readouterr().out
    r.signal(signal.SIGKILL)
    r.finish()
    assert status() == "incomplete"
    left.check()


# ---- free text in the Markdown sheet ----

def test_a_label_with_html_and_newlines_stays_text(fake, isolated):
    label = "<script>alert(1)</script>\n# not a heading ![x](http://example.invalid/x.png)"
    assert main(["run", "--quick", "--only", "method.null", "--label", label, "--db", "r.db",
                 "--out", "o"]) == 0
    sheet = (isolated / "o" / "datasheet.md").read_text()
    assert "<script>" not in sheet and "\n# not a heading" not in sheet
    assert "![x](" not in sheet
    (line,) = [ln for ln in sheet.splitlines() if ln.startswith("- **Run:**")]
    # Markdown escapes, which read as the text raw and rendered; no HTML entities
    assert "\\<script\\>alert(1)\\</script\\> # not a heading" in line
    assert "&lt;" not in sheet


# ---- files of a kernel tree (issue 35, 7) ----

def _tree(root: Path, kernel: str, what: str) -> tuple[Path, Path]:
    """A kernel tree whose version file (Zephyr's VERSION, FreeRTOS's
    include/task.h) or board.yml is `what`; and Zephyr modules beside it."""
    src, mods = root / kernel, root / "modules"
    (mods / "cmsis" / "zephyr").mkdir(parents=True)
    (mods / "cmsis" / "zephyr" / "module.yml").write_text("name: cmsis\n")
    marker, version = (("include/zephyr/kernel.h", "VERSION") if kernel == "zephyr"
                       else ("include/FreeRTOS.h", "include/task.h"))
    (src / marker).parent.mkdir(parents=True)
    (src / marker).write_text("")
    (src / version).parent.mkdir(parents=True, exist_ok=True)
    board = src / "boards" / "arm" / "mps2" / "board.yml"
    board.parent.mkdir(parents=True)
    board.write_text("board:\n  name: mps2\n")
    path = board if what.startswith("board.yml") else src / version
    if what.endswith("fifo"):
        path.unlink(missing_ok=True)
        os.mkfifo(path)
    elif what.endswith("zero"):
        path.unlink(missing_ok=True)
        path.symlink_to("/dev/zero")
    elif what.endswith("dir"):
        path.unlink(missing_ok=True)
        path.mkdir()
    elif what.endswith("huge"):
        with open(path, "wb") as fh:
            fh.truncate(64 << 20)  # sparse: no disk used
    elif what == "board.yml name-list":
        board.write_text("board:\n  name: [mps2, x]\n")
    return src, mods


@pytest.mark.parametrize("kernel, what, command", [
    ("zephyr", "fifo", "run"), ("zephyr", "zero", "run"), ("zephyr", "dir", "run"),
    ("zephyr", "huge", "run"), ("zephyr", "fifo", "audit"), ("freertos", "fifo", "run"),
    ("freertos", "zero", "audit"), ("zephyr", "board.yml fifo", "board"),
    ("zephyr", "board.yml zero", "board"), ("zephyr", "board.yml name-list", "board")])
def test_a_kernel_trees_file_that_is_no_file_is_one_line(kernel, what, command, isolated,
                                                         tmp_path, left):
    """A FIFO as Zephyr's VERSION, FreeRTOS's include/task.h or a board.yml
    hung `run`, `audit` and the kernel's detection; VERSION -> /dev/zero
    read until memory ran out; a board.yml whose name is a list was a
    traceback. Now each is one line, exit 2, nothing stored."""
    src, mods = _tree(tmp_path, kernel, what)
    more = ["--kernel-src", str(src)] + (["--zephyr-modules", str(mods)] if kernel == "zephyr"
                                         else [])
    args = {"run": ["run", "--target", "mps2-an385", "--kernel", kernel, "--quick",
                    "--db", "r.db", "--out", "o"],
            "audit": ["audit", "--target", "mps2-an385", "--kernel", kernel, "-o", "a.json"],
            "board": ["run", "--kernel", "zephyr", "--board", "mps2/an385", "--quick",
                      "--out", "img"]}[command]
    rc, _out, err = spawn([*args, *more], isolated, left.env()).finish(timeout=60)
    line = one_line_error(err)
    assert rc == 2, err
    assert ("not a regular file" in line or "larger than" in line or "not text" in line), line
    assert not any((isolated / name).exists() for name in ("r.db", "o", "a.json", "img"))
    left.check()


# ---- the shoot-out's checks, in the parent (issue 35, smaller) ----

def test_the_shootout_checks_its_options_and_tools_before_any_kernel_runs(
        isolated, tmp_path, monkeypatch, capsys):
    """`--budget-ms` above `--timeout` was refused by each child in turn,
    then "3 kernels measured"; a missing Zephyr package failed after two
    kernels had run. Both are one line from the parent now, nothing run."""
    from rtbench.targets import harness

    args = ["run", "--target", "mps2-an385", "--kernel", "freertos,threadx", "--quick",
            "--db", "r.db"]
    assert main([*args, "--budget-ms", "5000", "--timeout", "2"]) == 2
    assert "must be longer than the per-metric budget" in capsys.readouterr().err
    f_src, _ = _tree(tmp_path / "f", "freertos", "ok")
    z_src, mods = _tree(tmp_path / "z", "zephyr", "ok")
    monkeypatch.setenv("RTBENCH_FREERTOS_SRC", str(f_src))
    monkeypatch.setenv("RTBENCH_ZEPHYR_SRC", str(z_src))
    from rtbench.kernels.zephyr import build as zephyr_build

    monkeypatch.setitem(zephyr_build.PYTHON, "rtbench_no_such_module", "no-such-package")
    assert main(["run", "--target", "mps2-an385", "--kernel", "freertos,zephyr", "--quick",
                 "--zephyr-modules", str(mods), "--db", "r.db"]) == 2
    err = capsys.readouterr().err
    assert "Python packages no-such-package" in err and len(err.strip().splitlines()) == 1, err
    assert not (isolated / "r.db").exists() and not (isolated / "rtbench-results").exists()
