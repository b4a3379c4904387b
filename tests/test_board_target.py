"""The emulated boards end to end: FreeRTOS and ThreadX on QEMU's MPS2 AN385
(Cortex-M3) and AN386 (Cortex-M4F), Zephyr on the AN385 (Zephyr 4.0 has no
AN386), each built from its kernel sources with CMake and the cross
toolchain (Zephyr's own build for Zephyr), booted under -icount; the same
checks for every kernel and board.

Under -icount a figure is a count of guest instructions, the same on every
run of the same image: these tests check exact values where the method
fixes them (the null measurement, the known loop, two runs alike), never a
time. (CI sets RTBENCH_REQUIRE_BOARD=1: a missing tool fails there instead
of skipping.)
"""

import json
import os
import subprocess
import sys

import pytest

from conftest import determinism_rows, kernel_env, zephyr_missing
from rtbench.cli import main
from rtbench.store import catalog
from procs import qemu_children

BOARD = ["--target", "mps2-an385", "--kernel", "freertos"]
# What each kernel's run must show: its port, its kernel fact, the least
# number of ok metrics (the services the port provides: list --coverage),
# words of its configuration in the sheet, and its yield in instructions.
EXPECT = {
    "freertos": {"kernel": "FreeRTOS V", "ok": 140,
                 "yield": {"mps2-an385": 55, "mps2-an386": 63},
                 "port": {"mps2-an385": "GCC/ARM_CM3", "mps2-an386": "GCC/ARM_CM4F"},
                 "sheet": ("FreeRTOS V11", "asserts off", "tick hz 1000")},
    "threadx": {"kernel": "ThreadX 6.", "ok": 135,
                "yield": {"mps2-an385": 62, "mps2-an386": 66},
                "port": {"mps2-an385": "cortex_m3/gnu", "mps2-an386": "cortex_m4/gnu"},
                "sheet": ("ThreadX 6.4.2", "asserts off (TX_DISABLE_ERROR_CHECKING",
                          "tick hz 1000")},
    "zephyr": {"kernel": "Zephyr 4.", "ok": 140, "boards": ("mps2-an385",),
               "yield": {"mps2-an385": 96},
               "port": {"mps2-an385": "arch/arm (Cortex-M)"},
               "sheet": ("Zephyr 4.0.0", "asserts off (CONFIG_ASSERT=n", "tick hz 1000")},
    "rtx5": {"kernel": "RTX V5.", "ok": 130,
             "yield": {"mps2-an385": 87, "mps2-an386": 94},
             "port": {"mps2-an385": "GCC/irq_armv7m.S", "mps2-an386": "GCC/irq_armv7m.S"},
             "sheet": ("RTX V5.9.1", "stack check off (OS_STACK_CHECK 0)", "tick hz 1000"),
             # CMSIS-RTOS2 has no interrupt-masking call (irq.disable: unsupported)
             "no_mask": "no interrupt-masking or critical-section call"},
}
BOARDS = {"mps2-an385": "Cortex-M3", "mps2-an386": "Cortex-M4F"}


def board_args(kernel: str) -> list[str]:
    return ["--target", "mps2-an385", "--kernel", kernel]


@pytest.fixture
def board(board_cache, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(board_cache))
    kernel_env(monkeypatch)


def need(kernel: str) -> None:
    """Zephyr needs more than the other kernels (its build's tools, Python
    packages, tree and modules): skipped without them, failed in CI."""
    why = zephyr_missing() if kernel == "zephyr" else ""
    if why:
        if os.environ.get("RTBENCH_REQUIRE_BOARD") == "1":
            pytest.fail(f"the Zephyr image cannot be built: {why}")
        pytest.skip(f"Zephyr: {why}")


@pytest.fixture(scope="module", params=[(k, b) for b in BOARDS for k in EXPECT
                                        if b in EXPECT[k].get("boards", BOARDS)],
                ids=lambda kb: f"{kb[0]}-{kb[1]}")
def full(request, board_runs):
    """The whole catalogue on each kernel and board, twice (quick): the runs
    the other tests read (conftest.board_runs: once per session)."""
    need(request.param[0])
    return board_runs(*request.param)


