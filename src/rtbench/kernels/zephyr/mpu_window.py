"""Keep a Zephyr userspace image's MPU writes off QEMU's TLB collision.

Zephyr's userspace build reprograms the Cortex-M MPU on every context
switch. Under QEMU 7.2 with -icount, a store to the MPU's registers (the
System Control Space page at 0xE000EC00) made by code whose 1 KiB page maps
to the same entry of QEMU's direct-mapped TLB as that page upsets QEMU's
count of used TLB entries: the TLB then doubles at every flush up to 2^20
entries, and each later MPU write (a flush) clears 32 MiB. A run of the
same image becomes about 50 times slower in wall time (1000 samples of
sem.give.wake_ctx.thread: 23 s instead of 0.45 s, measured here with
`perf`: 90 % of QEMU's time in memset); its figures do not change (guest
instructions). A TLB has at least 64 entries (QEMU's smallest), so a code
page collides when its number is the System Control Space page's modulo
64: addresses [0xEC00, 0xF000) + k * 0x10000.

rtbench's Zephyr image is checked after it is built; where a function of
Zephyr's MPU driver lies in such a window, the image is built again with
rtbench's own code grown by a pad (RTB_ZEPHYR_TEXT_PAD, ports/zephyr), which
the linker places before the kernel's, so that the driver moves out.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

SCS_PAGE = 0xE000EC00  # the page of MPU_CTRL, MPU_RNR, MPU_RBAR, MPU_RASR
PAGE = 1 << 10  # QEMU's page for the Cortex-M (TARGET_PAGE_BITS 10)
PERIOD = PAGE * 64  # QEMU's smallest TLB: 64 entries
WINDOW_START = SCS_PAGE % PERIOD  # 0xEC00
ALIGN = 64  # pads are whole multiples of this


def mpu_code(image: Path) -> list[tuple[int, int]]:
    """(start, end) of every function of Zephyr's MPU driver in `image`
    (its text symbols with mpu as a word of their names: arm_core_mpu_*,
    z_arm_mpu_init...); [] when nm cannot read it."""
    try:
        out = subprocess.run(["arm-none-eabi-nm", "-S", "--defined-only", str(image)],
                             capture_output=True, text=True, timeout=60, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    spans = []
    for line in out.splitlines():
        m = re.match(r"([0-9a-f]+) ([0-9a-f]+) [tT] (\S+)$", line)
        if m and re.search(r"(^|_)mpu(_|$)", m.group(3), re.IGNORECASE):
            start = int(m.group(1), 16) & ~1  # a Thumb function's address has bit 0 set
            spans.append((start, start + int(m.group(2), 16)))
    return spans


def collides(spans: list[tuple[int, int]], shift: int = 0) -> bool:
    """Whether any span, moved by `shift`, touches a window."""
    for start, end in spans:
        first, last = (start + shift) // PERIOD, (end + shift - 1) // PERIOD
        for k in range(first, last + 1):
            lo = k * PERIOD + WINDOW_START
            if start + shift < lo + PAGE and end + shift > lo:  # [0xEC00, 0xF000) + k * PERIOD
                return True
    return False


def pad_for(spans: list[tuple[int, int]]) -> int:
    """The smallest pad (a multiple of ALIGN) that moves every span out of
    every window; 0 when none collides, or when no pad can (the windows
    repeat every PERIOD: spans that collide at every shift below it do at
    every shift; the image then runs slowly, with the same figures)."""
    for pad in range(0, PERIOD, ALIGN):
        if not collides(spans, pad):
            return pad
    return 0
