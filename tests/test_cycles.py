"""The cycle model (rtbench.targets.cycles, harness/qemu_plugin/): a QEMU
plugin that prices every instruction of a board image by the core's TRM and
every logged sample's window, checked four ways:

(a) the exceptions it infers from the order of blocks (entries, returns,
    tail-chains) against QEMU's own log of them (-d int) on the same run,
    for FreeRTOS, ThreadX and Zephyr;
(b) its instruction count of every logged sample against the harness's
    figure for that sample (from the stamp log: the two stamps' values);
(c) hand-summed sequences: each a few instructions between two window
    stamps in a small test image (tests/data/cycles), their estimated
    cycles and range checked exactly against sums written down here from
    the Technical Reference Manuals;
(d) two runs byte-identical, and the harness's output the same with the
    plugin as without it.
"""

from __future__ import annotations

import os
import stat
import struct
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO
from conftest import kernel_of
from rtbench.targets import audit, cycles, qemu, stamplog

DATA = REPO / "tests" / "data" / "cycles"
TIMEOUT = 900  # seconds a QEMU run may take on a loaded machine before the test gives up

# ---- (c) the sequences ---------------------------------------------------------------
# name: (instructions, est, lo, hi, the sum and where its terms come from).
# M3: ARM DDI 0337I (Cortex-M3 r2p1 TRM), Table 3-1 and section 3.3.2
# "Load/store timings"; P, a PC write's refill, is 1 to 3 (the estimate
# takes 2). Exceptions: entry 12, return 10, tail-chain 6 (ARM knowledge
# article KA16366: the return is 10 on the M3 as on the M4), each with the
# return instruction in [0, its cost].
M3_SEQUENCES = {
    "alu": (6, 6, 6, 6, "ADDS, LSLS, MOVW, MOVT, CLZ, UBFX: 1 each (Table 3-1)"),
    "multiply": (3, 5, 5, 5, "MULS 1 + MLA 2 + MLS 2 (Table 3-1)"),
    "long_multiply": (1, 4, 3, 5, "UMULL 3 to 5, early termination (Table 3-1 note a)"),
    "long_multiply_accumulate": (1, 5, 4, 7, "UMLAL 4 to 7 (Table 3-1 note a)"),
    "divide": (1, 7, 2, 12, "UDIV 2 to 12 by its operands (Table 3-1 note b)"),
    "load": (1, 2, 2, 2, "LDR 2 (Table 3-1)"),
    "load_pair": (2, 3, 3, 3, "LDR 2 + LDR pipelined behind it 1 (note c, 3.3.2)"),
    "load_dependent": (2, 4, 4, 4, "LDR 2 + LDR based on the first's result, not pipelined, 2 "
                                   "(3.3.2)"),
    "load_after_alu": (2, 4, 4, 4, "ADDS 1 + LDR 2 + 1: its address waits for the ADDS's "
                                   "result (3.3.2)"),
    "load_literal": (1, 2, 2, 3, "LDR [PC, #imm] 2, 'might add a cycle' (3.3.2)"),
    "store_immediate": (2, 2, 2, 4, "STR [Rn, #imm] 'always one cycle' (3.3.2), twice; the "
                                    "table's 2 each as the high end"),
    "load_then_store_register": (2, 3, 3, 3, "LDR 2 + STR [Rn, Rm] pipelined after it 1 "
                                             "(3.3.2)"),
    "store_register": (1, 2, 2, 2, "STR [Rn, Rm] 2 (Table 3-1)"),
    "load_store_double": (2, 6, 6, 6, "LDRD 1+N = 3 + STRD 3, never pipelined (3.3.2)"),
    "load_store_multiple": (2, 10, 10, 10, "LDM of 4 registers 1+N = 5 + STM 5 (Table 3-1)"),
    "push_pop": (2, 10, 10, 10, "PUSH {r0-r3} 1+N = 5 + POP 5 (Table 3-1)"),
    "branch": (2, 4, 3, 5, "B 1+P + NOP 1"),
    "branch_taken": (3, 5, 4, 6, "CMP 1 + BEQ taken 1+P + NOP 1"),
    "branch_not_taken": (4, 4, 4, 4, "CMP 1 + BNE not taken 1 (note d) + NOP 1 + NOP 1"),
    "compare_branch_zero": (3, 5, 4, 6, "MOVS 1 + CBZ taken 1+P + NOP 1"),
    "call_return": (2, 6, 4, 8, "BL 1+P + BX LR 1+P"),
    "call_pop_pc": (3, 11, 9, 13, "BL 1+P + PUSH {r4, lr} 1+N = 3 + POP {r4, pc} 1+N+P"),
    "table_branch": (3, 7, 6, 9, "MOVS 1 + TBB 2+P, 'at least six' by 3.3.2: [3, 6], + 1 "
                                 "(its index from the MOVS) + NOP 1"),
    "load_pc": (2, 5, 4, 6, "LDR PC 2+P, 'at least five' by 3.3.2: [3, 5], + NOP 1"),
    "it_folded": (3, 3, 2, 3, "CMP 1 + IT after a 16-bit instruction, may fold: [0, 1] "
                              "(note e) + MOVEQ 1"),
    "it_not_folded": (3, 3, 3, 3, "CMP.W 1 + IT after a 32-bit instruction 1 + MOVEQ 1"),
    "it_load_skipped": (3, 3, 2, 3, "CMP 1 + IT [0, 1] + LDRNE skipped (no access) 1"),
    "it_load_run": (3, 4, 3, 4, "CMP 1 + IT [0, 1] + LDREQ 2"),
    "it_divide": (3, 9, 2, 14, "CMP 1 + IT [0, 1] + UDIVEQ skipped (1) or 2 to 12, "
                               "undecidable: [1, 12], estimate 7"),
    "barriers": (3, 5, 4, 8, "DSB 1+B [1, 2] + ISB 1+B, B a refill: [2, 4] + DMB [1, 2]"),
    "status": (3, 3, 3, 6, "MRS, CPSID, MSR: '1 or 2' each (Table 3-1)"),
    "supervisor_call": (2, 24, 22, 24, "SVC [0, 1] + entry 12 + BX LR [0, 1] + return 10"),
    "pendsv": (2, 24, 23, 25, "STR #imm [1, 2] + entry 12 + BX LR [0, 1] + return 10"),
    "tail_chain": (3, 31, 29, 32, "STR [1, 2] + entry 12 + BX LR [0, 1] + tail-chain 6 + "
                                  "BX LR [0, 1] + return 10"),
    "computed_opening": (1, 23, 22, 23, "opened at the PendSV's entry (a computed instant): "
                                        "entry 12 + BX LR [0, 1] + return 10"),
}
# M4: ARM DDI 0439B (Cortex-M4 r0p1 TRM), Table 3-1 and the FPU's Table 7-1;
# lazy FP stacking: 17 cycles to stack S0-S15 and FPSCR, 17 to unstack
# them (KA16366: "a possible 17 cycles more" each way).
M4_SEQUENCES = {
    "lazy_fp_skip": (7, 29, 27, 29, "SVC [0, 1] + entry 12 + TST.W 1 + IT 1 + VSTMDBEQ skipped "
                                    "1 + IT 1 + VLDMIAEQ skipped 1 + BX LR [0, 1] + return 10"),
    "long_multiply_m4": (2, 2, 2, 2, "UMULL 1 + UMLAL 1 (Table 3-1)"),
    "dsp_multiply_m4": (2, 2, 2, 2, "SMLABB 1 + SMULL 1 (Table 3-1)"),
    "fp_add_mul": (2, 2, 2, 2, "VADD.F32 1 + VMUL.F32 1 (Table 7-1)"),
    "fp_mla_div": (2, 17, 17, 17, "VMLA.F32 3 + VDIV.F32 14 (Table 7-1)"),
    "fp_load_store": (2, 4, 4, 4, "VLDR 2 + VSTR 2 (Table 7-1)"),
    "fp_push_pop": (2, 10, 10, 10, "VPUSH of 4 1+N = 5 + VPOP 5 (Table 7-1)"),
    "lazy_fp": (8, 96, 94, 96, "VMOV 1 + SVC [0, 1] + entry 12 + TST.W 1 + IT 1 + VSTMDBEQ "
                               "1+16 + the lazy stacking it triggers 17 + IT 1 + VLDMIAEQ 17 + "
                               "BX LR [0, 1] + return 10 + unstacking the FP frame 17"),
}
CLASSES = {  # every class of the model, and a sequence that exercises it
    "data processing": "alu", "multiply": "multiply", "long multiply": "long_multiply",
    "multiply-accumulate": "long_multiply_accumulate", "divide": "divide", "load": "load",
    "pipelined loads": "load_pair", "address-generation stall": "load_after_alu",
    "literal load": "load_literal", "store": "store_immediate", "dual": "load_store_double",
    "multiple": "load_store_multiple", "push/pop": "push_pop", "branch": "branch",
    "conditional branch": "branch_not_taken", "call and return": "call_pop_pc",
    "table branch": "table_branch", "PC load": "load_pc", "IT folding": "it_folded",
    "IT-skipped": "it_load_skipped", "IT undecidable": "it_divide", "barriers": "barriers",
    "status": "status", "exception entry/return": "supervisor_call",
    "tail-chain": "tail_chain", "computed opening": "computed_opening",
    "M4 multiplies": "dsp_multiply_m4", "FPU": "fp_mla_div", "lazy FP stacking": "lazy_fp",
}


