"""The command-line options the kernels bring (each kernel's descriptor,
rtbench.kernels), registered on the commands that take them, and the
words of the common kernel options made from the registry, so that no
option here names a kernel."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import click

from rtbench import kernels


def register(command: str) -> Callable:
    """A decorator adding every kernel-brought option of `command`."""
    def wrap(fn: Callable) -> Callable:
        for o in reversed(kernels.options(command)):
            kw: dict = {"help": o.help}
            if o.metavar:
                kw["metavar"] = o.metavar
            if o.is_flag and "/" not in o.flag:
                kw["is_flag"] = True
            elif o.is_flag:
                kw["default"] = o.default
            elif o.path:
                kw["type"] = click.Path(path_type=Path)
            fn = click.option(o.flag, o.dest, **kw)(fn)
        return fn
    return wrap


def values(command: str, kw: dict) -> dict:
    """The kernel-brought options' values out of a command's keywords."""
    return {o.dest: kw.pop(o.dest) for o in kernels.options(command)}


def _either(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def kernel_help() -> str:
    n = list(kernels.names())
    return (f"The RTOS on a board target: {_either(n)}, or several ({','.join(n)}: one run "
            "each, then the kernel comparison; default: the kernel whose checkout "
            "--kernel-src names).")


def kernel_src_help() -> str:
    return ("Your checkout of that kernel's sources; without --kernel, rtbench tells the kernel "
            "from its files (default: " + ", ".join(f"${v}" for v in kernels.env_vars()) + ").")


def kernel_config_help() -> str:
    forms = "; ".join(f"{d.title}: {d.config_form}" for d in kernels.all())
    return ("Your own kernel settings on top of the profile (docs/profiles.md): " + forms +
            "; the sheet shows each as a difference from rtbench's rule.")


def coverage_src_help() -> str:
    return ("With --coverage: your checkout of an RTOS kernel, for its column (repeatable: "
            "told apart by their files; default: "
            + ", ".join(f"${v}" for v in kernels.env_vars()) + ").")
