"""The kernel profiles a board image is built in (docs/profiles.md):
`defaults` (each kernel as its vendor ships it) and `speed` (each vendor's
own documented speed settings), and the rules every kernel shares.

The data is the harness's: harness/profiles/rules.toml and each port's
ports/<kernel>/profiles.toml, read by harness/profiles/rtb_profile.py,
which the image's CMake build runs to apply a profile. rtbench reads the
same data through the same module, so the two never disagree on what a
profile is; what an image was built with comes back in its own records
(the session's target facts: `profile`, `setting:NAME`).
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from types import ModuleType

from rtbench.errors import HarnessError, RtbenchError


@functools.lru_cache(maxsize=1)
def generator() -> ModuleType:
    """harness/profiles/rtb_profile.py, as a module."""
    from rtbench.targets import harness

    path = harness.source_dir() / "profiles" / "rtb_profile.py"
    spec = importlib.util.spec_from_file_location("rtb_profile", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise HarnessError(f"kernel profiles: {path} not found")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("rtb_profile", module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def rules():
    """The profiles and the shared rules (rtb_profile.Rules)."""
    gen = generator()
    try:
        return gen.load_rules()
    except gen.ProfileError as exc:
        raise HarnessError(f"kernel profiles: {exc}") from exc


def names() -> tuple[str, ...]:
    return tuple(rules().profiles)


def default() -> str:
    return rules().default


def kernel(port: str):
    """A kernel's settings (rtb_profile.KernelProfiles) from its port's profiles.toml."""
    from rtbench.targets import harness

    gen = generator()
    try:
        return gen.load_kernel(harness.source_dir() / "ports" / port, gen.load_rules())
    except gen.ProfileError as exc:
        raise HarnessError(f"kernel profiles: {exc}") from exc


def check(name: str | None) -> str:
    """`name`, or the default profile; one line and exit 2 for an unknown one."""
    if name is None:
        return default()
    known = names()
    if name not in known:
        raise RtbenchError(f"unknown --kernel-profile {name!r} (one of: {', '.join(known)})")
    return name


def parse(spec: str | None, several: bool) -> list[str]:
    """The profiles a command runs, in order, each once: `spec` (comma-
    separated), else every profile for several kernels (a shoot-out
    compares them in each) and the default for one."""
    if spec is None:
        return list(names()) if several else [default()]
    out = [p.strip() for p in spec.split(",") if p.strip()]
    if not out:
        raise RtbenchError("--kernel-profile: no profile given")
    for p in out:
        check(p)
    if len(set(out)) != len(out):
        raise RtbenchError(f"--kernel-profile {spec}: a profile is listed twice")
    return out
