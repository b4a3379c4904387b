"""`rtbench qualify --threshold`: the kernel's trace of the first crossing,
kept with the run, from a private tracefs *instance* — the global trace
state (the top buffer, its tracer, tracing_on) is never touched.

How. A small *holder* process (`unshare --mount --propagation private`)
gets a mount namespace of its own, mounts tracefs there if the system has
not (the system's mounts are untouched), makes the instance
`instances/rtbench-qualify-<pid>` and, over `/sys/kernel/debug/tracing`
of that namespace only, binds the instance. cyclictest runs in that
namespace (`nsenter --mount`) with `-b USEC --tracemark`: it looks for
tracefs at `/sys/kernel/debug/tracing` first (rt-tests' rt-utils.c), so
on the crossing it writes its "hit latency threshold" mark and `0` to
tracing_on *of the instance*, from the measuring thread itself: the trace
stops microseconds after the late wake-up, before the ring buffer can
overwrite it. (Run in the system's namespace, cyclictest -b mounts
debugfs and stops the global trace.) rtbench reaches the instance through
the holder's root (/proc/<holder>/root/...).

Which tracer: timerlat where the kernel lists it and the instance takes
it (the rtla timerlat view), else the function tracer, else scheduler,
interrupt and timer events alone (nop tracer) — on this project's VM the
function tracer is listed but refused (EPERM) for an instance. Events are
enabled with every tracer: who ran, which interrupt, which timer. No
tracefs, no namespace (not root): "no tracer" with the reason, and the
run measures without -b.

Removal. The instance is removed however the run ends: `close()` on every
path out of `qualify`, and the guard's at-death command
(process/lifetime.py) if rtbench is killed; a later qualify also removes
instances whose rtbench pid is gone.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from rtbench.process import lifetime

PREFIX = "rtbench-qualify-"
TRACEFS = "/sys/kernel/tracing"
BUFFER_KB = 2048          # per CPU: a few ms of events on a busy CPU
KEEP_BYTES = 256 * 1024   # the trace kept with the run: its last part up to the crossing
EVENTS = ("sched/sched_switch", "sched/sched_wakeup", "sched/sched_waking",
          "irq/irq_handler_entry", "irq/irq_handler_exit", "irq/softirq_entry",
          "irq/softirq_exit", "timer/hrtimer_expire_entry", "timer/hrtimer_expire_exit")
MARK = "hit latency threshold"

# The holder: its namespace, tracefs there, the instance bound where cyclictest looks.
_HOLDER = """set -e
mountpoint -q {fs} || mount -t tracefs nodev {fs}
mkdir {fs}/instances/$1
mount -t tmpfs -o size=64k,mode=0700 rtbench /sys/kernel/debug
mkdir /sys/kernel/debug/tracing
mount --bind {fs}/instances/$1 /sys/kernel/debug/tracing
echo ready
exec sleep 2147483647
""".format(fs=TRACEFS)
# Removing an instance from outside any namespace of ours (the holder gone).
_REMOVE = ("mountpoint -q {fs} || mount -t tracefs nodev {fs}; "
           "rmdir {fs}/instances/$1").format(fs=TRACEFS)


@dataclass
class Tracing:
    """What tracing a run had: the tracer ("timerlat", "function", "events",
    "none"), why, and what was written to the system (the instance only)."""
    tracer: str
    why: str
    instance: str = ""
    events: list[str] = field(default_factory=list)


def _remove_argv(name: str) -> list[str]:
    return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", _REMOVE,
            "sh", name]


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
        return True
    except OSError:
        return False


_STALE = ("mountpoint -q {fs} || mount -t tracefs nodev {fs}; "
          "for d in {fs}/instances/{prefix}*; do p=${{d##*-}}; "
          "[ -d \"$d\" ] && [ ! -d /proc/$p ] && rmdir \"$d\" && echo \"${{d##*/}}\"; done; true"
          ).format(fs=TRACEFS, prefix=PREFIX)


def remove_stale() -> list[str]:
    """Instances of qualify runs whose rtbench is gone (killed before its guard
    could remove them), removed; their names."""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        done = subprocess.run(["unshare", "--mount", "--propagation", "private", "--", "sh",
                               "-c", _STALE], capture_output=True, text=True, timeout=30)
        return done.stdout.split()
    return []


class Instance:
    """The private instance for one qualify run (see the module). `start()`
    returns the Tracing it got; `wrap(argv)` runs a command where the
    instance is its tracefs; `arm()`, `kept()` and `close()`."""

    def __init__(self, name: str | None = None) -> None:
        self.name = name or f"{PREFIX}{os.getpid()}"
        self.holder: subprocess.Popen | None = None
        self.token: str | None = None
        self.tracing = Tracing("none", "not started")

    @property
    def path(self) -> Path:
        return Path(f"/proc/{self.holder.pid}/root{TRACEFS}/instances/{self.name}")

    def start(self) -> Tracing:
        if os.geteuid() != 0:
            self.tracing = Tracing("none", "not root: no private mount namespace for tracefs")
            return self.tracing
        remove_stale()
        self.token = lifetime.at_death(_remove_argv(self.name))
        try:
            self.holder = lifetime.popen(
                ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", _HOLDER,
                 "sh", self.name], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True)
        except OSError as exc:  # no unshare (util-linux)
            lifetime.cancel(self.token)
            self.tracing = Tracing("none", f"unshare not runnable: {exc.strerror or exc}")
            return self.tracing
        line = self.holder.stdout.readline().strip()
        if line != "ready":
            err = self.holder.stderr.read(2000).strip().splitlines()
            self.close()
            self.tracing = Tracing("none", "tracefs instance not made: "
                                   + (err[-1] if err else "the holder exited"))
            return self.tracing
        self.tracing = self._configure()
        return self.tracing

    def _configure(self) -> Tracing:
        inst = self.path
        _write(inst / "buffer_size_kb", str(BUFFER_KB))
        events = [e for e in EVENTS if _write(inst / "events" / e / "enable", "1")]
        listed = (inst / "available_tracers").read_text().split()
        refused = []
        for tracer in ("timerlat", "function"):
            if tracer in listed:
                if _write(inst / "current_tracer", tracer):
                    return Tracing(tracer, f"{tracer} tracer in the instance, with events",
                                   self.name, events)
                refused.append(tracer)
        why = (f"{' and '.join(refused)} listed but refused in an instance; " if refused
               else f"no timerlat or function tracer (lists: {' '.join(listed)}); ")
        if not events:
            return Tracing("none", why + "no event could be enabled", self.name)
        return Tracing("events", why + "scheduler, interrupt and timer events only",
                       self.name, events)

    def usable(self) -> bool:
        return self.holder is not None and self.tracing.tracer != "none"

    def wrap(self, argv: list[str]) -> list[str]:
        """argv run in the holder's namespace (where cyclictest's tracefs is the instance)."""
        if self.holder is None:
            return argv
        return ["nsenter", f"--mount=/proc/{self.holder.pid}/ns/mnt", "--", *argv]

    def arm(self) -> None:
        """An empty buffer, tracing on."""
        _write(self.path / "trace", "")
        _write(self.path / "tracing_on", "1")

    def disarm(self) -> None:
        _write(self.path / "tracing_on", "0")

    def kept(self) -> str:
        """The trace up to (and with) cyclictest's mark, its last KEEP_BYTES."""
        self.disarm()
        try:
            text = (self.path / "trace").read_text(errors="replace")
        except OSError as exc:
            return f"(trace not readable: {exc.strerror or exc})"
        at = text.find(MARK)
        if at >= 0:
            end = text.find("\n", at)
            text = text[:end + 1 if end >= 0 else len(text)]
        return text[-KEEP_BYTES:]

    def close(self) -> None:
        """The holder ended, the instance removed (idempotent)."""
        if self.holder is None:
            return
        holder, self.holder = self.holder, None
        with lifetime.interrupts_deferred():
            lifetime.end(holder, grace=1.0)
            for stream in (holder.stdout, holder.stderr):
                with contextlib.suppress(OSError):
                    stream.close()
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                subprocess.run(_remove_argv(self.name), stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
            if self.token:
                lifetime.cancel(self.token)
                self.token = None


def exists(name: str) -> bool:
    """Whether an instance of this name is in the kernel (for the tests: looked at
    through a namespace of its own, tracefs mounted there)."""
    probe = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
         f"mountpoint -q {TRACEFS} || mount -t tracefs nodev {TRACEFS}; "
         f"test -d {TRACEFS}/instances/$1", "sh", name], capture_output=True)
    return probe.returncode == 0


def unavailable() -> str:
    """Why no private tracefs instance can be made here ("" if one can)."""
    if os.geteuid() != 0:
        return "not root: no private mount namespace for tracefs"
    try:
        probe = subprocess.run(
            ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
             f"mountpoint -q {TRACEFS} || mount -t tracefs nodev {TRACEFS}; "
             f"test -w {TRACEFS}/instances"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"unshare failed: {exc}"
    return "" if probe.returncode == 0 else (
        "tracefs not mountable or its instances not writable: "
        + (probe.stderr.strip().splitlines() or ["?"])[-1])