def kernel_of(env: dict) -> str:
    return env["session"]["port"]


def board_of(env: dict) -> str:
    return env["host"]["target"]


def test_every_metric_of_the_port_is_ok_or_unsupported_with_a_reason(full):
    env = full[0]
    assert env["run"]["status"] == "complete"
    cat = catalog.load()
    got = {m["id"]: m for m in env["metrics"]}
    assert set(got) | set(env["host"]["not_applicable"]) == set(cat.ids)
    # the System part and the signals between CPUs are Linux's (no board has them)
    assert all(i.startswith(("sys.", "xsig.")) for i in env["host"]["not_applicable"])
    for m in got.values():
        assert m["status"] in ("ok", "unsupported"), m
        if m["status"] == "unsupported":
            assert m["reason"], m["id"]
        else:
            assert m["unit"] == "instructions" and "tick_hz" not in m, m["id"]
            assert m["min"] <= m["p50"] <= m["p99"] <= m["max"], m["id"]
    kernel = kernel_of(env)
    ok = [m for m in got.values() if m["status"] == "ok"]
    assert len(ok) >= EXPECT[kernel]["ok"]  # what the port provides: see list --coverage
    session = env["session"]
    assert session["ts"]["unit"] == "instructions"
    assert session["target"]["kernel"].startswith(EXPECT[kernel]["kernel"])
    assert env["host"]["kernel_version"] in session["target"]["kernel"]
    board = board_of(env)
    assert session["target"]["cpu"] == BOARDS[board]  # the board's core, from its CMake
    assert session["target"]["kernel_port"] == EXPECT[kernel]["port"][board]
    assert env["host"]["icount"].startswith("shift=7")


def test_method_checks_are_exact(full):
    got = {m["id"]: m for m in full[0]["metrics"]}
    null, loop = got["method.null"], got["method.busywait"]
    assert null["p50"] == 0 and null["min"] == 0  # the read cost, subtracted exactly
    assert loop["expected"] == 2001
    assert loop["min"] == loop["p50"] == loop["expected"]  # a loop of known length, exact


def test_two_runs_of_one_image_give_identical_figures(full):
    """The same rows twice, once without the cycle model: the plugin changes
    no figure, and a run is repeatable (conftest.determinism_rows)."""
    a, b = ({m["id"]: m for m in env["metrics"]} for env in (full[2], full[1]))
    assert a.keys() == b.keys() == set(determinism_rows())
    assert sum(m["status"] == "ok" for m in b.values()) >= 15  # not a test of nothing
    for mid in a:
        for key in ("status", "n", "min", "p50", "mean", "p99", "max", "hist"):
            assert a[mid].get(key) == b[mid].get(key), (mid, key)


def test_every_ok_row_has_its_estimated_cycles(full):
    """The cycle model (docs/cycles.md) prices every sample of every ok row
    whose samples are windows; a row whose samples are computed from several
    intervals says so. Without it (--no-cycles) no record has cycles."""
    with_model, without = full[0], full[1]
    board = board_of(with_model)
    core = {"mps2-an385": "Cortex-M3", "mps2-an386": "Cortex-M4"}[board]
    assert with_model["host"]["cycle_model"].startswith(f"est. cycles: {core} TRM model")
    assert without["host"]["cycle_model"] == "not loaded (--no-cycles)"
    assert not any("cycles" in m for m in without["metrics"])
    unpaired = []
    for m in with_model["metrics"]:
        if m["status"] != "ok":
            assert "cycles" not in m, m["id"]
            continue
        c = m["cycles"]
        if c["status"] != "ok":
            assert c["status"] == "unpaired" and "intervals" in c["reason"], (m["id"], c)
            unpaired.append(m["id"])
            continue
        assert c["n"] == m["n"] and c["core"] == core and c["hz"] == 25_000_000, m["id"]
        assert c["min"] <= c["p50"] <= c["p90"] <= c["p99"] <= c["p999"] <= c["max"], m["id"]
        assert c["p50_lo"] <= c["p50"] <= c["p50_hi"], m["id"]
        assert sum(b[2] for b in c["hist"]["buckets"]) == c["n"], m["id"]
        assert c["min"] >= m["min"], m["id"]  # no instruction costs less than a cycle
        w = c["window"]  # the median window's split, the audit's classes
        assert w["kernel"] + w["api"] + w["ours"] == w["instructions"], (m["id"], w)
        assert m["min"] <= w["instructions"] <= m["max"], (m["id"], w)
        why = m.get("unranked", "")
        if why.startswith("the kernel adds nothing"):
            assert w["kernel"] == 0, (m["id"], w)
        if why.startswith("built by rtbench's port from"):
            assert why.endswith(f": {w['ours']} of its {w['instructions']} instructions "
                                "are rtbench's"), (m["id"], why)
    # the rows computed from several intervals (the interrupt prologue and
    # epilogue, the kernel's masked regions): a few, never the headline rows
    assert len(unpaired) <= 8, unpaired
    assert not {"irq.response", "sched.yield.ctx.thread", "sem.give.no_waiter"} & set(unpaired)


