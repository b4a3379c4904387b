"""A labgrid place of an STM32F4 on a probe (labgdb.py): the lab publishes
the probe's GDB server as a NetworkService and the board's console as a
NetworkSerialPort; rtbench acquires the place, loads the image through
that server, reads the console with pyserial, and releases the place. Here
the "probe" is QEMU's netduinoplus2 halted with its GDB server, behind a
real labgrid coordinator and exporter on localhost (tests/lab.py): the
figures are every statistic of the `-kernel` run of the same image and
arguments (the two start-ups run the same instructions).
(CI sets RTBENCH_REQUIRE_BOARD=1: a missing tool or labgrid fails there.)
"""

import json
import os
import shutil

import pytest

from conftest import kernel_env
from lab import Lab
from procs import children
from rtbench.cli import main

ROWS = "method.null,method.busywait,sched.yield.ctx.thread,sem.give.no_waiter,irq.response"


@pytest.fixture(scope="module")
def lab(board_cache, tmp_path_factory):
    try:
        import labgrid  # noqa: F401
    except ImportError:
        if os.environ.get("RTBENCH_REQUIRE_BOARD") == "1":
            pytest.fail("labgrid is not installed (pip install -e .[test])")
        pytest.skip("labgrid is not installed")
    if shutil.which("gdb-multiarch") is None:
        if os.environ.get("RTBENCH_REQUIRE_BOARD") == "1":
            pytest.fail("gdb-multiarch is missing (scripts/setup.sh installs it)")
        pytest.skip("gdb-multiarch is missing")
    root = tmp_path_factory.mktemp("lab-gdb")
    lab = Lab(root)
    try:
        lab.start([], gdb=["nucleo-1"])
        lab.env = lab.env_file(root / "env.yaml")
        yield lab
    finally:
        lab.stop()  # kills every process the lab started (QEMU too); fails if one is left


def test_a_place_with_a_gdb_server_is_loaded_through_it(lab, board_cache, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(board_cache))
    kernel_env(monkeypatch)
    monkeypatch.chdir(tmp_path)
    common = ["--only", ROWS, "--samples", "300", "--db", "r.db"]
    assert main(["run", "--target", "labgrid", "--env", str(lab.env), "--place", "nucleo-1",
                 *common, "--out", "lab"]) == 0
    assert main(["run", "--target", "stm32f4", "--kernel", "freertos", "--no-cycles", *common,
                 "--out", "kernel"]) == 0
    placed, booted = (json.loads((tmp_path / out / "results.json").read_text())
                      for out in ("lab", "kernel"))
    a = {m["id"]: m for m in placed["metrics"]}
    b = {m["id"]: m for m in booted["metrics"]}
    assert a.keys() == b.keys() == set(ROWS.split(","))
    for mid in a:
        assert a[mid]["status"] == "ok", (mid, a[mid].get("reason"))
        for key in ("n", "min", "p50", "mean", "p90", "p99", "p999", "max", "stddev", "hist"):
            assert a[mid].get(key) == b[mid].get(key), (mid, key)
    host = placed["host"]
    assert host["target"] == "labgrid:nucleo-1" and host["target_kind"] == "board"
    assert host["image_sha256"] == booted["host"]["image_sha256"]
    lg = host["labgrid"]
    assert lg["coordinator"] == lab.coordinator and lg["tags"]["board"] == "stm32f4"
    assert lg["loader"] == f"GDB server at 127.0.0.1:{lab.gdb_boards['nucleo-1']} (NetworkService)"
    assert lg["console"].startswith("socket://127.0.0.1:")
    assert lab.acquired_by("nucleo-1") is None  # released
    left = [p for p in children(os.getpid())
            if open(f"/proc/{p}/comm").read().strip().startswith("gdb")]
    assert left == []
