"""The output directory: checked and created before any measuring, removed
again if the run is abandoned before it starts (nothing half-written)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from rtbench.errors import RtbenchError

DEFAULT_PARENT = Path("rtbench-results")


class CreatedDirs:
    """Directories this process created, so a failed start can remove them."""

    def __init__(self) -> None:
        self.dirs: list[Path] = []

    def make(self, path: Path, what: str) -> None:
        """Create `path` (and missing parents) and check a file can be written.
        A directory another process creates at the same moment is fine (it
        is then not ours to remove)."""
        missing = []
        p = path
        while not os.path.lexists(p) and p != p.parent:
            missing.append(p)
            p = p.parent
        try:
            for d in reversed(missing):
                try:
                    d.mkdir()
                except FileExistsError:
                    if not d.is_dir():
                        raise
                    continue
                self.dirs.append(d)
            _probe(path)
        except OSError as exc:
            raise RtbenchError(f"cannot write {what} {path}: {exc.strerror or exc}") from exc

    def make_new(self, path: Path, what: str) -> Path:
        """Create a directory that no other run uses: `path`, else `path`-2,
        -3, ... (two runs started in the same second, into other databases,
        would otherwise share one). Its parent must exist."""
        for n in range(1, 1000):
            cand = path if n == 1 else path.with_name(f"{path.name}-{n}")
            try:
                cand.mkdir()
            except FileExistsError:
                continue
            except OSError as exc:
                raise RtbenchError(f"cannot write {what} {cand}: {exc.strerror or exc}") from exc
            self.dirs.append(cand)
            try:
                _probe(cand)
            except OSError as exc:
                raise RtbenchError(f"cannot write {what} {cand}: {exc.strerror or exc}") from exc
            return cand
        raise RtbenchError(f"cannot write {what}: {path} and 998 more names are taken")

    def rollback(self) -> None:
        for d in reversed(self.dirs):
            try:
                d.rmdir()  # only if still empty: never delete anything else
            except OSError:
                pass
        self.dirs.clear()


def _probe(path: Path) -> None:
    if not path.is_dir():
        raise NotADirectoryError(20, "not a directory")
    probe = path / f".rtbench-probe-{os.getpid()}"
    # made exclusively: a link another user planted under this (guessable)
    # name in a shared folder is an error, never followed
    os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600))
    probe.unlink()


OUTPUTS = ("datasheet.md", "datasheet.html", "results.json")  # what a run writes


def check_existing(path: Path) -> None:
    """An existing --out must be empty or hold an earlier rtbench result,
    and each output file in it must be one that can be replaced."""
    try:
        if not os.path.lexists(path):
            return
        if not path.is_dir():
            raise RtbenchError(f"--out {path} exists and is not a directory")
        entries = [e for e in os.listdir(path) if not e.startswith(".rtbench-probe-")]
        for name in OUTPUTS:
            target = path / name
            if os.path.lexists(target) and not target.is_file():
                raise RtbenchError(f"--out {path}: {name} exists and is not a regular file; "
                                   "rtbench would have to replace it")
    except OSError as exc:
        raise RtbenchError(f"cannot read --out {path}: {exc.strerror or exc}") from exc
    if entries and not is_rtbench_dir(path):
        raise RtbenchError(f"--out {path} is not empty and holds no rtbench results; "
                           "choose another directory")


def is_rtbench_dir(path: Path) -> bool:
    try:
        data = json.loads((path / "results.json").read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and "rtbench_version" in data and "run" in data


def default_dir(started_utc: str, run_id: int) -> Path:
    """./rtbench-results/<yyyymmdd-HHMMSS>-run<id> (started is ISO 8601 UTC);
    made with CreatedDirs.make_new, which adds -2, -3, ... if it is taken."""
    stamp = started_utc[:19].replace("-", "").replace(":", "").replace("T", "-")
    return DEFAULT_PARENT / f"{stamp}-run{run_id}"
