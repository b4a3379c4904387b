"""Fault injection, class 6 of issue 25: injection and bounds.

A string from outside (a log's board name, a metric's id or reason, a
label) never reaches a terminal with its control characters, and every
Markdown template escapes what it prints; files given as options are read
only when they are regular and small; numeric options are finite and in
range; a run id is ASCII digits.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from faults import SRC, log_copy, one_line_error
from rtbench.cli import main

LOG = Path(__file__).resolve().parent / "data" / "board" / "freertos-mps2-an385.log"
LINES = LOG.read_text().splitlines()
ESC = "\x1b]0;owned\x07\x1b[2J\x1b[31m\x9b1m"  # a window title, clear screen, colours
# issue 35: what reorders or breaks a line without being a control character:
# the bidirectional overrides and isolates ("Trojan Source"), the line and
# paragraph separators
BIDI = "\u202e4.1\u202c \u2066x\u2067y\u2068z\u2069\u2028\u2029"


def _log(path: Path, board: str, reason: str = "", mid: str | None = None) -> Path:
    """The FreeRTOS log with its board named `board`, irq.enable unsupported
    for `reason`, and (`mid`) sem.give.no_waiter renamed."""
    out = []
    for line in LINES:
        rec = json.loads(line)
        if rec["type"] == "session":
            rec["target"]["board"] = board
        if rec.get("id") == "irq.enable" and rec["type"] == "metric":
            rec = {"type": "metric", "id": "irq.enable", "status": "unsupported",
                   "reason": reason, "n": 0}
        if mid and rec.get("id") == "sem.give.no_waiter":
            rec["id"] = mid
        out.append(json.dumps(rec))
    path.write_text("\n".join(out) + "\n")
    return path


def _no_controls(text: str, what) -> None:
    bad = sorted({c for c in text if (ord(c) < 32 and c not in "\n\t") or 127 <= ord(c) < 160
                  or c in BIDI[:1] + "\u202c\u2066\u2067\u2068\u2069\u2028\u2029"})
    assert not bad, (what, bad, text[:300])


def test_control_characters_from_a_log_never_reach_the_terminal(isolated, capsys):
    db = ["--db", "r.db"]
    assert main(["import", "harness", str(_log(isolated / "a.log", "MPS2" + ESC + BIDI,
                                              "no port" + ESC + BIDI)), *db]) == 0
    assert main(["import", "harness", str(_log(isolated / "b.log", "MPS2 (b)")), "--label",
                 "lab" + ESC + BIDI, *db]) == 0
    for args in (["runs"], ["show", "1"], ["show", "2"], ["report", "1"],
                 ["report", "1", "--format", "csv"], ["compare", "1", "2"],
                 ["history", "irq.enable"], ["hist", "method.busywait", "1"]):
        rc = main([*args, *db])
        out, err = capsys.readouterr()
        assert rc in (0, 1), (args, err)
        _no_controls(out + err, args)
    # an id with control characters is no id: refused, and the error says so plainly
    assert main(["import", "harness", str(_log(isolated / "c.log", "x", mid="sem" + ESC)),
                 *db]) == 2
    err = capsys.readouterr().err
    _no_controls(err, "the import's error")
    assert "c.log:" in one_line_error(err)


def _hostile_runs(isolated: Path) -> list[str]:
    board = "MPS2\n# Injected heading\n<script>alert(1)</script> [a link](http://x) |" + BIDI
    assert main(["import", "harness", str(_log(isolated / "a.log", board, "why\n# Also" + BIDI)),
                 "--label", "[x](http://y)\n## label\u2028# Also", "--db", "r.db"]) == 0
    assert main(["import", "harness", str(_log(isolated / "b.log", "other board\n# Second")),
                 "--db", "r.db"]) == 0
    return ["--db", "r.db"]


def _markdown_is_safe(text: str, what) -> None:
    assert not re.search(r"^#+ (Injected|Second|Also|label)", text, re.M), (what, text[:2000])
    assert "<script>" not in text, what
    assert not re.search(r"(?<!\\)\]\(http", text), what  # a link: [text](url), unescaped


def test_every_markdown_template_escapes_what_it_prints(isolated, capsys):
    """The data sheet (its Conditions line printed the board name raw), a
    page (runs), the kernel sheet (two boards side by side)."""
    db = _hostile_runs(isolated)
    for args, name in ((["report", "1", "--format", "md"], "datasheet.md.j2"),
                       (["runs", "--format", "md"], "page.md.j2"),
                       (["compare", "1", "2", "--format", "md"], "kernelsheet.md.j2")):
        assert main([*args, *db, "-o", "x.md"]) == 0, args
        text = (isolated / "x.md").read_text()
        _markdown_is_safe(text, name)
        _no_controls(text, name)
    sheet = main(["report", "1", *db, "-o", "s.md"])
    assert sheet == 0
    conditions = next(ln for ln in (isolated / "s.md").read_text().splitlines()
                      if ln.startswith("**Conditions:**"))
    assert "# Injected heading" in conditions  # kept as text, on its line
    capsys.readouterr()


# ---- files and numbers given as options ----

def _limited(limit_bytes: int):
    def apply() -> None:  # a broken reader of /dev/zero dies here, not the machine
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return apply


@pytest.mark.parametrize("what", ["/dev/zero", "fifo", "directory", "huge"])
def test_a_limits_file_that_is_no_limits_file_is_one_line(what, isolated):
    assert main(["import", "harness", str(LOG), "--db", "r.db"]) == 0
    path = {"/dev/zero": Path("/dev/zero"), "fifo": isolated / "fifo",
            "directory": isolated, "huge": isolated / "huge.toml"}[what]
    if what == "fifo":
        os.mkfifo(path)  # nobody writes it
    if what == "huge":
        path.write_text("[limits]\n" + "# padding\n" * 200_000)
    proc = subprocess.run([sys.executable, "-m", "rtbench", "compare", "1", "1", "--limits",
                           str(path), "--db", "r.db"], cwd=isolated, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(SRC)},
                          preexec_fn=_limited(2 << 30))
    assert proc.returncode == 2, proc.stderr
    assert "limits file" in one_line_error(proc.stderr)


@pytest.mark.parametrize("width", ["nan", "inf", "1e-300", "-1", "0", "1e400us", "1e30"])
def test_a_histogram_width_out_of_range_is_one_line(width, isolated, capsys):
    assert main(["import", "harness", str(LOG), "--db", "r.db"]) == 0
    capsys.readouterr()
    assert main(["hist", "method.busywait", "1", "--width", width, "--db", "r.db"]) == 2
    out, err = capsys.readouterr()
    assert "--width" in one_line_error(err) and out == ""


@pytest.mark.parametrize("duration", ["1e-300", "0.5", "0.5s", "nan", "1e400"])
def test_a_soak_shorter_than_a_second_is_refused(duration, fake, isolated, capsys):
    assert main(["run", "--quick", "--duration", duration, "--db", "r.db"]) == 2
    assert "--duration" in one_line_error(capsys.readouterr().err)
    assert not (isolated / "r.db").exists()


@pytest.mark.parametrize("ref", ["٣", " 1 ", "1_0", "+1", "1.0", "１"])
@pytest.mark.parametrize("command", ["show", "report", "hist"])
def test_a_run_id_is_ascii_digits(ref, command, isolated, capsys):
    for i in range(3):  # three runs: three captures (the same bytes twice are refused)
        assert main(["import", "harness", str(log_copy(LOG, isolated, i)), "--db", "r.db"]) == 0
    capsys.readouterr()
    args = {"show": ["show", ref], "report": ["report", ref],
            "hist": ["hist", "method.null", ref]}[command]
    assert main([*args, "--db", "r.db"]) == 2
    assert ("run must be an integer id, 'latest', 'latest~N' or 'label:TEXT'"
            in one_line_error(capsys.readouterr().err))


@pytest.mark.parametrize("threshold", ["inf", "nan", "1e400"])
def test_a_threshold_that_is_no_percentage_is_one_line(threshold, isolated, capsys):
    """Issue 35: `--threshold inf` made no change count, and was accepted."""
    for i in range(2):  # two runs: two captures (the same bytes twice are refused)
        assert main(["import", "harness", str(log_copy(LOG, isolated, i)), "--db", "r.db"]) == 0
    capsys.readouterr()
    assert main(["compare", "1", "2", "--threshold", threshold, "--db", "r.db"]) == 2
    out, err = capsys.readouterr()
    assert "--threshold" in one_line_error(err) and out == ""


def test_a_label_that_is_no_utf8_is_one_line(isolated, capsys):
    """Issue 35: `--label $'\\xff'` reaches Python as a lone surrogate,
    which SQLite's text column refused with a traceback."""
    assert main(["import", "harness", str(LOG), "--label", "lab\udcff", "--db", "r.db"]) == 2
    assert "--label" in one_line_error(capsys.readouterr().err)
    assert not (isolated / "r.db").exists()


