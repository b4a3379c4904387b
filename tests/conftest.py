"""Shared fixtures: an isolated home for every test and the fake harness."""

from __future__ import annotations

import functools
import os
import stat
import sys
from pathlib import Path

import pytest

FAKE = Path(__file__).resolve().parent / "fake_harness.py"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Never touch the real user's cache, database or working directory."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    for var in ("RTBENCH_HARNESS", "RTBENCH_HARNESS_SRC", "RTBENCH_INJECT_FAULT",
                "RTBENCH_FREERTOS_SRC",
                "FAKE_HARNESS_DELAY", "FAKE_HARNESS_UNSUPPORTED", "FAKE_HARNESS_IDS",
                "FAKE_HARNESS_LOG", "FAKE_HARNESS_EXIT_EARLY", "FAKE_HARNESS_STALL"):
        monkeypatch.delenv(var, raising=False)
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


@pytest.fixture(scope="session")
def fake_exe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An executable wrapper running the fake harness with this interpreter
    (the runner executes a path, and `exec` keeps one process per harness)."""
    path = tmp_path_factory.mktemp("fake") / "rtbench-harness"
    path.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@pytest.fixture
def fake(fake_exe: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Use the fake harness; its invocations are logged to `tmp_path/harness.log`."""
    monkeypatch.setenv("RTBENCH_HARNESS", str(fake_exe))
    monkeypatch.setenv("FAKE_HARNESS_LOG", str(tmp_path / "harness.log"))
    return fake_exe


def invocations(tmp_path: Path) -> list[list[str]]:
    """The argv of every measuring harness process (`--list` calls left out)."""
    import json

    log = tmp_path / "harness.log"
    if not log.exists():
        return []
    argvs = [json.loads(line) for line in log.read_text().splitlines()]
    return [a for a in argvs if "--list" not in a]


def tree(path: Path) -> list[str]:
    """Every file and directory under path (to assert nothing was written)."""
    return sorted(str(p.relative_to(path)) for p in path.rglob("*")) if path.exists() else []


os.environ.setdefault("COLUMNS", "200")  # keep rich from wrapping output in tests


@pytest.fixture(scope="session")
def real_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One build of the real harness per test session, in a private cache."""
    _real_build(tmp_path_factory)
    return tmp_path_factory.getbasetemp() / "real-cache"


@pytest.fixture(scope="session")
def real_exe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real harness executable (built once per session, see real_cache)."""
    return _real_build(tmp_path_factory)


_BUILT: dict[str, Path] = {}


def _real_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if "exe" not in _BUILT:
        from rtbench import harness

        cache = tmp_path_factory.getbasetemp() / "real-cache"
        cache.mkdir(exist_ok=True)
        mp = pytest.MonkeyPatch()
        mp.setenv("XDG_CACHE_HOME", str(cache))
        mp.delenv("RTBENCH_HARNESS", raising=False)
        mp.delenv("RTBENCH_HARNESS_SRC", raising=False)
        try:
            _BUILT["exe"] = harness.build()
        finally:
            mp.undo()
    return _BUILT["exe"]


# ---- the emulated board (rtbench run --target mps2-an385) ----

REPO = Path(__file__).resolve().parents[1]
# Test material, never part of rtbench: the kernel sources beside the work
# tree (../shared/third_party, its README), or where RTBENCH_FREERTOS_SRC says.
THIRD_PARTY = REPO.parent / "shared" / "third_party"


@functools.lru_cache(maxsize=None)
def freertos_src() -> Path | None:
    """Read once, at collection: the `isolated` fixture removes
    RTBENCH_FREERTOS_SRC from a test's environment, and a board test's own
    fixture must still find the sources the caller named."""
    env = os.environ.get("RTBENCH_FREERTOS_SRC")
    for cand in ([Path(env)] if env else []) + [THIRD_PARTY / "FreeRTOS-Kernel"]:
        if (cand / "include" / "FreeRTOS.h").is_file():
            return cand
    return None


def board_tools_missing() -> str:
    """Why the board target cannot run here ("" when it can)."""
    import shutil

    missing = [t for t in ("qemu-system-arm", "arm-none-eabi-gcc", "cmake") if not shutil.which(t)]
    if missing:
        return "missing " + ", ".join(missing)
    if freertos_src() is None:
        return "no FreeRTOS sources (RTBENCH_FREERTOS_SRC or ../shared/third_party)"
    return ""


@pytest.fixture(scope="session")
def board_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One image build per test session (the build cache of every board test)."""
    why = board_tools_missing()
    if why:
        # CI installs the tools and has the sources: there a skip is a failure.
        if os.environ.get("RTBENCH_REQUIRE_BOARD") == "1":
            pytest.fail(f"the board target cannot run: {why}")
        pytest.skip(f"board target: {why}")
    return tmp_path_factory.mktemp("board-cache")
