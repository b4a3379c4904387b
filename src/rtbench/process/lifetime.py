"""Child process lifetime: nothing rtbench starts may outlive it, and a
signal ends a run the way Ctrl-C does.

Children. Every process rtbench starts (the harness, standard programs,
rt-tests peers, the load) runs in its own session: a terminal's Ctrl-C or
hang-up reaches rtbench alone, which then stops its children in order
(`end`). Each child's process group, and each scratch directory, is also
registered with the *guard*: a small process in a session of its own that
holds the read end of a pipe only rtbench writes to. When rtbench dies,
however it dies (SIGKILL included), the pipe closes; the guard then sends
SIGTERM to every group still registered (rt-tests and stress-ng remove
their IPC objects on SIGTERM), SIGKILL after `GRACE` seconds, removes the
scratch directories still registered, and exits. A child also carries the
guard's token in its environment ($RTBENCH_GUARD, inherited by everything
it starts), and the guard ends every process that carries it too: one
rtbench died between starting a child and registering its group (a
SIGKILL in that instant), or a grandchild that left its group, is found
that way. A child that ends
normally is unregistered, so the guard never signals a group that is
gone. (The guard starts with the first child of a `guarded()` block and
is closed at its end.)

Signals. Inside `signals_as_interrupts()` SIGINT, SIGTERM and SIGHUP raise
`Interrupted` (a KeyboardInterrupt) in the main thread, so every path that
handles Ctrl-C handles them too; `exit_code()` is 128 + the signal number
(130, 143, 129). A signal the caller ignored (nohup, a background job)
stays ignored. Inside `interrupts_deferred()` (finishing a run: its status
and its sheet) a signal is noted and does not interrupt.

Output. `ConsoleOut` wraps stdout for the run's console: when the reader
goes away (`rtbench run | head -3`), the run stops as if SIGPIPE had come
(exit 141) and everything after is written to /dev/null.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Iterator

GRACE = 2.0  # seconds between the guard's SIGTERM and its SIGKILL
INTERRUPTING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


# ---- signals -----------------------------------------------------------------

class Interrupted(KeyboardInterrupt):
    """SIGINT, SIGTERM, SIGHUP (or a closed stdout, SIGPIPE) during a run."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


_received: int | None = None  # the first interrupting signal of this command
_deferring = 0
_pending: int | None = None  # a signal that arrived while deferred


def _interrupt(signum: int) -> None:
    global _received, _pending
    if _received is None:
        _received = signum
    if _deferring:
        _pending = _pending or signum
        return
    raise Interrupted(signum)


def _on_signal(signum: int, _frame: Any) -> None:
    _interrupt(signum)


def received() -> int | None:
    """The first interrupting signal since `signals_as_interrupts()` began."""
    return _received


def exit_code() -> int:
    """128 + the signal that interrupted (SIGINT when none was noted: a
    KeyboardInterrupt raised some other way)."""
    return 128 + (_received or signal.SIGINT)


def signal_name() -> str:
    return signal.Signals(_received or signal.SIGINT).name


@contextlib.contextmanager
def signals_as_interrupts() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP raise Interrupted while the block runs
    (main thread only; the previous handlers come back afterwards)."""
    global _received
    _received = None
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {s: signal.getsignal(s) for s in INTERRUPTING}
    for s, handler in old.items():
        if handler is not signal.SIG_IGN:  # nohup, background jobs: stay ignored
            signal.signal(s, _on_signal)
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)


@contextlib.contextmanager
def interrupts_deferred(raise_after: bool = False) -> Iterator[None]:
    """Signals arriving inside the block are noted (exit_code() reports
    them) but do not interrupt it: a child is ended and reaped, a run's end
    stored and its sheet written whole, however many times Ctrl-C is
    pressed. With raise_after, a signal that arrived is raised as
    Interrupted when the (outermost) block ends without an exception."""
    global _deferring, _pending
    _deferring += 1
    ok = False
    try:
        yield
        ok = True
    finally:
        _deferring -= 1
        pending = _pending
        if not _deferring:
            _pending = None
        if ok and raise_after and pending and not _deferring:
            raise Interrupted(pending)


# ---- the run's console ---------------------------------------------------------

class ConsoleOut:
    """A text stream for rich's Console over stdout. A reader that went away
    (EPIPE) interrupts the run like SIGPIPE, once; a terminal that hung up
    (EIO, SIGHUP follows) is not written to again."""

    def __init__(self, stream=None):
        self._stream = stream or sys.stdout
        self.lost = False

    def write(self, text: str) -> int:
        if not self.lost:
            try:
                self._stream.write(text)
                self._stream.flush()  # a closed pipe shows here, not at exit
            except OSError as exc:
                self._lose(exc)
        return len(text)

    def flush(self) -> None:
        if not self.lost:
            try:
                self._stream.flush()
            except OSError as exc:
                self._lose(exc)

    def _lose(self, exc: OSError) -> None:
        self.lost = True
        _silence(self._stream)
        if exc.errno == errno.EPIPE:
            _interrupt(signal.SIGPIPE)

    def isatty(self) -> bool:
        try:
            return self._stream.isatty()
        except (OSError, ValueError):
            return False

    def __getattr__(self, name: str) -> Any:  # encoding, fileno, ...
        return getattr(self._stream, name)


def _silence(stream) -> None:
    """Point the stream's descriptor at /dev/null so that nothing written
    later (or flushed at exit) fails again."""
    try:
        fd = stream.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


def output_closed(exc: BaseException) -> bool:
    """A write to stdout failed because its reader went away."""
    if isinstance(exc, OSError) and exc.errno == errno.EPIPE:
        _silence(sys.stdout)
        return True
    return False


# ---- the guard ---------------------------------------------------------------

# Runs with `python -I -S`: the standard library only. Lines on stdin:
# "+g PGID" / "-g PGID" (watch / forget a process group), "+d PATH" / "-d
# PATH" (a directory to remove), "+c JSON" / "-c JSON" (a command to run
# last, JSON [argv, env]: giving back what no signal can, a lab's place).
# End of file: rtbench has gone. argv: the grace in seconds, the token its
# children carry in $RTBENCH_GUARD.
GUARD_ENV = "RTBENCH_GUARD"
_GUARD = r"""
import json, os, shutil, signal, subprocess, sys, time
token = ("RTBENCH_GUARD=" + sys.argv[2]).encode()
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
    signal.signal(s, signal.SIG_IGN)