# ---- a gate that checks nothing never passes ----

ZEPHYR = Path(__file__).resolve().parent / "data" / "import" / "zephyr" / \
    "latency_measure-kernel.txt"


@pytest.mark.parametrize("limit, why", [
    (["--limit", "sem.*<=1us"], "is on the max, but run 1 gives none for sem.give.no_waiter"),
    (["--limit", "sem.*:p99<=1us"], "its source gave mean"),
    (["--limit", "sem.*<=1us", "--ref", "zephyr"], "not beside a reference sheet"),
    (["--limits", "{dir}/other.toml"], "no limit applies to run 1 (target host)"),
], ids=["max of means", "p99 of means", "beside a sheet", "other targets only"])
def test_a_limit_that_checks_nothing_is_one_line_on_any_run(limit, why, isolated, capsys):
    """Issue 35: an imported run whose source gives means only passed
    `--limit 'sem.*<=1us'` with "0 exceeded of 0 checked", exit 0; a run in
    instructions already refused a limit in µs. Every run refuses."""
    (isolated / "other.toml").write_text('[target.mps2-an385.limits]\n"sem.*" = "max <= 9us"\n')
    assert main(["import", "zephyr", str(ZEPHYR), "--db", "r.db"]) == 0
    capsys.readouterr()
    assert main(["compare", "1", *[a.format(dir=isolated) for a in limit], "--db", "r.db"]) == 2
    out, err = capsys.readouterr()
    line = one_line_error(err)
    assert why in line and ("nothing" in line or "reference" in line), line
    assert "gate" not in out

