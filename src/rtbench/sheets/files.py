"""Writing an output file (`-o FILE`, a run's sheets and results.json, a
farm's comparison, a board image and its FLASH.md): readers see the old file or the new one, never half
of one, and nothing but a regular file is ever written.

* A path that exists and is not a regular file (a device such as
  /dev/null or /dev/full, a FIFO, a socket, a directory, a symbolic link,
  /dev/stdout included) is refused with one line (OutputError, exit 2) and
  left as it is: as root, a rename over /dev/null would replace the device
  node with a file holding the report.
* The text goes to a temporary file beside the target made exclusively
  (tempfile.mkstemp: O_CREAT|O_EXCL, an unpredictable name, mode 0600),
  then renamed over it. In a directory other users may write (/tmp), none
  of them can have planted a symbolic link under its name, and the rename
  replaces a name, never a file a link points to. The file gets the mode a
  plain open() would give it (an existing file keeps its own).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from rtbench.errors import RtbenchError

_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))


class OutputError(RtbenchError):
    """An output path rtbench does not write (not a regular file)."""


def check_output(path: Path) -> os.stat_result | None:
    """The existing regular file at `path` (its lstat), None if there is
    none; OutputError for anything else there."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISREG(st.st_mode):
        return st
    kind = next((words for test, words in _KINDS if test(st.st_mode)), "not a regular file")
    raise OutputError(f"{path} is {kind}: rtbench writes only regular files "
                      "(leave -o out to write to stdout)")


def atomic_write(path: Path, text: str | bytes) -> None:
    """Write `text` (bytes as they are: an image) to the regular file `path`
    (see the module's words)."""
    path = Path(path)
    old = check_output(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with (os.fdopen(fd, "wb") if isinstance(text, bytes)
              else os.fdopen(fd, "w", encoding="utf-8")) as fh:
            fh.write(text)
            fh.flush()
            os.fchmod(fh.fileno(), stat.S_IMODE(old.st_mode) if old else 0o666 & ~_umask())
            os.fsync(fh.fileno())
        check_output(path)  # still no device, FIFO or link put there meanwhile
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    try:  # Linux 4.7+: read it, never set it (other threads may create files)
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
