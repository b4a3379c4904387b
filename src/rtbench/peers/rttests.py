"""`rtbench run --with-peers`: rt-tests measured beside rtbench, in one session.

After the harness finished, the rt-tests programs that are installed —
cyclictest, ptsematest, pmqtest, svsematest, sigwaittest — run with bounded
loop counts (each about 1–2 s) on the benchmark CPU (`--affinity=<cpu>`)
at the priorities rtbench's own metrics use (bench.h: the runner at
rtbench priority 30 = SCHED_FIFO 70 measures the timer wake-up, so
cyclictest gets `-p 70`; scenario tasks run at 10/20 = FIFO 50/60, so the
pair programs get `-p 60`). Without permission for SCHED_FIFO (not root,
no RLIMIT_RTPRIO) or with `--no-rt` they run without `-p` (and without
cyclictest's `-m`), and every record's note says so.

Each output is read by rtbench.importers.rttests (the `--json` file the
program wrote, else its stdout); its records become `"origin": "peer"`
with `source.command`. They are stored as a run of their own (origin
"peer") linked to the rtbench run (`runs.linked_to`), so `rtbench compare
RUN` shows rtbench's figure and the peers' for the same metric side by
side (linked.py). A peer that is not installed is an `unsupported` record
and a line on the console, never an error. The programs run as the
standard programs do (programs.py: bounded, in their own session).
"""

from __future__ import annotations

import os
import resource
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from rtbench.errors import RtbenchError
from rtbench.importers import rttests
from rtbench.importers.base import vendor_index
from rtbench.peers import programs
from rtbench.peers.linked import line, store_run
from rtbench.process import lifetime
from rtbench.store.catalog import Catalog
from rtbench.store.db import Store

PACKAGE = "Debian package rt-tests"
FIFO_BASE = 40  # harness/ports/posix/posix_port.h: rtbench priority p runs at FIFO 40 + p
PRIO_RUNNER, PRIO_HIGH = 30, 20  # harness/include/rtb/bench.h
TIMEOUT_S = 15.0
# how it measured beside rtbench (the peer page of `rtbench compare RUN`)
WHERE = "rt-tests programs run in the same session, on the same CPU at the priorities rtbench uses"


