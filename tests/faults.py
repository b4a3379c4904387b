"""Fault injection: rtbench as a separate process, signalled at chosen
moments, run as a normal user, fed hostile paths and files; and the checks
of what it must leave behind: nothing.

Everything a test starts carries a mark in its environment (inherited by
the harness, its janitors, standard programs and rtbench's guard), so any
process of it still alive is found by scanning /proc, whatever its parent
or session. Temporary files go to a private TMPDIR. System V IPC objects,
/dev/shm and /dev/mqueue are compared with a snapshot taken before.

The moments are events (a record committed, a temporary directory or a
semaphore set made, a program started, the run's end stored), never a
sleep; the deadlines below only keep a broken test from hanging.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
MARK = "RTBENCH_FAULT_MARK"
GIVE_UP_S = 120.0  # only guards against a hung test, never judges speed


def wait_for(what: str, check, give_up: float = GIVE_UP_S, proc=None):
    """Poll `check()` until it returns something true; that value."""
    deadline = time.monotonic() + give_up
    while True:
        value = check()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"rtbench exited ({proc.returncode}) before {what}")
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.02)


# ---- what may be left behind ---------------------------------------------------

def marked_processes(token: str) -> list[str]:
    """Live processes whose environment carries MARK=token ("pid cmdline")."""
    needle = f"{MARK}={token}".encode()
    found = []
    for env in Path("/proc").glob("[0-9]*/environ"):
        try:
            if needle in env.read_bytes().split(b"\0"):
                cmd = (env.parent / "cmdline").read_bytes().replace(b"\0", b" ")
                found.append(f"{env.parent.name} {cmd.decode(errors='replace')[:100]}")
        except OSError:
            continue
    return found


def ipc_objects() -> set[str]:
    """System V semaphore sets, shared-memory segments and message queues
    (/proc/sysvipc, readable by everybody), /dev/shm and /dev/mqueue."""
    found = set()
    for kind in ("sem", "shm", "msg"):
        try:
            rows = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        except OSError:
            continue
        found |= {f"sysv-{kind}:{r.split()[1]}" for r in rows if r.split()}
    found |= {f"shm:{p.name}" for p in Path("/dev/shm").iterdir()}
    mq = Path("/dev/mqueue")
    if os.path.ismount(mq):
        found |= {f"mq:{p.name}" for p in mq.iterdir()}
    return found


@dataclass
class Leftovers:
    """Snapshot at creation; `check()` fails naming whatever is new."""

    tmpdir: Path
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    before: set[str] = field(default_factory=ipc_objects)

    def env(self) -> dict[str, str]:
        return {MARK: self.token, "TMPDIR": str(self.tmpdir)}

    def new(self) -> list[str]:
        left = [f"process {p}" for p in marked_processes(self.token)]
        left += [f"temporary {p.name}" for p in self.tmpdir.iterdir()]
        return left + sorted(ipc_objects() - self.before)

    def check(self, give_up: float = 30.0) -> None:
        """Nothing new, once the processes that clean up have done so."""
        deadline = time.monotonic() + give_up
        while (left := self.new()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not left, f"left behind: {left}"


# ---- rtbench as a process --------------------------------------------------------

@dataclass
class Rtbench:
    """One `rtbench ...` process, its output in files."""

    proc: subprocess.Popen
    out: Path
    err: Path

    def signal(self, sig: int) -> None:
        self.proc.send_signal(sig)

    def finish(self, timeout: float = GIVE_UP_S) -> tuple[int, str, str]:
        try:
            rc = self.proc.wait(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        return rc, self.out.read_text(errors="replace"), self.err.read_text(errors="replace")


def spawn(args: list[str], cwd: Path, env: dict[str, str], user: "User | None" = None,
          stdout=None) -> Rtbench:
    """Start `rtbench ARGS` (as `user` when given) with `env` added."""
    n = len(list(cwd.glob(".rtbench-out-*")))
    out, err = cwd / f".rtbench-out-{n}", cwd / f".rtbench-err-{n}"
    full_env = {**os.environ, "PYTHONPATH": str(SRC), "COLUMNS": "200", **env}
    argv = [sys.executable, "-m", "rtbench", *args]
    # A shell may start background jobs with SIGINT ignored; rtbench must see it.
    kwargs: dict = {"preexec_fn": _default_sigint}
    if user is not None:
        full_env.update(user.env())
        argv = user.prefix + argv
        kwargs = user.popen_kwargs()
    with open(out, "w") as fo, open(err, "w") as fe:
        proc = subprocess.Popen(argv, cwd=cwd, env=full_env, stdin=subprocess.DEVNULL,
                                stdout=stdout if stdout is not None else fo, stderr=fe,
                                **kwargs)
    return Rtbench(proc, out, err)


def stored(db: Path, sql: str = "SELECT COUNT(*) FROM metrics WHERE record IS NOT NULL"):
    """One value from the database, 0 while it (or its schema) does not exist."""
    if not db.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            row = conn.execute(sql).fetchone()
            return row[0] if row else 0
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return 0


def intact(db: Path) -> list[tuple]:
    """PRAGMA integrity_check is ok and every stored record is whole JSON;
    the runs as (id, status)."""
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        for (record,) in conn.execute("SELECT record FROM metrics WHERE record IS NOT NULL"):
            json.loads(record)
        return conn.execute("SELECT id, status FROM runs ORDER BY id").fetchall()
    finally:
        conn.close()


def one_line_error(err: str) -> str:
    """The one `rtbench: error: ...` line rtbench printed on stderr."""
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("rtbench: error: "), err
    return lines[0]


# ---- a normal user -----------------------------------------------------------------

MEMLOCK_NORMAL = 8 << 20  # the locked-memory limit a normal user gets (Debian: 8 MiB)


@dataclass
class User:
    """How to run a command without privileges on this machine.

    A real unprivileged account (`rtbtest`, created when we are root) when
    it can run this checkout's Python; otherwise, as root, uid 0 with every
    capability dropped (`setpriv --bounding-set=-all`), which meets the same
    kernel checks a normal user does: no SCHED_FIFO (no CAP_SYS_NICE,
    RLIMIT_RTPRIO 0), memory locking limited by RLIMIT_MEMLOCK (no
    CAP_IPC_LOCK), file permissions enforced (no CAP_DAC_OVERRIDE). Not
    root: this user itself, if it really may not use SCHED_FIFO. Either
    way RLIMIT_MEMLOCK is 8 MiB and RLIMIT_RTPRIO 0, as on a default system.
    """

    how: str
    home: Path  # a directory the user owns (or, uid 0, may write)
    prefix: list[str] = field(default_factory=list)
    uid: int | None = None
    gid: int | None = None

    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home), "XDG_DATA_HOME": str(self.home / "data"),
                "XDG_CACHE_HOME": str(self.home / "cache")}

    def popen_kwargs(self) -> dict:
        kw: dict = {"preexec_fn": _normal_limits}
        if self.uid is not None:
            kw.update(user=self.uid, group=self.gid, extra_groups=[])
        return kw

    def chown(self, path: Path) -> None:
        if self.uid is not None:
            os.chown(path, self.uid, self.gid)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _normal_limits() -> None:
    import resource

    _default_sigint()
    resource.setrlimit(resource.RLIMIT_MEMLOCK, (MEMLOCK_NORMAL, MEMLOCK_NORMAL))
    resource.setrlimit(resource.RLIMIT_RTPRIO, (0, 0))


_PROBE = ("import os, rtbench\n"
          "try:\n    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))\n"
          "except PermissionError:\n    print('normal')\n")


def _works(user: User) -> bool:
    """The user can run rtbench's Python and may not use SCHED_FIFO."""
    try:
        out = subprocess.run(user.prefix + [sys.executable, "-c", _PROBE], cwd=user.home,
                             env={**os.environ, "PYTHONPATH": str(SRC), **user.env()},
                             capture_output=True, text=True, timeout=60,
                             **user.popen_kwargs())
    except (OSError, subprocess.SubprocessError):
        return False
    return out.stdout.strip() == "normal"


