"""rtbench as a labgrid client, for real on this machine: a labgrid
coordinator and exporter on localhost publish places whose boards are
emulated (QEMU running the FreeRTOS image, its UART on a TCP port published
as a NetworkSerialPort, power an external command that starts and stops
that QEMU, flashing over the board's control port); rtbench acquires a
place, measures a few metrics through it, stores the run and releases the
place. Two places measured at once land in one database. Every process the
lab started is killed at the end and checked gone, pass or fail (tests/lab.py).

(CI sets RTBENCH_REQUIRE_BOARD=1: a missing tool or labgrid fails there
instead of skipping.)
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import freertos_src
from lab import Lab, free_ports
from procs import children
from rtbench.cli import main
from rtbench.store.db import Store

ONLY = "method.null,method.busywait,sched.yield.ctx.thread,sem.give.no_waiter,sem.take.available"
LABGRID = ["--target", "labgrid"]
DOCS = Path(__file__).resolve().parents[1] / "docs" / "labgrid"


def _labgrid_or_skip():
    try:
        import labgrid  # noqa: F401
    except ImportError:
        if os.environ.get("RTBENCH_REQUIRE_BOARD") == "1":
            pytest.fail("labgrid is not installed (pip install -e .[test])")
        pytest.skip("labgrid is not installed")


@pytest.fixture(scope="module")
def lab(board_cache, tmp_path_factory):
    """Two emulated boards and a third whose console is wired to a silent
    port, each a place of a coordinator on localhost."""
    _labgrid_or_skip()
    root = tmp_path_factory.mktemp("lab")
    lab = Lab(root)
    try:
        lab.start(["emu-1", "emu-2"], mute=["emu-mute"])
        lab.env = lab.env_file(root / "env.yaml", options={
            "emu-2": {"rtbench_flash_powered": "true"},  # flashed powered, then power-cycled
            "emu-mute": {"rtbench_console_timeout": 2}})
        yield lab
    finally:
        lab.stop()  # kills every process the lab started; fails if one is left


@pytest.fixture
def board(board_cache, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(board_cache))
    monkeypatch.setenv("RTBENCH_FREERTOS_SRC", str(freertos_src()))


def _cli(args, cwd, env=None, timeout=180):
    """rtbench in its own session: a test that times out kills it with every
    process it started (the places' runs), so nothing outlives the test."""
    proc = subprocess.Popen([sys.executable, "-m", "rtbench", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=cwd, start_new_session=True,
                            env={**os.environ, **(env or {})})
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _qemu_children() -> list[int]:
    out = []
    for pid in children(os.getpid()):
        try:
            if open(f"/proc/{pid}/comm").read().startswith("qemu-system"):
                out.append(pid)
        except OSError:
            pass
    return out


def test_a_place_is_acquired_measured_stored_and_released(lab, board, isolated, monkeypatch):
    """The watchdog's restart is a power cycle through labgrid: a metric that
    hangs fails by timeout and the rest is measured after a fresh boot."""
    monkeypatch.setenv("RTBENCH_INJECT_FAULT", "hang:sem.give.no_waiter")
    t0 = time.monotonic()
    rc = main(["run", *LABGRID, "--env", str(lab.env), "--place", "emu-1", "--quick",
               "--timeout", "3", "--only", ONLY, "--db", "r.db", "--out", "o"])
    wall = time.monotonic() - t0
    assert rc == 0
    env = json.loads((isolated / "o" / "results.json").read_text())
    got = {m["id"]: m for m in env["metrics"]}
    assert env["run"]["status"] == "complete" and set(got) == set(ONLY.split(","))
    assert got["sem.give.no_waiter"]["status"] == "failed"
    assert got["sem.give.no_waiter"]["reason"] == "timeout after 3s"
    # figures as on the emulated board run locally: exact under -icount
    assert got["method.null"]["p50"] == 0 and got["method.busywait"]["p50"] == 2001
    assert got["sched.yield.ctx.thread"]["p50"] == 55
    assert got["sem.take.available"]["status"] == "ok"
    host = env["host"]
    assert host["place"] == "emu-1" and host["target"] == "labgrid:emu-1"
    assert host["board"].startswith("Arm MPS2 AN385") and host["os"] == "FreeRTOS"
    lg = host["labgrid"]
    assert lg["coordinator"] == lab.coordinator and lg["tags"]["board"] == "mps2-an385"
    assert lg["power"] == "ExternalPowerDriver" and lg["loader"] == "EmulatedFlashDriver"
    assert "NetworkSerialPort" in lg["console"] and "RTB_FREERTOS_ARGS" in lg["command_line"]
    sheet = (isolated / "o" / "datasheet.md").read_text()
    assert "**Lab (labgrid):** place emu-1 of the coordinator" in sheet
    with Store(isolated / "r.db") as store:
        assert store.get_run("latest").host["place"] == "emu-1"
    assert lab.acquired_by("emu-1") is None  # released
    assert lab.power_status("emu-1") == "off"  # and switched off
    print(f"one place, {len(got)} metrics with a hang and a restart: {wall:.1f} s")


def test_two_places_at_once_land_in_one_database(lab, board, isolated):
    t0 = time.monotonic()
    proc = _cli(["run", *LABGRID, "--env", str(lab.env), "--place", "emu-1,emu-2", "--quick",
                 "--only", ONLY, "--db", "r.db", "--out", "o"], isolated)
    wall = time.monotonic() - t0
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[emu-1]" in proc.stdout and "[emu-2]" in proc.stdout
    with Store(isolated / "r.db") as store:
        runs = [store.get_run(i) for i in (1, 2)]
    assert sorted(r.host["place"] for r in runs) == ["emu-1", "emu-2"]
    assert all(r.status == "complete" and r.host["board"].startswith("Arm MPS2") for r in runs)
    # measured at the same time: each run started before the other finished
    assert runs[0].started <= runs[1].finished and runs[1].started <= runs[0].finished
    # one image, one emulator: the same counts on both boards
    a, b = ({m["id"]: m for m in r.metrics} for r in runs)
    for mid in ONLY.split(","):
        assert a[mid]["status"] == b[mid]["status"] == "ok" and a[mid]["p50"] == b[mid]["p50"]
    cmp = (isolated / "o" / "compare.md").read_text()
    assert "labgrid:emu-1" in cmp and "labgrid:emu-2" in cmp
    for place in ("emu-1", "emu-2"):
        assert (isolated / "o" / place / "datasheet.html").is_file()
        assert lab.acquired_by(place) is None and lab.power_status(place) == "off"
    print(f"two places at once: {wall:.1f} s")


def test_a_tag_names_every_place_that_carries_it(lab):
    from rtbench.measure import farm

    assert farm.expand("rack=a", lab.env) == ["emu-1", "emu-2"]
    assert farm.expand("emu-2,rack=b,emu-2", lab.env) == ["emu-2", "emu-mute"]


def test_a_busy_place_is_one_line_and_left_to_its_holder(lab, board, isolated):
    lab.client("-p", "emu-2", "acquire", user="alice")
    try:
        proc = _cli(["run", *LABGRID, "--env", str(lab.env), "--place", "emu-2", "--quick",
                     "--only", ONLY, "--db", "r.db"], isolated)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
        assert "place emu-2 is busy: acquired by" in proc.stderr and "/alice" in proc.stderr
        assert lab.acquired_by("emu-2").endswith("/alice")
    finally:
        lab.client("-p", "emu-2", "release", user="alice")
    assert not (isolated / "r.db").exists()  # nothing stored for a run that never started


def test_a_console_that_never_speaks_is_one_line_and_the_place_released(lab, board, isolated):
    t0 = time.monotonic()
    proc = _cli(["run", *LABGRID, "--env", str(lab.env), "--place", "emu-mute", "--quick",
                 "--only", ONLY, "--db", "r.db"], isolated)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "place emu-mute: the console said nothing within 2 s of power-on" in proc.stderr
    assert time.monotonic() - t0 < 60
    assert lab.acquired_by("emu-mute") is None and lab.power_status("emu-mute") == "off"


@pytest.mark.parametrize("case, says", [
    ("missing", "no place ghost on the labgrid coordinator at"),
    ("unreachable", "cannot reach the labgrid coordinator at 127.0.0.1:"),
])
def test_a_missing_place_or_coordinator_is_one_line(lab, board, isolated, case, says):
    if case == "missing":
        env = lab.env_file(isolated / "env.yaml", extra_places=["ghost"])
        place = "ghost"
    else:
        (port,) = free_ports(1)  # nobody listens there
        env = lab.env_file(isolated / "env.yaml", coordinator=f"127.0.0.1:{port}")
        place = "emu-1"
    proc = _cli(["run", *LABGRID, "--env", str(env), "--place", place, "--db", "r.db"], isolated)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert says in proc.stderr
    assert not (isolated / "r.db").exists()


def test_a_board_labgrid_emulates_itself(board, isolated, monkeypatch):
    """QEMUDriver: labgrid runs QEMU on this machine; the command line goes
    through semihosting. A crash is read from the board's fault report."""
    _labgrid_or_skip()
    (isolated / "qemu.yaml").write_text(
        "targets:\n  an385:\n    options:\n      rtbench_board: mps2-an385\n"
        "      rtbench_kernel: freertos\n    drivers:\n      QEMUDriver:\n"
        "        qemu_bin: qemu\n        machine: mps2-an385\n        cpu: cortex-m3\n"
        "        memory: 16M\ntools:\n  qemu: qemu-system-arm\n")
    monkeypatch.setenv("RTBENCH_INJECT_FAULT", "crash:sem.give.no_waiter")
    assert main(["run", *LABGRID, "--env", "qemu.yaml", "--quick", "--only", ONLY,
                 "--db", "r.db", "--out", "o"]) == 0
    env = json.loads((isolated / "o" / "results.json").read_text())
    got = {m["id"]: m for m in env["metrics"]}
    assert "HardFault" in got["sem.give.no_waiter"]["reason"]
    assert "the board reported a fault" in got["sem.give.no_waiter"]["reason"]
    assert got["method.busywait"]["p50"] == 2001 and got["sem.take.available"]["status"] == "ok"
    assert env["host"]["labgrid"]["command_line"].startswith("semihosting")
    assert env["host"]["emulator"].startswith("QEMU emulator version")
    assert _qemu_children() == []


def test_labgrid_options_are_checked(isolated):
    proc = _cli(["run", "--env", "x.yaml"], isolated)
    assert proc.returncode == 2 and "--env and --place are for --target labgrid" in proc.stderr
    proc = _cli(["run", *LABGRID], isolated)
    assert proc.returncode == 2 and "--target labgrid needs --env ENV.yaml" in proc.stderr


def test_without_labgrid_the_error_names_the_extra(isolated, tmp_path):
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "labgrid.py").write_text("raise ImportError('No module named labgrid')\n")
    env = {"PYTHONPATH": os.pathsep.join([str(shadow), os.environ.get("PYTHONPATH", "")])}
    proc = _cli(["run", *LABGRID, "--env", "x.yaml"], isolated, env)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "pip install rtbench[labgrid]" in proc.stderr


@pytest.mark.parametrize("name", ["emulated-board.yaml", "emulated-board-local.yaml",
                                  "cortex-m-board.yaml", "stm32f4-gdb-board.yaml"])
def test_the_documented_environment_files_are_valid(name):
    """Every driver and resource the docs' examples name exists in labgrid
    (or in rtbench's emulated board), and each names what rtbench needs."""
    _labgrid_or_skip()
    import rtbench.targets.emuboard  # noqa: F401 (registers EmulatedFlashDriver)
    from labgrid import Environment
    from labgrid.factory import target_factory

    env = Environment(str(DOCS / name))
    for role, cfg in env.config.get_targets().items():
        resources, drivers = target_factory.normalize_config(cfg)
        assert set(resources) <= set(target_factory.resources), role
        assert set(drivers) <= set(target_factory.drivers), role
        if "QEMUDriver" not in drivers:
            assert "RemotePlace" in resources, role
            # a place loaded through its GDB server needs its resources only (labgdb.py)
            assert "SerialDriver" in drivers or not drivers, role


@pytest.mark.parametrize("name, resources", [
    ("emulated-board-exporter.yaml", {"emu-1": ["NetworkSerialPort"],
                                      "emu-2": ["NetworkSerialPort"]}),
    ("cortex-m-exporter.yaml", {"nucleo-1": ["USBSerialPort", "USBDebugger",
                                             "NetworkPowerPort"]}),
    ("stm32f4-gdb-exporter.yaml", {"nucleo-2": ["USBSerialPort", "gdb"]}),
])
def test_the_documented_exporter_files_are_valid(name, resources, capsys):
    """As labgrid-exporter reads them (a Jinja2 template: comments are ##)."""
    _labgrid_or_skip()
    from labgrid.remote.config import ResourceConfig

    data = ResourceConfig(str(DOCS / name)).data
    assert {group: list(res) for group, res in data.items()} == resources