def test_the_table_covers_every_class_of_the_model():
    assert len(M3_SEQUENCES) + len(M4_SEQUENCES) >= 20
    every = {**M3_SEQUENCES, **M4_SEQUENCES}
    assert set(CLASSES.values()) <= set(every)
    for name, (n, est, lo, hi, why) in every.items():
        assert lo <= est <= hi and n >= 1 and why, name


def _board_or_skip(zephyr: bool = False) -> None:
    from conftest import board_tools_missing, zephyr_missing

    why = zephyr_missing() if zephyr else board_tools_missing()
    if why:
        if os.environ.get("RTBENCH_REQUIRE_BOARD") == "1":
            pytest.fail(f"the board target cannot run: {why}")
        pytest.skip(f"board target: {why}")


def _seq_image(cpu: str, out: Path) -> Path:
    """The test image for `cpu` (m3: the AN385's Cortex-M3; m4: the AN386's
    Cortex-M4F), with its link map beside it (audit.Image reads both)."""
    flags = (["-mcpu=cortex-m3"] if cpu == "m3" else
             ["-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard", "-DRTB_M4"])
    elf = out / f"seq-{cpu}.elf"
    subprocess.run(["arm-none-eabi-gcc", *flags, "-mthumb", "-O2", "-nostdlib", "-nostartfiles",
                    "-ffreestanding", "-T", str(DATA / "link.ld"), str(DATA / "seq.S"),
                    str(DATA / "main.c"), "-o", str(elf), f"-Wl,-Map={elf}.map"],
                   check=True, capture_output=True, text=True)
    return elf


