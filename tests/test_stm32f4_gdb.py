"""A real board's path, driven here against QEMU as a probe would drive a
Nucleo: QEMU's netduinoplus2 started halted with its GDB server
(`-gdb tcp:... -S`), no image, no semihosting, USART2 on a TCP serial
socket that waits for its reader; rtbench loads the image through
gdb-multiarch (`--gdb`) and reads the console with pyserial (`--serial
socket://...`). The whole catalogue of each kernel measures exactly what
the `-kernel` run of the same image measures (every statistic, every
histogram: the two start-ups run the same instructions, boardargs.py),
and nothing rtbench started is left behind. (CI sets
RTBENCH_REQUIRE_BOARD=1: a missing tool fails there instead of skipping.)

The `-kernel` run is the test's own, of the same command without the
cycle model; test_stm32f4.py shows that path identical run to run, with the
model and without: so the GDB path is deterministic too. The window audit needs
QEMU's instruction trace, which only a `-kernel` boot under rtbench's own
QEMU gives (a board has no trace): it audits the same instructions.
"""

import json
import os
import shutil
import socket
import subprocess

import pytest

from conftest import kernel_env
from procs import children
from rtbench.cli import main


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def board(board_cache, monkeypatch, tmp_path):
    if shutil.which("gdb-multiarch") is None:
        if os.environ.get("RTBENCH_REQUIRE_BOARD") == "1":
            pytest.fail("gdb-multiarch is missing (scripts/setup.sh installs it)")
        pytest.skip("gdb-multiarch is missing")
    monkeypatch.setenv("XDG_CACHE_HOME", str(board_cache))
    kernel_env(monkeypatch)
    monkeypatch.chdir(tmp_path)
    gdb, serial = _free_port(), _free_port()
    qemu = subprocess.Popen(
        ["qemu-system-arm", "-M", "netduinoplus2", "-display", "none", "-monitor", "none",
         "-serial", "null", "-serial", f"tcp:127.0.0.1:{serial},server=on,wait=on",
         "-icount", "shift=7,align=off,sleep=off", "-gdb", f"tcp:127.0.0.1:{gdb}", "-S"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield tmp_path, ["--gdb", f"127.0.0.1:{gdb}", "--serial", f"socket://127.0.0.1:{serial}"]
    finally:
        qemu.kill()
        qemu.wait()


# Per sample wall time of the run's blocks, and the cycle model's estimate
# (only the -kernel run loads the model), are not figures of the image.
NOT_THE_IMAGES = ("blocks", "cycles")


def _figures(metric: dict) -> dict:
    got = {k: v for k, v in metric.items() if k not in NOT_THE_IMAGES}
    got["blocks"] = [{k: v for k, v in b.items() if k != "t"} for b in metric.get("blocks", [])]
    return got


@pytest.mark.parametrize("kernel", ["freertos", "threadx"])
def test_loaded_through_gdb_the_whole_catalogue_measures_what_kernel_boots_measure(
        board, kernel):
    work, through_gdb = board
    # the same command booted with -kernel; without the cycle model, which
    # only that path loads (conftest.board_runs runs the whole catalogue
    # with the model only)
    assert main(["run", "--target", "stm32f4", "--kernel", kernel, "--quick", "--no-cycles",
                 "--db", "r.db", "--out", "booted"]) == 0
    booted = json.loads((work / "booted" / "results.json").read_text())
    assert main(["run", "--target", "stm32f4", "--kernel", kernel, "--quick",
                 "--db", "r.db", "--out", "gdb", *through_gdb]) == 0
    loaded = json.loads((work / "gdb" / "results.json").read_text())
    assert loaded["run"]["status"] == "complete"
    a = {m["id"]: m for m in loaded["metrics"]}
    b = {m["id"]: m for m in booted["metrics"]}
    assert a.keys() == b.keys()
    assert sum(m["status"] == "ok" for m in a.values()) > 120
    differ = [(mid, k) for mid in a for k in _figures(a[mid])
              if _figures(a[mid])[k] != _figures(b[mid]).get(k)]
    assert differ == [], differ[:10]
    assert loaded["session"]["ts"] == booted["session"]["ts"]
    # the records say what was measured and how it was reached
    assert loaded["session"]["ts"]["source"].startswith("TIM2")
    assert loaded["host"]["target_kind"] == "board"
    # one image on both paths: a chip's run of it calibrates the emulated run's model
    assert len(loaded["host"]["image_sha256"]) == 64
    assert loaded["host"]["image_sha256"] == booted["host"]["image_sha256"]
    assert "loaded through the GDB server at 127.0.0.1:" in loaded["host"]["board"]
    assert loaded["host"]["loader"].startswith("GNU gdb")
    # GDB is rtbench's child and gone; QEMU (the "board") is the test's only one
    left = [p for p in children(os.getpid())
            if open(f"/proc/{p}/comm").read().strip().startswith("gdb")]
    assert left == []


def test_a_gdb_server_that_is_not_there_is_one_line(board_cache, monkeypatch, tmp_path, capsys):
    if shutil.which("gdb-multiarch") is None:
        pytest.skip("gdb-multiarch is missing")
    monkeypatch.setenv("XDG_CACHE_HOME", str(board_cache))
    kernel_env(monkeypatch)
    monkeypatch.chdir(tmp_path)
    rc = main(["run", "--target", "stm32f4", "--kernel", "freertos", "--kernel-profile", "defaults",
               "--only", "method.null", "--gdb", f"127.0.0.1:{_free_port()}",
               "--serial", "loop://", "--db", "r.db", "--timeout", "30"])
    err = capsys.readouterr().err
    assert rc != 0 and "GDB loader failed" in err, err


def test_gdb_and_serial_are_checked_before_anything_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for args, words in ((["--target", "mps2-an385", "--gdb", "h:1", "--serial", "x"],
                         "not --target mps2-an385"),
                        (["--target", "stm32f4", "--gdb", "nonsense", "--serial", "x"],
                         "not HOST:PORT"),
                        (["--target", "stm32f4", "--gdb", "h:1"], "go together")):
        assert main(["run", "--kernel", "freertos", *args, "--db", "r.db"]) == 2
        assert words in capsys.readouterr().err, args
