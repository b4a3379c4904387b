"""Processes on this machine, for the tests that check nothing is left behind."""

from pathlib import Path


def children(pid: int) -> set[int]:
    """The pids whose parent is `pid` (from /proc/*/stat)."""
    kids = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:  # field 4, ppid
            kids.add(int(stat.parent.name))
    return kids
