"""The System section's OS-latency metrics against the real harness
(harness/ports/posix/system/sys_call.c, sys_proc.c, sys_ipc.c).

A harness killed in the middle of one of them leaves nothing behind: no
temporary directory or file (a janitor process removes them), no process,
no System V semaphore set. No assertion depends on how fast this machine is.
"""

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from procs import children

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("cc") is None,
                                reason="cmake and a C compiler are needed for the real harness")


@pytest.fixture
def real(real_exe):
    return real_exe


def _sem_sets() -> set[int]:
    """Ids of the private two-semaphore sets (the lat_sem metric's kind)."""
    table = Path("/proc/sysvipc/sem")
    if not table.exists():
        return set()
    found = set()
    for line in table.read_text().splitlines()[1:]:
        key, semid, _perms, nsems = line.split()[:4]
        if int(key) == 0 and int(nsems) == 2:
            found.add(int(semid))
    return found


def _wait_until(cond, seconds=10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not cond():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _run_until(real, tmp: Path, metric: str, ready):
    """Start the harness on `metric` (long), wait until it is running and
    `ready()` holds, and return the process (still running)."""
    env = dict(os.environ, TMPDIR=str(tmp))
    proc = subprocess.Popen([str(real), "--only", metric, "--samples", "10000000",
                             "--budget-ms", "60000"], stdout=subprocess.PIPE, text=True, env=env)
    for line in proc.stdout:
        if '"begin"' in line and metric in line:
            break
    assert _wait_until(ready), f"{metric} never reached the state the test waits for"
    return proc


def _kill(proc) -> set[int]:
    kids = children(proc.pid)
    proc.kill()
    proc.wait()
    return kids


@pytest.mark.parametrize("metric", ["sys.syscall.stat", "sys.mm.pagefault", "sys.mm.mmap_1m"])
def test_a_killed_harness_leaves_no_temporary_file(real, tmp_path, metric):
    tmp_path = tmp_path / "tmp"
    tmp_path.mkdir()
    made = lambda: any(tmp_path.glob("rtbench-sys-*"))  # noqa: E731
    proc = _run_until(real, tmp_path, metric, made)
    try:
        time.sleep(0.1)  # inside the sampling loop
    finally:
        kids = _kill(proc)
    assert kids, "the janitor should be a child of the harness"
    assert _wait_until(lambda: not any(tmp_path.iterdir())), \
        f"left behind: {sorted(p.name for p in tmp_path.rglob('*'))}"
    assert _wait_until(lambda: not any(Path(f"/proc/{k}").exists() for k in kids))


def test_a_killed_harness_leaves_no_semaphore_set(real, tmp_path):
    before = _sem_sets()
    proc = _run_until(real, tmp_path, "sys.ipc.sysvsem.handoff", lambda: bool(_sem_sets() - before))
    try:
        ours = _sem_sets() - before
        time.sleep(0.1)
    finally:
        kids = _kill(proc)
    assert _wait_until(lambda: not any(Path(f"/proc/{k}").exists() for k in kids)), "the peer outlived the harness"
    assert _wait_until(lambda: not (ours & _sem_sets())), "the semaphore set outlived the harness"


def test_metrics_end_cleanly(real, tmp_path):
    """A short run of the file, process and IPC metrics: all ok, nothing left."""
    tmp_path = tmp_path / "tmp"
    tmp_path.mkdir()
    ids = ("sys.syscall.open_close,sys.signal.catch,sys.signal.prot_fault,sys.proc.fork_exit,"
           "sys.mm.mmap_1m,sys.fs.create.1k,sys.ipc.pipe.rtt,sys.ipc.udp.rtt,sys.ipc.sysvsem.handoff")
    before = _sem_sets()
    out = subprocess.run([str(real), "--only", ids, "--samples", "200", "--warmup", "10"],
                         capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, TMPDIR=str(tmp_path)), check=True).stdout
    records = {r["id"]: r for r in map(json.loads, out.splitlines()) if r.get("type") == "metric"}
    assert sorted(records) == sorted(ids.split(","))
    for rec in records.values():
        assert rec["status"] == "ok", (rec["id"], rec["reason"])
        assert rec["n"] > 0
    assert records["sys.ipc.sysvsem.handoff"]["ops"] == 2
    assert not any(tmp_path.iterdir())
    assert not (_sem_sets() - before)