def test_interrupt_rows_are_measured(full):
    """The interrupt rows (raised from software, a handler in the kernel's
    convention) and the rows that need a hardware timer (the kernel's
    interrupts-off regions, bare handlers) are all measured."""
    env = full[0]
    got = {m["id"]: m for m in env["metrics"]}
    no_mask = EXPECT[kernel_of(env)].get("no_mask")
    for mid in ("irq.response", "irq.task_response.resched", "irq.return.different",
                "irq.handler_to_task", "irq.kernel_latency", "irq.disable",
                "irq.prolog.minimum", "irq.epilog.c_call"):
        if mid == "irq.disable" and no_mask:
            assert got[mid]["status"] == "unsupported" and no_mask in got[mid]["reason"]
            continue
        assert got[mid]["status"] == "ok", mid
    # a handler readying a task costs more than one that only stamps
    assert got["irq.task_response.resched"]["p50"] > got["irq.task_response.no_resched"]["p50"]
    assert env["session"]["target"]["irq_switch_at_exit"] is True
    # the kernel's masked regions delay some interrupts, most find them enabled
    klat = got["irq.kernel_latency"]
    assert klat["min"] == 0 and klat["max"] > 0


def test_sheet_says_the_unit_and_the_target(full, tmp_path):
    env = full[0]
    from rtbench.sheets import datasheet as report
    from rtbench.store.db import Store

    with Store(tmp_path / "x.db") as store:
        run_id = store.import_run(env, "test", "now")
        run = store.get_run(run_id)
    md = report.render_markdown(run, catalog.load())
    results = md.split("## Results")[1].split("## Definitions")[0]
    # no time of the instructions; µs only of the estimated cycles, so labelled
    core = {"mps2-an385": "Cortex-M3", "mps2-an386": "Cortex-M4"}[board_of(env)]
    assert f"est. cycles: {core} TRM model, zero wait states" in results
    assert "median instr" in md and "median est. cycles" in results
    assert "µs" not in results.replace("median est. µs", "").replace("µs at the board's", "")
    assert "QEMU -icount shift=7" in md and "Not CPU cycles, not time" in md
    for words in EXPECT[kernel_of(env)]["sheet"]:
        assert words in md, words


@pytest.mark.parametrize("kernel", list(EXPECT))
def test_a_hanging_image_is_stopped_and_the_run_goes_on(board, isolated, monkeypatch, kernel):
    need(kernel)
    monkeypatch.setenv("RTBENCH_INJECT_FAULT", "hang:sem.give.no_waiter")
    rc = main(["run", *board_args(kernel), "--quick", "--timeout", "3", "--db", "r.db", "--out", "o",
               "--only", "method.null,sem.give.no_waiter,sem.take.available"])
    env = json.loads((isolated / "o" / "results.json").read_text())
    got = {m["id"]: m for m in env["metrics"]}
    assert rc == 0
    assert got["sem.give.no_waiter"]["status"] == "failed"
    # the watchdog waits twice --timeout with the cycle model's plugin in QEMU
    assert got["sem.give.no_waiter"]["reason"] == "timeout after 6s"
    assert got["method.null"]["status"] == got["sem.take.available"]["status"] == "ok"
    assert qemu_children() == []


