"""Zephyr's latency_measure both ways beside rtbench, on QEMU's AN385, checked
against instruction traces: `rtbench run --kernel zephyr --with-peers` stores
latency_measure stock and rebuilt, linked to the run, with the Kconfig
settings that differ; docs/peers.md's table is that run's; and every stated
cause of a difference (rtbench.peers.lm_causes) is checked row by row against
a trace of latency_measure's image (rtbench.peers.lm_trace) and rtbench's
window audit (rtbench.targets.audit) of the same metric: each function a
cause names runs more instructions in the window it says, and the causes
account for the row's whole difference within AGREE (or the row says the
rest is unexplained).

Needs the board tools and the Zephyr tree (conftest.zephyr_missing); CI has
them (RTBENCH_REQUIRE_BOARD=1: a missing tool fails there). Figures under
-icount repeat exactly, so nothing here depends on the host's speed."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import kernel_env, peers_doc as load_peers_doc, zephyr_missing
from rtbench.cli import main
from rtbench.importers import zephyr as importer
from rtbench.importers.base import map_figures, source_of
from rtbench.peers import latency_measure as lm, lm_causes, lm_trace
from rtbench.peers.linked import linked_runs
from rtbench.store import catalog
from rtbench.store.db import Store
from rtbench.targets import audit, qemu

ROOT = Path(__file__).resolve().parents[1]
peers_doc = load_peers_doc()

# Rows whose rtbench window the audit takes from another metric's samples (it
# pairs windows by order; a suspend's row gets a resume's windows): their
# comparison waits for the audit's pairing by the stamps' identity.
MISPAIRED = {"task.suspend.self_ctx.thread", "task.resume.ctx.thread",
             "task.suspend.self_ctx.process", "task.resume.ctx.process"}
SAMPLES = 5  # rtbench's windows per metric under the trace (the median of those no tick entered)
# latency_measure's iterations in the userspace trace (its own 1000 take ~6 min to trace,
# MPU and all; with fewer, a tick inside one window moves a row's average too much)
USER_ITERATIONS = 100


def _zephyr(mp: pytest.MonkeyPatch, cache: Path) -> None:
    why = zephyr_missing()
    if why:
        if os.environ.get("RTBENCH_REQUIRE_BOARD") == "1":
            pytest.fail(f"the Zephyr image cannot be built: {why}")
        pytest.skip(f"Zephyr: {why}")
    mp.setenv("XDG_CACHE_HOME", str(cache))
    mp.delenv("RTBENCH_RTOS_BENCHMARK_SRC", raising=False)  # its own test (test_zephyr.py)
    kernel_env(mp)


@pytest.fixture(scope="module")
def run_db(zephyr_peers_run) -> Path:
    """The run docs/peers.md's table comes from: scripts/peers-doc.py's
    command, built in the session's board cache (conftest.zephyr_peers_run)."""
    return zephyr_peers_run


@pytest.fixture
def zephyr_env(board_cache, monkeypatch) -> Path:
    """The board tests' environment and build cache."""
    _zephyr(monkeypatch, board_cache)
    return board_cache


def _lm_runs(db: Path) -> dict:
    with Store(db, create=False) as store:
        runs = [r for r in linked_runs(store, 1)
                if any((m.get("source") or {}).get("tool") == lm.TOOL for m in r.metrics)]
        return {r.session["source"]["configuration"]: r for r in runs} | {
            "ours": store.get_run(1)}


