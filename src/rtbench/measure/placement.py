"""Where rtbench's own Python process runs while the harness measures.

The harness pins every task of a scenario to one CPU. This process reads the
harness's records from a pipe; if the kernel woke it on the benchmark CPU it
would queue behind the SCHED_FIFO tasks and perturb them (wake-up IPIs,
cache). So while measuring it keeps itself on the other CPUs, as rt-tests
advise for housekeeping work. The harness is told its CPU explicitly, because
it inherits this narrowed mask.
"""

from __future__ import annotations

import contextlib
import os
from typing import Iterator


def benchmark_cpu(requested: int | None) -> int:
    """The CPU the benchmark tasks run on: the one asked for, else the last
    allowed one (CPU 0 usually carries more housekeeping)."""
    return requested if requested is not None else max(os.sched_getaffinity(0))


@contextlib.contextmanager
def off_cpu(cpu: int) -> Iterator[bool]:
    """Keep the calling thread, and the threads it starts, off `cpu`.
    Yields whether that was possible (not on a one-CPU machine)."""
    before = os.sched_getaffinity(0)
    rest = before - {cpu}
    if not rest:
        yield False
        return
    os.sched_setaffinity(0, rest)
    try:
        yield True
    finally:
        os.sched_setaffinity(0, before)
