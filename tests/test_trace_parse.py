"""The reading of QEMU's instruction trace (rtbench.targets.trace), which
the window audit and latency_measure's traces stand on: the block-at-a-time
parser gives, event for event, what the line-at-a-time reading it replaced
gives (kept here as the reference), on traces that hold every kind of line
QEMU writes, cut into blocks anywhere; and the spans cut from them are the
reference's, stamp loads and exception entries included."""

from __future__ import annotations

import io
import random
from array import array
from types import SimpleNamespace

import pytest

from rtbench.targets import stamplog
from rtbench.targets.trace import ENTRY, RETURN, Span, spans, trace_events


def reference_events(lines):
    """The line-at-a-time reading (rtbench before the block parser)."""
    pending = None
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
            b = line.find("[")
            if pending is not None and b >= 0 and pending == int(line[b + 1:b + 9], 16):
                pending = None
        elif line.startswith("Taking exception"):
            if pending is not None:
                yield pending
                pending = None
            yield -2 if "exception exit" in line else -1
        elif line.startswith("...taking pending"):
            yield -1
    if pending is not None:
        yield pending


def reference_spans(events, image):
    cur = None
    for pc in events:
        if pc < 0:
            if pc == -1 and cur is not None:
                cur.entries.append(len(cur.pcs))
            continue
        if pc in image.metric_begin:
            if cur is not None:
                yield cur
            cur = Span(array("I"))
        if cur is None:
            continue
        stamp = image.stamps.get(pc)
        if stamp is not None:
            kind = stamplog.ANCHOR if pc in image.anchors else stamp[0]
            cur.loads.append(stamplog.Load(len(cur.pcs), kind))
        cur.pcs.append(pc)
    if cur is not None:
        yield cur


BEGIN, ANCHOR_AT, OPEN_AT, CLOSE_AT = 0x5A0, 0x600, 0x700, 0x704


def _trace(seed: int, n: int = 3000) -> str:
    """A trace with every kind of line QEMU writes, in the orders it writes them."""
    rnd = random.Random(seed)
    pcs = [BEGIN, ANCHOR_AT, OPEN_AT, CLOSE_AT] + [0x400 + 2 * k for k in range(40)]
    out = ["Loaded reset SP 0x20400000 PC 0x4fd from vector table"]
    last = None
    for _ in range(n):
        r = rnd.random()
        if r < 0.75 or last is None:
            last = rnd.choice(pcs)
            host = rnd.choice(["0x7effb0004b00", "0x7f0012", "0xabc"])
            out.append(f"Trace 0: {host} [00800400/{last:08x}/00000110/ff020201] some_function")
        elif r < 0.82:
            pc = last if rnd.random() < 0.8 else last + 2
            out.append(f"cpu_io_recompile: rewound execution of TB to {pc:08x}")
        elif r < 0.86:
            pc = last if rnd.random() < 0.8 else last + 2
            out.append(f"Stopped execution of TB chain before 0x7effb0004b00 [{pc:08x}] fn")
        elif r < 0.91:
            out += ["Taking exception 5 [IRQ] on CPU 0",
                    "...taking pending nonsecure exception 15",
                    "...loading from element 15 of non-secure vector table at 0x3c",
                    "...loaded new PC 0x1cf05"][:rnd.randint(1, 4)]
        elif r < 0.95:
            out += ["Taking exception 8 [QEMU v7M exception exit] on CPU 0",
                    "Exception return: magic PC fffffffd previous exception 15",
                    "...successful exception return"][:rnd.randint(1, 3)]
        elif r < 0.97:
            out.append("...taking pending nonsecure exception 11")
        else:
            out.append("Trace without a bracket")
    return "\n".join(out) + ("\n" if seed % 2 else "")


def _ours(text: str, chunk: int) -> list[int]:
    return [pc for block in trace_events(io.BytesIO(text.encode()), chunk) for pc in block.tolist()]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("chunk", [50, 997, 1 << 22])
def test_the_block_parser_gives_the_line_readers_events(seed, chunk):
    text = _trace(seed)
    want = list(reference_events(text.splitlines()))
    assert ENTRY in want and RETURN in want
    assert _ours(text, chunk) == want


def test_an_empty_trace_has_no_events():
    assert _ours("", 10) == [] and _ours("\n\n", 10) == []


@pytest.mark.parametrize("seed", range(4))
def test_spans_are_the_references(seed):
    image = SimpleNamespace(metric_begin={BEGIN}, anchors={ANCHOR_AT},
                            stamps={ANCHOR_AT: (0, 1, 0), OPEN_AT: (0, 1, 1), CLOSE_AT: (1, 2, 0)})
    text = _trace(seed, 6000)
    want = list(reference_spans(reference_events(text.splitlines()), image))
    got = list(spans(trace_events(io.BytesIO(text.encode()), 333), image))
    assert len(want) > 10
    assert [(list(s.pcs), s.loads, s.entries) for s in got] == \
        [(list(s.pcs), s.loads, s.entries) for s in want]