@dataclass(frozen=True)
class Peer:
    program: str
    interval_us: int
    loops: int  # default run; --quick runs a quarter
    rtbench_prio: int  # the rtbench priority whose SCHED_FIFO level the peer gets

    def argv(self, cpu: int | None, rt: bool, quick: bool, json_path: Path) -> list[str]:
        argv = [self.program]
        if cpu is not None:
            argv.append(f"--affinity={cpu}")
        if rt:
            argv += ["-p", str(FIFO_BASE + self.rtbench_prio)]
            if self.program == "cyclictest":
                argv.append("-m")  # memory locked, as the harness's mlockall
        argv += ["-i", str(self.interval_us), "-l", str(self.loops // 4 if quick else self.loops),
                 "-q"]
        if self.program == "cyclictest":
            argv += ["-h", "1000"]  # a 1 µs histogram up to 1 ms: percentiles
        return argv + [f"--json={json_path}"]


PEERS = (
    Peer("cyclictest", 200, 10000, PRIO_RUNNER),  # the grid of sys.timer.wakeup.*: 2 s
    Peer("ptsematest", 100, 10000, PRIO_HIGH),
    Peer("pmqtest", 100, 10000, PRIO_HIGH),
    Peer("svsematest", 100, 10000, PRIO_HIGH),
    Peer("sigwaittest", 100, 10000, PRIO_HIGH),
)


def realtime_allowed(no_rt: bool) -> tuple[bool, str]:
    """Whether the peers may ask for SCHED_FIFO at the priorities above."""
    if no_rt:
        return False, "--no-rt given"
    need = FIFO_BASE + PRIO_RUNNER
    if os.geteuid() == 0:
        return True, ""
    soft, _hard = resource.getrlimit(resource.RLIMIT_RTPRIO)
    if soft == resource.RLIM_INFINITY or soft >= need:
        return True, ""
    return False, f"no permission for SCHED_FIFO {need} (not root, RLIMIT_RTPRIO {soft})"


@dataclass
class Context:
    cpu: int | None
    no_rt: bool = False
    quick: bool = False
    profile: str = "rt"


def measure(catalog: Catalog, ctx: Context, on_record: Callable[[dict], None],
            say: Callable[[str], None] = lambda s: None) -> None:
    """Run every peer; one record per peer to `on_record`. KeyboardInterrupt:
    the running peer is killed, then the interrupt goes on."""
    rt, why = realtime_allowed(ctx.no_rt)
    if not rt:
        say(f"peers run without -p (SCHED_OTHER): {why}")
    index = vendor_index(catalog, rttests.TOOL_KEY)
    for peer in PEERS:
        on_record(run_peer(peer, ctx, rt, why, catalog, index))


def _id(program: str, index: dict) -> dict:
    hit = index.get(program)
    mid = hit[0] if hit else rttests.FALLBACK.get(program)
    return {"id": mid} if mid else {"id": f"{rttests.TOOL_KEY}:{program}", "mapped": False}


def run_peer(peer: Peer, ctx: Context, rt: bool, why_not_rt: str, catalog: Catalog,
             index: dict) -> dict:
    base = {"type": "metric", "origin": "peer", "profile": ctx.profile, **_id(peer.program, index)}
    prog = programs.Program("rt-tests " + peer.program, peer.program, PACKAGE, ())
    missing = prog.unavailable()
    if missing:
        return {**base, "status": "unsupported", "reason": missing,
                "source": {"tool": peer.program}}
    with lifetime.scratch_dir("rtbench-peer-") as scratch:
        json_path = scratch / f"{peer.program}.json"
        argv = peer.argv(ctx.cpu, rt, ctx.quick, json_path)
        command = shlex.join(argv[:-1])  # the scratch --json path says nothing
        source = {"tool": peer.program, "command": command}
        try:
            code, text = programs.execute(argv, None, TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return {**base, "status": "failed", "source": source,
                    "reason": f"{peer.program} did not finish in {TIMEOUT_S:g} s (killed)"}
        except OSError as exc:
            return {**base, "status": "failed", "source": source,
                    "reason": f"{peer.program}: {exc.strerror or exc}"}
        if code != 0:
            last = next((ln for ln in reversed(text.splitlines()) if ln.strip()), "")
            return {**base, "status": "failed", "source": source,
                    "reason": f"{peer.program} exited {code}: {last[:200]}"}
        try:
            result = _parse(peer.program, json_path, text, catalog)
        except RtbenchError as exc:
            return {**base, "status": "failed", "source": source,
                    "reason": f"{peer.program}'s output not understood: {exc}"}
    rec = result.records[0]
    rec["origin"], rec["profile"] = "peer", ctx.profile
    src = {k: v for k, v in rec.get("source", {}).items() if k not in ("file", "line")}
    rec["source"] = {**src, "command": command}
    if not rt:
        rec["note"] = "; ".join(x for x in (rec.get("note", ""),
                                             f"run without -p: {why_not_rt}") if x)
    return rec


def _parse(program: str, json_path: Path, text: str, catalog: Catalog) -> rttests.Result:
    """The --json file when the program wrote one, else what it printed."""
    if json_path.is_file() and json_path.stat().st_size:
        return rttests.parse(json_path, program=program, name=f"{program} --json",
                             catalog=catalog)
    return rttests.parse(text, program=program, name=f"{program} output", catalog=catalog)


# ---- the peers' run, linked to the rtbench run (adapter over the store) ----

def beside(store: Store, run_id: int, catalog: Catalog, ctx: Context,
           say: Callable[[str], None]) -> int | None:
    """Measure the peers and store them as a run linked to `run_id`; the
    peer run's id. On Ctrl-C what was measured is stored, then the
    interrupt goes on."""
    recs: list[dict] = []

    def got(rec: dict) -> None:
        recs.append(rec)
        say(line(rec))

    try:
        measure(catalog, ctx, got, say)
    finally:
        if recs:
            run = store.get_run(run_id)
            peer_id = store_run(store, run_id, recs, run.host, run.argv)
            say(f"peers: run {peer_id}, linked to run {run_id} (rtbench compare {run_id})")
    return peer_id if recs else None


# ---- why each program's figure differs from rtbench's (shown by `rtbench compare RUN`) ----

WHY = {
    "cyclictest": "The same measurement as sys.timer.wakeup.idle (one SCHED_FIFO thread "
                  "sleeping to an absolute CLOCK_MONOTONIC deadline on a 200 µs grid, "
                  "wake-up minus deadline) at the same priority and CPU; cyclictest reads "
                  "the clock with clock_gettime and prints whole µs, rtbench reads the "
                  "counter (10 ns steps) with its read cost subtracted, and the two run one "
                  "after the other, so their tails see different moments of the VM.",
    "ptsematest": "ptsematest's two threads have the same priority and it times unlock -> "
                  "the waiter's lock returning, in whole µs; at equal priority the woken "
                  "thread runs only once the unlocker blocks, so the unlocker's path to "
                  "blocking is inside its figure, while rtbench's waiter has the higher "
                  "priority and preempts at the unlock (VxWorks' definition).",
    "pmqtest": "pmqtest's sender and receiver have the same priority and it prints whole "
               "µs; rtbench's receiver is pended at the higher priority and preempts at "
               "the send, so rtbench times one send -> receiver-running switch only.",
    "svsematest": "svsematest uses System V semaphores (semop, a kernel object behind a "
                  "system call on both sides), rtbench's semaphore metrics POSIX sem_t "
                  "(a futex: the kernel is entered only to wake or to block); its threads "
                  "also share one priority, and it prints whole µs.",
    "sigwaittest": "No rtbench metric: a signal sent with pthread_kill() to a thread "
                   "blocked in sigwait(); shown as rt-tests printed it.",
}