@pytest.mark.parametrize("kernel", list(EXPECT))
def test_a_crashing_image_is_reported_and_the_run_goes_on(board, isolated, monkeypatch, kernel):
    need(kernel)
    monkeypatch.setenv("RTBENCH_INJECT_FAULT", "crash:sem.give.no_waiter")
    assert main(["run", *board_args(kernel), "--quick", "--db", "r.db", "--out", "o",
                 "--only", "sem.give.no_waiter,sem.take.available"]) == 0
    env = json.loads((isolated / "o" / "results.json").read_text())
    got = {m["id"]: m for m in env["metrics"]}
    # the injected crash reads an address nothing answers: a HardFault where the
    # board's handler takes it (BusFault escalated), a BusFault where Zephyr does
    assert ("BusFault" if kernel == "zephyr" else "HardFault") in got["sem.give.no_waiter"]["reason"]
    assert got["sem.take.available"]["status"] == "ok"
    assert qemu_children() == []


def _cli(args, env):
    return subprocess.run([sys.executable, "-m", "rtbench", *args], capture_output=True,
                          text=True, env=env, timeout=120)


@pytest.mark.parametrize("path_has, says", [
    ((), "qemu-system-arm not found: install qemu-system-arm"),
    (("qemu-system-arm",), "arm-none-eabi-gcc not found: install gcc-arm-none-eabi"),
])
def test_missing_tools_are_one_line_and_exit_2(board, isolated, tmp_path, path_has, says):
    import shutil

    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in path_has:
        (bindir / tool).symlink_to(shutil.which(tool))
    env = {**os.environ, "PATH": str(bindir)}
    proc = _cli(["run", *BOARD, "--db", "r.db", "--out", "o"], env)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and says in proc.stderr, proc.stderr
    assert not (isolated / "o").exists() and not (isolated / "r.db").exists()


@pytest.mark.parametrize("kernel, title, var", [("freertos", "FreeRTOS", "RTBENCH_FREERTOS_SRC"),
                                               ("threadx", "ThreadX", "RTBENCH_THREADX_SRC"),
                                               ("zephyr", "Zephyr", "RTBENCH_ZEPHYR_SRC"),
                                               ("rtx5", "RTX5", "RTBENCH_RTX5_SRC")])
@pytest.mark.parametrize("given", [True, False])
def test_missing_kernel_sources_are_one_line_and_exit_2(board, isolated, kernel, title, var, given):
    env = {k: v for k, v in os.environ.items() if k != var}
    args = ["--kernel-src", "/nonexistent"] if given else []
    says = (f"/nonexistent is not a {title} kernel checkout" if given else
            f"{title} sources not given: pass --kernel-src DIR")
    proc = _cli(["run", *board_args(kernel), "--db", "r.db", *args], env)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and says in proc.stderr


@pytest.mark.parametrize("drop, says", [
    ("ninja", "Zephyr's build needs ninja-build: install ninja-build"),
    ("dtc", "Zephyr's build needs device-tree-compiler: install device-tree-compiler"),
])
def test_a_missing_zephyr_tool_is_one_line_and_exit_2(board, isolated, tmp_path, drop, says):
    import shutil

    need("zephyr")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in ("qemu-system-arm", "arm-none-eabi-gcc", "cmake", "ninja", "dtc"):
        if tool != drop:
            (bindir / tool).symlink_to(shutil.which(tool))
    env = {**os.environ, "PATH": str(bindir)}
    proc = _cli(["run", *board_args("zephyr"), "--db", "r.db", "--out", "o"], env)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and says in proc.stderr, proc.stderr
    assert not (isolated / "o").exists() and not (isolated / "r.db").exists()


