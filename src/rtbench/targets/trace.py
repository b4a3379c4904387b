"""QEMU's instruction trace of a board image, read as it is written:
every guest instruction executed and every exception taken (`-singlestep
-d exec,nochain,int`), and the run cut into one span per metric (from one
rtb_port_metric_begin to the next) with where its stamps loaded the counter
and where exceptions were taken. The window audit (audit.py) finds each
recorded sample's window in a span.
"""

from __future__ import annotations

import errno
import os
import threading
import time
from array import array
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from rtbench.targets import stamplog


def trace_events(lines: Iterable[str]) -> Iterator[int]:
    """The addresses of the instructions executed, in order; -1 for an
    exception taken (the next address is the handler's first), -2 for an
    exception return. QEMU logs
    an instruction when it is about to run it; two kinds of line say it
    did not, and it is then reported once, when it does run: an I/O access
    under -icount is rewound and translated again ("cpu_io_recompile:
    rewound"), and an instruction found an interrupt pending ("Stopped
    execution of TB chain before")."""
    pending: int | None = None
    for line in lines:
        if line.startswith("Trace "):
            b = line.find("[")
            if b < 0:
                continue
            pc = int(line[b + 10:b + 18], 16)
            if pending is not None:
                yield pending
            pending = pc
        elif line.startswith("cpu_io_recompile: rewound"):
            if pending is not None and pending == int(line.rsplit(" ", 1)[1], 16):
                pending = None
        elif line.startswith("Stopped execution of TB chain before"):
            # logged, then not run: an interrupt was pending (it runs after)
            b = line.find("[")
            if pending is not None and b >= 0 and pending == int(line[b + 1:b + 9], 16):
                pending = None
        elif line.startswith("Taking exception"):
            if pending is not None:
                yield pending
                pending = None
            yield -2 if "exception exit" in line else -1
        elif line.startswith("...taking pending"):
            yield -1  # an exception return that enters the next pending one (tail chaining)
    if pending is not None:
        yield pending


@dataclass
class Span:
    """The instructions one metric ran, from its rtb_port_metric_begin to
    the next metric's: their addresses in order, where stamps loaded the
    counter (index into `pcs`, kind), and where exceptions were taken (the
    index of the handler's first instruction)."""

    pcs: array
    loads: list[stamplog.Load] = field(default_factory=list)
    entries: list[int] = field(default_factory=list)


def spans(events: Iterable[int], image: Any) -> Iterator[Span]:
    """Each metric's span of the run, in the order the harness ran them
    (what ran before the first metric, the boot and the calibration, is
    left out). `image` says where its stamps load the counter (its
    `stamps`, `anchors`) and where a metric begins (`metric_begin`): an
    audit.Image."""
    cur: Span | None = None
    stamps, begins = image.stamps, image.metric_begin
    for pc in events:
        if pc < 0:
            if pc == -1 and cur is not None:
                cur.entries.append(len(cur.pcs))
            continue
        if pc in begins:
            if cur is not None:
                yield cur
            cur = Span(array("I"))
        if cur is None:
            continue
        stamp = stamps.get(pc)
        if stamp is not None:
            kind = stamplog.ANCHOR if pc in image.anchors else stamp[0]
            cur.loads.append(stamplog.Load(len(cur.pcs), kind))
        cur.pcs.append(pc)
    if cur is not None:
        yield cur


def release_reader(fifo, reader: threading.Thread, timeout: float = 120.0) -> None:
    """Join the thread reading the trace FIFO `fifo`, unblocking it first if
    QEMU never opened the FIFO for writing (its open would wait for ever).
    A writer's non-blocking open fails (ENXIO) until the reader has begun
    its own open, so it is tried until the thread ends: tried once, a QEMU
    that never started left the reader blocked and this join waiting out
    its whole timeout (two minutes)."""
    deadline = time.monotonic() + timeout
    while reader.is_alive() and time.monotonic() < deadline:
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            break
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # the FIFO is gone: nothing to unblock
                break
            reader.join(timeout=0.01)
    reader.join(timeout=max(0.0, deadline - time.monotonic()))
