"""Zephyr's boards: its names for the boards rtbench emulates, and any board
of the user's tree (`rtbench run --kernel zephyr --board NAME`: an image to
flash, FLASH.md saying how; measure/own_board.py builds it).

On any board but the MPS2 ones rtbench has its own support for, the clock
is Zephyr's timing API (timing_counter_get: the DWT cycle counter where the
core has one, else the system timer): figures in cycles of that counter,
as the records say. There is no interrupt source rtbench knows there, so
the irq.* rows are `unsupported` with that reason. `--no-board-glue` builds
that same any-board image for an MPS2 board, which is how it is tested
under QEMU.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from rtbench.errors import RtbenchError
from rtbench.store.text import read_input

IMAGES = ("zephyr.elf", "zephyr.hex", "zephyr.bin")  # what Zephyr's build leaves, when it does
BOARD_FILE_LIMIT = 1 << 20  # bytes: a board.yml is a few hundred
# The emulated boards by Zephyr's names for them (QEMU machines of rtbench's).
EMULATED = {"mps2-an385": "mps2/an385", "mps2-an386": "mps2/an386"}


def emulated_name(kernel, board: str) -> str:
    """Zephyr's name of `board`, if the user's tree has it (Zephyr 4.0 has
    the AN385 and the AN521, not the AN386). A board rtbench supports for
    the harness-built kernels only (the STM32F4: Zephyr brings its own board
    support) is one line."""
    if board not in EMULATED:
        raise RtbenchError(f"--target {board}: rtbench's board support there is for the kernels "
                           "rtbench builds itself; Zephyr brings its own: build for your board "
                           "with --kernel zephyr --board NAME (docs/zephyr.md), or use --target "
                           "mps2-an385")
    name = EMULATED[board]
    dts = f"{name.replace('/', '_')}.dts"
    if not any(kernel.src.glob(f"boards/*/*/{dts}")):
        raise RtbenchError(f"--target {board}: this Zephyr tree ({kernel.src}, {kernel.version}) "
                           f"has no board {name} (no boards/*/*/{dts}); Zephyr 4.0 emulates the "
                           "AN385 only: use --target mps2-an385")
    return name


def rtbench_board(own: str) -> str | None:
    """The board rtbench emulates that Zephyr calls `own`, if any."""
    return next((ours for ours, theirs in EMULATED.items() if theirs == own), None)


def board_names(src: Path) -> set[str]:
    """Every board name the tree's boards/**/board.yml declares (Zephyr's
    hardware model v2: `board: {name: ...}` or `boards: [{name: ...}]`)."""
    try:
        import yaml  # Zephyr's build needs it too: rtbench[zephyr]
    except ImportError:
        raise RtbenchError("Zephyr's build needs the Python package PyYAML in rtbench's "
                           "environment: pip install 'rtbench[zephyr]'") from None
    names: set[str] = set()
    for path in sorted(src.glob("boards/**/board.yml")):
        # read bounded and only if regular (a FIFO there waited for ever)
        data = read_input(path, "the Zephyr tree's board file", BOARD_FILE_LIMIT)
        try:
            doc = yaml.safe_load(data.decode("utf-8", errors="replace"))
        except (yaml.YAMLError, RecursionError):
            continue  # not a board file Zephyr's build would take either
        doc = doc if isinstance(doc, dict) else {}
        entries = doc.get("boards") or [doc.get("board") or {}]
        for e in entries if isinstance(entries, list) else [entries]:
            if isinstance(e, dict) and "name" in e:
                if not isinstance(e["name"], str):
                    raise RtbenchError(f"{path}: a board's name is {type(e['name']).__name__}, "
                                       "not text (Zephyr's board.yml schema: name: a string)")
                names.add(e["name"])
    return names


def check_board(kernel, board: str) -> None:
    """NAME[/SOC[/CPU]] must name a board of this tree: one line, exit 2."""
    name = board.split("/", 1)[0]
    if not name or any(c.isspace() for c in board):
        raise RtbenchError(f"--board {board!r}: not a Zephyr board name (NAME or NAME/SOC, "
                           "e.g. mps2/an385)")
    known = board_names(kernel.src)
    if name not in known:
        near = ", ".join(sorted(known)[:8]) or "none"
        raise RtbenchError(f"--board {board}: this Zephyr tree ({kernel.src}) has no board "
                           f"{name!r} (no boards/**/board.yml names it; it has: {near})")


def flash_notes(board: str, build_dir: Path, out: Path, images: list[str], ids: list[str],
                args: list[str], glue: bool, emulated: list[str]) -> str:
    """FLASH.md: what was built, and the three steps from image to stored run
    (`emulated`: QEMU's command line for the image, on a board rtbench emulates)."""
    clock = ("the MPS2 board's counter (rtbench's board support): figures in instructions "
             "under QEMU -icount" if glue else
             "Zephyr's timing API (timing_counter_get): figures in cycles of that counter; "
             "irq.* rows unsupported (no interrupt source rtbench knows on this board)")
    lines = [
        f"# rtbench on {board} (Zephyr)", "",
        f"Images: {', '.join(images)} (built in {build_dir}).",
        f"Built-in command line: `{shlex.join(args)[:200]}{'…' if len(shlex.join(args)) > 200 else ''}` "
        f"({len(ids)} metrics).",
        f"Clock: {clock}.", "",
        "## 1. Flash", "",
    ]
    if emulated:
        lines += ["An emulated board: nothing to flash; QEMU runs the image (it ends the run "
                  "itself through semihosting when built with the board support, else stop it "
                  "after the line `rtbench-harness: exit N`):", "",
                  f"    {shlex.join(emulated)} > board.log", ""]
    else:
        # The build folder is shared by every command line (the line is a
        # variable option): the runner flashes this folder's copies, no rebuild.
        given = " ".join(f"--{Path(n).suffix[1:]}-file {shlex.quote(str(out / n))}"
                         for n in images)
        west = f"west flash --build-dir {shlex.quote(str(build_dir))} --no-rebuild {given}"
        lines += ["With Zephyr's own runner for this board (west, in a west workspace):", "",
                  f"    {west}", "",
                  "or with your probe's tool and zephyr.hex / zephyr.bin (e.g. `pyocd flash "
                  "zephyr.hex`, `nrfjprog --program zephyr.hex --verify --reset`, "
                  "`openocd -f board/… -c 'program zephyr.elf verify reset exit'`).", "",
                  "or through any GDB server (OpenOCD, pyOCD, J-Link's, st-util; here on port "
                  "3333), no west: start capturing the console (step 2) first, then load, "
                  "start at the vector table's reset and let it run:", "",
                  *(f"    {line}" for line in gdb_commands(out / "zephyr.elf")), ""]
    lines += ["## 2. Capture the console", "",
              "The records are JSON lines on the board's Zephyr console (its `zephyr,console` "
              "UART, at the board's default speed, usually 115200 baud). Capture from reset to "
              "the line `rtbench-harness: exit N`, e.g.:", "",
              "    picocom -b 115200 --logfile board.log /dev/ttyACM0", "",
              "(CR or CRLF line ends and other lines around the records are fine.)", "",
              "## 3. Import", "",
              "    rtbench import harness board.log", "",
              "stores the run (its data sheet: `rtbench report latest`).", ""]
    return "\n".join(lines)


def gdb_commands(elf: Path, server: str = "localhost:3333") -> list[str]:
    """Load `elf` through the GDB server at `server` and run it: $sp and $pc
    from Zephyr's vector table (no monitor command, so any server serves),
    then detach, which leaves the board running (tested on QEMU's
    gdbstub: tests/test_zephyr.py)."""
    return ["gdb-multiarch -q -nx -batch -ex 'target extended-remote " + server + "' \\",
            "    -ex load -ex 'set $sp = *(unsigned int *)&_vector_table' \\",
            "    -ex 'set $pc = *(unsigned int *)((char *)&_vector_table + 4)' \\",
            f"    -ex detach {shlex.quote(str(elf))}"]
