"""`rtbench run --load`: a documented background load on every CPU, the
benchmark CPU included.

Worst case under load is what real-time users qualify against, so rtbench
can measure while every CPU is busy with the kinds of work that disturb a
real-time CPU:

- a memory sweep over 64 MiB (evicts the shared last-level cache and loads
  the memory bus the benchmark CPU shares), and
- a pipe ping-pong between two processes (a steady stream of wake-ups,
  scheduler work and inter-processor interrupts).

One sweeper and one ping-pong pair per CPU, pinned there, at normal
(SCHED_OTHER) priority, as an application's background work would be: on
every other CPU, and on the benchmark CPU itself, where they run whenever
the real-time tasks block, so that every wake-up of a real-time task must
preempt them (with PREEMPT_NONE a task inside a system call yields the CPU
only when the call ends): preemption under load is exercised, not only
the cache and bus traffic from the other CPUs.
The load processes die with rtbench (they are started in their own process
group, killed on exit and watched by rtbench.process.lifetime's guard, and they
check their parent every second).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from typing import Iterator

from rtbench.process import lifetime

DESCRIPTION = ("built-in: per CPU, the benchmark CPU included, a 64 MiB memory sweep and a "
               "pipe ping-pong pair (SCHED_OTHER, pinned)")


@contextlib.contextmanager
def background(benchmark_cpu: int) -> Iterator[str]:
    """Run the load on every allowed CPU, `benchmark_cpu` included; yields
    its description for the run record."""
    cpus = sorted(os.sched_getaffinity(0) | {benchmark_cpu})
    procs = []
    try:
        for cpu in cpus:
            for role in ("sweep", "ping"):
                procs.append(lifetime.popen(
                    [sys.executable, "-m", "rtbench.measure.load", role, str(cpu),
                     str(os.getpid())], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL))
        yield f"{DESCRIPTION}; CPUs {','.join(map(str, cpus))}"
    finally:
        for p in procs:
            lifetime.end(p)


def _orphaned(parent: int) -> bool:
    return os.getppid() != parent


def _sweep(parent: int) -> None:
    buf = bytearray(64 << 20)
    chunk = bytes(1 << 20)
    last = time.monotonic()
    while True:
        for off in range(0, len(buf), len(chunk)):
            buf[off:off + len(chunk)] = chunk  # a memcpy per MiB: C speed
        if time.monotonic() - last > 1:
            if _orphaned(parent):
                return
            last = time.monotonic()


def _ping(parent: int) -> None:
    a_r, a_w = os.pipe()
    b_r, b_w = os.pipe()
    if os.fork() == 0:  # the pong side, in the same process group
        os.close(a_w)
        os.close(b_r)
        while True:
            if not os.read(a_r, 1):
                os._exit(0)
            os.write(b_w, b"x")
    os.close(a_r)
    os.close(b_w)
    last = time.monotonic()
    while True:
        os.write(a_w, b"x")
        os.read(b_r, 1)
        if time.monotonic() - last > 1:
            if _orphaned(parent):
                return
            last = time.monotonic()


def main(argv: list[str]) -> None:
    role, cpu, parent = argv[0], int(argv[1]), int(argv[2])
    os.sched_setaffinity(0, {cpu})
    (_sweep if role == "sweep" else _ping)(parent)


if __name__ == "__main__":
    main(sys.argv[1:])
