"""Where a run is, for the person waiting on it: the profile, block j of M,
metric i of N in that block, the time elapsed and an estimate of what is
left of the harness's passes.

A default run interleaves 20 blocks per metric (rtbench.store.blocks), so a
metric's line is printed only when its last block is in: without this the
first ~100 s print nothing. On a terminal the place is a live display below
the printed lines (rich, redrawn in place, gone at the end); anywhere else
(a log file, a pipe, CI) it is a quiet line log: a line as each block
begins, and inside a long block one at most every LOG_EVERY_S seconds.

The estimate counts work in metric-blocks: what is left of the plan (the
metrics still measured, times the blocks still to come, and every later
profile's whole plan) at the pace of the ones done so far; a soak
(--duration) lasts at least its duration.
"""

from __future__ import annotations

import contextlib
import io
import time
from pathlib import Path
from typing import Callable, Iterator

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn

from rtbench.store import blocks

LOG_EVERY_S = 30.0  # inside a block, a line log's line at most this often
RUN_LOG = "run.log"  # what `run --quiet` held back, in the run's output folder


class QuietConsole(Console):
    """`rtbench run --quiet`: what a run prints while it measures (its
    progress, every metric's line: ~450 lines on the host, 3,263 for three
    kernels) is held back, not shown; the run's end (`aloud`) prints its
    first page or comparison as always. Errors go to stderr, never here,
    so they are shown. What was held is not lost: `aloud` writes it to
    RUN_LOG in the output folder, so a CI log keeps the verdict alone and
    the run keeps its whole log."""

    def __init__(self, file, **kw) -> None:
        self.loud = file
        self.held = io.StringIO()
        super().__init__(file=self.held, width=160, **kw)  # the log's lines whole

    @contextlib.contextmanager
    def speaking(self) -> Iterator[None]:
        self.file, width = self.loud, self._width
        self._width = None  # the terminal's own width again (the held log's: 160)
        # its colours too: the console was made on a buffer, which has none
        colours, self._color_system = self._color_system, self._detect_color_system()
        try:
            yield
        finally:
            self.file, self._width, self._color_system = self.held, width, colours


@contextlib.contextmanager
def aloud(console: Console, out: Path | None = None) -> Iterator[None]:
    """The end of a run, printed whatever --quiet said; under --quiet, what
    was held back so far goes to `out`/RUN_LOG (appended: a run of several
    kernels holds each part), its path said after it."""
    if not isinstance(console, QuietConsole):
        yield
        return
    with console.speaking():
        yield
        if out is not None and out.is_dir():
            with open(out / RUN_LOG, "a", encoding="utf-8") as log:
                log.write(console.held.getvalue())
            console.held.seek(0)
            console.held.truncate()
            console.print(f"what --quiet held back: {out / RUN_LOG}", soft_wrap=True,
                          highlight=False)


def clock_text(seconds: float) -> str:
    """0:07, 3:25, 1:02:09."""
    s = max(0, int(round(seconds)))
    h, rest = divmod(s, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


class RunProgress:
    """The harness's passes over every profile, as they go (see the module)."""

    def __init__(self, console: Console, profiles: list[str], plan: blocks.Plan, metrics: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.out, self.profiles, self.plan, self.metrics = console, profiles, plan, metrics
        self.clock = clock
        self.live = console.is_terminal
        self._bar = Progress(TextColumn("{task.description}"), BarColumn(bar_width=24),
                             TextColumn("{task.fields[times]}  {task.fields[current]}"),
                             console=console, transient=True, disable=not self.live)
        self._task = self._bar.add_task("starting", total=None, times="", current="")
        self.t0 = clock()
        self.done = 0            # metric-blocks measured so far, every profile
        self.profile_index = 0
        self.block = 0           # 0-based pass of the current profile
        self.active = metrics    # metrics measured in this pass
        self.in_block = 0        # of them begun so far
        self.done_in_block = 0   # of them measured
        self.current = ""
        self._last_line = self.t0

    def __enter__(self) -> "RunProgress":
        self._bar.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._bar.__exit__(*exc)

    # ---- what the run reports ----

    def block_begins(self, profile: str, k: int, active: int) -> None:
        """Pass `k` (0-based) of `profile` starts over `active` metrics."""
        self.profile_index = self.profiles.index(profile) if profile in self.profiles else 0
        self.block, self.active, self.in_block, self.current = k, active, 0, ""
        self.done_in_block = 0
        self._refresh()
        self._log(f"{self._where(with_metric=False)}: {active} metrics")

    def metric_begins(self, metric_id: str) -> None:
        self.in_block = min(self.in_block + 1, self.active)
        self.current = metric_id
        self._refresh()
        if self.clock() - self._last_line >= LOG_EVERY_S:
            self._log(self._where(with_metric=True))

    def block_done(self) -> None:
        """One metric's block arrived."""
        self.done += 1
        self.done_in_block += 1
        self._refresh()

    def print(self, text: str) -> None:
        """A line above the live display (or in the log)."""
        self.out.print(text, soft_wrap=True)

    # ---- the figures ----

    def blocks_text(self) -> str:
        """"block 3/20", or in a soak past its plan "block 23 (soak)"."""
        k = self.block + 1
        if self.plan.duration_s and k > self.plan.blocks:
            return f"block {k} (soak)"
        return f"block {k}/{self.plan.blocks}"

    def elapsed(self) -> float:
        return self.clock() - self.t0

    def left(self) -> float | None:
        """Seconds left of the harness's passes, or None before anything is
        done to reckon from."""
        if self.done == 0:
            return None
        later = len(self.profiles) - self.profile_index - 1
        units = (max(0, self.active - self.done_in_block)
                 + self.active * max(0, self.plan.blocks - self.block - 1)
                 + self.metrics * self.plan.blocks * later)
        pace = self.elapsed() / self.done
        estimate = units * pace
        if self.plan.duration_s:  # the soak goes on until its duration has passed
            estimate = max(estimate, self.plan.duration_s - self.elapsed())
        return estimate

    def times_text(self) -> str:
        left = self.left()
        return f"{clock_text(self.elapsed())} elapsed" + (
            f", about {clock_text(left)} left" if left is not None else "")

    def _where(self, with_metric: bool, with_id: bool = True) -> str:
        profile = self.profiles[self.profile_index] if self.profiles else ""
        several = len(self.profiles) > 1
        text = (f"{profile} " if several else "") + self.blocks_text()
        if with_metric:
            text += f", metric {self.in_block}/{self.active}" + (
                f" ({self.current})" if self.current and with_id else "")
        return text

    def _refresh(self) -> None:
        if self.live:  # the id after the bar, so that the bar stays where it is
            self._bar.update(self._task, description=escape(self._where(True, False)),
                             times=self.times_text(), current=escape(self.current),
                             total=self.active, completed=self.in_block)

    def _log(self, text: str) -> None:
        if self.live:
            return
        self._last_line = self.clock()
        self.out.print(f"progress: {text}; {self.times_text()}", soft_wrap=True,
                       highlight=False, markup=False)
