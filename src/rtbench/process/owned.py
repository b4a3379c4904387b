"""Whose a directory rtbench executes or builds from is: the one check of
every build cache (the harness's `harness-<hash>`, the board images'
`image-*`, the peers' and Zephyr's build folders, the cycle model's
plugin) and of the lock files beside them.

A cache's names are predictable (a hash of public sources), so another
user who may create or rename them could plant an executable, a CMake
cache or a shared object that rtbench (root, perhaps) then runs or loads.
Before anything in one is used or built, it and every directory above it
must be:

* owned by this user (the cache itself, its build folders and locks) or,
  for the directories above it, by this user or root;
* writable by nobody else, unless it is a directory with the sticky bit
  (/tmp), where others can neither rename nor delete what is ours.

Anything else is refused with one line (exit 2): the user sets
XDG_CACHE_HOME to a folder of their own, or fixes the mode.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from rtbench.errors import RtbenchError


class NotOwnedError(RtbenchError):
    """A cache rtbench would execute or build from is another user's, or
    writable by others."""


def _problem(st: os.stat_result, owners: tuple[int, ...], sticky_ok: bool) -> str:
    if st.st_uid not in owners:
        return f"belongs to another user (uid {st.st_uid})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not (
            sticky_ok and stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX):
        return "is writable by other users"
    return ""


def _refuse(path: Path, why: str, what: str) -> NotOwnedError:
    return NotOwnedError(f"{path} {why}: rtbench does not build or run its {what} from there "
                         "(set XDG_CACHE_HOME to a folder of yours, or chmod go-w it)")


def check_dir(path: Path, what: str) -> None:
    """`path` (a cache or a build folder in one, which may not exist yet)
    and every directory above it: see the module's words. NotOwnedError
    (one line) for the first that is not."""
    me = os.geteuid()
    real = Path(os.path.realpath(path))
    chain = [real, *real.parents]
    for n, p in enumerate(chain):
        try:
            st = os.stat(p)
        except FileNotFoundError:
            continue  # not made yet: it will be ours
        except OSError as exc:
            raise NotOwnedError(f"cannot check {p}: {exc.strerror or exc}") from exc
        # the folder itself must be ours; above it, root's will do
        why = _problem(st, (me,) if n == 0 else (me, 0), sticky_ok=n > 0)
        if why:
            raise _refuse(p, why, what)


def make_dir(path: Path, what: str) -> None:
    """Create `path` (and parents) for this user alone where missing, then
    check_dir it. Each folder is made with its mode given (the parents 0700,
    as the XDG spec asks of ~/.cache), never the umask's alone: a umask of
    002 would make them group-writable, and then refused."""
    missing = [p for p in (path, *path.parents) if not os.path.lexists(p)]
    try:
        for p in reversed(missing):
            try:
                p.mkdir(mode=0o755 if p == path else 0o700)
            except FileExistsError:
                pass  # made meanwhile (another rtbench): checked below like any other
    except OSError as exc:
        raise NotOwnedError(f"cannot use the build cache {path}: {exc.strerror or exc}") from exc
    check_dir(path, what)


def open_lock(path: Path, what: str):
    """The lock file `path`, opened for writing without following a link and
    without truncating; it must be this user's and writable by no one else
    (a file another user planted there is refused, never written)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
                     | os.O_NONBLOCK, 0o644)  # a FIFO there: ENXIO, never a hang
    except OSError as exc:
        raise NotOwnedError(f"cannot use the lock {path}: {exc.strerror or exc}") from exc
    st = os.fstat(fd)
    why = _problem(st, (os.geteuid(),), sticky_ok=False) or (
        "" if stat.S_ISREG(st.st_mode) else "is not a regular file")
    if why:
        os.close(fd)
        raise _refuse(path, why, what)
    return os.fdopen(fd, "w")