def test_both_builds_are_peer_runs_linked_to_the_run_with_their_settings(run_db, capsys):
    runs = _lm_runs(run_db)
    stock, rebuilt = runs["stock"].session["source"], runs["rebuilt"].session["source"]
    conn = sqlite3.connect(run_db)
    linked = {r[0] for r in conn.execute("SELECT linked_to FROM runs WHERE origin = 'peer'")}
    assert linked == {1} and runs["stock"].id < runs["rebuilt"].id
    # stock: Zephyr's prj.conf and only the tick, with its reason; rebuilt: rtbench's settings
    assert [c["setting"] for c in stock["changes"]] == ["CONFIG_SYS_CLOCK_TICKS_PER_SEC=20"]
    assert "24-bit" in stock["changes"][0]["reason"]
    assert "CONFIG_ASSERT=n" in [c["setting"] for c in rebuilt["changes"]]
    # the settings that differ, read from the two .config files (not typed)
    differs = {name: (a, b) for name, a, b in stock["kconfig_differs"]}
    assert differs == {name: (a, b) for name, a, b in rebuilt["kconfig_differs"]}
    assert differs["CONFIG_ASSERT"] == ("y", "n") and differs["CONFIG_SPIN_VALIDATE"] == ("y", None)
    assert differs["CONFIG_SYS_CLOCK_TICKS_PER_SEC"] == ("20", "1000")
    assert differs["CONFIG_SIZE_OPTIMIZATIONS"] == ("y", "n")
    assert "CONFIG_TEST" not in differs  # both keep latency_measure's CONFIG_TEST
    for configuration in ("stock", "rebuilt"):
        recs = {m["source"]["label"]: m for m in runs[configuration].metrics}
        give = recs["semaphore.give.immediate.kernel"]
        assert give["status"] == "ok" and give["source"]["configuration"] == configuration
    # Zephyr's asserts and spinlock validation make the stock build's paths longer
    s, r = ({m["source"]["label"]: m["mean"] for m in runs[c].metrics if m["status"] == "ok"}
            for c in ("stock", "rebuilt"))
    assert s["semaphore.give.immediate.kernel"] > r["semaphore.give.immediate.kernel"] + 4
    assert main(["compare", "1", "--db", str(run_db), "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert "## latency_measure two ways: stock" in md
    assert "| semaphore.give.immediate.kernel | sem.give.no_waiter |" in md
    assert "`CONFIG_ASSERT`: `y` → `n`" in md and "CONFIG_SYS_CLOCK_TICKS_PER_SEC=20 (" in md
    assert "**semaphore.give.immediate.kernel** → `sem.give.no_waiter`: stock build:" in md


def test_docs_table_is_the_runs(run_db):
    """docs/peers.md's table of stock against rebuilt is what the run gives
    (scripts/peers-doc.py rewrites it)."""
    doc = (ROOT / "docs" / "peers.md").read_text(encoding="utf-8")
    assert peers_doc.committed(doc) == peers_doc.block(run_db), \
        "docs/peers.md's latency_measure table is not this run's: scripts/peers-doc.py"


# ---- every stated cause against the traces ----

@dataclass
class Traced:
    prog: lm_trace.Program
    windows: list[lm_trace.Window]
    figures: list            # its console's figures (importer.Figure)
    printed: dict[str, float]  # its averages by label, in instructions
    sites: dict[int, str]    # each call site, named
    overheads: list[float]   # its timestamp overhead loops' steady windows (kernel, user)


def _traced(target, image: Path) -> Traced:
    """latency_measure's windows under the trace, each call site named, its
    printed averages (instructions) and the timestamp overheads it measured
    (timing_sc.c's loop of back-to-back calls, kernel and user; it subtracts
    the sum of N + 1 calls from N iterations, or the mean of the two)."""
    prog = lm_trace.Program(image)
    windows, text = lm_trace.trace(prog, qemu.boot_command(target.name, image), lm.DONE)
    per_cycle = lm.instructions_per_cycle(qemu.ICOUNT_SHIFT, lm.COUNTER_HZ)
    figures = importer.read(source_of(text, "latency_measure under the trace"))[0]
    sites = {pc: str(prog.site(pc)) for w in windows for pc in (w.start, w.end)}
    loops: dict[str, list[int]] = {}
    for w in windows:
        if w.test[0] == "timestamp_overhead_init" and sites[w.start] == sites[w.end]:
            loops.setdefault(sites[w.start], []).append(w.total)
    return Traced(prog, windows, figures, {f.label: f.source["cycles"] * per_cycle
                                           for f in figures}, sites,
                  [_steady(v) for v in loops.values() if len(v) > 10])


def _steady(totals: list[int]) -> float:
    """A loop's steady window: the mean of those near the median (not the
    ones between its repetitions, nor one a tick entered)."""
    mid = sorted(totals)[len(totals) // 2]
    near = [t for t in totals if abs(t - mid) <= 3]
    return sum(near) / len(near)


def _rows(target, traced, pairs: dict[str, tuple[str, float, dict]], iterations: int,
          audits: dict[str, audit.MetricAudit]) -> list[tuple[lm_trace.Beside, float]]:
    """Each row (label -> rtbench metric, latency_measure's figure, rtbench's
    record) from both traces (`audits`: rtbench's, by metric), with the gap
    the comparison shows."""
    prog, windows, printed, sites = traced.prog, traced.windows, traced.printed, traced.sites
    syms = lm_trace.Symbols(target.image)
    out = []
    for label, (mid, peer_mean, ours) in pairs.items():
        if mid in MISPAIRED:
            continue
        place = lm_causes.where(label)
        assert place is not None, f"{label}: no window in lm_causes.WINDOWS"
        mine = [w for w in windows if w.test[0] == place.test
                and place.call in (None, w.test[1]) and sites[w.start] == place.start
                and sites[w.end] == place.end]
        assert mine, f"{label}: no window {place} in latency_measure's trace"
        theirs = lm_trace.typical(audits[mid].windows, lambda w: syms.renamed(w.funcs),
                                  lambda w: w.net)
        row = lm_trace.Beside(label, mine, iterations if place.loop else 1, printed[label],
                              syms.renamed(theirs.funcs), theirs.net, prog.code)
        out.append((row, ours["mean"] - peer_mean))
    return out


def _check(rows, overheads: list[float], iterations: int, build: str) -> list[str]:
    """What the traces contradict: a row's window that is not its (its
    figure is not its windows' mean less nothing or less an overhead
    latency_measure measured), a row that differs and names no cause, and
    every cause's claims (lm_trace.unexplained)."""
    scaled = [o * (iterations + 1) / iterations for o in overheads]
    subtracts = {0.0, *scaled, *(sum(p) / 2 for p in zip(scaled, scaled[1:]))}
    wrong = []
    for row, gap in rows:
        # within 2: its averages are whole cycles (0.3125 instructions), its
        # calibration a minimum over repeats of the loop, and the overhead
        # it subtracts its own timing of that loop, which the trace's steady
        # window matches within 1.6 on the userspace build (a window that
        # is not the row's is off by tens)
        if min(abs(row.subtracted - o) for o in subtracts) > 2.0:
            wrong.append(f"{row.label}: latency_measure's figure is its windows' mean less "
                         f"{row.subtracted:.1f}, no overhead it measured: not its window?")
            continue
        causes = lm_causes.causes(row.label, build)
        if abs(gap) <= lm_causes.AGREE:
            continue  # the two agree, and the comparison says so
        if not causes:
            wrong.append(f"{row.label}: differs by {gap:+.1f} and names no cause")
            continue
        wrong += lm_trace.unexplained(row, causes)[1]
    return wrong


def test_every_cause_of_the_kernel_build_holds_in_the_traces(run_db, zephyr_env, request):
    """The kernel build, traced whole (the image the run measured) beside
    rtbench's audit; the condvar rows' cause among them: rtbench's timed
    wait, not a waiter without the mutex."""
    from rtbench import targets

    target = targets.make("mps2-an385", "zephyr")
    target.prepare()
    request.addfinalizer(target.close)  # its scratch folder (the cycle model's map)
    runs = _lm_runs(run_db)
    ours = {m["id"]: m for m in runs["ours"].metrics if m["status"] == "ok"}
    pairs = {m["source"]["label"]: (m["id"], m["mean"], ours[m["id"]])
             for m in runs["rebuilt"].metrics
             if m["status"] == "ok" and m.get("mapped", True) and m["id"] in ours}
    traced = _traced(target, lm.build(target, "rebuilt"))
    assert {label: traced.printed[label] for label in pairs} == {
        label: mean for label, (_, mean, _) in pairs.items()}, "not the image the run measured"
    ids = sorted({mid for mid, _, _ in pairs.values()} - MISPAIRED)
    rows = _rows(target, traced, pairs, 1000,
                 {a.id: a for a in audit.audit_target(target, ids, SAMPLES)})
    assert len(rows) >= 40
    wrong = _check(rows, traced.overheads, 1000, "")
    assert not wrong, "\n".join(wrong)
    by = {r.label: r for r, _ in rows}
    wait, signal = by["condvar.wait.blocking.k_to_k"], by["condvar.signal.wake+ctx.k_to_k"]
    assert wait.items()["z_add_timeout"] > 40 and signal.items()["remove_timeout"] > 10
    for row in (wait, signal):  # both waiters hold the mutex: its calls run alike in both
        assert not any(f.startswith(("z_impl_k_mutex", "z_impl_k_condvar")) for f in row.items())


def test_every_cause_of_the_userspace_build_holds_in_the_traces(zephyr_env, request):
    """The userspace build: latency_measure rebuilt with 100 iterations (the
    same code, a shorter trace) beside rtbench's userspace audit; rtbench's
    figure is the audit's own mean."""
    from rtbench import targets

    target = targets.make("mps2-an385", "zephyr", userspace=True)
    target.prepare()
    request.addfinalizer(target.close)
    traced = _traced(target, lm.build(target, "rebuilt", iterations=USER_ITERATIONS))
    recs = map_figures(traced.figures, catalog.load())
    lm._user_rows_to_process(recs, catalog.load())
    labels = {r["source"]["label"]: r["id"] for r in recs if r.get("mapped", True)}
    registry = target.registry()
    ids = [i for i in dict.fromkeys(labels.values()) if registry.get(i, (False,))[0]]
    audits = {a.id: a for a in audit.audit_target(target, sorted(set(ids) - MISPAIRED),
                                                      SAMPLES) if a.record}
    pairs = {label: (mid, traced.printed[label], audits[mid].record)
             for label, mid in labels.items()
             if mid in audits and audits[mid].record.get("status") == "ok"}
    rows = _rows(target, traced, pairs, USER_ITERATIONS, audits)
    assert len(rows) >= 80
    wrong = _check(rows, traced.overheads, USER_ITERATIONS, "userspace")
    assert not wrong, "\n".join(wrong)
