"""Shared fixtures: an isolated home for every test and the fake harness."""

from __future__ import annotations

import contextlib
import functools
import os
import stat
import sys
import uuid
from pathlib import Path

import pytest

from rtbench import kernels as _kernels

FAKE = Path(__file__).resolve().parent / "fake_harness.py"

# What a test needs beyond Python and this host, as markers (pyproject.toml
# registers them; `scripts/test.sh --fast` leaves out board, browser and
# lab): told by the fixtures it uses, so a new test cannot forget its own.
# board: an image built and run under QEMU (the board_cache fixture, or a
# test marked by hand that checks the tools itself); zephyr: a board test of
# Zephyr's; browser: Chromium; lab: a labgrid lab.
NEEDS = {"board_cache": "board",
         "browser": "browser", "lab": "lab", "zephyr": "zephyr"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        for fixture, marker in NEEDS.items():
            if fixture in names:
                item.add_marker(marker)
        if item.get_closest_marker("zephyr") or item.get_closest_marker("lab"):
            item.add_marker("board")  # both build and run board images
        if "left" in names:
            # it compares the machine's IPC objects and /dev/shm before and
            # after (faults.Leftovers, the `left` fixture below):
            # a host test running meanwhile (Chromium, cyclictest, the
            # harness) would be "left behind", so scripts/test.sh runs these
            # one at a time, beside the board tests only (they make none)
            item.add_marker("serial")
    # The longest modules first, then the other board modules, then the
    # host modules (scripts/test.sh runs pytest-xdist with
    # --no-loadscope-reorder, so its workers take modules in this order;
    # it runs the host modules and the board modules in passes of their
    # own): short modules then fill both workers to the end, instead of one
    # worker alone with a long one (xdist's own order, most tests first,
    # left test_lm_trace last).
    board = {item.module.__name__ for item in items
             if getattr(item, "module", None) and item.get_closest_marker("board")}

    def rank(item) -> tuple[int, int]:
        name = getattr(getattr(item, "module", None), "__name__", "")
        if name in LONGEST:
            return (0, LONGEST.index(name))
        return (1 if name in board else 2, 0)

    items.sort(key=rank)  # stable: a module's tests keep their order


# The modules with the longest chains of builds and runs (their summed test
# time in a full run: 395, 414 and 246 s), first to the workers.
# test_lm_trace (147 s) is not among them: it reads the Zephyr peers run
# test_zephyr makes (zephyr_peers_run), and begun beside it, it waited two
# minutes for it.
LONGEST = ["test_window_audit", "test_board_target", "test_zephyr"]


@pytest.fixture
def left(tmp_path: Path):
    """What the test's processes leave behind (faults.Leftovers), their
    temporary folder tmp/ beside the test's; taking it marks the test
    serial (pytest_collection_modifyitems). test_fault_user has its own,
    in a folder another user can write."""
    from faults import Leftovers

    (tmp_path / "tmp").mkdir()
    return Leftovers(tmp_path / "tmp")


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Never touch the real user's cache, database or working directory."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    # rtbench.measure.tuning changes machine-wide settings as root: only the tests of
    # it ask for that (they delete this)
    monkeypatch.setenv("RTBENCH_NO_TUNE", "1")
    for var in ("RTBENCH_HARNESS", "RTBENCH_HARNESS_SRC", "RTBENCH_INJECT_FAULT",
                *(d.env for d in _kernels.all()), *TREES,  # every kernel's checkouts
                "FAKE_HARNESS_DELAY", "FAKE_HARNESS_UNSUPPORTED", "FAKE_HARNESS_IDS",
                "FAKE_HARNESS_LOG", "FAKE_HARNESS_EXIT_EARLY", "FAKE_HARNESS_STALL",
                "FAKE_HARNESS_SPANS"):
        monkeypatch.delenv(var, raising=False)
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def _signal_state() -> tuple:
    import signal

    from rtbench.process import lifetime

    handlers = tuple(signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP))
    return handlers, frozenset(signal.pthread_sigmask(signal.SIG_BLOCK, [])), lifetime._deferring


