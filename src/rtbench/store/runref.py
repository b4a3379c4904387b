"""How a command names a stored run: its integer id, `latest` (the newest
stored run), `latest~N` (N runs before it), or `label:TEXT` (the newest run
stored with that label: a baseline named once, `run --label baseline`, and
found again by name), or a results.json file (a name ending in `.json`,
`rtbench compare a.json latest`: read, never imported, and no row of the
database). A name picked by position (`latest`, `latest~N`) that lands on
a run not measured whole here says so (`note`): a gate must not compare
against an import or an interrupted run without a word."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rtbench.store import contract

_LATEST = re.compile(r"latest(?:~([0-9]{1,9}))?")
USAGE = "an integer id, 'latest', 'latest~N' or 'label:TEXT'"  # compare: or a FILE.json


class RunRefError(ValueError):
    """Not a run name (the caller words it as one line)."""


@dataclass(frozen=True)
class RunRef:
    kind: str        # "id", "latest" (value: runs back from the newest), "label" or "file"
    value: Any

    def __str__(self) -> str:
        if self.kind == "latest":
            return "latest" + (f"~{self.value}" if self.value else "")
        return f"label:{self.value}" if self.kind == "label" else str(self.value)


def is_file(ref: object) -> bool:
    """Whether `ref` names a results file: its name ends in .json (no run
    id, `latest` or label does), so it can never be taken for a stored run."""
    return isinstance(ref, str) and ref.lower().endswith(".json") and not ref.startswith(
        "label:")


def parse(ref: int | str) -> RunRef:
    if isinstance(ref, int) and not isinstance(ref, bool):
        return RunRef("id", ref)
    if not isinstance(ref, str):
        raise RunRefError(f"run must be {USAGE}, not {contract.printable(ref, 40)!r}")
    m = _LATEST.fullmatch(ref)
    if m:
        return RunRef("latest", int(m.group(1) or 0))
    if ref.startswith("label:") and ref[6:]:
        return RunRef("label", ref[6:])
    if is_file(ref):
        return RunRef("file", ref)
    # ASCII digits only: int() would also take " 1 ", "1_0", "+1" and "٣"
    if ref.isascii() and ref.isdigit():
        return RunRef("id", int(ref))
    raise RunRefError(f"run must be {USAGE}, not {contract.printable(ref, 40)!r}")


def file_here(name: RunRef) -> str:
    """Why a command that reads the database refuses a results file."""
    shown = contract.printable(name.value, 80)
    return (f"{shown} is a results file, not a stored run: `rtbench compare {shown} …` "
            f"reads it as it is; `rtbench import {shown}` stores it")


def find(conn, name: RunRef):
    """The runs table's row `name` names, or None (a file is no row)."""
    if name.kind == "file":
        return None
    if name.kind == "latest":
        return conn.execute("SELECT * FROM runs ORDER BY id DESC LIMIT 1 OFFSET ?",
                            (name.value,)).fetchone()
    if name.kind == "label":
        return conn.execute("SELECT * FROM runs WHERE label = ? ORDER BY id DESC LIMIT 1",
                            (name.value,)).fetchone()
    if not 0 < name.value < 2**63:  # beyond SQLite's INTEGER: no such run
        return None
    return conn.execute("SELECT * FROM runs WHERE id = ?", (name.value,)).fetchone()


def note(ref: RunRef, run_id: int, origin: str, status: str) -> str | None:
    """What a positional name landed on, where it is not a whole run measured
    here (an import, peers, an interrupted or incomplete run)."""
    if ref.kind != "latest":
        return None
    what = []
    if origin != "measured":
        what.append("a peer tool's run" if origin == "peer" else "imported")
    if status != "complete":
        what.append(status)
    if not what:
        return None
    return (f"note: {ref} is run {run_id}, {' and '.join(what)}; name a run by its id "
            "or label:TEXT to be sure which")
