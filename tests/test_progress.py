"""Progress on long work (issue 24): `rtbench run` says where it is, metric
i of N in block j of M with the time elapsed and an estimate of what is
left; a live display on a terminal, a quiet line log anywhere else. Time
here is a fake clock: nothing depends on how fast this machine is."""

import io
import re

from rich.console import Console

from rtbench.cli import main
from rtbench.measure import progress as progress_mod
from rtbench.measure.progress import RunProgress, clock_text
from rtbench.store import blocks, catalog

ANSI = re.compile(r"\x1b\[")


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def _console(terminal: bool) -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, force_terminal=terminal, width=160, highlight=False), buf


def _pass(p: RunProgress, clock: Clock, profile: str, k: int, ids: list[str],
          seconds: float) -> None:
    p.block_begins(profile, k, len(ids))
    for mid in ids:
        p.metric_begins(mid)
        clock.t += seconds
        p.block_done()


def test_a_line_log_off_a_terminal_one_line_a_block_with_an_estimate():
    console, buf = _console(terminal=False)
    clock = Clock()
    plan = blocks.plan(1000, 50, 500, 4)
    ids = [f"m.{i}" for i in range(10)]
    with RunProgress(console, ["rt"], plan, len(ids), clock) as p:
        for k in range(plan.blocks):
            _pass(p, clock, "rt", k, ids, 0.5)  # 5 s a block
    lines = buf.getvalue().splitlines()
    assert lines == ["progress: block 1/4: 10 metrics; 0:00 elapsed",
                     "progress: block 2/4: 10 metrics; 0:05 elapsed, about 0:15 left",
                     "progress: block 3/4: 10 metrics; 0:10 elapsed, about 0:10 left",
                     "progress: block 4/4: 10 metrics; 0:15 elapsed, about 0:05 left"]
    assert not ANSI.search(buf.getvalue()) and "\r" not in buf.getvalue()


def test_a_long_block_logs_where_it_is_at_most_every_30_s():
    console, buf = _console(terminal=False)
    clock = Clock()
    plan = blocks.plan(1000, 50, 500, 2)
    ids = [f"m.{i}" for i in range(8)]
    with RunProgress(console, ["rt", "cold"], plan, len(ids), clock) as p:
        _pass(p, clock, "rt", 0, ids, 10.0)  # 80 s in one block: a line every 30 s at most
    lines = buf.getvalue().splitlines()
    assert lines[0] == "progress: rt block 1/2: 8 metrics; 0:00 elapsed"
    inside = lines[1:]
    # at 0:30, 3 metric-blocks done (10 s each), 29 left: 5 of this block, 8 of the
    # next, 16 of the cold profile's two; at 1:00, 6 done, 26 left
    assert inside == ["progress: rt block 1/2, metric 4/8 (m.3); 0:30 elapsed, about 4:50 left",
                      "progress: rt block 1/2, metric 7/8 (m.6); 1:00 elapsed, about 4:20 left"]


def test_a_soak_lasts_at_least_its_duration():
    console, buf = _console(terminal=False)
    clock = Clock()
    plan = blocks.plan(1000, 50, 500, 2, duration_s=600)
    with RunProgress(console, ["rt"], plan, 2, clock) as p:
        for k in range(3):
            _pass(p, clock, "rt", k, ["a", "b"], 1.0)
    lines = buf.getvalue().splitlines()
    assert lines[1] == "progress: block 2/2: 2 metrics; 0:02 elapsed, about 9:58 left"
    assert lines[2].startswith("progress: block 3 (soak): 2 metrics; 0:04 elapsed")


def test_on_a_terminal_a_live_display_and_no_line_log():
    console, buf = _console(terminal=True)
    clock = Clock()
    plan = blocks.plan(1000, 50, 500, 3)
    with RunProgress(console, ["rt"], plan, 2, clock) as p:
        _pass(p, clock, "rt", 0, ["sem.give.no_waiter", "mutex.lock.uncontended"], 1.0)
        p.block_begins("rt", 1, 2)
        p.metric_begins("sem.give.no_waiter")
        p._bar.refresh()
        p.print("  a metric's line")
    out = buf.getvalue()
    assert "progress:" not in out and "  a metric's line" in out
    text = ANSI.sub("", out)
    assert "block 2/3, metric 1/2" in text and "sem.give.no_waiter" in text
    assert "0:02 elapsed, about 0:04 left" in text  # 4 metric-blocks to go at 1 s each


def test_clock_text():
    assert [clock_text(s) for s in (0, 7.4, 205, 3729)] == ["0:00", "0:07", "3:25", "1:02:09"]


def test_a_run_off_a_terminal_logs_its_blocks(fake, isolated, capsys):
    """`rtbench run` into a pipe or a file: the line log between the run's
    first line and the metrics' lines, no control characters."""
    assert main(["run", "--quick", "--only", "sem.give.*", "--blocks", "3", "--no-programs",
                 "--db", "r.db", "--out", "o"]) == 0
    out = capsys.readouterr().out
    logged = [line for line in out.splitlines() if line.startswith("progress: ")]
    n = len(catalog.load().match("sem.give.*"))
    assert [line.split(";")[0] for line in logged] == [
        f"progress: block {k}/3: {n} metrics" for k in (1, 2, 3)], logged
    assert logged[0].endswith("0:00 elapsed") and "left" in logged[2]
    assert not ANSI.search(out) and "\r" not in out
    assert progress_mod.LOG_EVERY_S == 30.0
