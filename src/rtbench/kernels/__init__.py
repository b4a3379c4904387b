"""Kernels: one descriptor per RTOS kernel a board can carry, and the one
registry that finds them. A descriptor (base.py) is the only place that
knows its kernel: where its sources are and what version they are, how its
image is built and its variants, the options it brings to the command line,
its boards, its peers and what a lab place needs; every other module asks
the descriptor and never compares a kernel's name (tests/test_architecture.py).
A kernel is one module here (or a subpackage: zephyr/) and one folder under
harness/ports/ (docs/porting.md, "Adding a kernel").

May import: rtbench.store, rtbench.errors.
"""

from __future__ import annotations

from pathlib import Path

from rtbench.errors import RtbenchError
from rtbench.kernels import freertos, rtx5, threadx, zephyr
from rtbench.kernels.base import PROFILE_VAR, Descriptor, Kernel, Option, Tree

# The registry, in the order a sheet and a shoot-out list them.
_ALL: tuple[Descriptor, ...] = (freertos.DESCRIPTOR, threadx.DESCRIPTOR, zephyr.DESCRIPTOR,
                                  rtx5.DESCRIPTOR)
_BY_NAME = {d.name: d for d in _ALL}


def all() -> tuple[Descriptor, ...]:  # noqa: A001 - the registry's word
    return _ALL


def names() -> tuple[str, ...]:
    return tuple(_BY_NAME)


def get(name: str) -> Descriptor:
    """The descriptor of `name`; one line (exit 2) for a kernel rtbench does not know."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise RtbenchError(f"unknown --kernel {name!r} (one of: {', '.join(_BY_NAME)})") from None


def known(name: str) -> bool:
    return name in _BY_NAME


def by_title(title: str) -> Descriptor | None:
    """The descriptor a run's os name belongs to ("Zephyr (userspace)" is Zephyr's)."""
    for d in _ALL:
        if title == d.title or title.startswith(d.title + " "):
            return d
    return None


def of_checkout(src: Path) -> str:
    """The kernel whose checkout `src` is, told by its marker file."""
    found = [d.name for d in _ALL if d.is_checkout(src)]
    if len(found) != 1:
        looked = ", ".join(f"{d.marker} ({d.title})" for d in _ALL)
        raise RtbenchError(f"--kernel-src {src}: " + (
            f"not a kernel checkout rtbench knows (looked for {looked}); pass --kernel too"
            if not found else f"holds {' and '.join(found)}: pass --kernel"))
    return found[0]


def resolve(name: str | None, src: Path | None, profile: str, modules: Path | None = None,
            userspace: bool = False) -> Kernel:
    """The kernel `name` (or the one whose checkout `src` is) from the user's
    sources, in kernel profile `profile` (checked by the caller: targets/profiles.py)."""
    if name is None and src is not None:  # --kernel-src alone: the checkout says which
        name = of_checkout(src)
    if name is None:
        raise RtbenchError(f"--kernel is required on a board target (one of: {', '.join(names())})")
    d = get(name)
    for dest, given in (("modules", modules is not None), ("userspace", userspace)):
        if given and dest not in d.option_dests:  # an option this kernel does not take
            raise RtbenchError(f"{flag_of(dest)}: for --kernel {' or '.join(taking(dest))} "
                               f"(not {d.name})")
    return d.resolve(src, profile, modules, userspace)


def options(command: str) -> list[Option]:
    """The options the kernels bring to `command`, each once (by its flag)."""
    seen: dict[str, Option] = {}
    for d in _ALL:
        for o in d.options:
            if command in o.commands:
                seen.setdefault(o.flag, o)
    return list(seen.values())


def taking(dest: str) -> list[str]:
    """The kernels that take the option filling `dest`."""
    return [d.name for d in _ALL if any(o.dest == dest for o in d.options)]


def flag_of(dest: str) -> str:
    """The command-line flag of the kernel option filling `dest`."""
    return next(o.flag.split("/")[0] for d in _ALL for o in d.options if o.dest == dest)


def env_sources() -> list[tuple[str, str]]:
    """(environment variable, the upstream repository's folder) of every
    kernel's checkout and the further trees its build needs: where
    scripts/test.sh and the tests look for test sources."""
    return [(d.env, d.repository) for d in _ALL] + [(t.env, t.repository) for d in _ALL
                                                    for t in d.more_sources]


def env_vars() -> list[str]:
    return [d.env for d in _ALL]


__all__ = ["PROFILE_VAR", "Descriptor", "Kernel", "Option", "Tree", "all", "by_title", "env_sources",
           "env_vars", "flag_of", "get", "known", "names", "of_checkout", "options", "resolve",
           "taking"]
