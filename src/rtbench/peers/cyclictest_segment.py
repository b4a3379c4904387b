"""One segment of `rtbench qualify` (measure/qualify.py): cyclictest run
on every online CPU for a whole number of seconds, its `--json` read per
CPU (importers/rttests_cpus.py), and, with `-b`, which thread broke at
what latency.

The command: `-q --default-system` (cyclictest leaves /dev/cpu_dma_latency
alone: qualify changes no system setting), `-t` threads round-robin over
`-a` the CPUs (rt-tests' documented order), `-h` a 1 µs histogram up to
2 ms or twice the threshold, `-m -p PRIO` when SCHED_FIFO is permitted,
`-b US --tracemark` while a trace is armed.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any, Callable

from rtbench.errors import RtbenchError
from rtbench.importers.base import ImportFormatError
from rtbench.importers.rttests_cpus import empty, merge, percentiles, per_cpu
from rtbench.process import lifetime

__all__ = ["command", "hist_us", "run", "empty", "merge", "percentiles"]


def command(req: Any, cpus: list[int], seconds: int, rt: bool,
            trace: bool) -> list[str]:
    """One segment's cyclictest (the JSON and histogram paths added by the caller)."""
    argv = ["cyclictest", "-q", "--default-system", "-i", str(req.interval_us),
            "-t", str(req.threads_per_cpu * len(cpus)), "-a", ",".join(map(str, cpus)),
            "-h", str(hist_us(req)), "-D", str(seconds)]
    if rt:
        argv[1:1] = ["-m", "-p", str(req.priority)]
    if trace and req.threshold_us:
        argv += ["-b", str(req.threshold_us), "--tracemark"]
    return argv


def hist_us(req: Any) -> int:
    """The histogram's range: 2 ms, or twice the threshold (beyond: counted, not placed)."""
    return max(2000, 2 * (req.threshold_us or 0))


def _break(text: str) -> tuple[int, int] | None:
    """cyclictest -b's "# Break thread: TID" and "# Break value: US"; with the thread's index."""
    ids, tid, value = [], None, None
    for line in text.splitlines():
        if line.startswith("# Thread Ids:"):
            ids = [int(x) for x in line.split(":", 1)[1].split()]
        elif line.startswith("# Break thread:"):
            tid = int(line.split(":", 1)[1])
        elif line.startswith("# Break value:"):
            value = int(line.split(":", 1)[1])
    if tid is None or value is None:
        return None
    return (ids.index(tid) if tid in ids else -1), value


def run(argv: list[str], wrap: Callable[[list[str]], list[str]],
        tick: Callable[[], None]) -> tuple[dict[int, dict], tuple[int, int] | None,
                                                       dict[str, Any]]:
    """Run one segment; its figures per CPU, the break (thread index, µs) if -b
    fired, and the raw JSON's threads (for the break's CPU and cycles)."""
    with lifetime.scratch_dir("rtbench-qualify-") as scratch:
        js, hf = scratch / "segment.json", scratch / "hist.txt"
        full = wrap(argv + [f"--json={js}", f"--histfile={hf}"])
        proc = lifetime.popen(full, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        try:
            while True:
                try:
                    out, _ = proc.communicate(timeout=1.0)
                    break
                except subprocess.TimeoutExpired:
                    tick()
        except BaseException:
            lifetime.end(proc, grace=2.0)
            raise
        lifetime.forget(proc)
        if proc.returncode != 0 or not js.is_file():
            last = next((ln for ln in reversed((out or "").splitlines()) if ln.strip()), "")
            raise RtbenchError(f"cyclictest exited {proc.returncode}: {last[:200]}")
        try:
            cpus = per_cpu(js)
        except ImportFormatError as exc:
            raise RtbenchError(f"cyclictest's JSON not understood: {exc}") from None
        raw = json.loads(js.read_text())["thread"]
        hist_text = hf.read_text(errors="replace") if hf.is_file() else ""
    return cpus, _break((out or "") + "\n" + hist_text), raw
