"""Zephyr beyond the checks every kernel gets (test_board_target.py, the
window audit): the userspace build, whose .process rows run in user-mode
threads, three kernels in one command, stored as three runs and compared,
and its peers (latency_measure, Thread-Metric, rtos-benchmark's Zephyr
port). (CI sets RTBENCH_REQUIRE_BOARD=1: a missing tool fails there.)"""

import json
import os
from pathlib import Path

import pytest

from conftest import kernel_env, rtos_benchmark_src, zephyr_missing
from rtbench.cli import main
from rtbench.kernels.zephyr import boards as zephyr_boards
from rtbench.measure import own_board
from rtbench.peers import latency_measure, rtosbench
from rtbench.store.db import Store
from rtbench.kernels.zephyr import mpu_window


@pytest.fixture
def zephyr(board_cache, monkeypatch):
    why = zephyr_missing()
    if why:
        if os.environ.get("RTBENCH_REQUIRE_BOARD") == "1":
            pytest.fail(f"the Zephyr image cannot be built: {why}")
        pytest.skip(f"Zephyr: {why}")
    monkeypatch.setenv("XDG_CACHE_HOME", str(board_cache))
    kernel_env(monkeypatch)


def test_the_userspace_build_runs_user_rows_in_user_mode(isolated, zephyr):
    """.process rows between user-mode threads, .k_to_u and .u_to_k between a
    kernel-mode and a user-mode one, the null system call from a user-mode
    task; the image built with its MPU driver off QEMU's TLB collision."""
    only = ("sem.give.no_waiter,sched.yield.ctx.*,sem.give.wake_ctx.*,syscall.null.overhead,"
            "fifo.put.wake_ctx.process")
    assert main(["run", "--target", "mps2-an385", "--kernel", "zephyr", "--userspace", "--quick",
                 "--only", only, "--db", "r.db", "--out", "o"]) == 0
    env = json.loads((isolated / "o" / "results.json").read_text())
    got = {m["id"]: m for m in env["metrics"]}
    assert env["host"]["os"] == "Zephyr (userspace)"
    assert env["session"]["target"]["userspace"].startswith("on")
    for mid in ("sched.yield.ctx.process", "sem.give.wake_ctx.process", "sched.yield.ctx.k_to_u",
                "sched.yield.ctx.u_to_k", "sem.give.wake_ctx.k_to_u", "sem.give.wake_ctx.u_to_k",
                "syscall.null.overhead"):
        assert got[mid]["status"] == "ok" and got[mid]["unit"] == "instructions", got[mid]
    assert got["sem.give.wake_ctx.k_to_u"]["tasks"] == "kernel_to_user"
    # unsupported in the port's words, not "not provided by this port"
    fifo = got["fifo.put.wake_ctx.process"]
    assert fifo["status"] == "unsupported" and "not system calls" in fifo["reason"], fifo
    # a switch into a user thread goes through the system-call layer and an MPU
    # region more (its counter): dearer than one into a kernel thread, and one
    # from a user thread dearer than one from a kernel thread
    p50 = {mid: got[mid]["p50"] for mid in got if got[mid]["status"] == "ok"}
    for op in ("sched.yield.ctx", "sem.give.wake_ctx"):
        assert p50[f"{op}.thread"] < p50[f"{op}.u_to_k"] < p50[f"{op}.process"], p50
        assert p50[f"{op}.thread"] < p50[f"{op}.k_to_u"] < p50[f"{op}.process"], p50
    spans = mpu_window.mpu_code(Path(env["host"]["image"]))
    assert spans and not mpu_window.collides(spans), "the MPU driver lies on QEMU's TLB collision"


def test_the_kernel_build_says_why_the_user_rows_are_unsupported(isolated, zephyr):
    assert main(["run", "--target", "mps2-an385", "--kernel", "zephyr", "--quick", "--only",
                 "sem.give.wake_ctx.k_to_u,syscall.null.overhead,sem.delete", "--db", "r.db",
                 "--out", "o"]) == 0
    got = {m["id"]: m for m in json.loads((isolated / "o" / "results.json").read_text())["metrics"]}
    for mid in ("sem.give.wake_ctx.k_to_u", "syscall.null.overhead"):
        assert got[mid]["status"] == "unsupported" and "--userspace" in got[mid]["reason"]
    # the port's words, once: "sem_delete: Zephyr objects are not deleted (k_sem has no delete)"
    assert got["sem.delete"]["reason"] == ("sem_delete: Zephyr objects are not deleted "
                                           "(k_sem has no delete)"), got["sem.delete"]


