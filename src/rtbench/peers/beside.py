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
    on_threadx = target.kernel.name == "threadx"
    if on_threadx or threadmetric.sources(target, asked.thread_metric_src) is not None:
        threadmetric.beside(store, run_id, target, say, asked.thread_metric_src)
    else:
        say("peer Thread-Metric: not run (its sources not found"
            + (f" in {asked.thread_metric_src}" if asked.thread_metric_src else "")
            + f": {threadmetric.where_sources()})")
    if target.kernel.name in rtosbench.KERNELS:
        rtosbench.beside(store, run_id, catalog, target, rtosbench.Context(
            asked.peer_src, asked.samples, asked.profile), say)
    if target.kernel.name == "zephyr":  # the seed's own tool, on the same board and build rule
        latency_measure.beside(store, run_id, catalog, target, say, asked.profile)
