"""Zephyr's modules: the further source trees its build needs (CMSIS for
every Cortex-M build), given by --zephyr-modules or RTBENCH_ZEPHYR_MODULES."""

from __future__ import annotations

import os
from pathlib import Path

from rtbench.errors import RtbenchError

MODULES_ENV = "RTBENCH_ZEPHYR_MODULES"
NEEDED_MODULES = ("cmsis",)  # the ones an MPS2 (Cortex-M) build needs


def find(given: Path | None) -> tuple[Path, ...]:
    """The Zephyr modules a build gets (-DZEPHYR_MODULES): `given` (or
    $RTBENCH_ZEPHYR_MODULES) is one module, or a folder of modules (as west
    lays them out); each is a folder with zephyr/module.yml, named as
    Zephyr names the module (its folder's name: cmsis)."""
    if given is None:
        env = os.environ.get(MODULES_ENV)
        if not env:
            raise RtbenchError("Zephyr's modules not given: pass --zephyr-modules DIR (the "
                               "folder holding cmsis/, Zephyr's CMSIS module, which every "
                               f"Cortex-M build needs) or set {MODULES_ENV}")
        given = Path(env)
    path = given.expanduser()
    if _is_module(path):
        found = [path]
    else:
        try:
            found = sorted(d for d in path.iterdir() if _is_module(d))
        except OSError as exc:
            raise RtbenchError(f"--zephyr-modules {path}: {exc.strerror or exc}") from exc
    missing = [m for m in NEEDED_MODULES if m not in {d.name for d in found}]
    if missing:
        raise RtbenchError(f"--zephyr-modules {path}: no {', '.join(missing)} module there (a "
                           f"folder named {missing[0]} holding zephyr/module.yml: Zephyr's "
                           f"{missing[0]} module, zephyrproject-rtos/{missing[0]})")
    return tuple(d.resolve() for d in found)


def _is_module(path: Path) -> bool:
    return (path / "zephyr" / "module.yml").is_file()
