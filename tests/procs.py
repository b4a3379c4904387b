"""Processes on this machine, for the tests that check nothing is left behind."""

import os
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


def qemu_children() -> list[int]:
    """QEMU processes this test process started and did not reap."""
    out = []
    for pid in children(os.getpid()):
        try:
            comm = open(f"/proc/{pid}/comm").read().strip()
        except OSError:
            continue
        if comm.startswith("qemu-system"):
            out.append(pid)
    return out
