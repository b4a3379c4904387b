"""`rtbench run --kernel zephyr --board NAME`: rtbench's Zephyr port built for
any board of the user's Zephyr tree, to flash and run away from rtbench.

rtbench cannot reach a board it has no target for, so this measures
nothing: it builds the image (the same core, scenarios and port as on the
emulated board) with the command line built in (the selected metrics,
samples, warm-up and budget, as `rtbench run` would pass them), writes it to
the output folder with FLASH.md (how to flash it, capture its console and
import the log), and stops. The board prints the harness's records on its
Zephyr console; `rtbench import harness LOG` stores them as a run.

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

from rich.console import Console
from rich.markup import escape

from rtbench.errors import RtbenchError
from rtbench.peers import programs
from rtbench.sheets import files
from rtbench.store import catalog as catalog_mod
from rtbench.store.text import read_input
from rtbench.targets import harness, kernels, qemu

IMAGES = ("zephyr.elf", "zephyr.hex", "zephyr.bin")  # what Zephyr's build leaves, when it does
BOARD_FILE_LIMIT = 1 << 20  # bytes: a board.yml is a few hundred
MPS2 = {"mps2/an385": "mps2-an385", "mps2/an386": "mps2-an386"}  # QEMU machines of rtbench's


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


def check_board(kernel: kernels.Kernel, board: str) -> None:
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


def harness_args(req, ids: list[str]) -> list[str]:
    """The command line built into the image: as the run path passes it."""
    return ["rtbench-harness", "--only", ",".join(ids), "--samples", str(req.samples),
            "--warmup", str(req.warmup), "--budget-ms", str(req.budget_ms)]


def build(req, console: Console) -> int:
    """Build the image for req.board, write it and FLASH.md to the output
    folder; 0. Bad input or a failed build: RtbenchError (one line, exit 2)."""
    kernel = kernels.get("zephyr", req.kernel_src, req.zephyr_modules,
                         req.userspace, req.kernel_profile)
    check_board(kernel, req.board)
    cat = catalog_mod.load()
    ids = cat.match(req.patterns)
    host_only = set(programs.program_ids(cat, ids))  # standard Linux programs, not the harness
    ids = [i for i in ids if i not in host_only]
    args = harness_args(req, ids)
    out = req.out or Path(f"rtbench-zephyr-{req.board.replace('/', '-')}")
    if out.exists() and any(out.iterdir()):
        raise RtbenchError(f"--out {out}: exists and is not empty (give a new folder)")
    say = lambda text: console.print(escape(text), soft_wrap=True, highlight=False)  # noqa: E731
    defs = {"RTB_ZEPHYR_ARGS": shlex.join(args),
            "RTB_BOARD_GLUE": "ON" if req.board_glue else "OFF"}
    with harness.announcing(say):
        elf = harness.build_zephyr_image(kernel, req.board, defs)
    out.mkdir(parents=True, exist_ok=True)
    # The folder may be another user's (a shared /tmp): what was planted in
    # it during the build (a link to a file of root's) is refused, never
    # followed: every file through the safe writer (sheets.files).
    written = []
    for name in IMAGES:
        if (elf.parent / name).is_file():
            files.atomic_write(out / name, (elf.parent / name).read_bytes())
            written.append(name)
    glue = req.board_glue and req.board in MPS2
    files.atomic_write(out / "FLASH.md", flash_notes(req.board, elf.parent.parent, out, written,
                                                     ids, args, glue))
    say(f"built rtbench's Zephyr image for {req.board} ({len(ids)} metrics built in): "
        f"{', '.join(str(out / n) for n in written)}")
    say(f"how to flash it, capture its console and import the log: {out / 'FLASH.md'}")
    if req.board in MPS2:
        say(f"on QEMU: {shlex.join(qemu_command(req.board, out / 'zephyr.elf'))} > board.log")
    say("then: rtbench import harness board.log")
    return 0


def qemu_command(board: str, image: Path) -> list[str]:
    """The emulated board's command line for an image with its command line built in."""
    return qemu.boot_command(MPS2[board], image)


def flash_notes(board: str, build_dir: Path, out: Path, images: list[str], ids: list[str],
                args: list[str], glue: bool) -> str:
    """FLASH.md: what was built, and the three steps from image to stored run."""
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
    if board in MPS2:
        lines += ["An emulated board: nothing to flash; QEMU runs the image (it ends the run "
                  "itself through semihosting when built with the board support, else stop it "
                  "after the line `rtbench-harness: exit N`):", "",
                  f"    {shlex.join(qemu_command(board, out / 'zephyr.elf'))} > board.log", ""]
    else:
        lines += ["With Zephyr's own runner for this board (west, in a west workspace):", "",
                  f"    west flash --build-dir {build_dir}", "",
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
