"""QEMU's instruction trace of a board image, read as it is written:
every guest instruction executed and every exception taken (`-singlestep
-d exec,nochain,int`), and the run cut into one span per metric (from one
rtb_port_metric_begin to the next) with where its stamps loaded the counter
and where exceptions were taken. The window audit (audit.py) finds each
recorded sample's window in a span.
"""

from __future__ import annotations

import errno
import fcntl
import os
import threading
import time
from array import array
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Iterable, Iterator

import numpy as np

from rtbench.targets import stamplog


ENTRY, RETURN = -1, -2  # an exception taken (the next address is its handler's first); a return

# A line of QEMU's log that is an executed instruction begins so; the guest
# pc is the second field in its brackets: "Trace 0: 0x<host> [<flags>/<pc>/...] name".
_TRACE = np.frombuffer(b"Trace ", dtype=np.uint8)
# The first letters of the other lines that matter (see trace_events).
_OTHER = np.frombuffer(b"cST.", dtype=np.uint8)
_NIBBLE = np.zeros(256, dtype=np.uint8)
_NIBBLE[np.frombuffer(b"0123456789abcdef", dtype=np.uint8)] = np.arange(16, dtype=np.uint8)
_PAD = bytes(8)  # room for the reads of a line's first letters past the block's end


def _block(chunk: bytes) -> tuple[np.ndarray, np.ndarray, list[tuple[int, bytes]]]:
    """The lines of `chunk` (which begins with a newline): the guest pcs of
    its instruction lines, the line numbers they are on, and the other
    lines that may matter (line number, text). Numpy over the bytes: a
    trace is tens of millions of lines, and reading them one by one in
    Python was most of the window audit's time."""
    n = len(chunk)
    a = np.frombuffer(chunk + _PAD, dtype=np.uint8)
    starts = np.flatnonzero(a[:n] == 10) + 1
    ends = np.append(starts[1:] - 1, n)
    heads = a[starts[:, None] + np.arange(len(_TRACE))]
    is_trace = (heads == _TRACE).all(axis=1)
    tl = np.flatnonzero(is_trace)
    # each instruction line's first "[" (one past the block: a line without)
    brackets = np.append(np.flatnonzero(a[:n] == ord("[")), n + 1)
    b = brackets[np.searchsorted(brackets, starts[tl])]
    ok = b + 18 <= ends[tl]
    tl, b = tl[ok], b[ok]
    digits = _NIBBLE[a[b[:, None] + np.arange(10, 18)]]
    word = (digits[:, 0::2] << 4) | digits[:, 1::2]  # the pc's four bytes, most significant first
    pcs = np.ascontiguousarray(word).view(">u4").ravel().astype(np.int64)
    others = np.flatnonzero(~is_trace & np.isin(heads[:, 0], _OTHER))
    return pcs, tl, [(int(i), chunk[starts[i]:ends[i]]) for i in others]


def _one(value: int) -> np.ndarray:
    return np.array([value], dtype=np.int64)


# How much of QEMU's trace the FIFO holds: while a block is parsed QEMU
# writes on into it instead of waiting (Linux's 64 KiB default made the two
# take turns; 1 MiB is an unprivileged process's limit by default).
PIPE_BYTES = 1 << 20


