"""The engineer's own kernel configuration (`rtbench run --kernel-config
FILE`): a fragment in the kernel's own form (a FreeRTOSConfig.h's or
tx_user.h's #define lines, a Zephyr Kconfig fragment), applied on top of
the kernel's profile by the profile's generator
(harness/profiles/rtb_profile.py, `load_user`), which checks it, refuses a
setting the harness needs, and makes the image report every setting with
what it replaced (the sheet's configuration, docs/profiles.md).

The file is read once, bounded (store.text.read_input), checked here by
the same generator the build runs (one line and exit 2 for a bad line,
before anything is built), and copied into rtbench's own cache under its
content's hash: the build reads that copy, never the user's file again, and
an image is rebuilt exactly when the fragment's content changes (the copy's
path is among the build's options, so in its cache key).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
from pathlib import Path

import platformdirs

from rtbench.errors import RtbenchError
from rtbench.process import owned
from rtbench.store.text import read_input

LIMIT = 64 << 10  # bytes: a configuration fragment is a few hundred
CONFIG_VAR, NAME_VAR = "RTB_KERNEL_CONFIG", "RTB_KERNEL_CONFIG_NAME"


def apply(kernel, path: Path):
    """`kernel` (rtbench.kernels.Kernel) with the fragment `path` on top of
    its profile: its CMake options gain the checked copy and its name."""
    name = re.sub(r"[^\w.+-]", "_", path.name)[:64] or "kernel-config"
    data = read_input(path, "--kernel-config", LIMIT)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise RtbenchError(f"--kernel-config {path}: not UTF-8 text") from None
    digest = hashlib.sha256(data).hexdigest()[:16]
    folder = Path(platformdirs.user_cache_dir("rtbench")) / "kernel-config"
    owned.make_dir(folder, "the kernel configuration copies")
    copy = folder / f"{digest}-{name}"
    if not copy.is_file():
        tmp = folder / f".{digest}.{os.getpid()}.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, copy)
    _check(kernel, copy, name, path)
    return dataclasses.replace(kernel, cmake_defs=(*kernel.cmake_defs, (CONFIG_VAR, str(copy)),
                                                   (NAME_VAR, name)))


def _check(kernel, copy: Path, name: str, given: Path) -> None:
    """The generator's own check of the fragment, as the build will run it."""
    from rtbench.targets import profiles

    gen = profiles.generator()
    try:
        gen.load_user(copy, name, profiles.kernel(kernel.name), kernel.profile)
    except gen.ProfileError as exc:
        raise RtbenchError(f"--kernel-config {given}: {exc}") from None
