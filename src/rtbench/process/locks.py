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
  while waiting is an ordinary interrupt (nothing is stored yet). Any user
  may bind any abstract name, so the holder's credentials are checked
  (SO_PEERCRED): a process of this user or root, or an `rtbench run` of
  another user, is waited for; anything else (a squatter) is named and not
  waited for.
* `run_alive(uuid)` / `hold_run(uuid)`: a run whose row says `running` is
  really running while its process holds its name; otherwise it was killed
  and reads as `incomplete`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import socket
import struct
import time
from typing import Callable, Iterator

POLL_S = 0.25  # how often a waiting run tries the CPU lock again
SQUAT_POLLS = 5  # looks at a holder that is no run before it is taken for a squatter


# A word in every lock's name: runs of different scopes do not exclude each
# other. rtbench's tests give each test that runs the fake harness (which
# measures nothing) a scope of its own, so two tests on two workers do not
# wait for each other's CPU; unset, as for every real run: the machine's locks.
SCOPE_ENV = "RTBENCH_LOCK_SCOPE"


def _name(kind: str, key: object) -> bytes:
    scope = os.environ.get(SCOPE_ENV, "")
    return f"\0rtbench-{kind}-{f'{scope}-' if scope else ''}{key}".encode()


def _try_bind(name: bytes) -> socket.socket | None:
    """The bound, listening socket, or None if another process holds the name."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    try:
        sock.bind(name)
        sock.listen(64)  # room for every waiter's one probe (benchmark_cpu)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            return None
        raise
    return sock


def holder(name: bytes) -> int | None:
    """The pid of the process that holds `name`, if the kernel says (it
    accepts no connection, but the peer credentials come with the connect)."""
    probe, creds = _probe(name)
    if probe is not None:
        probe.close()
    return creds[0] if creds else None


def _probe(name: bytes) -> tuple[socket.socket | None, tuple[int, int] | None]:
    """A connection to the process listening on `name` and its (pid, uid);
    (None, None) when nothing listens there (a name bound by a socket that
    does not listen, or whose queue is full). The holder never accepts: the
    connection waits in its queue until it is closed or the holder lets go
    of the name, which hangs it up (`_hung_up`). A waiter keeps one probe
    per holder, so waiting never fills the holder's queue."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_NONBLOCK
                         | socket.SOCK_CLOEXEC)
    try:
        sock.connect(name)
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except OSError:
        sock.close()
        return None, None
    pid, uid, _gid = struct.unpack("3i", creds)
    if not pid:
        sock.close()
        return None, None
    return sock, (pid, uid)


def _hung_up(probe: socket.socket, timeout: float) -> bool:
    """Whether the holder `probe` is connected to has let go of its name,
    waiting up to `timeout` seconds for it."""
    poller = select.poll()
    poller.register(probe, select.POLLIN | select.POLLHUP | select.POLLERR)
    return bool(poller.poll(int(timeout * 1000)))


def is_a_run(creds: tuple[int, int] | None) -> bool:
    """Whether the holder of a CPU's name is a lock to wait for: a process
    of this user or of root, or, of another user, an `rtbench run` (its
    command line says so). A name held by anything else (bound and not
    listening, or by some other program of another user) is a squatter:
    any user may bind any abstract name, and a run must not wait for ever."""
    if creds is None:
        return False
    pid, uid = creds
    if uid in (0, os.geteuid()):
        return True
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            argv = fh.read(1 << 16).split(b"\0")
    except OSError:
        return False
    rtbench = any(a == b"rtbench" or a.endswith(b"/rtbench") for a in argv) or \
        any(argv[i:i + 2] == [b"-m", b"rtbench"] for i in range(len(argv)))
    return rtbench and b"run" in argv


def _who(creds: tuple[int, int] | None) -> str:
    if creds is None:
        return "a socket that does not listen (no process to name)"
    import pwd

    pid, uid = creds
    try:
        user = pwd.getpwuid(uid).pw_name
    except KeyError:
        user = str(uid)
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            cmd = fh.read(200).replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        cmd = "?"
    cmd = "".join(c if c.isprintable() else "?" for c in cmd)
    return f"pid {pid} of user {user} ({cmd[:80]})"


@contextlib.contextmanager
def benchmark_cpu(cpu: int, say: Callable[[str], None]) -> Iterator[None]:
    """Hold CPU `cpu` for the block, waiting while another run holds it
    (`is_a_run`); a squatter is named, and not waited for."""
    name = _name("cpu", cpu)
    waited, strange = False, 0
    probe: socket.socket | None = None  # connected to the holder waited for
    try:
        while (sock := _try_bind(name)) is None:
            if probe is not None:
                if not _hung_up(probe, POLL_S):
                    continue  # the same holder, still there
                probe.close()
                probe = None
            probe, creds = _probe(name)
            # a holder that is no run, SQUAT_POLLS times in a row (not a run
            # leaving while another takes the name): a squatter
            strange = 0 if is_a_run(creds) else strange + 1
            if strange >= SQUAT_POLLS:
                say(f"CPU {cpu}'s lock is held by {_who(creds)}, not by an rtbench run: not "
                    "waited for; measuring (the sheet warns of any harness seen on that CPU)")
                break
            if strange:
                if probe is not None:
                    probe.close()
                    probe = None
                time.sleep(POLL_S / 5)
                continue
            if not waited:
                pid = creds[0]
                say(f"CPU {cpu} is in use by another rtbench run"
                    + (f" (pid {pid})" if pid and pid != os.getpid() else "")
                    + "; waiting for it to finish (Ctrl-C to give up, --cpu N for another CPU)")
                waited = True
    finally:
        if probe is not None:
            probe.close()
    if waited and sock is not None:
        say(f"CPU {cpu} is free: measuring")
    try:
        yield
    finally:
        if sock is not None:
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