@pytest.fixture(autouse=True)
def signals_as_found():
    """Every test leaves its process's signal handling as it found it: a
    handler, a blocked signal or a deferral left behind is inherited by
    every later test of the worker (and SIG_IGN by every child it starts),
    and the Ctrl-C tests then fail far from the cause."""
    before = _signal_state()
    yield
    after = _signal_state()
    assert after == before, f"this test left signal handling changed: {before} -> {after}"


@pytest.fixture(scope="session")
def fake_exe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An executable wrapper running the fake harness with this interpreter
    (the runner executes a path, and `exec` keeps one process per harness)."""
    path = tmp_path_factory.mktemp("fake") / "rtbench-harness"
    path.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@pytest.fixture
def fake(fake_exe: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
         request: pytest.FixtureRequest) -> Path:
    """Use the fake harness; its invocations are logged to `tmp_path/harness.log`.
    Its runs take CPU locks of this test's own (rtbench.process.locks
    SCOPE_ENV: a fake measures nothing), so a test on the other worker that
    measures (the real harness) does not make it wait; a serial test keeps
    the machine's locks, which it tests."""
    from rtbench.process import locks

    monkeypatch.setenv("RTBENCH_HARNESS", str(fake_exe))
    monkeypatch.setenv("FAKE_HARNESS_LOG", str(tmp_path / "harness.log"))
    if request.node.get_closest_marker("serial") is None:
        monkeypatch.setenv(locks.SCOPE_ENV, uuid.uuid4().hex[:12])
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


