"""Fault injection, class 1 of issue 25: output paths.

`-o FILE` (report, compare, history, runs, reference list) writes only a
regular file: a device, a FIFO or a symbolic link at that path is one
line, exit 2, and left as it was. The file is written through a temporary
file made exclusively, so a link another user planted beside it in a
shared directory is never followed.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from faults import one_line_error
from rtbench.cli import main
from rtbench.store import catalog
from synth import full_run, store

COMMANDS = {
    "report": ["report", "1"],
    "compare": ["compare", "1", "1"],
    "history": ["history", "method.null"],
    "runs": ["runs"],
    "reference list": ["reference", "list"],
}


@pytest.fixture
def db(isolated) -> Path:
    path = isolated / "r.db"
    store(path, full_run(catalog.load().ids[:3]))
    return path


def _special(isolated: Path, what: str) -> Path:
    """A path of the kind `what`, made for the test (a writer that replaced
    it must not replace the machine's own /dev/null or /dev/stdout): a
    character device node (as root: /dev/null's numbers), a FIFO nobody
    reads, a symbolic link to a file, a link like /dev/stdout's."""
    path = isolated / f"out-{what.strip('/').replace('/', '-')}"
    if what == "/dev/stdout":
        path.symlink_to("/proc/self/fd/1")
    elif what == "device":
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    elif what == "fifo":
        os.mkfifo(path)
    else:
        (isolated / "target.md").write_text("the link's target\n")
        path.symlink_to(isolated / "target.md")
    return path


@pytest.mark.parametrize("what", ["device", "fifo", "symlink", "/dev/stdout"])
@pytest.mark.parametrize("command", COMMANDS)
def test_an_output_that_is_not_a_regular_file_is_one_line_and_left_alone(
        command, what, db, isolated, capsys):
    path = _special(isolated, what)
    before = os.lstat(path)
    args = [*COMMANDS[command], "-o", str(path)]
    if command != "reference list":
        args += ["--db", str(db)]
    assert main(args) == 2
    line = one_line_error(capsys.readouterr().err)
    assert "rtbench writes only regular files" in line, line
    after = os.lstat(path)
    assert (stat.S_IFMT(after.st_mode), after.st_ino) == (stat.S_IFMT(before.st_mode),
                                                          before.st_ino)
    if what == "symlink":
        assert (isolated / "target.md").read_text() == "the link's target\n"
    assert not [p for p in isolated.iterdir() if p.name.endswith(".tmp")]


def test_a_link_planted_at_the_temporary_name_is_never_followed(db, isolated, capsys):
    """In a directory every user may write, another user plants a link
    where the old writer put its temporary file (`.NAME.PID.tmp`, opened
    without O_EXCL): root then wrote the report into the link's target
    and renamed the link over the output. Now the temporary file has a
    name nobody can guess, made exclusively."""
    shared = isolated / "shared"
    shared.mkdir(mode=0o1777)
    victim = isolated / "root-owned.conf"
    victim.write_text("precious\n")
    (shared / f".r.md.{os.getpid()}.tmp").symlink_to(victim)
    assert main(["report", "1", "--db", str(db), "-o", str(shared / "r.md")]) == 0
    assert victim.read_text() == "precious\n"
    out = shared / "r.md"
    assert not out.is_symlink() and out.read_text().startswith("# ")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask
    assert "wrote" in capsys.readouterr().err


def test_an_existing_output_keeps_its_mode(db, isolated):
    out = isolated / "r.md"
    out.write_text("old\n")
    out.chmod(0o640)
    assert main(["report", "1", "--db", str(db), "-o", str(out)]) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o640 and out.read_text() != "old\n"


@pytest.mark.parametrize("name", ["FLASH.md", "zephyr.elf", "zephyr.bin"])
def test_a_link_planted_in_a_board_images_folder_during_the_build_is_never_followed(
        name, isolated, tmp_path, monkeypatch):
    """`run --kernel zephyr --board NAME --out DIR` checks DIR, builds for a
    minute, then wrote the images (shutil.copyfile) and FLASH.md following
    the links another user planted in DIR meanwhile (issue 35, 1): root
    overwrote the file they pointed to. Now every file goes through the safe
    writer: a link there is one line, and what it points to is left alone."""
    from types import SimpleNamespace

    from rich.console import Console

    from rtbench.errors import RtbenchError
    from rtbench.kernels.zephyr import boards
    from rtbench.measure import own_board

    out, victim = isolated / "img", tmp_path / "victim"
    victim.write_text("root's own\n")
    built = tmp_path / "build" / "zephyr"
    built.mkdir(parents=True)

    def build_image(kernel, board, defs, **build):  # the build's minute: a link appears
        for image in boards.IMAGES:
            (built / image).write_bytes(b"\x7fELF image")
        out.mkdir(exist_ok=True)
        (out / name).symlink_to(victim)
        return built / "zephyr.elf"

    zephyr = own_board.kernels.get("zephyr")
    monkeypatch.setattr(type(zephyr), "resolve", lambda *a: SimpleNamespace(src=tmp_path))
    monkeypatch.setattr(boards, "check_board", lambda kernel, board: None)
    monkeypatch.setattr(own_board.harness, "build_own_image", build_image)
    req = SimpleNamespace(kernel="zephyr", kernel_src=None, modules=None, userspace=False,
                          kernel_profile=None, board="mps2/an385", board_glue=True,
                          patterns=["sem.give.no_waiter"], samples=10, warmup=1, budget_ms=100,
                          out=out)
    with pytest.raises(RtbenchError, match="is a symbolic link"):
        own_board.build(req, Console(file=open(os.devnull, "w")))
    assert victim.read_text() == "root's own\n" and (out / name).is_symlink()


def test_a_link_planted_at_the_out_folders_probe_is_never_followed(isolated, tmp_path):
    """The check that --out is writable wrote `.rtbench-probe-<pid>` (a name
    anyone can guess) following a link planted there: now it is made
    exclusively, and a link there is one line."""
    from rtbench.errors import RtbenchError
    from rtbench.measure.outdir import CreatedDirs

    out, victim = isolated / "o", tmp_path / "victim"
    out.mkdir()
    victim.write_text("root's own\n")
    (out / f".rtbench-probe-{os.getpid()}").symlink_to(victim)
    with pytest.raises(RtbenchError, match="cannot write"):
        CreatedDirs().make(out, "--out")
    assert victim.read_text() == "root's own\n"