def test_three_kernels_in_one_command_are_six_runs_and_their_comparisons(isolated, zephyr,
                                                                        capsys):
    """The shoot-out runs every kernel in both kernel profiles (six runs),
    then compares the kernels in each profile, each comparison headed by
    its profile, and sets the profiles side by side with each kernel's
    settings and their sources."""
    only = "sched.yield.ctx.thread,sem.give.no_waiter,sem.take.available"
    assert main(["run", "--target", "mps2-an385", "--kernel", "freertos,threadx,zephyr",
                 "--quick", "--only", only, "--db", "r.db", "--out", "k"]) == 0
    out = capsys.readouterr().out
    with Store(isolated / "r.db") as store:
        runs = [store.get_run(r.id) for r in store.list_runs()]
    assert sorted((r.host["kernel_profile"], r.host["os"]) for r in runs) == [
        (p, k) for p in ("defaults", "speed") for k in ("FreeRTOS", "ThreadX", "Zephyr")]
    assert all(r.status == "complete" for r in runs)
    for r in runs:  # each image says the profile it was built in
        assert r.session["target"]["profile"] == r.host["kernel_profile"]
    for profile in ("defaults", "speed"):
        for kernel in ("freertos", "threadx", "zephyr"):
            assert (isolated / "k" / profile / kernel / "results.json").is_file()
    md = (isolated / "k" / "compare.md").read_text()
    defaults, speed = md.index("# Kernel profile defaults"), md.index("# Kernel profile speed")
    side = md.index("# Kernel profiles side by side")
    assert defaults < speed < side
    for part in (md[defaults:speed], md[speed:side]):  # the first screen of each comparison
        assert part.index("## Key rows (instructions)") < part.index(
            "## Fastest, section by section") < part.index("## Configuration")
        assert "| Context switch via yield |" in part.split("## Fastest")[0]
        for title in ("FreeRTOS V11", "ThreadX 6.4.2", "Zephyr 4.0.0"):
            assert title in part
    assert "| the same kernel profile (docs/profiles.md) | yes | defaults |" in md
    table = md[side:]
    assert "| Context switch via yield | sched.yield.ctx.thread |" in table
    assert "FreeRTOS defaults" in table and "Zephyr speed" in table
    for kernel in ("FreeRTOS V11.3.0", "ThreadX 6.4.2", "Zephyr 4.0.0"):
        assert f"## {kernel}: its settings per profile" in table
    assert "| TX_DISABLE_PREEMPTION_THRESHOLD | (not listed: as shipped) | defined |" in table
    assert "common/inc/tx_user_sample.h:82" in table
    assert "| CONFIG_SPEED_OPTIMIZATIONS |" in table
    assert "kernel profile defaults: comparison of runs" in out
    assert "kernel profile speed: comparison of runs" in out and "6 runs measured in" in out