def shared_temp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This session's temporary root, shared by its xdist workers (each
    worker's basetemp is a folder of it; scripts/test.sh runs two), so a
    build or a board run is made once for the session, not once per
    worker. Without xdist, the session's own basetemp (its parent is
    every earlier session's). scripts/test.sh runs three sessions (host,
    board, serial) and names one folder for all three in RTBENCH_TEST_SHARED
    (the harness and the images each built once, not once per session)."""
    if os.environ.get("RTBENCH_TEST_SHARED"):
        return Path(os.environ["RTBENCH_TEST_SHARED"])
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def shared_lock(path: Path):
    """Hold an exclusive lock on `path` (the workers' turn at a shared build or run)."""
    import fcntl

    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def real_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One build of the real harness per test session, in a private cache."""
    _real_build(tmp_path_factory)
    return shared_temp(tmp_path_factory) / "real-cache"


@pytest.fixture(scope="session")
def real_exe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real harness executable (built once per session, see real_cache)."""
    return _real_build(tmp_path_factory)


_BUILT: dict[str, Path] = {}


def _real_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if "exe" not in _BUILT:
        from rtbench.targets import harness

        cache = shared_temp(tmp_path_factory) / "real-cache"  # rtbench's build lock serialises
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
# tree (../shared/third_party, its README), or where RTBENCH_FREERTOS_SRC /
# RTBENCH_THREADX_SRC say.
THIRD_PARTY = REPO.parent / "shared" / "third_party"
# kernel -> (its environment variable, its folder in third_party, a file a
# checkout has): each kernel's descriptor says (rtbench.kernels), never a copy here
KERNELS = {d.name: (d.env, d.repository, d.marker) for d in _kernels.all()}
ZEPHYR_MODULES_VAR = _kernels.get("zephyr").more_sources[0].env
# the further checkouts a kernel's build needs (Zephyr's modules, RTX5's CMSIS 6), by variable
TREES = {t.env: t for d in _kernels.all() for t in d.more_sources}
CMSIS6 = _kernels.get("rtx5").more_sources[0]


@functools.lru_cache(maxsize=None)
def tree_src(var: str) -> Path | None:
    """A further checkout (TREES) where its variable or third_party has it, read once."""
    tree, env = TREES[var], os.environ.get(var)
    for cand in ([Path(env)] if env else []) + [THIRD_PARTY / tree.repository]:
        if cand.is_dir() and (not tree.marker or (cand / tree.marker).is_file()):
            return cand
    return None


def kernel_of(name, src, modules=None, userspace=False):
    """The kernel `name` from checkout `src`, in the default profile (as a
    run without --kernel-profile builds it)."""
    from rtbench.targets import profiles

    return _kernels.resolve(name, src, profiles.default(), modules, userspace)


@functools.lru_cache(maxsize=None)
def zephyr_modules() -> Path | None:
    """The folder of Zephyr's modules (cmsis/), read once at collection."""
    env = os.environ.get(ZEPHYR_MODULES_VAR)
    for cand in ([Path(env)] if env else []) + [THIRD_PARTY / "zephyr-modules"]:
        if (cand / "cmsis" / "zephyr" / "module.yml").is_file():
            return cand
    return None


@functools.lru_cache(maxsize=None)
def rtos_benchmark_src() -> Path | None:
    """rtos-benchmark's checkout (a peer's sources, not a kernel's), read once."""
    env = os.environ.get("RTBENCH_RTOS_BENCHMARK_SRC")
    for cand in ([Path(env)] if env else []) + [THIRD_PARTY / "rtos-benchmark"]:
        if (cand / "src" / "zephyr" / "bench_porting_layer_zephyr.c").is_file():
            return cand
    return None


@functools.lru_cache(maxsize=None)
def kernel_src(kernel: str) -> Path | None:
    """Read once, at collection: the `isolated` fixture removes the kernels'
    variables from a test's environment, and a board test's own fixture
    must still find the sources the caller named."""
    var, folder, marker = KERNELS[kernel]
    env = os.environ.get(var)
    for cand in ([Path(env)] if env else []) + [THIRD_PARTY / folder]:
        if (cand / marker).is_file():
            return cand
    return None


for _kernel in KERNELS:  # now, at collection, before any test's `isolated` runs
    kernel_src(_kernel)
zephyr_modules()
for _var in TREES:
    tree_src(_var)
rtos_benchmark_src()


def freertos_src() -> Path | None:
    return kernel_src("freertos")


def threadx_src() -> Path | None:
    return kernel_src("threadx")


def kernel_env(mp: pytest.MonkeyPatch) -> None:
    """Every kernel's sources in its environment variable (what a user sets)."""
    for kernel, (var, _folder, _marker) in KERNELS.items():
        if kernel_src(kernel) is not None:
            mp.setenv(var, str(kernel_src(kernel)))
    if zephyr_modules() is not None:
        mp.setenv(ZEPHYR_MODULES_VAR, str(zephyr_modules()))
    for var in TREES:
        if var != ZEPHYR_MODULES_VAR and tree_src(var) is not None:
            mp.setenv(var, str(tree_src(var)))


def board_tools_missing() -> str:
    """Why the board target cannot run here ("" when it can)."""
    import shutil

    missing = [t for t in ("qemu-system-arm", "arm-none-eabi-gcc", "cmake") if not shutil.which(t)]
    if missing:
        return "missing " + ", ".join(missing)
    for kernel in ("freertos", "threadx"):
        if kernel_src(kernel) is None:
            return f"no {kernel} sources ({KERNELS[kernel][0]} or ../shared/third_party)"
    return ""


def zephyr_missing() -> str:
    """Why the Zephyr image cannot be built here ("" when it can): the board
    tools, Zephyr's build tools and Python packages, its tree and modules."""
    import importlib.util
    import shutil

    why = board_tools_missing()
    if why:
        return why
    tools = [t for t in ("ninja", "dtc", "gperf") if not shutil.which(t)]
    if tools:
        return "missing " + ", ".join(tools)
    mods = [m for m in ("elftools", "yaml", "pykwalify", "packaging")
            if importlib.util.find_spec(m) is None]
    if mods:
        return "missing Python packages " + ", ".join(mods)
    if kernel_src("zephyr") is None:
        return "no zephyr sources (RTBENCH_ZEPHYR_SRC or ../shared/third_party)"
    if zephyr_modules() is None:
        return f"no Zephyr modules ({ZEPHYR_MODULES_VAR} or ../shared/third_party/zephyr-modules)"
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
    cache = shared_temp(tmp_path_factory) / "board-cache"  # rtbench's build lock serialises
    cache.mkdir(exist_ok=True)
    return cache


@pytest.fixture(scope="session")
def normal_user():
    """A way to run rtbench as a normal user (tests/faults.py, User); the
    test is skipped where there is none (not root and allowed SCHED_FIFO,
    or root without useradd and setpriv)."""
    import shutil

    from faults import find_normal_user, private_dir

    base = private_dir()
    try:
        user = find_normal_user(base)
        if user is None:
            pytest.skip("no way to run as a normal user here")
        yield user
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def user_dir(normal_user):
    """A fresh directory the normal user may write, removed afterwards."""
    import shutil

    from faults import private_dir

    path = private_dir()
    (path / "tmp").mkdir()
    for p in (path, path / "tmp"):
        p.chmod(0o777 if normal_user.uid is None else 0o755)
        normal_user.chown(p)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def determinism_rows() -> list[str]:
    """The rows a board's determinism is checked on (twice, with and without
    the cycle model), not the whole catalogue twice: the method's exact
    checks and the window audit's headline rows (every kind of window: a
    call, a switch each way, the interrupt paths)."""
    from rtbench.targets import audit

    return ["method.null", "method.busywait", *audit.HEADLINE]


BOARD_RUN_SAMPLES = 50  # board_runs' whole-catalogue run


@pytest.fixture(scope="session")
def board_runs(board_cache, tmp_path_factory):
    """board_runs(kernel, board): the results.json envelopes the board
    tests read, made once per test session: [0] the whole catalogue (quick,
    50 samples a row: the four tick-paced rows wait a tick per sample, each
    a few thousand reads of the board's timer that QEMU executes slowly
    under -icount, and at 200 samples they were 7 of FreeRTOS's 9 s; what
    the tests check is in every sample) with the cycle model (the
    default); [1]
    determinism_rows() (quick) without it
    (--no-cycles); [2] the same rows with it again, so [1] and [2] must
    agree in every figure (the plugin changes none, and a run is repeatable)."""
    done: dict[tuple[str, str], list[dict]] = {}

    def get(kernel: str, board: str = "mps2-an385") -> list[dict]:
        if (kernel, board) not in done:
            import json

            from rtbench.cli import main

            # made once for the session: the worker that comes first runs
            # it, the other reads its results (the runs are deterministic)
            work = shared_temp(tmp_path_factory) / f"full-{kernel}-{board}"
            work.mkdir(exist_ok=True)
            mp = pytest.MonkeyPatch()
            mp.setenv("XDG_CACHE_HOME", str(board_cache))
            kernel_env(mp)
            mp.chdir(work)
            rows = ["--only", ",".join(determinism_rows())]
            try:
                with shared_lock(work / ".lock"):
                    for out, more in (("a", ["--samples", str(BOARD_RUN_SAMPLES)]),
                                      ("b", ["--no-cycles", *rows]), ("c", rows)):
                        if not (work / out / "results.json").is_file():
                            assert main(["run", "--target", board, "--kernel", kernel,
                                         "--quick", "--db", "r.db", "--out", out,
                                         *more]) == 0
                done[kernel, board] = [json.loads((work / out / "results.json").read_text())
                                       for out in ("a", "b", "c")]
            finally:
                mp.undo()
        return done[kernel, board]

    return get


def peers_doc():
    """scripts/peers-doc.py as a module (its command and its table)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("peers_doc", REPO / "scripts" / "peers-doc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def zephyr_peers_run(board_cache, tmp_path_factory) -> Path:
    """The database of docs/peers.md's run (scripts/peers-doc.py's command:
    Zephyr beside latency_measure stock and rebuilt, and Thread-Metric),
    made once for the session in its board cache: the worker that comes
    first runs it, the other reads it (test_lm_trace.py, test_zephyr.py)."""
    why = zephyr_missing()
    if why:
        if os.environ.get("RTBENCH_REQUIRE_BOARD") == "1":
            pytest.fail(f"the Zephyr image cannot be built: {why}")
        pytest.skip(f"Zephyr: {why}")
    from rtbench.cli import main

    where = shared_temp(tmp_path_factory) / "zephyr-peers-run"
    where.mkdir(exist_ok=True)
    with shared_lock(where / ".lock"):
        if not (where / "o" / "results.json").is_file():
            with pytest.MonkeyPatch.context() as mp:
                mp.setenv("XDG_CACHE_HOME", str(board_cache))
                mp.setenv("XDG_DATA_HOME", str(where / "xdg-data"))
                mp.setenv("RTBENCH_NO_TUNE", "1")
                mp.delenv("RTBENCH_RTOS_BENCHMARK_SRC", raising=False)  # its own test (test_zephyr.py)
                kernel_env(mp)
                mp.chdir(where)
                assert main([*peers_doc().command()[1:], "--db", "r.db", "--out", "o"]) == 0
    return where / "r.db"

