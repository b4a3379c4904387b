"""`rtbench run --kernel K --board NAME`: rtbench's port of a kernel that
builds for any board of its own tree (its descriptor: own_boards; Zephyr),
to flash and run away from rtbench.

rtbench cannot reach a board it has no target for, so this measures
nothing: it builds the image (the same core, scenarios and port as on the
emulated board) with the command line built in (the selected metrics,
samples, warm-up and budget, as `rtbench run` would pass them), writes it to
the output folder with FLASH.md (how to flash it, capture its console and
import the log: the descriptor's words), and stops. The board prints the
harness's records on its console; `rtbench import harness LOG` stores them
as a run.
"""

from __future__ import annotations

import hashlib
import shlex
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from rtbench import kernels
from rtbench.errors import RtbenchError
from rtbench.peers import programs
from rtbench.sheets import files
from rtbench.store import catalog as catalog_mod
from rtbench.targets import harness, profiles, qemu


def harness_args(req, ids: list[str]) -> list[str]:
    """The command line built into the image: as the run path passes it."""
    return ["rtbench-harness", "--only", ",".join(ids), "--samples", str(req.samples),
            "--warmup", str(req.warmup), "--budget-ms", str(req.budget_ms)]


def build(req, console: Console) -> int:
    """Build the image for req.board, write it and FLASH.md to the output
    folder; 0. Bad input or a failed build: RtbenchError (one line, exit 2)."""
    d = kernels.get(req.kernel)
    kernel = kernels.resolve(d.name, req.kernel_src, profiles.check(req.kernel_profile),
                             req.modules, req.userspace)
    d.own_board(kernel, req.board)
    cat = catalog_mod.load()
    ids = cat.match(req.patterns)
    host_only = set(programs.program_ids(cat, ids))  # standard Linux programs, not the harness
    ids = [i for i in ids if i not in host_only]
    args = harness_args(req, ids)
    out = req.out or Path(f"rtbench-{d.name}-{req.board.replace('/', '-')}")
    if out.exists() and any(out.iterdir()):
        raise RtbenchError(f"--out {out}: exists and is not empty (give a new folder)")
    say = lambda text: console.print(escape(text), soft_wrap=True, highlight=False)  # noqa: E731
    # The command line is a variable option, kept out of the build's key: an
    # image for another --only list recompiles one file, not the kernel. The
    # images are copied, under the build's lock, to a folder of this line's.
    line = shlex.join(args)
    kept = f"board-{hashlib.sha256(line.encode()).hexdigest()[:12]}/{Path(d.project_image).name}"
    with harness.announcing(say):
        elf = harness.build_own_image(kernel, req.board,
                                      {"RTB_BOARD_GLUE": "ON" if req.board_glue else "OFF"},
                                      variable={d.args_var: line}, keep_as=kept,
                                      beside=tuple(d.own_board_images))
    out.mkdir(parents=True, exist_ok=True)
    # The folder may be another user's (a shared /tmp): what was planted in
    # it during the build (a link to a file of root's) is refused, never
    # followed: every file through the safe writer (sheets.files).
    written = []
    for name in d.own_board_images:
        if (elf.parent / name).is_file():
            files.atomic_write(out / name, (elf.parent / name).read_bytes())
            written.append(name)
    ours = d.rtbench_board(req.board)
    emulated = qemu_command(ours, out / elf.name) if ours else []
    glue = req.board_glue and ours is not None
    files.atomic_write(out / "FLASH.md", d.own_board_notes(req.board, elf.parent.parent, out,
                                                           written, ids, args, glue, emulated))
    say(f"built rtbench's {d.title} image for {req.board} ({len(ids)} metrics built in): "
        f"{', '.join(str(out / n) for n in written)}")
    say(f"how to flash it, capture its console and import the log: {out / 'FLASH.md'}")
    if emulated:
        say(f"on QEMU: {shlex.join(emulated)} > board.log")
    say("then: rtbench import harness board.log")
    return 0


def qemu_command(board: str, image: Path) -> list[str]:
    """An emulated board's command line for an image with its command line built in."""
    return qemu.boot_command(board, image)
