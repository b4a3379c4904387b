"""Issue 34, item 14: `rtbench list --coverage` says before it starts
which board columns build an image and roughly how long that takes (from
a figure measured here, else the development VM's), then each column as
it starts and ends; no silent minutes. Fake targets: no build, no QEMU."""

from __future__ import annotations

import itertools

import pytest

import rtbench.targets as targets
from rtbench.errors import RtbenchError
from rtbench.targets import buildtimes
from rtbench.targets import harness as harness_mod


class FakeBoard:
    def __init__(self, title: str, cached: bool):
        self.title, self.cached = title, cached

    def prepare(self) -> None:
        if not self.cached:  # what _build_in_cache says when it has work to do
            harness_mod._announce(f"building image.elf for {self.title}")

    def registry(self) -> dict:
        return {}

    def close(self) -> None:
        CLOSED.append(self.title)


CLOSED: list[str] = []


@pytest.fixture
def fake(monkeypatch, isolated):
    monkeypatch.setattr(harness_mod, "executable", lambda _h=None: "harness")
    monkeypatch.setattr(harness_mod, "registry_support", lambda _exe: {})

    def make(board, name, src, userspace=False):
        if name == "zephyr" and board != "mps2-an385":
            raise RtbenchError(f"no Zephyr board for {board}")
        if name == "rtx5":  # the plan below counts the first three kernels' columns
            raise RtbenchError("RTX5 sources not given")
        return FakeBoard(f"{name}{'-u' if userspace else ''}-{board}", cached=name == "threadx")

    monkeypatch.setattr(targets, "make", make)


def test_every_column_closes_its_target(fake):
    """A board column's target boots its image for the metric list, and an
    STM32F4 boot writes its command line into a scratch folder: closed, so
    nothing is left in /tmp."""
    CLOSED.clear()
    columns, _notes = targets.supports(None, (), lambda _text: None, clock=_clock(1.0))
    assert len(CLOSED) == len(columns) - 1 and "freertos-stm32f4" in CLOSED


def _clock(step: float):
    ticks = itertools.count()
    return lambda: next(ticks) * step  # every reading `step` s after the last


def test_plan_first_then_progress(fake):
    said: list[str] = []
    columns, notes = targets.supports(None, (), said.append, clock=_clock(40.0))
    plan = next(i for i, line in enumerate(said) if "board column(s) next" in line)
    first_build = next(i for i, line in enumerate(said) if line.startswith("building"))
    assert plan < first_build and not any(line.startswith("[") for line in said[:plan])
    line = said[plan]
    assert line.startswith("8 board column(s) next: FreeRTOS (mps2-an385), ThreadX (mps2-an385)")
    assert "Zephyr (userspace) (mps2-an385)" in line and "Zephyr (mps2-an386)" not in line
    assert "FreeRTOS (stm32f4)" in line and "Zephyr (stm32f4)" not in line
    assert "up to about 9 min in all" in line and "four took 258 s" in line  # 8 x 64.5 s
    assert any(line.startswith("[1/8] FreeRTOS (mps2-an385): its image (a build takes about 64 s)")
               for line in said)
    assert "[1/8] FreeRTOS (mps2-an385): done in 40 s (built)" in said
    assert "[2/8] ThreadX (mps2-an385): done in 40 s (its image was cached)" in said
    assert any("Zephyr columns left out: no Zephyr board for mps2-an386" in n for n in notes)
    assert len(columns) == 1 + 8


def test_the_next_listing_estimates_from_what_it_measured(fake):
    targets.supports(None, (), lambda _t: None, clock=_clock(40.0))
    times = buildtimes.load()
    assert times["FreeRTOS (mps2-an385)"] == 40.0  # built: measured
    assert "ThreadX (mps2-an385)" not in times  # cached: says nothing of a build
    said: list[str] = []
    targets.supports(None, (), said.append, clock=_clock(40.0))
    plan = next(line for line in said if "board column(s) next" in line)
    assert "measured here at its last build" in plan and "four took 258 s" in plan  # ThreadX
    assert any(line.startswith("[1/8] FreeRTOS (mps2-an385): its image (a build takes about 40 s)")
               for line in said)


def test_quiet_prints_the_tables_alone(fake, capsys):
    from rtbench.cli import main

    assert main(["list", "--coverage"]) == 0
    assert "list --coverage: 8 board column(s) next" in capsys.readouterr().err
    assert main(["list", "--coverage", "--quiet"]) == 0
    out = capsys.readouterr()
    assert out.err == "" and "FreeRTOS" in out.out
