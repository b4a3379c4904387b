"""Zephyr's latency_measure beside rtbench (rtbench.peers.latency_measure)
without a board: the cycles-to-instructions rule, the agreement sentence,
the causes written down per row, and a tree without the benchmark. The
board run itself is in test_zephyr.py."""

from pathlib import Path
from types import SimpleNamespace

from rtbench.importers.base import Figure
from rtbench.peers import latency_measure as lm
from rtbench.store import catalog as catalog_mod


def test_a_counter_cycle_is_its_share_of_an_instructions_virtual_time():
    # -icount shift 7: one instruction is 128 ns; SysTick at 25 MHz: one cycle 40 ns
    assert lm.instructions_per_cycle(7, 25_000_000) == 40 / 128
    assert lm.instructions_per_cycle(0, 1_000_000_000) == 1.0


def test_the_average_is_converted_and_the_printed_figures_kept():
    fig = Figure("zephyr", "semaphore.give.immediate.kernel", {"mean": 2240.0},
                 {"cycles": 56, "file": "x.log", "line": 3, "label": "x"})
    out = lm._in_instructions(fig, 0.3125, "qemu-system-arm …")
    assert out.stats == {"mean": 17.5} and out.unit == "instructions"
    assert out.source["cycles"] == 56 and out.source["ns"] == 2240.0
    assert "file" not in out.source and "56 cycles" in out.note


def _rec(mean, unit="instructions", label="semaphore.give.immediate.kernel"):
    return {"status": "ok", "unit": unit, "mean": mean, "n": 100,
            "source": {"tool": lm.TOOL, "label": label}}


def test_two_averages_of_one_path_agree_within_a_few_instructions():
    assert lm.agreement(_rec(18.0), _rec(21.0)).startswith(
        "agrees: rtbench's mean is within 3 instructions")
    assert "within 1 instruction of" in lm.agreement(_rec(18.0), _rec(19.0))


def test_a_difference_names_its_cause_or_says_it_is_not_written_down():
    said = lm.agreement(_rec(80.0, label="fifo.put.alloc.immediate.kernel"), _rec(42.0))
    assert said.startswith("differs by -38 instructions") and "raw sum" in said
    unknown = lm.agreement(_rec(80.0, label="pipe.put.immediate.kernel"), _rec(42.0))
    assert unknown.endswith("not yet written down for this row")


def test_user_variants_share_the_kernel_rows_cause():
    assert lm.why("condvar.wait.blocking.u_to_u") == lm.why("condvar.wait.blocking.k_to_k") != ""
    assert lm.why("fifo.get.free.immediate.user") == lm.why("fifo.get.free.immediate.kernel") != ""


def test_the_userspace_build_adds_its_own_causes_by_who_runs_where():
    """A row of the userspace build carries the shim's frame always; the
    counter partition only where the window ends in a user-mode thread;
    latency_measure's system-call stamps only where a user-mode thread
    stamps; and the rows only that build has (abort's object walk)."""
    k_to_k, k_to_u = (lm.why(f"semaphore.give.wake+ctx.{v}", "userspace")
                      for v in ("k_to_k", "k_to_u"))
    u_to_k = lm.why("semaphore.give.wake+ctx.u_to_k", "userspace")
    stamps, counter = "timing_timestamp_get", "board's counter"
    assert "shim" in k_to_k and counter not in k_to_k and stamps not in k_to_k
    assert counter in k_to_u and stamps not in k_to_u
    assert stamps in u_to_k and counter not in u_to_k
    assert "72 kernel objects" in lm.why("thread.abort.kernel.from.kernel", "userspace")
    assert lm.why("thread.abort.kernel.from.kernel") == ""  # the kernel build's agree
    rec = {**_rec(290.0, label="semaphore.give.wake+ctx.k_to_u"),
           "source": {"tool": lm.TOOL, "label": "semaphore.give.wake+ctx.k_to_u",
                      "build": "userspace"}}
    assert "41 instructions" in lm.agreement(rec, _rec(334.0))


def test_no_sentence_for_unlike_units_or_a_missing_figure():
    assert lm.agreement(_rec(18.0), _rec(18.0, unit="ns")) == ""
    assert lm.agreement(_rec(18.0), None) == ""
    assert lm.agreement(_rec(18.0), {**_rec(18.0), "status": "failed"}) == ""


def test_a_tree_without_latency_measure_is_one_unsupported_record(tmp_path: Path):
    target = SimpleNamespace(kernel=SimpleNamespace(src=tmp_path, userspace=False),
                             name="mps2-an385")
    recs, session = lm.measure(target, catalog_mod.load())
    assert session is None and len(recs) == 1
    assert recs[0]["status"] == "unsupported"
    assert "tests/benchmarks/latency_measure" in recs[0]["reason"]
