"""The harness's stamp log, and each recorded sample found in a replay of
the same run by the values its two stamps read.

A board image run with `--stamp-log PATH` (harness/core/stamplog.h) writes
the two raw 32-bit stamps of every sample it records, metric by metric.
Whatever replays that run instruction by instruction (the window audit's
QEMU trace, the cycle model's plugin) knows where each stamp's counter
load ran: its index in the run's instruction stream. Under QEMU `-icount`
with a busy idle loop the counter is an affine function of that index
(3.2 ticks of the 25 MHz TIMER0 per instruction at shift 7), so the value
a stamp read names the load that read it. That is a sample's identity: a
scenario may take stamps it does not record (AMX's four intervals per
cycle, a cycle out of order, the warm-up), and windows are never paired
with samples by counting them in order.
"""

from __future__ import annotations

import bisect
import struct
from dataclasses import dataclass
from pathlib import Path

MAGIC = b"rtbench stamp log 2\n"
ANCHOR = 2  # the kind a replay gives the anchor's load (the stamp in rtb_stamplog_begin)
WRAP = 1 << 32
# A sample's stamp and the load it names agree within this many counter
# ticks: the counter's own rounding (one tick) and a margin, where a tick
# is shorter than an instruction (the MPS2's: 3.2 ticks an instruction at
# shift 7); half an instruction where a tick is one (the STM32F4's TIM2:
# exact values, loads maybe one tick apart). So no value names two loads.
TOLERANCE = 1.5


def tolerance(ticks_per_instruction: float) -> float:
    return min(TOLERANCE, ticks_per_instruction / 2)


class StampLogError(ValueError):
    pass


@dataclass(frozen=True)
class Block:
    """One metric's samples: the raw stamps of those logged (all of them
    unless the harness's buffer filled) and how many it recorded; the
    anchor, the value of the one stamp the harness took as the metric
    began (the only load in rtb_stamplog_begin)."""

    id: str
    anchor: int
    pairs: tuple[tuple[int, int], ...]
    recorded: int

    @property
    def complete(self) -> bool:
        return len(self.pairs) == self.recorded


def read(path: Path) -> list[Block]:
    """Every metric block of a stamp log; a block cut short (the run ended
    inside it) is left out."""
    data = Path(path).read_bytes()
    if not data.startswith(MAGIC):
        raise StampLogError(f"{path}: not an rtbench stamp log")
    out, at = [], len(MAGIC)
    while at + 6 <= len(data):
        if data[at:at + 4] != b"RTBL":
            raise StampLogError(f"{path}: damaged at byte {at}")
        (n_id,) = struct.unpack_from("<H", data, at + 4)
        head = at + 6 + n_id
        name = data[at + 6:head].decode("utf-8", "replace")
        if head + 12 > len(data):
            break
        anchor, logged, recorded = struct.unpack_from("<III", data, head)
        end = head + 12 + 8 * logged
        if end > len(data):
            break
        flat = struct.unpack_from(f"<{2 * logged}I", data, head + 12)
        out.append(Block(name, anchor, tuple(zip(flat[::2], flat[1::2])), recorded))
        at = end
    return out


@dataclass(frozen=True)
class Load:
    """A stamp's counter load in a replay: its instruction index and kind
    (0 opens a window, 1 closes one)."""

    index: int
    kind: int


@dataclass(frozen=True)
class Located:
    """A sample's window in the replay: the indices of the first
    instruction after the opening stamp and of the first instruction of
    the closing stamp (its head), so [start, end) is what the harness's
    figure counts. `computed`: the sample opened at an instant no stamp
    read (an interrupt's raise, computed by the port), placed by its value."""

    t0: int
    t1: int
    start: int
    end: int
    computed: bool

    @property
    def net(self) -> int:
        return self.end - self.start


@dataclass
class Clock:
    """counter value = ticks_per_instruction * index + offset (mod 2^32)."""

    ticks_per_instruction: float
    offset: float

    def value(self, index: int) -> float:
        return (self.ticks_per_instruction * index + self.offset) % WRAP

    def index(self, value: int) -> float:
        return ((value - self.offset) % WRAP) / self.ticks_per_instruction


def _off(a: float, b: float) -> float:
    """a - b on the 32-bit circle, in (-2^31, 2^31]."""
    d = (a - b) % WRAP
    return d - WRAP if d > WRAP / 2 else d


def anchored(block: Block, loads: list[Load], ticks_per_instruction: float) -> Clock | None:
    """The counter on the replay's instruction count in this metric's
    stretch, placed by the block's anchor (its load: the span's one load of
    kind ANCHOR). None: the replay shows no anchor."""
    at = [ld.index for ld in loads if ld.kind == ANCHOR]
    if len(at) != 1:
        return None
    return Clock(ticks_per_instruction, block.anchor - ticks_per_instruction * at[0])


def _nearest(clock: Clock, indices: list[int], value: int) -> int | None:
    """The index among `indices` (sorted) whose predicted value is `value`
    within TOLERANCE, or None."""
    guess = clock.index(value)
    k = bisect.bisect_left(indices, guess)
    for j in (k - 1, k):
        if 0 <= j < len(indices) and abs(_off(value, clock.value(indices[j]))) <= tolerance(
                clock.ticks_per_instruction):
            return indices[j]
    return None


def locate(block: Block, loads: list[Load], clock: Clock, head: int, tail: int
           ) -> tuple[list[Located], list[str]]:
    """Each logged sample's window, and what could not be found: a closing
    stamp that names no closing load. An opening stamp that names no
    opening load was computed by the port (an interrupt's raise): its
    window starts where a load reading that value would have ended."""
    opens = [ld.index for ld in loads if ld.kind == 0]
    closes = [ld.index for ld in loads if ld.kind == 1]
    found, missing = [], []
    for t0, t1 in block.pairs:
        b = _nearest(clock, closes, t1)
        if b is None:
            missing.append(f"a sample's closing stamp ({t1:#010x}) names no closing stamp in the "
                           "trace")
            continue
        a = _nearest(clock, opens, t0)
        computed = a is None
        start = (round(clock.index(t0)) if computed else a) + tail + 1
        found.append(Located(t0, t1, start, b - head, computed))
    return found, missing
