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
        """Create `path` (and missing parents) and check a file can be written."""
        missing = []
        p = path
        while not os.path.lexists(p) and p != p.parent:
            missing.append(p)
            p = p.parent
        try:
            for d in reversed(missing):
                d.mkdir()
                self.dirs.append(d)
            _probe(path)
        except OSError as exc:
            raise RtbenchError(f"cannot write {what} {path}: {exc.strerror or exc}") from exc

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
    with open(probe, "w") as fh:
        fh.write("probe\n")
    probe.unlink()


def check_existing(path: Path) -> None:
    """An existing --out must be empty or hold an earlier rtbench result."""
    if not os.path.lexists(path):
        return
    if not path.is_dir():
        raise RtbenchError(f"--out {path} exists and is not a directory")
    try:
        entries = [e for e in os.listdir(path) if not e.startswith(".rtbench-probe-")]
    except OSError as exc:
        raise RtbenchError(f"cannot read --out {path}: {exc.strerror}") from exc
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
    """./rtbench-results/<yyyymmdd-HHMMSS>-run<id> (started is ISO 8601 UTC)."""
    stamp = started_utc[:19].replace("-", "").replace(":", "").replace("T", "-")
    return DEFAULT_PARENT / f"{stamp}-run{run_id}"
