"""The peers of a board run, each stored as a run linked to it: which peer
measures which kernel is the peers' own knowledge, so the run path asks
here and never names a kernel."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from rtbench.peers import latency_measure, rtosbench, threadmetric
from rtbench.store.catalog import Catalog
from rtbench.store.db import Store


# What `rtbench run` says of the peers and their sources (cli/measuring.py).
WITH_PEERS_HELP = (
    "Then run the peers as runs linked to this one (`rtbench compare RUN` shows them beside "
    "rtbench's figures): on the host the installed rt-tests programs (cyclictest, ptsematest, "
    "pmqtest, svsematest, sigwaittest); on a board rtos-benchmark's FreeRTOS port (see "
    "--peer-src) and Thread-Metric's tests on the same kernel.")
PEER_SRC_HELP = (
    "With --with-peers on a board target: your checkout of rtos-benchmark "
    "(zephyrproject-rtos/rtos-benchmark), built in place (default: $RTBENCH_RTOS_BENCHMARK_SRC).")
THREAD_METRIC_SRC_HELP = (
    "With --with-peers on a board target: Thread-Metric's sources, a ThreadX checkout or its "
    "utility/benchmarks/thread_metric folder (default: the ThreadX checkout measured, else "
    "$RTBENCH_THREADX_SRC).")


@dataclass(frozen=True)
class Asked:
    """What the command line gave the peers."""

    thread_metric_src: Path | None
    peer_src: Path | None
    samples: int
    profile: str


def board_peers(store: Store, run_id: int, catalog: Catalog, target,
                say: Callable[[str], None], asked: Asked) -> None:
    """Thread-Metric on ThreadX (its own benchmark), and on FreeRTOS when a
    ThreadX checkout brings its sources (rtbench's porting layer for it);
    rtos-benchmark on the kernels it has a port for (FreeRTOS, Zephyr), told
    when its sources are missing; Zephyr's latency_measure on Zephyr."""
    peers = target.kernel.descriptor.peers  # which peers run beside this kernel
    on_threadx = target.kernel.name == "threadx"
    if "thread-metric" in peers and (
            on_threadx or threadmetric.sources(target, asked.thread_metric_src) is not None):
        threadmetric.beside(store, run_id, target, say, asked.thread_metric_src)
    elif "thread-metric" in peers:
        say("peer Thread-Metric: not run (its sources not found"
            + (f" in {asked.thread_metric_src}" if asked.thread_metric_src else "")
            + f": {threadmetric.where_sources()})")
    if "rtos-benchmark" in peers:
        rtosbench.beside(store, run_id, catalog, target, rtosbench.Context(
            asked.peer_src, asked.samples, asked.profile), say)
    if "latency_measure" in peers:  # the seed's own tool, on the same board and build rule
        latency_measure.beside(store, run_id, catalog, target, say, asked.profile)