@pytest.mark.parametrize("args, says", [
    (["--target", "mps2-an385", "--kernel", "freertos,freertos"], "a kernel is listed twice"),
    (["--target", "mps2-an385", "--kernel", "freertos,vxworks"], "unknown --kernel 'vxworks'"),
    (["--kernel", "freertos,threadx"], "several kernels run on an emulated board"),
    (["--target", "mps2-an385", "--kernel", "freertos,threadx", "--kernel-src", "/x"],
     "--kernel-src names one kernel's checkout"),
    (["--target", "mps2-an385", "--kernel", "freertos,threadx", "--userspace"],
     "--zephyr-modules and --userspace are for zephyr"),
])
def test_several_kernels_refuse_bad_input_in_one_line(isolated, capsys, args, says):
    assert main(["run", *args, "--db", "r.db", "--out", "o"]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1
    assert not (isolated / "o").exists() and not (isolated / "r.db").exists()


def _peer_run(db: Path, tool: str):
    """The peer run whose records come from `tool` (their source's tool)."""
    with Store(db, create=False) as store:
        peers = [store.get_run(r.id) for r in store.list_runs() if r.origin == "peer"]
    return next(r for r in peers if any((m.get("source") or {}).get("tool") == tool
                                        for m in r.metrics))


def test_latency_measure_runs_beside_and_each_row_agrees_or_says_why(zephyr_peers_run, capsys):
    """Zephyr's own benchmark (and Thread-Metric), built from the same tree
    by the same rule and run on the same board: its averages (converted to instructions) agree
    with rtbench's means where both time the same path, and where they do
    not, the row names the cause read in its sources. The run is
    docs/peers.md's (conftest.zephyr_peers_run: `--with-peers`, made once)."""
    lm = _peer_run(zephyr_peers_run, latency_measure.TOOL)  # "zephyr latency_measure", stock first
    tm = _peer_run(zephyr_peers_run, "Thread-Metric")
    got = {m["id"]: m for m in lm.metrics}
    for mid in ("sched.yield.ctx.thread", "sem.give.no_waiter", "fifo.put.alloc.immediate"):
        assert got[mid]["status"] == "ok" and got[mid]["unit"] == "instructions", got[mid]
    assert lm.session["source"]["instructions_per_cycle"] == 0.3125
    assert lm.session["source"]["configuration"] == "stock"
    # Thread-Metric through rtbench's Zephyr layer (tm_zephyr.c): every test but the two
    # that trap with SVC, which Zephyr owns; the basic test runs no kernel call, so its
    # count is the board's speed less the tick's work (FreeRTOS and ThreadX: 952)
    tm_got = {m["id"].split(":", 1)[1]: m for m in tm.metrics}
    for key in ("basic_processing", "cooperative_scheduling", "preemptive_scheduling",
                "message_processing", "synchronization_processing", "memory_allocation"):
        assert tm_got[key]["status"] == "ok", tm_got[key]
        assert tm_got[key]["p50"] > 0 and not tm_got[key]["source"].get("errors"), tm_got[key]
    assert 900 < tm_got["basic_processing"]["p50"] <= 952
    for key in ("interrupt_processing", "interrupt_preemption_processing"):
        assert tm_got[key]["status"] == "unsupported" and "SVC" in tm_got[key]["reason"]
    capsys.readouterr()
    assert main(["compare", "1", "--db", str(zephyr_peers_run), "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert "**semaphore.give.immediate.kernel** → `sem.give.no_waiter`: agrees" in md
    assert "**thread.yield.preemptive.ctx.k_to_k** → `sched.yield.ctx.thread`: agrees" in md
    assert ("**fifo.put.alloc.immediate.kernel** → `fifo.put.alloc.immediate`: differs by -" in md
            and "takes no timestamp overhead off this row (its source prints the raw sum)" in md)
    assert "## latency_measure two ways: stock" in md


def test_rtos_benchmark_runs_beside_in_instructions_interrupt_test_and_all(isolated, zephyr,
                                                                          capsys, monkeypatch):
    """rtos-benchmark's Zephyr port from the checkout $RTBENCH_RTOS_BENCHMARK_SRC
    names, built by the same rule and run on the same board: every row it
    prints stored in instructions (its virtual ns ÷ 128), its interrupt test
    run to the end, and each row beside rtbench's with whether they agree."""
    src = rtos_benchmark_src()
    if src is None:
        if os.environ.get("RTBENCH_REQUIRE_BOARD") == "1":
            pytest.fail("no rtos-benchmark checkout (RTBENCH_RTOS_BENCHMARK_SRC or "
                        "../shared/third_party/rtos-benchmark)")
        pytest.skip("no rtos-benchmark checkout")
    monkeypatch.setenv(rtosbench.SRC_ENV, str(src))
    only = "csem.give.no_waiter,rmutex.unlock.wake_ctx.thread,irq.prolog.c_call"
    assert main(["run", "--target", "mps2-an385", "--kernel", "zephyr", "--quick", "--with-peers",
                 "--only", only, "--db", "r.db", "--out", "o"]) == 0
    out = capsys.readouterr().out
    assert "peer rtos-benchmark: building and running its Zephyr port on mps2-an385" in out
    run = _peer_run(isolated / "r.db", "rtos-benchmark")
    got = {m["id"]: m for m in run.metrics}
    session = run.session["source"]
    assert session["kernel"].startswith("Zephyr") and session["complete"]
    assert session["unit"] == "ns" and session["icount_shift"] == 7
    assert session["iterations"] == 1000 and 10 < session["empty_window"] < 100
    for mid in (*only.split(","), "task.create.unstarted.thread", "sched.yield.ctx.thread"):
        rec = got[mid]
        assert rec["status"] == "ok" and rec["unit"] == "instructions" and rec["n"] == 1000, rec
        assert 0 < rec["min"] <= rec["mean"] <= rec["max"] and "tick_hz" not in rec
        assert rec["mean"] * 128 == rec["source"]["ns"]["mean"]  # its own figure, exactly
    # the interrupt test ran (no MPU fault at VTOR 0, no lock-up on a VTOR cut to 0x200)
    assert got["irq.prolog.c_call"]["max"] < 20
    assert not [m for m in run.metrics if m["status"] == "failed"]
    assert got["msgq.create"]["status"] == "unsupported"  # its port has no queue calls
    assert main(["compare", "1", "--db", "r.db", "--format", "json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)["detail"]["rows"]
            if r["program"] == "rtos-benchmark"}
    for mid in only.split(","):
        row = rows[mid]
        assert row["peer_unit"] == row["ours_unit"] == "instructions", mid
        assert row["ours_status"] == "ok" and row["why"].startswith(("agrees: ", "differs by ")), row
    assert main(["compare", "1", "--db", "r.db", "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert "rtos-benchmark's Zephyr port ran in the same QEMU" in md
    assert "**Interrupt Stats / Latency** → `irq.prolog.c_call`: " in md


@pytest.mark.parametrize("glue, unit", [("--no-board-glue", "cycles"),
                                        ("--board-glue", "instructions")])
def test_an_image_for_any_board_runs_away_from_rtbench_and_its_log_imports(isolated, zephyr,
                                                                           capsys, glue, unit):
    """--board NAME writes an image with its command line built in and
    FLASH.md; the board's console log imports as a run. Tested on the
    emulated AN385 both ways: with rtbench's board support, and as any
    other board gets it (Zephyr's timing API, no interrupt source)."""
    assert main(["run", "--kernel", "zephyr", "--board", "mps2/an385", glue, "--quick",
                 "--only", "sched.yield.ctx.thread,irq.response", "--out", "img"]) == 0
    img = isolated / "img"
    notes = (img / "FLASH.md").read_text()
    assert "rtbench import harness board.log" in notes and "--only irq.response," in notes
    text, done = latency_measure.run_until(
        own_board.qemu_command("mps2-an385", img / "zephyr.elf"), "rtbench-harness: exit",
        120.0) if glue == "--no-board-glue" else (_run_to_exit(img / "zephyr.elf"), True)
    assert done, text[-500:]
    (isolated / "board.log").write_text(text)
    assert main(["import", "harness", "board.log", "--db", "r.db"]) == 0
    with Store(isolated / "r.db") as store:
        got = {m["id"]: m for m in store.get_run(1).metrics}
    assert got["sched.yield.ctx.thread"]["status"] == "ok"
    assert got["sched.yield.ctx.thread"]["unit"] == unit
    if glue == "--no-board-glue":
        assert got["irq.response"]["status"] == "unsupported"
        assert "no interrupt source" in got["irq.response"]["reason"]
    else:
        assert got["irq.response"]["status"] == "ok"


def _run_to_exit(image) -> str:
    """With the board support the image ends QEMU itself (semihosting)."""
    import subprocess

    done = subprocess.run(own_board.qemu_command("mps2-an385", image), capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout[-500:] + done.stderr[-500:]
    return done.stdout


@pytest.mark.parametrize("args, says", [
    (["--kernel", "zephyr", "--board", "nrf52840dk/nrf52840"], "has no board 'nrf52840dk'"),
    (["--kernel", "freertos", "--board", "mps2/an385"], "--board NAME: for --kernel zephyr"),
    (["--kernel", "zephyr", "--no-board-glue"], "--no-board-glue: with --board NAME"),
    (["--kernel", "zephyr", "--board", "mps2/an385", "--target", "mps2-an385"],
     "--target: not with --board"),
    (["--kernel", "zephyr", "--board", "mps2/an385", "--with-peers"],
     "--with-peers: not with --board"),
])
def test_a_board_image_refuses_bad_input_in_one_line(isolated, zephyr, capsys, args, says):
    assert main(["run", *args, "--out", "img"]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1, err
    assert not (isolated / "img").exists()


def test_any_zephyr_board_loads_through_a_gdb_server_as_flash_md_says(isolated, zephyr):
    """The GDB route FLASH.md gives for a board without west (the commands
    of zephyr_boards.gdb_commands, as written), driven against QEMU's
    gdbstub as against a probe's server: QEMU halted with no image, its
    UART on a socket read from before the load, the image loaded and run,
    the console's log imported as a run."""
    import shlex
    import shutil
    import socket
    import subprocess

    if shutil.which("gdb-multiarch") is None:
        pytest.skip("gdb-multiarch is missing")
    assert main(["run", "--kernel", "zephyr", "--board", "mps2/an385", "--no-board-glue",
                 "--quick", "--only", "sem.give.no_waiter", "--out", "img"]) == 0
    ports = []
    for _ in range(2):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])
    qemu = subprocess.Popen(
        ["qemu-system-arm", "-M", "mps2-an385", "-display", "none", "-monitor", "none",
         "-serial", f"tcp:127.0.0.1:{ports[0]},server=on,wait=on",
         "-icount", "shift=7,align=off,sleep=off", "-gdb", f"tcp:127.0.0.1:{ports[1]}", "-S"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        console = None
        for _ in range(100):  # QEMU's socket, once it listens
            try:
                console = socket.create_connection(("127.0.0.1", ports[0]), timeout=120)
                break
            except OSError:
                import time

                time.sleep(0.1)
        assert console is not None
        lines = zephyr_boards.gdb_commands(isolated / "img" / "zephyr.elf",
                                          f"127.0.0.1:{ports[1]}")
        argv = shlex.split(" ".join(line.rstrip("\\").strip() for line in lines))
        subprocess.run(argv, check=True, timeout=120, capture_output=True)
        text = b""
        while b"rtbench-harness: exit" not in text:
            data = console.recv(4096)
            assert data, text[-300:]
            text += data
        console.close()
    finally:
        qemu.kill()
        qemu.wait()
    (isolated / "board.log").write_bytes(text)
    assert main(["import", "harness", "board.log", "--db", "r.db"]) == 0
    with Store(isolated / "r.db") as store:
        got = {m["id"]: m for m in store.get_run(1).metrics}
    assert got["sem.give.no_waiter"]["status"] == "ok"


def test_board_images_for_other_metrics_share_one_build(isolated, zephyr, board_cache):
    """The command line built into a --board image is a variable option: an
    image for another --only list recompiles main.c in the same build folder
    (not the whole of Zephyr again), and each image keeps its own line."""
    lines = {"a": "sem.give.no_waiter", "b": "irq.response,sched.yield.ctx.thread"}
    for out, only in lines.items():
        assert main(["run", "--kernel", "zephyr", "--board", "mps2/an385", "--no-board-glue",
                     "--quick", "--only", only, "--out", out]) == 0
    for out, only in lines.items():
        elf = (isolated / out / "zephyr.elf").read_bytes()
        assert f"--only {only} ".encode() in elf
        assert f"--only {lines['b' if out == 'a' else 'a']} ".encode() not in elf
        assert (isolated / out / "zephyr.bin").is_file()  # what the build left beside it
    no_glue = [c for c in (board_cache / "rtbench").glob("zephyr-mps2-an385-*/CMakeCache.txt")
               if "RTB_BOARD_GLUE:BOOL=OFF" in c.read_text()]
    assert len(no_glue) == 1, no_glue


def test_flash_md_flashes_the_images_of_its_own_command_line(tmp_path):
    """The build folder is shared by every --only list (the command line is
    a variable option), so `west flash --build-dir` alone would flash (or
    rebuild) whichever image was built there last: FLASH.md names the
    copies in --out and says --no-rebuild."""
    out = tmp_path / "my img"
    notes = zephyr_boards.flash_notes("nrf52840dk/nrf52840", tmp_path / "build", out,
                               ["zephyr.elf", "zephyr.hex"], ["sem.give.no_waiter"],
                               ["rtbench-harness", "--only", "sem.give.no_waiter"], False, [])
    west = next(line.strip() for line in notes.splitlines() if "west flash" in line)
    assert west == (f"west flash --build-dir {tmp_path / 'build'} --no-rebuild "
                    f"--elf-file '{out / 'zephyr.elf'}' --hex-file '{out / 'zephyr.hex'}'")
