"""The host target: the POSIX port as a local process on this machine."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from rtbench.errors import HarnessError
from rtbench.process import lifetime
from rtbench.targets import harness, sysinfo
from rtbench.targets.base import Instance, Target


class HostTarget(Target):
    name = "host"
    supports_profiles = supports_load = supports_programs = supports_cpu = True

    def __init__(self, explicit: Path | None = None):
        self.explicit = explicit
        self.exe: Path | None = None

    def prepare(self) -> None:
        self.exe = harness.executable(self.explicit)

    def registry(self) -> dict[str, tuple[bool, str]]:
        self._need_exe()
        return harness.registry_support(self.exe)

    def start(self, args: list[str]) -> Instance:
        self._need_exe()
        try:
            proc = lifetime.popen([str(self.exe), *args], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, bufsize=1)
        except OSError as exc:
            raise HarnessError(f"cannot start {self.exe}: {exc.strerror}") from exc
        return Instance(proc)

    def describe(self) -> dict[str, Any]:
        return sysinfo.collect()

    def source_hash(self) -> str:
        if self.explicit or os.environ.get("RTBENCH_HARNESS"):
            return "n/a (harness given explicitly)"
        return harness.source_hash(harness.source_dir())

    def _need_exe(self) -> None:
        if self.exe is None:
            self.prepare()
