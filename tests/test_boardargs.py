"""The STM32F4's two start-ups hand the image the same bytes: QEMU's
`-kernel` boot loads the GDB loader's block into the image's buffer
(`-device loader`) instead of a semihosting command line, and keeps the
stamp log on the USART the console leaves free, so the image runs the same
instructions either way (tests/test_stm32f4_gdb.py compares the figures).
No QEMU here: the commands and files only."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from rtbench.errors import HarnessError
from rtbench.targets import boardargs, qemu
from rtbench.targets.gdbboard import GdbBoardTarget

AT, SIZE = 0x2000_1000, 11 * 1024


@pytest.fixture
def image(tmp_path, monkeypatch):
    monkeypatch.setattr(boardargs, "symbol", lambda elf, name=boardargs.SYMBOL: (AT, SIZE))
    return tmp_path / "image.elf"


def _loaded(cmd: list[str]) -> tuple[bytes, str]:
    (spec,) = [w for w in cmd if w.startswith("loader,file=")]
    opts = dict(o.split("=", 1) for o in spec.split(",")[1:])
    return Path(opts["file"]).read_bytes(), opts["addr"]


def _gdb_block(image: Path, args: list[str]) -> bytes:
    from rtbench import kernels

    kernel = SimpleNamespace(name="freertos", title="FreeRTOS", descriptor=kernels.get("freertos"))
    target = GdbBoardTarget("stm32f4", kernel, "localhost:3333", "socket://localhost:1")
    target.image, target.args_at, target.args_size = image, AT, SIZE
    return target.args_block(args)


def test_the_kernel_boot_loads_the_gdb_loaders_block(image, tmp_path):
    args = ["--only", "method.null,sem.give.no_waiter", "--samples", "20"]
    # a measuring boot, as QemuTarget.start makes it
    cmd = qemu.with_args(qemu.boot_command("stm32f4", image, args, tmp_path),
                         ["--stamp-log", qemu.STAMP_LOG])
    data, addr = _loaded(cmd)
    assert int(addr, 16) == AT and len(data) == SIZE
    gdb = _gdb_block(image, args)
    assert data[:len(gdb)] == gdb  # byte for byte, "nohost" included
    assert gdb.startswith(b"rtbench-args nohost rtbench --only ")
    assert data.endswith(boardargs.EXIT_TAG)  # only QEMU's boot ends through semihosting
    assert not any(w.startswith("enable=on,target=native,arg=") for w in cmd)
    # the stamp log is USART1's output (the first -serial), the console USART2's
    serials = [cmd[i + 1] for i, w in enumerate(cmd) if w == "-serial"]
    assert serials == [f"file:{qemu.STAMP_LOG}", "stdio"]


def test_the_metric_list_boot_has_no_stamp_log_on_either_path(image, tmp_path):
    data, _ = _loaded(qemu.boot_command("stm32f4", image, ["--list"], tmp_path))
    gdb = _gdb_block(image, ["--list"])
    assert data[:len(gdb)] == gdb and b"--stamp-log" not in gdb


def test_a_line_too_long_for_the_buffer_is_refused_on_both_paths(image, tmp_path):
    args = ["--only", "x" * (SIZE - 40)]
    with pytest.raises(HarnessError, match="does not fit"):
        qemu.boot_command("stm32f4", image, args, tmp_path)
    with pytest.raises(HarnessError, match="does not fit"):
        _gdb_block(image, args)


def test_the_mps2_boards_keep_the_semihosting_command_line(tmp_path):
    cmd = qemu.with_args(qemu.boot_command("mps2-an385", tmp_path / "i.elf", ["--samples", "3"]),
                         ["--stamp-log", "stamps.log"])
    assert not any(w.startswith("loader,") for w in cmd)
    k = cmd.index("-semihosting-config") + 1
    assert cmd[k] == ("enable=on,target=native,arg=rtbench,arg=--samples,arg=3,"
                      "arg=--stamp-log,arg=stamps.log")