def _run(cmd: list[str], *, events: Path | None = None, cwd: Path | None = None
         ) -> tuple[subprocess.CompletedProcess, dict[str, int] | None]:
    """Run QEMU; with `events` (a FIFO path), its -d int,exec log read as it
    is written (no file: a run logs millions of lines) and counted."""
    counted: dict[str, int] = {}
    reader = None
    if events is not None:
        os.mkfifo(events)
        cmd = cmd + ["-d", "int,exec", "-D", str(events)]

        def read() -> None:
            with open(events, errors="replace") as f:
                counted.update(qemu_exceptions(f))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT,
                              stdin=subprocess.DEVNULL, cwd=cwd)
    finally:
        if reader is not None:
            if reader.is_alive() and not counted:  # QEMU never opened the FIFO
                try:
                    os.close(os.open(events, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:
                    pass
            reader.join(timeout=300)
    return proc, (counted if events is not None else None)


def qemu_exceptions(lines) -> dict[str, int]:
    """Entries, returns and tail-chains in QEMU's own log (-d int,exec) of an
    M-profile run. QEMU logs an entry as "Taking exception N [IRQ|SVC|...]"
    (a semihosting call is logged the same way and is none), a return as
    "Taking exception 8 [QEMU v7M exception exit]" ending in "...successful
    exception return", and chains from a return to a pending exception
    either inside the exit ("...taking pending" with no "Taking exception"
    before it) or right after it with no block run in between ("Trace"
    lines are the blocks): both are a tail-chain, neither an entry nor a
    return. So is an entry QEMU takes on top of one whose handler has not
    run an instruction yet (a tick that fell due as a PendSV was taken):
    the core takes the higher-priority one first and tail-chains into the
    other from its return, as the plugin reads it; QEMU's log has two
    entries and two returns for the plugin's entry, tail-chain and return."""
    n = {"entries": 0, "returns": 0, "tail_chains": 0}
    in_exit = returned = entered = False
    for line in lines:
        if line.startswith("Trace "):
            returned = entered = False
        elif line.startswith("Taking exception"):
            if "exception exit" in line:
                in_exit = True
            elif "Semihosting" not in line:
                in_exit = False
                if returned or entered:
                    n["tail_chains"] += 1
                    n["returns"] -= 1
                else:
                    n["entries"] += 1
                returned, entered = False, True
        elif line.startswith("...taking pending") and in_exit:
            n["tail_chains"] += 1
            in_exit, entered = False, True
        elif line.startswith("...successful exception return"):
            n["returns"] += 1
            in_exit, returned, entered = False, True, False
    return n


@pytest.fixture(scope="module", params=["m3", "m4"])
def sequences(request, board_cache, tmp_path_factory):
    """The test image for one core, run once under the plugin."""
    _board_or_skip()
    cpu, tmp = request.param, tmp_path_factory.mktemp(f"seq-{request.param}")
    board = "mps2-an385" if cpu == "m3" else "mps2-an386"
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_CACHE_HOME", str(board_cache))
    try:
        elf = _seq_image(cpu, tmp)
        cycles.write_map(audit.Image(elf), tmp / "map", board)
        cmd = qemu.with_args(qemu.boot_command(board, elf, []), ["--stamp-log", str(tmp / "log")])
        cmd = cycles.load(cmd, cycles.build(), tmp / "map", tmp / "log", tmp / "out", board,
                          qemu.ICOUNT_SHIFT)
        proc, _ = _run(cmd)
    finally:
        mp.undo()
    assert proc.returncode == 0, proc.stderr[-500:]
    run = cycles.read(tmp / "out")
    yield cpu, {m.id: m for m in run.metrics}, run


def test_every_sequence_costs_its_hand_sum(sequences):
    cpu, got, run = sequences
    want = M3_SEQUENCES if cpu == "m3" else M4_SEQUENCES
    assert list(got) == list(want), cpu  # each ran, once, in the image's order
    wrong = []
    for name, (n, est, lo, hi, why) in want.items():
        (s,) = got[name].samples
        figures = (int(s["instructions"]), int(s["est"]), int(s["lo"]), int(s["hi"]))
        if figures != (n, est, lo, hi):
            wrong.append(f"{name}: {figures}, the TRM's sum {(n, est, lo, hi)}: {why}")
        flags = cycles.COMPUTED if name == "computed_opening" else 0
        assert int(s["flags"]) == flags, name
    assert not wrong, "\n".join(wrong)
    assert run.totals["unknown_opcodes"] == 0 and run.totals["unexplained_flows"] == 0


# ---- (a), (b), (d): real images of the three kernels ---------------------------------
# Rows with many exceptions of every kind (interrupts raised by a task, a
# handler waking a task, switches by PendSV, the tick, tail-chains), and the
# AMX rows whose windows end in stamp runs (4096 loads in a row).
ROWS = ("irq.response", "irq.task_response.resched", "irq.return.interrupted",
        "irq.return.different", "irq.handler_to_task", "sched.yield.ctx.thread",
        "sem.take.block_ctx.thread", "sem.give.wake_ctx.thread", "msgq.send.wake_ctx.thread",
        "timer.expiry.to_routine", "amx.timer.routine_to_task", "amx.delay.switch")
SAMPLES = 20


@pytest.fixture(scope="module", params=["freertos", "threadx", "zephyr"])
def kernel_runs(request, board_cache, tmp_path_factory):
    """One kernel's image on the AN385, run three times on the same rows:
    with the plugin and QEMU's exception log, with the plugin again, and
    without it."""
    from conftest import kernel_src, zephyr_modules

    name = request.param
    _board_or_skip(zephyr=name == "zephyr")
    tmp = tmp_path_factory.mktemp(f"cycles-{name}")
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_CACHE_HOME", str(board_cache))
    try:
        kernel = kernel_of(name, kernel_src(name), zephyr_modules() if name == "zephyr" else None)
        target = qemu.QemuTarget("mps2-an385", kernel)  # no model: loaded below
        target.prepare()
        cycles.write_map(audit.Image(target.image), tmp / "map")
        so = cycles.build()
        base = target.command(["--samples", str(SAMPLES), "--warmup", "0", "--only",
                                ",".join(ROWS)])
        runs = {}
        # The image is given its log's name relative to QEMU's working
        # directory: the harness reads its arguments, so an absolute path
        # (its length follows pytest's temporary folder) moved where the
        # kernel's ticks land from one session to the next.
        for k, events in (("a", tmp / "events"), ("b", None)):
            cmd = cycles.load(qemu.with_args(base, ["--stamp-log", f"log-{k}"]), so, tmp / "map",
                              str(tmp / f"log-{k}"), tmp / f"out-{k}", "mps2-an385",
                              qemu.ICOUNT_SHIFT)
            runs[k] = _run(cmd, events=events, cwd=tmp)
        runs["c"] = _run(qemu.with_args(base, ["--stamp-log", "log-c"]), cwd=tmp)
    finally:
        mp.undo()
    for k, (proc, _) in runs.items():
        assert proc.returncode == 0, (name, k, proc.stderr[-500:])
    yield name, tmp, runs


def test_exceptions_agree_with_qemus_own_log(kernel_runs):
    """Every exception QEMU took is one the plugin inferred, of the same
    kind. Tolerance: none. The inference has one ambiguity: an interrupt
    taken right after a BLX reads as the call such a BLX into a handler's
    address would be, settled when the code returns (to the BLX's return
    address: a call; elsewhere: the exception it was); one inside which the
    task is switched away is taken for a call, and would lose an entry and
    its return together (totals.handler_calls counts the BLXs taken for
    calls). On these rows the counts are equal."""
    name, tmp, runs = kernel_runs
    _, qemu_log = runs["a"]
    got = cycles.read(tmp / "out-a").totals
    assert qemu_log["entries"] > 1000, (name, qemu_log)  # the rows did take exceptions
    mine = {k: got[k] for k in ("entries", "returns", "tail_chains")}
    assert mine == qemu_log, name
    assert got["unexplained_flows"] == 0, name


def test_every_sample_has_the_harness_instruction_count(kernel_runs):
    """The plugin's count between the stamps of every logged sample is the
    harness's figure for it: round((t1 - t0) * 40 / 2^7) less the session's
    calibrated stamp overhead."""
    from rtbench.store import records

    name, tmp, runs = kernel_runs
    proc, _ = runs["b"]
    recs = [r for r in map(records.parse_line, proc.stdout.splitlines()) if r]
    overhead = next(r["ts"]["overhead"] for r in recs if r["type"] == "session")
    by_id = {r["id"]: r for r in recs if r["type"] == "metric"}
    run = cycles.read(tmp / "out-b")
    blocks = stamplog.read(tmp / "log-b")
    assert [m.id for m in run.metrics] == [b.id for b in blocks]
    checked = 0
    for m, block in zip(run.metrics, blocks):
        s = m.samples
        assert len(s) == len(block.pairs), m.id
        if not len(s):
            continue
        assert by_id[m.id]["status"] == "ok", m.id
        assert s[["t0", "t1"]].tolist() == [tuple(p) for p in block.pairs], m.id
        assert not np.any(s["flags"] & cycles.NO_FIGURE), (name, m.id)
        ticks = (s["t1"].astype(np.int64) - s["t0"].astype(np.int64)) % (1 << 32)
        harness = (ticks * 40 + 64) // 128 - overhead
        assert np.array_equal(s["instructions"].astype(np.int64), harness), (name, m.id)
        assert np.array_equal(s["kernel"] + s["api"] + s["ours"], s["instructions"]), m.id
        assert np.all((s["lo"] <= s["est"]) & (s["est"] <= s["hi"])), m.id
        checked += len(s)
    assert checked >= 5 * SAMPLES, name


def test_two_runs_are_byte_identical_and_the_figures_unchanged(kernel_runs):
    name, tmp, runs = kernel_runs
    assert (tmp / "out-a").read_bytes() == (tmp / "out-b").read_bytes(), name
    # the harness's records and stamps: the same with the plugin as without
    assert runs["b"][0].stdout == runs["c"][0].stdout, name
    assert (tmp / "log-b").read_bytes() == (tmp / "log-c").read_bytes(), name


# ---- the Python side: build, map, reader -------------------------------------------------

def test_a_cache_of_another_user_is_refused(tmp_path, monkeypatch):
    """QEMU loads the plugin as code: a cache folder another user owns, or
    one others may write, is not built into or loaded from."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    (cache / "rtbench").mkdir(parents=True)
    monkeypatch.setattr(cycles.os, "geteuid", lambda: os.getuid() + 4242)
    from rtbench.process.owned import NotOwnedError  # the one check of every build cache

    with pytest.raises(NotOwnedError, match="another user"):
        cycles.build()
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    (cache / "rtbench").chmod(0o777)
    with pytest.raises(NotOwnedError, match="writable by other users"):
        cycles.build()
    assert not list((cache / "rtbench").glob("qemu-plugin-*"))


def test_the_build_is_cached_by_the_sources(tmp_path, monkeypatch):
    import shutil

    if shutil.which("cc") is None or subprocess.run(["pkg-config", "--exists", "glib-2.0"]
                                                     ).returncode != 0:
        pytest.skip("no host compiler or glib headers")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    src = tmp_path / "src"
    shutil.copytree(cycles.source_dir(), src)
    first = cycles.build(src)
    stamp = first.stat().st_mtime_ns
    assert cycles.build(src) == first and first.stat().st_mtime_ns == stamp
    with open(src / "thumb_cost.c", "a") as f:
        f.write("\n/* changed */\n")
    second = cycles.build(src)
    assert second != first and second.is_file()
    assert not (stat.S_IMODE(second.parent.stat().st_mode) & (stat.S_IWGRP | stat.S_IWOTH))


def test_the_map_lists_owners_stamps_the_anchor_and_handlers(board_cache, tmp_path):
    _board_or_skip()
    elf = _seq_image("m3", tmp_path)
    image = audit.Image(elf)
    lines = cycles.write_map(image, tmp_path / "map").read_text().splitlines()
    assert lines[0] == cycles.MAP_MAGIC
    stamps = [ln.split() for ln in lines if ln.startswith("stamp ")]
    anchors = [ln for ln in lines if ln.startswith("anchor ")]
    handlers = {ln.split()[2] for ln in lines if ln.startswith("handler ") and len(ln.split()) > 2}
    assert len(anchors) == 1 and len(stamps) == len(image.stamps) - 1
    assert {s[2] for s in stamps} == {"0", "1"} and {(s[3], s[4]) for s in stamps} == {("2", "1")}
    assert {"svc_handler", "pendsv_handler", "systick_handler"} <= handlers
    assert "reset_handler" not in handlers  # reset is entered by no exception
    (written,) = [ln.split()[1] for ln in lines if ln.startswith("written ")]
    assert int(written, 16) in {s for s, _e, n in image._funcs if n == cycles.WRITTEN}
    assert lines[-1] == "computed-tail 1" and image.window_shape() == (2, 1)


def test_the_reader_reads_the_documented_format(tmp_path):
    model = b"cpu=m3 shift=7"
    rec = struct.pack("<9IH4BH", 10, 30, 2, 9, 8, 12, 1, 0, 1, 1, 1, 0, 0, cycles.COMPUTED, 0)
    data = (cycles.OUT_MAGIC + struct.pack("<I", len(model)) + model
            + b"RTBC" + struct.pack("<H", 3) + b"a.b" + struct.pack("<5I", 5, 1, 1, 0, 1) + rec
            + b"RTBE" + struct.pack("<I", 16) + struct.pack("<16Q", *range(16)))
    path = tmp_path / "out"
    path.write_bytes(data)
    run = cycles.read(path)
    assert run.model == {"cpu": "m3", "shift": "7"}
    (m,) = run.metrics
    assert (m.id, m.anchor, m.logged, m.recorded) == ("a.b", 5, 1, 1)
    (s,) = m.samples
    assert (s["instructions"], s["est"], s["lo"], s["hi"], s["kernel_calls"]) == (2, 9, 8, 12, 1)
    assert run.totals["metrics"] == 15 and run.totals["instructions"] == 0
    path.write_bytes(data[:-40])  # cut short: no trailer, the metrics read
    assert cycles.read(path).totals is None and len(cycles.read(path).metrics) == 1
    path.write_bytes(b"something else")
    with pytest.raises(cycles.CyclesError):
        cycles.read(path)


# ---- a record's cycles (rtbench.targets.cycles.summary, unpaired, Follower) ----------

def _samples(ins, est, lo, hi, flags=0):
    s = np.zeros(len(ins), cycles.SAMPLE)
    s["instructions"], s["est"], s["lo"], s["hi"], s["flags"] = ins, est, lo, hi, flags
    return s


def test_a_records_cycles_are_the_estimates_statistics():
    est = np.arange(1, 1001)
    s = _samples(est // 2, est, est - 1, est + 5)
    c = cycles.summary(s, "mps2-an385")
    assert (c["status"], c["core"], c["hz"], c["n"]) == ("ok", "Cortex-M3", 25_000_000, 1000)
    assert c["label"] == ("est. cycles: Cortex-M3 TRM model, zero wait states; [lo, hi] is "
                          "the model's own uncertainty, not a spread")
    assert (c["min"], c["p50"], c["p90"], c["p99"], c["p999"], c["max"]) == \
        (1, 500, 900, 990, 999, 1000)  # nearest rank
    assert (c["p50_lo"], c["p50_hi"], c["mean"]) == (499, 505, 500.5)
    # the mean's and the max's model ranges: the samples' bounds' means and maxima
    assert (c["mean_lo"], c["mean_hi"], c["max_lo"], c["max_hi"]) == (499.5, 505.5, 999, 1005)
    buckets = c["hist"]["buckets"]
    assert len(buckets) <= cycles.HIST_BUCKETS and sum(b[2] for b in buckets) == 1000
    assert buckets[0][0] == 1 and buckets[-1][1] > 1000
    few = cycles.summary(_samples([5] * 3 + [9], [12] * 3 + [20], [12] * 4, [15] * 4),
                         "mps2-an386")
    assert few["core"] == "Cortex-M4" and few["hist"]["buckets"] == [[12, 13, 3], [20, 21, 1]]


def test_samples_stand_beside_a_record_only_when_they_are_its_samples():
    rec = {"n": 3, "min": 4, "max": 6, "mean": 5.0}
    ok = _samples([4, 5, 6], [8, 10, 12], [8, 9, 10], [9, 12, 14])
    assert cycles.unpaired(rec, ok) == ""
    assert "only 2 of its 3 samples" in cycles.unpaired(rec, ok[:2])
    assert "not found" in cycles.unpaired(rec, _samples([4, 5, 6], [8, 10, 12], [8] * 3, [9] * 3,
                                                        [0, cycles.UNFOUND, 0]))
    assert "not the harness's" in cycles.unpaired({**rec, "max": 7}, ok)
    assert "batch" in cycles.unpaired({**rec, "batch_overhead": 3}, ok)


def test_the_follower_reads_each_metric_once_as_it_is_written(tmp_path):
    model = b"cpu=m3 shift=7"
    rec = struct.pack("<9IH4BH", 10, 30, 2, 9, 8, 12, 1, 0, 1, 1, 1, 0, 0, 0, 0)

    def metric(name: bytes) -> bytes:
        return (b"RTBC" + struct.pack("<H", len(name)) + name + struct.pack("<5I", 5, 1, 1, 0, 1)
                + rec)

    path = tmp_path / "out"
    f = cycles.Follower(path)
    assert f.new() == []  # nothing written yet
    whole = cycles.OUT_MAGIC + struct.pack("<I", len(model)) + model + metric(b"a") + metric(b"b")
    path.write_bytes(whole[:len(whole) - 10])  # the second metric cut
    assert [m.id for m in f.new()] == ["a"] and f.model == {"cpu": "m3", "shift": "7"}
    path.write_bytes(whole)
    assert [m.id for m in f.new()] == ["b"] and f.new() == []
