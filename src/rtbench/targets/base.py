"""What every target offers the run path (targets/__init__.py)."""

from __future__ import annotations

import signal
import subprocess
import time
from abc import ABC, abstractmethod
from typing import Any

from rtbench.process import lifetime


class Instance:
    """One started harness: a process whose stdout carries the records (a
    local harness, or an emulator relaying the board's UART), started with
    rtbench.process.lifetime.popen: its own session, so a terminal's Ctrl-C reaches
    rtbench only, watched by the guard, so it dies with rtbench however
    rtbench dies; `kill` takes down whatever it started."""

    def __init__(self, proc: subprocess.Popen):
        self.proc = proc

    @property
    def stdout(self):
        return self.proc.stdout

    @property
    def stderr(self):
        return self.proc.stderr

    def wait(self, timeout: float | None = None) -> int:
        return self.proc.wait(timeout=timeout)

    def kill(self) -> int:
        """Kill the whole process group and reap (rtbench.process.lifetime: the guard
        forgets it); the exit status."""
        return lifetime.end(self.proc)

    def describe_exit(self, rc: int) -> str:
        """Words for an exit status that ended a metric early."""
        return describe_exit(rc)

    def progress_s(self) -> float:
        """The clock the runner's watchdog waits by, in seconds: wall time
        here; an emulator's own CPU time on an emulated board
        (QemuInstance), whose figures never depend on the host's load, so
        neither may whether a metric is killed."""
        return time.monotonic()


def describe_exit(rc: int) -> str:
    """A process's exit status in words ("signal SIGSEGV", "exit code 3")."""
    if rc < 0:
        try:
            return f"signal {signal.Signals(-rc).name}"
        except ValueError:
            return f"signal {-rc}"
    return f"exit code {rc}"


class Target(ABC):
    """Builds the harness for itself, starts it, and says what it is."""

    name: str = ""
    # What the run path may offer on this target.
    supports_profiles: bool = False   # --profile default,rt,cold (host pinning/RT policy)
    supports_load: bool = False       # --load
    supports_programs: bool = False   # standard programs of the System part
    supports_cpu: bool = False        # --cpu, --no-rt
    # How much longer than the harness alone a metric may take here in wall
    # time (the runner's watchdog waits --timeout times this).
    slowdown: float = 1.0

    @abstractmethod
    def prepare(self) -> None:
        """Check the tools and build what is needed (cached); one-line
        RtbenchError / HarnessError for what is missing."""

    @abstractmethod
    def registry(self) -> dict[str, tuple[bool, str]]:
        """Each metric id the harness for this target knows -> (supported, why not)."""

    @abstractmethod
    def start(self, args: list[str]) -> Instance:
        """Start the harness with the harness command line `args` (docs/records.md)."""

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """Facts for the run's configuration (stored as the run's `host`)."""

    def source_hash(self) -> str:
        return "unknown"

    def annotate(self, rec: dict[str, Any]) -> None:
        """Add what the target knows of a metric record besides the
        harness's figures (a board's estimated cycles: QemuTarget), before
        it is stored; the harness's own fields are never changed."""

    def close(self) -> None:
        """Give back what prepare() took (a lab's place); called once the run
        is over, however it ended. Never raises."""