groups, dirs, commands = set(), set(), {}
for line in sys.stdin.buffer:
    op, _, arg = line.rstrip(b"\n").decode("utf-8", "surrogateescape").partition(" ")
    if op[1:] == "c":
        if op[0] == "+":
            commands[arg] = None
        else:
            commands.pop(arg, None)
        continue
    target = groups if op[1:] == "g" else dirs
    value = int(arg) if target is groups else arg
    (target.add if op[0] == "+" else target.discard)(value)
def alive(g):
    try:
        os.killpg(g, 0)
        return True
    except OSError:
        return False
def tagged():
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                with open("/proc/" + pid + "/environ", "rb") as f:
                    if token in f.read().split(b"\0"):
                        found.append(int(pid))
            except OSError:
                pass
    return found
def signal_all(sig):
    for g in groups:
        try:
            os.killpg(g, sig)
        except OSError:
            pass
    for p in tagged():
        try:
            os.kill(p, sig)
        except OSError:
            pass
signal_all(signal.SIGTERM)
deadline = time.monotonic() + float(sys.argv[1])
while (any(alive(g) for g in groups) or tagged()) and time.monotonic() < deadline:
    time.sleep(0.05)
signal_all(signal.SIGKILL)
for d in dirs:
    shutil.rmtree(d, ignore_errors=True)
for c in commands:
    argv, env = json.loads(c)
    try:
        subprocess.run(argv, env={**os.environ, **env}, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    except (OSError, subprocess.SubprocessError):
        pass
"""


class _Guard:
    def __init__(self) -> None:
        self.token = os.urandom(16).hex()
        # not itself tagged with an outer rtbench's token (a kernel set's child): the
        # outer guard must not cut this one's clean-up short
        env = {k: v for k, v in os.environ.items() if k != GUARD_ENV}
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _GUARD, str(GRACE), self.token],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, env=env)
        self.lock = threading.Lock()

    def tell(self, line: str) -> None:
        with self.lock:
            try:
                self.proc.stdin.write((line + "\n").encode("utf-8", "surrogateescape"))
                self.proc.stdin.flush()
            except (OSError, ValueError):
                pass  # the guard is gone: children are still ended by `end`

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        self.proc.wait()


_guard: _Guard | None = None
_guarding = 0


@contextlib.contextmanager
def guarded() -> Iterator[None]:
    """Children started inside the block are watched by a guard process
    (started with the first of them, closed at the end of the block)."""
    global _guard, _guarding
    _guarding += 1
    try:
        yield
    finally:
        _guarding -= 1
        if not _guarding and _guard is not None:
            guard, _guard = _guard, None
            guard.close()


def _tell(line: str) -> None:
    guard = _current_guard()
    if guard is not None:
        guard.tell(line)


def _current_guard() -> "_Guard | None":
    global _guard
    if not _guarding:
        return None
    if _guard is None:
        _guard = _Guard()
    return _guard


def popen(argv: list[str], **kwargs: Any) -> subprocess.Popen:
    """Start argv in a session of its own, watched by the guard (its group
    registered, its environment tagged with the guard's token)."""
    guard = _current_guard()
    if guard is not None:
        env = dict(os.environ if kwargs.get("env") is None else kwargs["env"])
        env[GUARD_ENV] = guard.token
        kwargs["env"] = env
    proc = subprocess.Popen(argv, start_new_session=True, **kwargs)
    if guard is not None:
        guard.tell(f"+g {proc.pid}")
    return proc


def forget(proc: subprocess.Popen) -> None:
    """proc (started by `popen`) has been reaped by whoever waited for it:
    the guard stops watching its group."""
    _tell(f"-g {proc.pid}")


def track_dir(path: Path) -> None:
    """A directory made outside `scratch_dir` that the guard removes if
    rtbench dies before it does (`untrack_dir` once it is gone)."""
    _tell(f"+d {path}")


def untrack_dir(path: Path) -> None:
    _tell(f"-d {path}")


def at_death(argv: list[str], env: dict[str, str] | None = None) -> str:
    """Have the guard run `argv` if rtbench dies (SIGKILL included) before
    `cancel(token)`: what a process that died cannot give back itself (a
    lab's place it acquired). The token to cancel it with."""
    token = json.dumps([argv, env or {}])
    _tell(f"+c {token}")
    return token


def cancel(token: str) -> None:
    _tell(f"-c {token}")


def end(proc: subprocess.Popen, grace: float = 0.0) -> int:
    """End proc and everything in its process group: SIGTERM and up to
    `grace` seconds to exit first when grace > 0, then SIGKILL to the
    group; reap proc, unregister it, return its exit status. An interrupt
    meanwhile waits until that is done."""
    with interrupts_deferred(raise_after=True):
        if grace > 0 and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=grace)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        rc = proc.wait()
        _tell(f"-g {proc.pid}")
    return rc


@contextlib.contextmanager
def scratch_dir(prefix: str) -> Iterator[Path]:
    """A temporary directory, removed at the end of the block, or by the
    guard if rtbench dies inside it."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    _tell(f"+d {path}")
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
        _tell(f"-d {path}")
