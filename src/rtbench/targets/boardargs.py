"""The harness's command line in a board image's RAM: the block rtbench
writes into the image's `rtb_board_args` buffer (boards/cortex-m/hostargs.c),
through a GDB server on a board (gdbboard.py, `restore`) and through QEMU's
`-device loader` when it boots the same image with `-kernel` (qemu.py), so
that both start-ups hand the image the same bytes and it runs the same
instructions.

The block is "rtbench-args nohost WORDS...\\0": "nohost" tells the image
that no semihosting host serves it, so it makes no semihosting call (its
command line is here; its stamp log goes where the board keeps it). QEMU's
boot adds EXIT_TAG at the buffer's end: after its last record the image
then ends QEMU through semihosting with its status; a board's image spins.
"""

from __future__ import annotations

from pathlib import Path

from rtbench.errors import HarnessError

SYMBOL = "rtb_board_args"
MAGIC = "rtbench-args nohost "
EXIT_TAG = b"rtbench-semihost"  # hostargs.c: EXIT_TAG, the buffer's last bytes


def symbol(elf: Path, name: str = SYMBOL) -> tuple[int, int]:
    """Address and size of a data symbol of the image."""
    from elftools.elf.elffile import ELFFile

    with open(elf, "rb") as f:
        for sym in ELFFile(f).get_section_by_name(".symtab").iter_symbols():
            if sym.name == name and sym["st_info"]["type"] == "STT_OBJECT":
                return int(sym["st_value"]), int(sym["st_size"])
    raise HarnessError(f"{elf}: no {name} (an image built before the GDB loader)")


def block(words: list[str], size: int) -> bytes:
    """The words as the image's block. Refused, never cut, when it does not
    fit in a `size`-byte buffer with room left for EXIT_TAG (the same limit
    on both start-ups, so a line that runs on one runs on the other)."""
    data = (MAGIC + " ".join(words)).encode() + b"\0"
    if len(data) > size - len(EXIT_TAG):
        raise HarnessError(f"the harness's command line ({len(data)} bytes) does not fit in "
                           f"the image's {size}-byte buffer")
    return data


def with_exit_tag(data: bytes, size: int) -> bytes:
    """The whole buffer as QEMU's loader writes it: the block, then zeros,
    then EXIT_TAG in its last bytes."""
    return data + bytes(size - len(EXIT_TAG) - len(data)) + EXIT_TAG


def words(data: bytes) -> list[str]:
    """The words of a block (what with_args appends to)."""
    text = data.split(b"\0", 1)[0].decode()
    if not text.startswith(MAGIC):
        raise ValueError("not a harness command line block")
    return text[len(MAGIC):].split(" ")
