"""Fault injection, class 3 of issue 25: processes that outlived rtbench.

Every process rtbench starts, directly or through a build system or
labgrid, dies with it and is reaped, however rtbench dies: an image
build's make, arm-none-eabi-gcc and cc1; the QEMU labgrid's QEMUDriver
starts; the temporary directories of both. A place acquired from a
labgrid coordinator is switched off and released by rtbench's guard when
rtbench is killed (labgrid-client, as this user). Checked with the
fault-injection suite's marks (tests/faults.py, Leftovers): whatever
carries the mark in its environment, wherever it was started from.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from conftest import board_tools_missing, freertos_src
from faults import Leftovers, marked_processes, spawn, stored, wait_for
from lab import Lab

ONLY = "method.null,method.busywait,sem.give.no_waiter,sem.take.available"


def _board_or_skip() -> None:
    why = board_tools_missing()
    if why:
        if os.environ.get("RTBENCH_REQUIRE_BOARD") == "1":
            pytest.fail(f"the board target cannot run: {why}")
        pytest.skip(f"board target: {why}")


def _labgrid_or_skip() -> None:
    try:
        import labgrid  # noqa: F401
    except ImportError:
        if os.environ.get("RTBENCH_REQUIRE_BOARD") == "1":
            pytest.fail("labgrid is not installed (pip install -e .[test])")
        pytest.skip("labgrid is not installed")


def _slow_compiler(bin_dir: Path) -> Path:
    """arm-none-eabi-gcc as the build finds it on PATH: the real one, except
    that compiling FreeRTOS's tasks.c never ends (a compile that takes its
    time, for as long as the test needs: it never decides by the clock)."""
    import shutil

    real = shutil.which("arm-none-eabi-gcc")
    bin_dir.mkdir()
    gcc = bin_dir / "arm-none-eabi-gcc"
    gcc.write_text(f'#!/bin/sh\ncase "$*" in *tasks.c*) exec sleep 3600;; esac\n'
                   f'exec "{real}" "$@"\n')
    gcc.chmod(0o755)
    return bin_dir


@pytest.mark.board
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_signal_during_an_image_build_takes_the_compiler_down(sig, isolated, tmp_path, left):
    """A first board run builds its image (a fresh cache): a signal while the
    compiler runs leaves no make, gcc or cc1 behind (they compiled on)."""
    _board_or_skip()
    bin_dir = _slow_compiler(tmp_path / "bin")
    env = {**left.env(), "XDG_CACHE_HOME": str(tmp_path / "fresh-cache"),
           "RTBENCH_FREERTOS_SRC": str(freertos_src()),
           "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    r = spawn(["run", "--target", "mps2-an385", "--kernel", "freertos", "--quick", "--only",
               "method.null", "--db", "r.db", "--out", "o"], isolated, env)
    wait_for("the compiler on tasks.c", lambda: [p for p in marked_processes(left.token)
                                                 if "sleep 3600" in p], proc=r.proc)
    r.signal(sig)
    rc, out, err = r.finish()
    if sig == signal.SIGTERM:
        assert rc == 143 and "interrupted (SIGTERM)" in err, (rc, out, err)
        assert "Traceback" not in err
    left.check()
    assert not (isolated / "r.db").exists() and not (isolated / "o").exists()


def _qemu_env(path: Path) -> Path:
    path.write_text(
        "targets:\n  an385:\n    options:\n      rtbench_board: mps2-an385\n"
        "      rtbench_kernel: freertos\n    drivers:\n      QEMUDriver:\n"
        "        qemu_bin: qemu\n        machine: mps2-an385\n        cpu: cortex-m3\n"
        "        memory: 16M\ntools:\n  qemu: qemu-system-arm\n")
    return path


def test_sigkill_of_a_labgrid_run_leaves_no_qemu_and_no_directory(board_cache, isolated, left):
    """QEMUDriver: labgrid starts QEMU itself (in rtbench's process group,
    unknown to rtbench's guard, it ran on) and makes a directory for its
    console's socket, as rtbench makes one for its images."""
    _labgrid_or_skip()
    env = {**left.env(), "XDG_CACHE_HOME": str(board_cache),
           "RTBENCH_FREERTOS_SRC": str(freertos_src()),
           "RTBENCH_INJECT_FAULT": "hang:sem.give.no_waiter"}
    r = spawn(["run", "--target", "labgrid", "--env", str(_qemu_env(isolated / "q.yaml")),
               "--quick", "--timeout", "600", "--only", ONLY, "--db", "r.db", "--out", "o"],
              isolated, env)
    wait_for("a stored record", lambda: stored(isolated / "r.db"), proc=r.proc)
    assert any("qemu-system-arm" in p for p in marked_processes(left.token))
    r.signal(signal.SIGKILL)
    r.finish()
    left.check()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """One emulated board, a place of a coordinator on localhost."""
    _labgrid_or_skip()
    _board_or_skip()
    root = tmp_path_factory.mktemp("lab")
    lab = Lab(root)
    try:
        lab.start(["emu-k"])
        lab.env = lab.env_file(root / "env.yaml")
        yield lab
    finally:
        lab.stop()  # kills every process the lab started; fails if one is left


def test_sigkill_of_a_labgrid_run_switches_the_board_off_and_releases_the_place(
        lab, board_cache, isolated, left):
    env = {**left.env(), "XDG_CACHE_HOME": str(board_cache),
           "RTBENCH_FREERTOS_SRC": str(freertos_src()),
           "RTBENCH_INJECT_FAULT": "hang:sem.give.no_waiter"}
    r = spawn(["run", "--target", "labgrid", "--env", str(lab.env), "--place", "emu-k",
               "--quick", "--timeout", "600", "--only", ONLY, "--db", "r.db", "--out", "o"],
              isolated, env)
    wait_for("a stored record", lambda: stored(isolated / "r.db"), proc=r.proc)
    assert lab.acquired_by("emu-k") and lab.power_status("emu-k") == "on"
    r.signal(signal.SIGKILL)
    r.finish()
    wait_for("the place released", lambda: lab.acquired_by("emu-k") is None)
    assert lab.power_status("emu-k") == "off"
    left.check()


def test_a_child_rtbench_had_not_registered_yet_still_goes_with_it(tmp_path, left):
    """A SIGKILL in the instant between starting a child and telling the
    guard its group: the guard still finds the child, and what the child
    started, by the guard's token in their environment."""
    import subprocess
    import sys

    script = (
        "import os, signal\n"
        "from rtbench.process import lifetime\n"
        "with lifetime.guarded():\n"
        "    guard = lifetime._current_guard()\n"
        "    guard.tell = lambda line: None  # '+g PID' never reaches the guard\n"
        "    lifetime.popen(['/bin/sh', '-c', 'sleep 300 & exec sleep 300'])\n"
        "    print('started', flush=True)\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n")
    proc = subprocess.run([sys.executable, "-c", script], env=left.env(), capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL and "started" in proc.stdout, proc.stderr
    left.check()  # both sleeps: ended by the guard, found by the token


# ---- the window audit (issue 35, 5 and 13) ----

def _audit(isolated: Path, left: Leftovers, board_cache: Path, *more: str):
    return spawn(["audit", "--target", "mps2-an385", "--kernel", "freertos", "--samples", "200",
                  "--only", "*", "-o", "a.json", *more], isolated,
                 {**left.env(), "XDG_CACHE_HOME": str(board_cache),
                  "RTBENCH_FREERTOS_SRC": str(freertos_src())})


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_signal_during_the_audit_leaves_no_qemu_and_no_directory(sig, board_cache, isolated,
                                                                   left):
    """The audit's QEMU, single-stepping the image at full speed, was started
    with a plain Popen in a TemporaryDirectory: a SIGKILL of rtbench left
    it running (at 100 % CPU) and the rtbench-audit-* folder behind. Now
    both go through the guard; SIGTERM ends the audit with 143."""
    _board_or_skip()
    r = _audit(isolated, left, board_cache)
    wait_for("the traced QEMU", lambda: any(left.tmpdir.glob("rtbench-audit-*")) and any(
        "qemu-system-arm" in p for p in marked_processes(left.token)), proc=r.proc)
    r.signal(sig)
    rc, _out, err = r.finish()
    assert rc == (-9 if sig == signal.SIGKILL else 143), err
    assert "Traceback" not in err
    left.check()
    assert not (isolated / "a.json").exists()


def test_an_audit_that_outlives_its_timeout_is_one_line(board_cache, isolated, left):
    """`audit --timeout N` expiring printed a 39-line traceback (the whole
    catalogue, 200 samples each, is minutes of trace: never within 1 s)."""
    from faults import one_line_error

    _board_or_skip()
    rc, _out, err = _audit(isolated, left, board_cache, "--timeout", "1").finish()
    assert rc == 1 and "did not end within 1 s" in one_line_error(err), err
    left.check()