def test_zephyr_modules_missing_or_wrong_are_one_line_and_exit_2(board, isolated, tmp_path):
    need("zephyr")
    env = {k: v for k, v in os.environ.items() if k != "RTBENCH_ZEPHYR_MODULES"}
    proc = _cli(["run", *board_args("zephyr"), "--db", "r.db"], env)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "Zephyr's modules not given: pass --zephyr-modules DIR" in proc.stderr
    proc = _cli(["run", *board_args("zephyr"), "--zephyr-modules", str(tmp_path), "--db", "r.db"],
                env)
    assert proc.returncode == 2 and f"--zephyr-modules {tmp_path}: no cmsis module" in proc.stderr
    proc = _cli(["run", "--target", "mps2-an386", "--kernel", "zephyr", "--db", "r.db"],
                dict(os.environ))
    assert proc.returncode == 2 and "has no board mps2/an386" in proc.stderr
    proc = _cli(["run", *board_args("freertos"), "--userspace", "--db", "r.db"], dict(os.environ))
    assert proc.returncode == 2 and "--userspace: for --kernel zephyr" in proc.stderr
    assert not (isolated / "r.db").exists()


def test_host_options_are_refused_on_the_board(board, isolated):
    proc = _cli(["run", *BOARD, "--load", "--cpu", "0"], dict(os.environ))
    assert proc.returncode == 2 and "for the host target only" in proc.stderr


def test_a_console_log_from_a_board_imports_as_the_same_sheet(board, isolated, full):
    """rtbench import harness LOG: the record lines among a console's noise."""
    env = full[0]
    lines = ["U-Boot-ish banner", json.dumps(env["session"])]
    for m in env["metrics"][:5]:
        lines += [json.dumps({"type": "begin", "id": m["id"]}), json.dumps(m), "debug: noise"]
    lines.append(json.dumps({"type": "begin", "id": env["metrics"][5]["id"]}))  # cut here
    (isolated / "board.log").write_text("\r\n".join(lines) + "\r\n")
    assert main(["import", "harness", "board.log", "--db", "r.db"]) == 0
    from rtbench.store.db import Store

    with Store(isolated / "r.db") as store:
        run = store.get_run("latest")
    assert run.status == "incomplete" and len(run.metrics) == 6
    assert run.metrics[-1]["status"] == "failed" and "log ends inside" in run.metrics[-1]["reason"]
    assert run.host["target_kind"] == "board (serial log)"


def test_a_malformed_console_log_is_refused_with_its_line(board, isolated):
    (isolated / "bad.log").write_text('banner\n{"type":"metric","id":"x","status":"ok"}\n')
    proc = _cli(["import", "harness", "bad.log", "--db", "r.db"], dict(os.environ))
    assert proc.returncode == 2 and "bad.log:2:" in proc.stderr
    assert not (isolated / "r.db").exists() or "runs" not in proc.stdout


def test_coverage_has_a_column_per_kernel(board, capsys):
    assert main(["list", "--coverage", "--width", "400"]) == 0
    out = capsys.readouterr().out
    for board in BOARDS:
        assert f"FreeRTOS ({board})" in out and f"ThreadX ({board})" in out
    assert "Linux (host)" in out
    if not zephyr_missing():
        assert "Zephyr (mps2-an385)" in out and "Zephyr (mps2-an386)" not in out
        assert "Zephyr (userspace) (mps2-an385)" in out and "Zephyr (stm32f4)" not in out


