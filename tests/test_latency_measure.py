"""Zephyr's latency_measure beside rtbench (rtbench.peers.latency_measure,
lm_causes, lm_trace) without a board: the cycles-to-instructions rule, the
agreement sentence, the causes written down per row and how a trace checks
them, the two builds' settings, the comparison's both-ways table, and a tree
without the benchmark. The board runs and traces are in test_lm_trace.py and
test_zephyr.py."""

from pathlib import Path
from types import SimpleNamespace

from collections import Counter

from rtbench import compare
from rtbench.compare import views
from rtbench.importers.base import Figure
from rtbench.peers import latency_measure as lm, lm_causes, lm_trace
from rtbench.sheets import pages
from rtbench.store import catalog as catalog_mod
from rtbench.store.db import Run


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


def test_a_stock_row_names_its_configuration_not_a_cause():
    rec = _rec(30.9, label="semaphore.give.immediate.kernel")
    rec["source"]["configuration"] = "stock"
    said = lm.agreement(rec, _rec(18.0))
    assert said.startswith("stock build: rtbench's mean − latency_measure's average = -13")
    assert "Zephyr's own configuration" in said


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


def test_the_settings_of_each_build_come_with_their_reasons(tmp_path):
    changes = lm.changes(lm.harness.source_dir() / "peers" / "latency_measure" / "stock.conf")
    assert [c["setting"] for c in changes] == ["CONFIG_SYS_CLOCK_TICKS_PER_SEC=20"]
    assert "SysTick's 24-bit reload" in changes[0]["reason"]
    rebuilt = {c["setting"]: c["reason"] for c in
               lm.changes(lm.harness.source_dir() / "peers" / "latency_measure" / "rtbench.conf")}
    assert "CONFIG_ASSERT=n" in rebuilt and rebuilt["CONFIG_ASSERT=n"]
    assert all(rebuilt.values()), rebuilt
    conf = tmp_path / "x.conf"
    conf.write_text("# one\n# two\nCONFIG_A=y\nCONFIG_B=1\n# three\nCONFIG_C=n\n\nCONFIG_D=y\n")
    assert lm.changes(conf) == [{"setting": "CONFIG_A=y", "reason": "one two"},
                                {"setting": "CONFIG_B=1", "reason": "one two"},
                                {"setting": "CONFIG_C=n", "reason": "three"},
                                {"setting": "CONFIG_D=y", "reason": ""}]


def test_the_builds_differ_in_what_their_config_files_say(tmp_path):
    stock, rebuilt = tmp_path / "s", tmp_path / "r"
    stock.write_text("CONFIG_ASSERT=y\nCONFIG_SPIN_VALIDATE=y\n# CONFIG_INIT_STACKS is not set\n"
                     'CONFIG_TEST=y\nCONFIG_X="a"\n')
    rebuilt.write_text("# CONFIG_ASSERT is not set\nCONFIG_INIT_STACKS=y\nCONFIG_TEST=y\n"
                       'CONFIG_X="a"\n')
    assert lm.differences(lm.kconfig(stock), lm.kconfig(rebuilt)) == [
        ["CONFIG_ASSERT", "y", "n"], ["CONFIG_INIT_STACKS", "n", "y"],
        ["CONFIG_SPIN_VALIDATE", "y", None]]
    session = {"source": {"kconfig_differs": [["CONFIG_SPIN_VALIDATE", "y", None]]}}
    assert lm.settings_text(session) == "CONFIG_SPIN_VALIDATE y → unset"


def _peer_run(run_id, configuration, figures, differs):
    recs = []
    for label, (mid, mean) in figures.items():
        recs.append({**_rec(mean, label=label), "id": mid, "origin": "peer",
                     "mapped": not mid.startswith("zephyr:"),
                     "source": {"tool": lm.TOOL, "label": label,
                                "configuration": configuration}})
    session = {"type": "session", "origin": "peer",
               "source": {"kind": "latency_measure", "configuration": configuration,
                          "changes": [{"setting": "CONFIG_SYS_CLOCK_TICKS_PER_SEC=20",
                                       "reason": "SysTick"}] if configuration == "stock" else [],
                          "kconfig_differs": differs, "instructions_per_cycle": 0.3125}}
    return Run(run_id, f"u{run_id}", "2026-01-01T00:00:00+00:00", None, "complete", "", [], {},
               session, recs, linked_to=1)


def test_the_comparison_sets_both_builds_beside_rtbenchs_row():
    differs = [["CONFIG_ASSERT", "y", "n"], ["CONFIG_SPIN_VALIDATE", "y", None]]
    ours = Run(1, "u1", "2026-01-01T00:00:00+00:00", None, "complete", "", [], {},
               {"type": "session"}, [{**_rec(18.3), "id": "sem.give.no_waiter", "p50": 18}])
    stock = _peer_run(2, "stock", {"semaphore.give.immediate.kernel": ("sem.give.no_waiter", 30.9),
                                   "events.set.immediate.kernel":
                                       ("zephyr:events.set.immediate.kernel", 80.9)}, differs)
    rebuilt = _peer_run(3, "rebuilt", {
        "semaphore.give.immediate.kernel": ("sem.give.no_waiter", 20.9),
        "events.set.immediate.kernel": ("zephyr:events.set.immediate.kernel", 58.4)}, differs)
    cmp = compare.compare_peers(ours, [stock, rebuilt], catalog_mod.load())
    assert cmp.families == ["latency_measure"] and len(cmp.methods) == 1
    assert [(r.label, r.id, r.ours, r.rebuilt, r.stock) for r in cmp.lm_rows] == [
        ("semaphore.give.immediate.kernel", "sem.give.no_waiter", 18.3, 20.9, 30.9),
        ("events.set.immediate.kernel", "zephyr:events.set.immediate.kernel", None, 58.4, 80.9)]
    assert cmp.lm_settings == differs
    assert {r.program for r in cmp.rows} == {"zephyr latency_measure (stock)",
                                             "zephyr latency_measure (rebuilt)"}
    assert "CONFIG_SYS_CLOCK_TICKS_PER_SEC=20 (SysTick)" in cmp.methods[0]
    assert "CONFIG_ASSERT y → n, CONFIG_SPIN_VALIDATE y → unset" in cmp.methods[0]
    md = pages.render(views.peer_comparison(cmp), "md")
    assert "| semaphore.give.immediate.kernel | sem.give.no_waiter | 18.3 | 20.9 | 30.9 | +10.0 " \
           "| -2.6 |" in md
    assert "| events.set.immediate.kernel | — | — | 58.4 | 80.9 | +22.5 | — |" in md
    assert "`CONFIG_SPIN_VALIDATE`: `y` → unset" in md
    data = compare.to_jsonable(cmp)
    assert data["lm_rows"][0]["stock"] == 30.9 and data["lm_settings"] == differs


def test_a_tree_without_latency_measure_is_one_unsupported_record_per_build(tmp_path: Path):
    target = SimpleNamespace(kernel=SimpleNamespace(src=tmp_path, userspace=False),
                             name="mps2-an385")
    got = lm.measure(target, catalog_mod.load())
    assert [g.configuration for g in got] == ["stock", "rebuilt"]
    for g in got:
        (rec,) = g.records
        assert g.session is None and rec["status"] == "unsupported"
        assert "tests/benchmarks/latency_measure" in rec["reason"]
        assert rec["source"]["configuration"] == g.configuration
