"""Fault injection, class 5 of issue 25: other users and other runs on the
same machine.

Another user who binds the name of a CPU's lock is not waited for (any
user may bind any abstract name: the holder's credentials decide); a run
that starts while another links the host harness waits for that build
instead of running a half-written executable; a failing build reports
its own compiler error, not the first one in a log that grows.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from faults import one_line_error, spawn, wait_for
from rtbench.errors import HarnessError
from rtbench.targets import harness


# ---- a squatted CPU lock ----

# Binds the CPU's lock name as soon as no run of the machine holds it.
_SQUAT = r"""
import socket, sys, time
while True:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.bind(b"\0rtbench-cpu-" + sys.argv[1].encode())
        break
    except OSError:
        s.close()
        time.sleep(0.1)
if sys.argv[2] == "listen":
    s.listen(1)
print("bound", flush=True)
time.sleep(3600)
"""


def _other_user() -> tuple[int, int]:
    """A uid and gid that are neither ours nor root's."""
    import pwd

    if os.geteuid() != 0:
        pytest.skip("running a process as another user needs root")
    for name in ("rtbtest", "nobody"):
        try:
            pw = pwd.getpwnam(name)
            return pw.pw_uid, pw.pw_gid
        except KeyError:
            continue
    return 65534, 65534


@pytest.mark.parametrize("how", ["listen", "bind only"])
def test_a_cpu_lock_another_user_squats_is_not_waited_for(how, fake, isolated, left):
    """Another user binds the CPU's lock name and sleeps: the run measures,
    saying who holds the name (it waited for ever)."""
    uid, gid = _other_user()
    cpu = max(os.sched_getaffinity(0))
    squatter = subprocess.Popen(
        ["/usr/bin/python3", "-I", "-c", _SQUAT, str(cpu), how.split()[0]], cwd="/",
        stdout=subprocess.PIPE, text=True, user=uid, group=gid, extra_groups=[],
        env={"PATH": "/usr/bin:/bin"})
    try:
        assert squatter.stdout.readline().strip() == "bound"
        r = spawn(["run", "--quick", "--no-programs", "--only", "method.null", "--cpu",
                   str(cpu), "--db", "r.db", "--out", "o"], isolated, left.env())
        rc, out, err = r.finish(timeout=90)
    finally:
        squatter.kill()
        squatter.wait()
    assert rc == 0, (out, err)
    assert f"CPU {cpu}'s lock is held by" in out and "not by an rtbench run" in out, out
    assert "waiting for it to finish" not in out
    left.check()


def test_a_cpu_lock_of_another_users_run_is_waited_for(fake, isolated, left):
    """The same name held by another user's `rtbench run` (its command line
    says so): a lock, waited for until it is given back."""
    uid, gid = _other_user()
    cpu = max(os.sched_getaffinity(0))
    holder = subprocess.Popen(
        ["/usr/bin/python3", "-I", "-c", _SQUAT, str(cpu), "listen", "rtbench", "run"],
        cwd="/", stdout=subprocess.PIPE, text=True, user=uid, group=gid, extra_groups=[],
        env={"PATH": "/usr/bin:/bin"})
    try:
        assert holder.stdout.readline().strip() == "bound"
        r = spawn(["run", "--quick", "--no-programs", "--only", "method.null", "--cpu",
                   str(cpu), "--db", "r.db", "--out", "o"], isolated, left.env())
        wait_for("the wait for the CPU", lambda: "is in use by another rtbench run"
                 in r.out.read_text(), proc=r.proc)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    rc, out, err = r.finish()
    assert rc == 0 and f"CPU {cpu} is free: measuring" in out, (out, err)
    left.check()


# ---- a harness being linked by another run ----

def _waiting_for_lock(lock: Path, pid: int) -> bool:
    """Whether `pid` waits for a flock on `lock` (/proc/locks: "-> FLOCK")."""
    ino = f":{lock.stat().st_ino} "
    return any("->" in ln and f" {pid} " in ln and ino in ln
               for ln in Path("/proc/locks").read_text().splitlines())


def test_a_run_waits_for_the_harness_another_run_is_linking(real_exe, isolated, tmp_path, left):
    """The other run holds the build's lock and its executable exists, empty,
    as the linker leaves it while it writes: the second run waits for the
    lock (it ran the empty file: "Permission denied"), then measures with
    what the build made."""
    cache = tmp_path / "cache"
    builddir = cache / "rtbench" / harness.built_exe().parent.name
    builddir.mkdir(parents=True)
    exe = builddir / harness.EXE_NAME
    exe.write_bytes(b"")
    exe.chmod(0o755)
    lock = cache / "rtbench" / f"{builddir.name}.lock"
    import fcntl

    with open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        r = spawn(["run", "--quick", "--no-programs", "--only", "method.null", "--db", "r.db",
                   "--out", "o"], isolated, {**left.env(), "XDG_CACHE_HOME": str(cache)})
        wait_for("the second run waiting for the build's lock",
                 lambda: _waiting_for_lock(lock, r.proc.pid), proc=r.proc)
        shutil.copy(real_exe, exe)  # the other run's link ends
        (builddir / harness.BUILT).write_text("")
    rc, out, err = r.finish()
    assert rc == 0, (out, err)
    left.check()


# ---- a build log that grows ----