def find_normal_user(base: Path) -> User | None:
    """A way to run as a normal user here (see User), or None."""
    home = base / "home"
    home.mkdir()
    if os.geteuid() != 0:
        user = User("this user (not root)", home)
        return user if _works(user) else None
    import pwd

    try:
        pw = pwd.getpwnam("rtbtest")
    except KeyError:
        subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin",
                        "rtbtest"], capture_output=True, check=False)
        try:
            pw = pwd.getpwnam("rtbtest")
        except KeyError:
            pw = None
    if pw is not None:
        user = User("user rtbtest", home, uid=pw.pw_uid, gid=pw.pw_gid)
        os.chown(home, pw.pw_uid, pw.pw_gid)
        if _works(user):
            return user
        os.chown(home, 0, 0)
    if shutil.which("setpriv"):
        user = User("uid 0 without capabilities (the checkout is not readable by rtbtest)",
                    home, prefix=["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--"])
        if _works(user):
            return user
    return None


def private_dir() -> Path:
    """A directory every user may enter (pytest's tmp_path is root's alone)."""
    path = Path(tempfile.mkdtemp(prefix="rtbfault-", dir="/tmp"))
    path.chmod(0o755)
    return path


SIGNALS = {"SIGINT": (signal.SIGINT, 130), "SIGTERM": (signal.SIGTERM, 143),
           "SIGHUP": (signal.SIGHUP, 129)}


def log_copy(log: Path, folder: Path, i: int) -> Path:
    """`log` with i blank lines added: another capture of the same figures,
    which `rtbench import` stores as another run (the same bytes twice it
    refuses: the run's uuid comes from their sha256)."""
    out = folder / f"copy{i}-{log.name}"
    out.write_bytes(log.read_bytes() + b"\n" * i)
    return out
