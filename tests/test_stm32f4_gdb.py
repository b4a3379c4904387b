"""A real board's path, driven here against QEMU as a probe would drive a
Nucleo: QEMU's netduinoplus2 started halted with its GDB server
(`-gdb tcp:... -S`), no image, no semihosting, USART2 on a TCP serial
socket that waits for its reader; rtbench loads the image through
gdb-multiarch (`--gdb`) and reads the console with pyserial (`--serial
socket://...`). The figures (every row's minimum and median) are those
of the `-kernel` run of the same image, and nothing rtbench started is
left behind. (CI sets
RTBENCH_REQUIRE_BOARD=1: a missing tool fails there instead of skipping.)
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

ROWS = ("method.null,method.busywait,irq.response,irq.task_response.resched,"
        "sched.yield.ctx.thread,sem.give.no_waiter,sem.take.block_ctx.thread,"
        "mutex.lock.uncontended,msgq.send.wake_ctx.thread")


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


def _run(out: str, kernel: str, more: list[str]) -> dict:
    assert main(["run", "--target", "stm32f4", "--kernel", kernel, "--kernel-profile", "defaults",
                 "--only", ROWS, "--samples", "300", "--db", "r.db", "--out", out, *more]) == 0
    return json.loads(open(f"{out}/results.json").read())


@pytest.mark.parametrize("kernel", ["freertos", "threadx"])
def test_loaded_through_gdb_the_figures_are_the_kernel_runs(board, kernel):
    work, through_gdb = board
    loaded = _run("gdb", kernel, through_gdb)
    booted = _run("kernel", kernel, ["--no-cycles"])
    a = {m["id"]: m for m in loaded["metrics"]}
    b = {m["id"]: m for m in booted["metrics"]}
    assert a.keys() == b.keys() == set(ROWS.split(","))
    for mid in a:
        assert a[mid]["status"] == "ok", (mid, a[mid].get("reason"))
        # The cost, identical. Not where the kernel tick lands: the -kernel
        # boot reads its command line and writes its stamp log through
        # semihosting between metrics, a board has no host and does neither,
        # so the 1 kHz tick falls in other samples (their mean and max).
        for key in ("n", "min", "p50"):
            assert a[mid][key] == b[mid][key], (mid, key, a[mid][key], b[mid][key])
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