def test_compare_with_a_vendor_sheet_states_the_unit(board, isolated, full, capsys):
    from rtbench.store.db import Store

    with Store(isolated / "r.db") as store:
        store.import_run(full[0], "test", "now")
    assert main(["compare", "latest", "--ref", "zephyr", "--db", "r.db"]) == 0
    out = capsys.readouterr().out
    assert "Different units" in out and "no ratio" in out and "instr/cyc" not in out
    assert "thread.yield.preemptive.ctx.k_to_k" in out  # the yield row, in instructions
    assert main(["compare", "latest", "--ref", "zephyr", "--db", "r.db", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["detail"]["rows"]  # latency_measure prints averages
    assert {r["ours_stat"] for r in rows if r["ours_status"] == "ok"} == {"mean"}


def test_a_real_run_sets_its_estimated_cycles_beside_a_vendors_and_in_hist(board, isolated,
                                                                           full, capsys):
    """The cycle model's estimate of a real run reaches `compare --ref` (a
    vendor that prints cycles: model ÷ measured, its range's ratio beside
    it; instructions keep no ratio) and `hist` (the same samples in est.
    cycles after the instructions)."""
    from rtbench.compare import estref
    from rtbench.store.db import Store

    with Store(isolated / "r.db") as store:
        store.import_run(full[0], "test", "now")
    assert main(["compare", "latest", "--ref", "dspbios", "--db", "r.db", "--format", "json"]) == 0
    row = next(r for r in json.loads(capsys.readouterr().out)["detail"]["rows"]
               if r["id"] == "irq.handler_to_task")
    est, cell = row["est"], row["cells"][0]
    assert est["stat"] == "p50" and est["lo"] <= est["cycles"] <= est["hi"]
    assert est["label"].startswith("est. cycles") and cell["ratio_cycles"] is None  # instr.
    r = cell["est_cycles"]  # model ÷ measured, and the model's range of it
    assert r["value"] == pytest.approx(est["cycles"] / cell["cycles"])
    assert r["lo"] == pytest.approx(est["lo"] / cell["cycles"])
    assert main(["compare", "latest", "--ref", "dspbios", "--db", "r.db"]) == 0
    assert estref.MARK in capsys.readouterr().out
    assert main(["hist", "irq.handler_to_task", "--db", "r.db"]) == 0
    ins, est = capsys.readouterr().out.split("\n\n")[:2]
    assert "est. cycles" not in ins and est.startswith("# est. cycles of the same")
    c = next(m for m in full[0]["metrics"] if m["id"] == "irq.handler_to_task")["cycles"]
    assert f"# Median: {c['p50']:g} [{c['p50_lo']:g}, {c['p50_hi']:g}] est. cycles" in est, est


def test_keils_rtx_cycles_stand_beside_a_board_runs_estimate(board, isolated, full, capsys):
    """Keil's RTX sheet prints cycles on a zero-wait-state Cortex-M3: a board
    run's estimated cycles stand beside them with the model's ratio, its
    instructions with none, and the sheet's caveat says whose kernel it was."""
    from rtbench.store.db import Store

    with Store(isolated / "r.db") as store:
        store.import_run(full[0], "test", "now")
    assert main(["compare", "latest", "--ref", "keil-rtx", "--db", "r.db", "--format", "json"]) == 0
    detail = json.loads(capsys.readouterr().out)["detail"]
    row = next(r for r in detail["rows"] if r["id"] == "sched.yield.ctx.thread")
    cell = row["cells"][0]
    assert cell["cycles"] == 192 and cell["ratio_cycles"] is None  # instructions: no ratio
    assert cell["est_cycles"]["value"] == pytest.approx(row["est"]["cycles"] / 192)
    assert "the RTX4 line that RTX5 replaced" in detail["sheet"]["caveat"]
    assert main(["compare", "latest", "--ref", "keil-rtx", "--db", "r.db"]) == 0
    out = capsys.readouterr().out
    assert "os_tsk_pass" in out and "os_tsk_delete_self" in out


def test_a_board_run_compares_with_a_linux_run(board, fake, isolated, full, capsys):
    """Instructions beside times: the kernel sheet puts them side by side,
    never a ratio or a verdict."""
    from rtbench.store.db import Store

    with Store(isolated / "r.db") as store:
        store.import_run(full[0], "test", "now")
    assert main(["run", "--quick", "--no-programs", "--db", "r.db", "--out", "o",
                 "--only", "sched.yield.ctx.thread,sem.give.no_waiter"]) == 0
    capsys.readouterr()
    assert main(["compare", "1", "2", "--db", "r.db", "--fail-on-regression"]) == 0
    out = capsys.readouterr().out
    assert "rtbench kernel comparison" in out and "Different units" in out
    row = next(line for line in out.splitlines() if "sched.yield.ctx.thread" in line)
    kernel = kernel_of(full[0])
    assert f" {EXPECT[kernel]['yield'][board_of(full[0])]} " in row  # the yield, in its own unit
    assert "×" not in row  # no ratio across units
    assert "slower" not in out and "faster" not in out