def open_fifo(path) -> BinaryIO:
    """The trace FIFO `path`, opened to read (this waits for QEMU to open it
    to write), with room for PIPE_BYTES of trace."""
    f = open(path, "rb")
    try:
        fcntl.fcntl(f.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except OSError:  # a lower limit (fs.pipe-max-size): the default then
        pass
    return f


def trace_events(f: BinaryIO, chunk_size: int = 1 << 18) -> Iterator[np.ndarray]:
    """The addresses of the instructions executed, in order, ENTRY for an
    exception taken (the next address is the handler's first) and RETURN
    for an exception return: QEMU's log (`-d exec,nochain,int`) read from
    the binary stream `f` a block of lines at a time, as arrays.

    QEMU logs an instruction when it is about to run it; two kinds of line
    say it did not, and it is then reported once, when it does run: an I/O
    access under -icount is rewound and translated again ("cpu_io_recompile:
    rewound"), and an instruction found an interrupt pending ("Stopped
    execution of TB chain before"). So the last instruction logged is held
    back (`pending`) until the line after it says whether it ran. An
    exception taken is "Taking exception" (its return, a pseudo-exception,
    says "exception exit"), and an exception return that enters the next
    pending one (tail chaining) is "...taking pending"; other lines say
    nothing these do not."""
    pending: int | None = None
    rest = b"\n"  # a line begins after a newline: the first one too
    while True:
        data = f.read(chunk_size)
        chunk = rest + data
        # whole lines only; the newline that ends the last stays with the
        # rest, where it begins the next block's first line
        cut = chunk.rfind(b"\n") if data else len(chunk)
        chunk, rest = chunk[:cut], chunk[cut:]
        if not chunk:
            if not data:
                break
            continue
        pcs, lines, others = _block(chunk)
        out: list[np.ndarray] = []
        done = 0  # pcs[:done] are placed

        def place(upto: int) -> None:
            """Place pcs[:upto]: the one held back before them, all but their last."""
            nonlocal done, pending
            if upto > done:
                if pending is not None:
                    out.append(_one(pending))
                out.append(pcs[done:upto - 1])
                pending = int(pcs[upto - 1])
                done = upto

        for line, text in others:
            place(int(np.searchsorted(lines, line)))  # the instructions logged before it
            if text.startswith(b"cpu_io_recompile: rewound"):
                if pending is not None and pending == int(text.rsplit(b" ", 1)[1], 16):
                    pending = None
            elif text.startswith(b"Stopped execution of TB chain before"):
                # logged, then not run: an interrupt was pending (it runs after)
                b = text.find(b"[")
                if pending is not None and b >= 0 and pending == int(text[b + 1:b + 9], 16):
                    pending = None
            elif text.startswith(b"Taking exception"):
                if pending is not None:
                    out.append(_one(pending))
                    pending = None
                out.append(_one(RETURN if b"exception exit" in text else ENTRY))
            elif text.startswith(b"...taking pending"):
                out.append(_one(ENTRY))
        place(len(pcs))
        if out:
            yield np.concatenate(out)
        if not data:
            break
    if pending is not None:
        yield _one(pending)


@dataclass
class Span:
    """The instructions one metric ran, from its rtb_port_metric_begin to
    the next metric's: their addresses in order, where stamps loaded the
    counter (index into `pcs`, kind), and where exceptions were taken (the
    index of the handler's first instruction)."""

    pcs: array
    loads: list[stamplog.Load] = field(default_factory=list)
    entries: list[int] = field(default_factory=list)


def spans(events: Iterable[np.ndarray], image: Any) -> Iterator[Span]:
    """Each metric's span of the run, in the order the harness ran them
    (what ran before the first metric, the boot and the calibration, is
    left out), from trace_events' arrays. `image` says where its stamps
    load the counter (its `stamps`, `anchors`) and where a metric begins
    (`metric_begin`): an audit.Image."""
    cur: Span | None = None
    begins = np.array(sorted(image.metric_begin), dtype=np.int64)
    stamped = np.array(sorted(image.stamps), dtype=np.int64)
    for block in events:
        cuts = np.flatnonzero(np.isin(block, begins))
        pieces = np.split(block, cuts)
        for k, piece in enumerate(pieces):
            if k:  # a metric begins here: the span before it is whole
                if cur is not None:
                    yield cur
                cur = Span(array("I"))
            if cur is not None and len(piece):
                _extend(cur, piece, stamped, image)
    if cur is not None:
        yield cur


def _extend(span: Span, events: np.ndarray, stamped: np.ndarray, image: Any) -> None:
    """Add `events` (addresses, ENTRY, RETURN) to the end of `span`."""
    base = len(span.pcs)
    marks = events < 0
    if marks.any():
        # an entry's index: the instructions before it in the span
        at = np.flatnonzero(events == ENTRY)
        before = at - np.cumsum(marks)[at] + 1
        span.entries.extend(int(base + b) for b in before)
        pcs = events[~marks]
    else:
        pcs = events
    for q in np.flatnonzero(np.isin(pcs, stamped)):
        pc = int(pcs[q])
        kind = stamplog.ANCHOR if pc in image.anchors else image.stamps[pc][0]
        span.loads.append(stamplog.Load(base + int(q), kind))
    span.pcs.frombytes(pcs.astype(np.uint32).tobytes())


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
