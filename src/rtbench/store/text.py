"""Strings from outside as the store keeps them and a terminal or a sheet
shows them: what a reader obeys rather than shows (control characters,
bidirectional controls, line separators) and what no encoder writes (a
lone surrogate). `clean` is what the store applies to every string it
writes and reads back; `one_line` and `printable` make any text one line
for a terminal or an error message. Whether a string may enter the store
at all is the contract's rule (rtbench.store.contract.text_problem).
Files of text (captures, results files) are UTF-8, a byte-order mark
skipped; `not_utf8` names one that is UTF-16 or UTF-32 instead.
`read_input` reads a small file rtbench did not write (a kernel tree's
VERSION, task.h or board.yml, a limits file): a regular file, bounded.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

from rtbench.errors import RtbenchError

# What a terminal or a reader obeys in text, beyond the characters shown:
# C0 controls but tab and newline, DEL and C1 controls (cursor moves,
# colours, a window title, clearing the screen); the bidirectional controls,
# which reorder what is shown (an id or a figure read backwards: "Trojan
# Source", CVE-2021-42574); the line and paragraph separators, which end a
# line in editors and browsers. Shared by the terminal (`clean`, `one_line`)
# and the Markdown filters (rtbench.sheets.templating).
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
LINE_SEPARATORS = "\u2028\u2029"
_CONTROLS: dict[int, str | None] = {
    **dict.fromkeys([*range(0, 9), *range(11, 32), 127, *range(128, 160)]),
    **dict.fromkeys(map(ord, BIDI)), **dict.fromkeys(map(ord, LINE_SEPARATORS), "\n"),
    # a lone surrogate (stored by an older rtbench, or a file name that is
    # no UTF-8): no encoder writes it; shown as the replacement character
    **dict.fromkeys(range(0xD800, 0xE000), "\ufffd")}
# The same in a JSON text as json.dumps writes it (escaped), or raw (a JSON
# text may hold C1, bidirectional and separator characters unescaped).
_CONTROL_ESCAPED = re.compile(
    r"\\u00(?:[01][0-9a-fA-F]|7[fF]|[89][0-9a-fA-F])|\\[bfr]"
    r"|\\u(?:061[cC]|200[eEfF]|202[89a-eA-E]|206[6-9]|[dD][89a-fA-F][0-9a-fA-F]{2})"
    "|[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")
# A lone surrogate in a string (`"\ud800"` in JSON): text no encoder writes
# (the terminal, a sheet, SQLite's text columns all refuse it).
SURROGATE = re.compile("[\ud800-\udfff]")


def clean(value: Any) -> Any:
    """`value` (a JSON value) with the control characters of every string
    removed, except tab and newline: C0, DEL, C1 and the bidirectional
    controls; a line separator (U+2028, U+2029) made a newline, a lone
    surrogate the replacement character. The same object when it has none."""
    if type(value) is str:
        return value.translate(_CONTROLS) if not value.isprintable() else value
    if type(value) is dict:
        return {clean(k): clean(v) for k, v in value.items()}
    if type(value) is list:
        return [clean(v) for v in value]
    return value


def one_line(text: Any) -> str:
    """Text from outside for a terminal's line: control characters (and
    other characters that are not printable, such as a right-to-left
    override) removed, line breaks and tabs as spaces."""
    s = str(text)
    return s if s.isprintable() else "".join(
        " " if c in _BREAKS else c for c in s if c.isprintable() or c in _BREAKS)


_BREAKS = "\n\t" + LINE_SEPARATORS


def has_controls(json_text: str) -> bool:
    """Whether a JSON text (as json.dumps wrote it) holds a string with a
    control character `clean` removes: a quick test before walking it."""
    return _CONTROL_ESCAPED.search(json_text) is not None


def printable(text: Any, limit: int = 80) -> str:
    """A string from outside as one line of plain text: control characters
    shown as `?`, cut at `limit`."""
    s = "".join(c if c.isprintable() else "?" for c in str(text)[:limit + 1])
    return s if len(s) <= limit else s[:limit] + "…"


# ---- files of text --------------------------------------------------------------

# Byte-order marks of the encodings a capture tool may write instead of UTF-8
# (PowerShell's `>`, some Windows terminal loggers): longest first.
_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
         (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))
HEAD = 512  # bytes of a file's start that say what its text is in
# What a file of UTF-8 text is read with: the byte-order mark a Windows
# tool may put first is skipped (RFC 3629), else it is UTF-8 as it is.
ENCODING = "utf-8-sig"


def not_utf8(head: bytes) -> str | None:
    """Why a file starting with `head` is not UTF-8 text, when its start
    says so: a UTF-16 or UTF-32 byte-order mark, or UTF-16 without one
    (ASCII in UTF-16: every other byte NUL); None otherwise (a UTF-8
    byte-order mark is no reason: it is skipped)."""
    enc = next((name for bom, name in _BOMS if head.startswith(bom)), None)
    if enc is None and len(head) >= 8:
        half = len(head) // 2
        even, odd = head[0::2].count(0), head[1::2].count(0)
        enc = "UTF-16LE" if odd >= 0.8 * half > 4 * even else \
            "UTF-16BE" if even >= 0.8 * half > 4 * odd else None
    if enc is None:
        return None
    return f"{enc} text, not UTF-8: convert it first (iconv -f {enc} -t UTF-8)"



# ---- small files from outside ---------------------------------------------------

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def read_input(path: Path, what: str, limit: int) -> bytes:
    """The bytes of `path`, a file rtbench reads but did not write (`what`
    names it in the error): a regular file of at most `limit` bytes.
    Anything else is one line (RtbenchError, exit 2), never a wait or a
    read without end: a FIFO (its open would wait for a writer for ever:
    opened without blocking, then refused), a device (/dev/zero never
    ends), a directory, a file beyond `limit`. A link is followed (a
    kernel tree may be links), to what it points to, which is checked."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise RtbenchError(f"cannot read {what} {path}: {exc.strerror or exc}") from exc
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = next((words for test, words in _KINDS if test(mode)), "no regular file")
        raise RtbenchError(f"cannot read {what} {path}: it is {kind}, not a regular file")
    with os.fdopen(fd, "rb") as fh:
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise RtbenchError(f"cannot read {what} {path}: {exc.strerror or exc}") from exc
    if len(data) > limit:
        raise RtbenchError(f"cannot read {what} {path}: larger than {limit:,} bytes")
    return data
