"""Machine-wide locks held by a live rtbench process: one per benchmark CPU,
and one per run being measured.

Each lock is a name in Linux's abstract AF_UNIX socket namespace
(`\\0rtbench-cpu-1`, `\\0rtbench-run-<uuid>`), bound by the process that
holds it. Only one socket can bind a name, any user can see that it is
taken, the kernel frees it the moment its process dies (SIGKILL included),
and nothing is left in the file system. The namespace is per network
namespace: runs in different containers do not see each other's locks.

* `benchmark_cpu(cpu, say)`: two `rtbench run`s must not measure on one CPU
  at once. The second waits until the first is done, saying so once; Ctrl-C
  while waiting is an ordinary interrupt (nothing is stored yet).
* `run_alive(uuid)` / `hold_run(uuid)`: a run whose row says `running` is
  really running while its process holds its name; otherwise it was killed
  and reads as `incomplete`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import struct
import time
from typing import Callable, Iterator

POLL_S = 0.25  # how often a waiting run tries the CPU lock again


def _name(kind: str, key: object) -> bytes:
    return f"\0rtbench-{kind}-{key}".encode()


def _try_bind(name: bytes) -> socket.socket | None:
    """The bound, listening socket, or None if another process holds the name."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    try:
        sock.bind(name)
        sock.listen(1)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            return None
        raise
    return sock


def holder(name: bytes) -> int | None:
    """The pid of the process that holds `name`, if the kernel says (it
    accepts no connection, but the peer credentials come with the connect)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_NONBLOCK)
    try:
        sock.connect(name)
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        pid = struct.unpack("3i", creds)[0]
        return pid or None
    except OSError:
        return None
    finally:
        sock.close()


@contextlib.contextmanager
def benchmark_cpu(cpu: int, say: Callable[[str], None]) -> Iterator[None]:
    """Hold CPU `cpu` for the block, waiting while another run holds it."""
    name = _name("cpu", cpu)
    sock = _try_bind(name)
    if sock is None:
        pid = holder(name)
        say(f"CPU {cpu} is in use by another rtbench run"
            + (f" (pid {pid})" if pid and pid != os.getpid() else "")
            + "; waiting for it to finish (Ctrl-C to give up, --cpu N for another CPU)")
        while sock is None:
            time.sleep(POLL_S)
            sock = _try_bind(name)
        say(f"CPU {cpu} is free: measuring")
    try:
        yield
    finally:
        sock.close()


@contextlib.contextmanager
def hold_run(uuid: str) -> Iterator[None]:
    """Mark run `uuid` as being measured by this process for the block."""
    sock = _try_bind(_name("run", uuid))
    try:
        yield
    finally:
        if sock is not None:
            sock.close()


def run_alive(uuid: str) -> bool:
    """Whether a process on this machine is measuring run `uuid` now."""
    try:
        sock = _try_bind(_name("run", uuid))
    except OSError:
        return False
    if sock is None:
        return True
    sock.close()
    return False
