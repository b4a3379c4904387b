"""How long a column of `rtbench list --coverage` took on this machine the
last time it built its board image (build and boot), so the command can
say before it starts roughly how long it will take, from a measured
figure: this machine's, else the one measured on the development VM.

    times = buildtimes.load()                  # {column title: seconds}
    seconds, how = buildtimes.estimate("FreeRTOS (mps2-an385)", times)
    buildtimes.save("FreeRTOS (mps2-an385)", 61.8)

Kept in the user's cache dir beside the builds (a lost or damaged file is
only a worse estimate: it reads as empty).
"""

from __future__ import annotations

import json
from pathlib import Path

import platformdirs

FILE = "coverage-build-times.json"
# Measured on the development VM (2 vCPUs, issue 34): `rtbench list
# --coverage` built four images (FreeRTOS, ThreadX, Zephyr kernel and
# userspace on mps2-an385) in 258 s, about 65 s a column.
DEV_VM_S = 258 / 4
DEV_VM_HOW = "about 65 s a column where none was measured here: four took 258 s on a 2-vCPU VM"


def _path() -> Path:
    return Path(platformdirs.user_cache_dir("rtbench")) / FILE


def load() -> dict[str, float]:
    try:
        data = json.loads(_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): float(v) for k, v in data.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < 86400}


def save(title: str, seconds: float) -> None:
    """Remember a column's build-and-boot time; a cache that cannot be
    written only loses the estimate."""
    times = load()
    times[title] = round(seconds, 1)
    try:
        _path().parent.mkdir(parents=True, exist_ok=True)
        _path().write_text(json.dumps(times, indent=1, sort_keys=True), encoding="utf-8")
    except OSError:
        pass


def estimate(title: str, times: dict[str, float]) -> tuple[float, str]:
    """(seconds, where the figure comes from) of a column that builds."""
    if title in times:
        return times[title], "measured here at its last build"
    return DEV_VM_S, DEV_VM_HOW


def duration(seconds: float) -> str:
    """"45 s", "4 min"."""
    return f"{seconds:.0f} s" if seconds < 100 else f"{seconds / 60:.0f} min"
