"""Zephyr's latency_measure beside rtbench (rtbench.peers.latency_measure,
lm_causes, lm_trace) without a board: the cycles-to-instructions rule, the
agreement sentence, the causes written down per row and how a trace checks
them, and a tree without the benchmark. The board run itself is in
test_zephyr.py."""

from pathlib import Path
from types import SimpleNamespace

from collections import Counter

from rtbench.importers.base import Figure
from rtbench.peers import latency_measure as lm, lm_causes, lm_trace
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


def test_the_condvar_cause_is_the_timed_wait_not_the_mutex():
    """The trace shows both waiters hold the mutex; rtbench's waits with a
    timeout (z_add_timeout in the wait, remove_timeout in the signal)."""
    wait = lm_causes.causes("condvar.wait.blocking.k_to_k")
    assert lm_causes.TIMED_WAIT in wait and "z_add_timeout" in lm_causes.TIMED_WAIT.ours
    assert "remove_timeout" in lm_causes.TIMED_SIGNAL.ours
    for label in ("condvar.wait.blocking.k_to_k", "condvar.signal.wake+ctx.k_to_k"):
        assert "EPERM" not in lm.why(label) and "both waiters hold the mutex" in lm.why(label)


def test_user_variants_share_the_kernel_rows_cause():
    assert lm.why("condvar.wait.blocking.u_to_u") == lm.why("condvar.wait.blocking.k_to_k") != ""
    assert lm.why("fifo.get.free.immediate.user") == lm.why("fifo.get.free.immediate.kernel") != ""


def test_the_userspace_build_adds_its_own_causes_by_who_runs_where():
    """A row of the userspace build carries latency_measure's own code and
    timestamp test always; the MPU's regions on a switch; the system call's
    object check where a user thread makes the call; and the rows only that
    build has (abort's object walk)."""
    def names(label):
        return set(lm_causes.causes(label, "userspace"))

    k_to_k = names("semaphore.give.wake+ctx.k_to_k")
    u_to_k = names("semaphore.give.wake+ctx.u_to_k")
    assert lm_causes.USER_OWN in k_to_k and lm_causes.USER_MPU in k_to_k
    assert lm_causes.USER_SYSCALL not in k_to_k and lm_causes.USER_SYSCALL in u_to_k
    assert lm_causes.USER_STAMPS in k_to_k and lm_causes.NO_OVERHEAD not in k_to_k
    assert lm_causes.USER_MPU not in names("fifo.put.immediate.user")
    assert lm_causes.USER_WALK in names("thread.abort.kernel.from.kernel")
    assert lm.why("thread.abort.kernel.from.kernel") == ""  # the kernel build's agree
    assert lm_causes.UNEXPLAINED in names("thread.suspend.user.from.user")
    assert not lm_causes.causes("semaphore.give.immediate.kernel")


def test_every_row_of_either_build_has_its_window():
    """Each label's window in latency_measure's sources: the kernel rows as
    written, a user variant on the same lines with its stamps' modes."""
    assert lm_causes.where("condvar.wait.blocking.k_to_k") == lm_causes.Where(
        "condvar_blocking_ops", 0, "condvar.c:36", "condvar.c:66")
    assert lm_causes.where("condvar.wait.blocking.k_to_u") == lm_causes.Where(
        "condvar_blocking_ops", None, "condvar.c:36", "condvar.c:66 (user)")
    start = lm_causes.where("thread.start.user.from.kernel")  # thread_ops(0, K_USER): call 1
    assert (start.call, start.start, start.end) == (1, "thread.c:120", "thread.c:42 (user)")
    assert lm_causes.where("thread.yield.cooperative.ctx.u_to_u").call == 1
    assert lm_causes.where("events.wait.immediate.user").loop
    assert lm_causes.where("pipe.put.immediate.kernel") is None


def _window(total, stamp, **body):
    return lm_trace.Window(("t", 0), 1, 2, total, stamp, Counter(body))


def test_a_cause_is_checked_against_both_windows():
    """lm_trace.unexplained: a named function must run more on the side its
    cause says, latency_measure's subtraction must be as said, and the
    causes must account for the whole gap, or the row says it is unexplained."""
    # latency_measure: 35 of its stamp + 150 of the kernel + 5 of its own; it subtracts nothing
    theirs = [_window(190, 35, z_pend_curr=18, arch_swap=132, start_thread_entry=5)] * 3
    ours = Counter(z_pend_curr=23, arch_swap=132, z_add_timeout=60, rtb_kcall_after_stamp=2)
    row = lm_trace.Beside("condvar.wait.blocking.k_to_k", theirs, 1, 190.0, ours, 217,
                          frozenset({"start_thread_entry"}))
    assert row.subtracted == 0 and row.gap == 27
    timed = lm_causes.Cause("timed", "timed", ours=("z_add_timeout", "z_pend_curr"))
    raw = lm_causes.NO_OVERHEAD
    assert lm_trace.unexplained(row, (timed, raw, lm_causes.OWN)) == (0.0, [])
    rest, wrong = lm_trace.unexplained(row, (raw, lm_causes.OWN))
    assert rest == 65 and "not accounted for" in wrong[0]
    assert lm_trace.unexplained(row, (raw, lm_causes.OWN, lm_causes.UNEXPLAINED))[1] == []
    mutex = lm_causes.Cause("no mutex", "no mutex", theirs=("z_impl_k_mutex_unlock",))
    assert "none of z_impl_k_mutex_unlock runs more in latency_measure's" in \
        lm_trace.unexplained(row, (timed, raw, lm_causes.OWN, mutex))[1][0]
    wrong_side = lm_causes.Cause("backwards", "backwards", theirs=("z_add_timeout",))
    assert any("z_add_timeout runs more in the other window" in w
               for w in lm_trace.unexplained(row, (timed, wrong_side))[1])
    excess = lm_causes.EXCESS  # it subtracts nothing here: the claim is false
    assert any("said to subtract more" in w for w in lm_trace.unexplained(row, (excess,))[1])


def test_a_tick_in_a_window_is_not_the_rows_path():
    calm, ticked = _window(100, 35, a=65), _window(180, 35, a=65, sys_clock_isr=80)
    assert lm_trace.typical([ticked, calm, ticked], lambda w: w.body, lambda w: w.total) is calm


def test_a_tree_without_latency_measure_is_one_unsupported_record(tmp_path: Path):
    target = SimpleNamespace(kernel=SimpleNamespace(src=tmp_path, userspace=False),
                             name="mps2-an385")
    recs, session = lm.measure(target, catalog_mod.load())
    assert session is None and len(recs) == 1
    assert recs[0]["status"] == "unsupported"
    assert "tests/benchmarks/latency_measure" in recs[0]["reason"]