def test_a_failing_build_reports_its_own_error(tmp_path):
    """Image builds append to one build.log: the second failure named the
    first one's compiler error, found from the top of the log."""
    def step(error: str) -> list[str]:
        return ["sh", "-c", f"echo 'x.c:1:1: error: {error}'; exit 1"]

    with pytest.raises(HarnessError, match="error: the first"):
        harness._run_steps(tmp_path, [step("the first")], "image")
    with pytest.raises(HarnessError) as exc:
        harness._run_steps(tmp_path, [step("the second")], "image", append=True)
    assert "error: the second" in str(exc.value) and "the first" not in str(exc.value)


# ---- a build cache that is not the user's alone (issue 35, 2) ----

_PLANT = "#!/bin/sh\necho pwned > {mark}\n"


def _plant_harness(cache: Path, mark: Path) -> Path:
    """Another user's 'build' of the harness where rtbench will look for it:
    its executable, the mark of a whole build and its lock."""
    builddir = cache / "rtbench" / harness.built_exe().parent.name
    builddir.mkdir(parents=True)
    exe = builddir / harness.EXE_NAME
    exe.write_text(_PLANT.format(mark=mark))
    exe.chmod(0o755)
    (builddir / harness.BUILT).write_text("")
    (cache / "rtbench" / f"{builddir.name}.lock").write_text("")
    return builddir


def _others(path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    os.chown(path, 65534, 65534)  # nobody


@pytest.mark.parametrize("how", ["cache-of-another", "builddir-of-another", "builddir-writable",
                                 "cache-writable", "lock-of-another", "lock-a-link",
                                 "parent-of-another"])
def test_a_build_cache_that_is_not_the_users_alone_is_refused(how, isolated, tmp_path, left,
                                                               monkeypatch):
    """A harness 'built' by someone else in a cache named as rtbench names
    it (the hash is predictable) was run, as root: the cache, its build
    folders, their locks and the folders above must be the user's and
    writable by no one else, or the run is one line, exit 2, and runs nothing."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    mark = tmp_path / "PWNED"
    builddir = _plant_harness(tmp_path / "cache", mark)
    lock = builddir.parent / f"{builddir.name}.lock"
    if how == "cache-of-another":
        _others(builddir.parent)
    elif how == "builddir-of-another":
        _others(builddir)
    elif how == "builddir-writable":
        builddir.chmod(0o777)
    elif how == "cache-writable":
        builddir.parent.chmod(0o777)
    elif how == "lock-of-another":
        _others(lock)
    elif how == "lock-a-link":
        lock.unlink()
        lock.symlink_to(tmp_path / "victim")
    else:
        _others(tmp_path / "cache")
    rc, out, err = spawn(["run", "--quick", "--no-programs", "--only", "sem.give.no_waiter",
                          "--db", "r.db", "--out", "o"], isolated,
                         {**left.env(), "XDG_CACHE_HOME": str(tmp_path / "cache")}).finish()
    line = one_line_error(err)
    assert rc == 2 and ("rtbench does not build or run" in line or "cannot use the lock" in line), err
    assert not mark.exists() and not (tmp_path / "victim").exists()
    assert not (isolated / "o").exists() and not (isolated / "r.db").exists()
    # the images, the peers and the cycle model's plugin are built through the same check
    from rtbench.process.owned import NotOwnedError
    from rtbench.targets import cycles

    if how in ("cache-of-another", "cache-writable", "parent-of-another"):
        with pytest.raises(NotOwnedError):
            harness.build_image("freertos", "mps2-an385", {}, "rtbench-freertos.elf")
        with pytest.raises(NotOwnedError):
            cycles.build()
    left.check()


@pytest.mark.parametrize("output, says", [
    # CMake's own error: its text is on the indented lines after the heading
    ("CMake Error at CMakeLists.txt:12 (message):\\n  FREERTOS_KERNEL_PATH has no portable/GCC"
     "\\n\\n\\n-- Configuring incomplete, errors occurred!",
     "CMake Error at CMakeLists.txt:12 (message): FREERTOS_KERNEL_PATH has no portable/GCC"),
    # a full disk, said by a tool that does not call it an error
    ("Linking C executable rtbench-harness\\nx.c:1: warning: error-prone\\n"
     "/usr/bin/ld: final link failed: No space left on device",
     "No space left on device"),
])
def test_a_failing_build_says_why_in_its_line(output, says, tmp_path):
    """Build failures left out the reason: CMake's message text was dropped
    (only `CMake Error at …` kept), "No space left on device" was only in
    build.log (issue 35, smaller)."""
    with pytest.raises(HarnessError) as exc:
        harness._run_steps(tmp_path, [["sh", "-c", f"printf '{output}\\n'; exit 1"]], "image")
    assert says in str(exc.value), str(exc.value)


def test_a_cache_made_under_a_umask_of_002_is_the_users_alone(isolated, tmp_path, monkeypatch):
    """The check must not refuse what rtbench made itself: a user whose
    umask is 002 (a user private group) gets its cache and the folders
    above it made writable by nobody else."""
    from rtbench.process import owned

    cache = tmp_path / "home" / ".cache" / "rtbench"
    old = os.umask(0o002)
    try:
        owned.make_dir(cache, "harness")
    finally:
        os.umask(old)
    for p in (cache, cache.parent, cache.parent.parent):
        assert not p.stat().st_mode & 0o022, oct(p.stat().st_mode)
