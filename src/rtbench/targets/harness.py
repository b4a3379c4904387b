"""Find, build and query the C harness (`rtbench-harness`).

The build goes to the user cache dir, keyed by a hash of the sources, so a
changed source tree gets a fresh build and an unchanged one is reused.
"""

from __future__ import annotations

import contextlib
import contextvars
import fcntl
import functools
import hashlib
import os
import resource
import shutil
import subprocess
import time
from pathlib import Path
from typing import Callable, Iterator

import platformdirs

from rtbench.errors import HarnessError, RtbenchError
from rtbench.process import lifetime, owned
from rtbench.store import records

EXE_NAME = "rtbench-harness"
BUILT = ".built"  # written after a whole build, under the lock: the executable is complete
PLUGIN_DIR = "qemu_plugin"  # the cycle model's sources (cycles.py), beside the harness's
_PKG_DIR = Path(__file__).resolve().parents[1]  # the rtbench package (rtbench/_harness in a wheel)

# Who is told what a build builds (a first build takes a minute and more):
# set by `announcing` around the work that may build, None: nobody.
_SAY: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar(
    "rtbench_build_say", default=None)


@contextlib.contextmanager
def announcing(say: Callable[[str], None]) -> Iterator[None]:
    """Within the block, every build that has work to do says what it
    builds (and a wait for another rtbench building the same) to `say`."""
    token = _SAY.set(say)
    try:
        yield
    finally:
        _SAY.reset(token)


def _announce(text: str) -> None:
    say = _SAY.get()
    if say is not None:
        say(text)


def _locked(lock, what: str) -> None:
    """Take the build's lock, saying so when another rtbench holds it."""
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        _announce(f"waiting for another rtbench building the same {what}")
        fcntl.flock(lock, fcntl.LOCK_EX)


@contextlib.contextmanager
def _cache_lock(cache: Path, builddir: Path, what: str) -> Iterator[None]:
    """Hold the lock of `builddir` in the build cache `cache`: the cache,
    the lock and the build folder must be this user's alone before
    anything in them is run or built (rtbench.process.owned; one line,
    exit 2, for another's)."""
    owned.make_dir(cache, what)
    with owned.open_lock(cache / f"{builddir.name}.lock", what) as lock:
        _locked(lock, what)
        owned.check_dir(builddir, what)
        yield


def source_dir() -> Path:
    """The harness sources.

    `RTBENCH_HARNESS_SRC` wins (an explicit request); then the copy a wheel
    carries (`rtbench/_harness`); then the repository's `harness/` for a
    source checkout / editable install.
    """
    candidates = []
    if os.environ.get("RTBENCH_HARNESS_SRC"):
        candidates.append(Path(os.environ["RTBENCH_HARNESS_SRC"]))
    candidates += [_PKG_DIR / "_harness", _PKG_DIR.parents[1] / "harness"]
    for cand in candidates:
        if (cand / "CMakeLists.txt").is_file():
            return cand.resolve()
    raise HarnessError("harness sources not found (looked in "
                       + ", ".join(str(c) for c in candidates) + ")")


def source_hash(src: Path) -> str:
    """First 12 hex digits of a sha256 over every file's path and content."""
    digest = hashlib.sha256()
    for path in _source_files(src):
        digest.update(path.relative_to(src).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def _source_files(src: Path) -> list[Path]:
    files = []
    for root, dirs, names in os.walk(src):
        # An in-tree CMake build dir would change the hash on every build;
        # the cycle model's QEMU plugin (cycles.py) is no part of any image.
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__"
                         and not (Path(root, d) / "CMakeCache.txt").exists()
                         and not (Path(root) == src and d == PLUGIN_DIR))
        files += [Path(root, n) for n in sorted(names) if not n.startswith(".")]
    return files


def built_exe(src: Path | None = None) -> Path:
    """Where the build of these sources is (it may not exist yet)."""
    src = src or source_dir()
    cache = Path(platformdirs.user_cache_dir("rtbench"))
    return cache / f"harness-{source_hash(src)}" / EXE_NAME


def is_built() -> bool:
    """Whether the harness of these sources is built (`rtbench list` asks
    it for what it supports, never building just to list)."""
    if os.environ.get("RTBENCH_HARNESS"):
        return True
    try:
        exe = built_exe()
        return exe.is_file() and (exe.parent / BUILT).is_file()
    except (OSError, HarnessError):
        return False


def build(src: Path | None = None) -> Path:
    """Build the harness if needed; return the path of the executable.

    The build's lock is taken before its output is looked at: another
    rtbench may be linking the executable this moment (a file that exists
    and is empty), or have been killed while it did; only a build that
    ended leaves BUILT beside it."""
    src = src or source_dir()
    cache = Path(platformdirs.user_cache_dir("rtbench"))
    builddir = cache / f"harness-{source_hash(src)}"
    exe = builddir / EXE_NAME
    # Two rtbench processes starting at once must not build into one dir.
    with _cache_lock(cache, builddir, "harness"):
        if not (exe.is_file() and (builddir / BUILT).is_file()):
            if shutil.which("cmake") is None:
                raise HarnessError("cmake not found on PATH (needed to build the harness)")
            (builddir / BUILT).unlink(missing_ok=True)
            _announce(f"building the harness ({EXE_NAME}) for this machine with CMake into "
                      f"{builddir} (once per change of its sources)")
            _run_cmake(src, builddir)
            if exe.is_file():
                (builddir / BUILT).write_text("")
    if not exe.is_file():
        raise HarnessError(f"harness build produced no {EXE_NAME}; see {builddir / 'build.log'}")
    return exe


def _run_cmake(src: Path, builddir: Path) -> None:
    _run_steps(builddir, [
        ["cmake", "-S", str(src), "-B", str(builddir), "-DCMAKE_BUILD_TYPE=Release"],
        # Only the harness: the C unit tests are for scripts/test.sh.
        ["cmake", "--build", str(builddir), "--target", EXE_NAME,
         "--parallel", str(os.cpu_count() or 1)],
    ], "harness")


def _run_steps(builddir: Path, steps: list[list[str]], what: str, append: bool = False,
               env: dict[str, str] | None = None) -> None:
    """Run CMake steps with their output in builddir/build.log (`env`: more
    environment for them); a failure is one line naming the step, the first
    compiler error of that step (the log is read from where the step began)
    and the log. Every step runs in a session of its own, watched by
    rtbench's guard: make, the compiler and cc1 die with rtbench, however it
    dies (rtbench.process.lifetime)."""
    builddir.mkdir(parents=True, exist_ok=True, mode=0o755)  # ours alone (owned.py)
    log_path = builddir / "build.log"
    with open(log_path, "a" if append else "w") as log, lifetime.guarded():
        for cmd in steps:
            log.write("$ " + " ".join(cmd) + "\n")
            log.flush()
            began = log.tell()
            t0, cpu0 = time.monotonic(), _children_cpu()
            rc = _step(cmd, log, env)
            # what a build costs, for whoever reads the log (a suite's builds)
            log.write(f"# exit {rc}: {time.monotonic() - t0:.1f} s, "
                      f"{_children_cpu() - cpu0:.1f} s of CPU\n")
            if rc != 0:
                log.flush()
                with open(log_path, errors="replace") as fh:
                    fh.seek(began)
                    first = _reason(fh)
                raise HarnessError(f"{what} build failed ({cmd[1]} step, exit code {rc})"
                                   + (f": {first[:200]}" if first else "")
                                   + f"; see {log_path}")


def _children_cpu() -> float:
    """CPU seconds of this process's waited-for children (a step's tools)."""
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


FULL = "No space left on device"  # a full disk, whichever tool met it (ld, cc1, ninja)


def _reason(lines) -> str:
    """Why a build step failed, from its output: a full disk wherever it is
    said; else the first line naming an error, and for CMake's own
    (`CMake Error at FILE:LINE (message):`) the message's text, on the
    indented lines after it."""
    first, text = "", []
    for ln in lines:
        if FULL in ln:
            return ln.strip()
        if first and not text and not ln.strip():
            continue
        if first.startswith("CMake Error") and ln.startswith(" ") and ln.strip():
            text.append(ln.strip())
        elif first.startswith("CMake Error") and text:
            break  # the message ended
        elif not first and "error" in ln.lower():
            first = ln.strip()
    return " ".join([first, *text])


def _step(cmd: list[str], log, env: dict[str, str] | None = None) -> int:
    """One build step, its exit status; an interrupt ends its whole group."""
    proc = lifetime.popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                          env={**os.environ, **env} if env else None)
    try:
        rc = proc.wait()
    except BaseException:
        lifetime.end(proc, grace=1.0)
        raise
    lifetime.forget(proc)
    return rc


def build_image(port: str, board: str, defs: dict[str, str], image: str,
                variable: dict[str, str] | None = None, copy_to: Path | None = None) -> Path:
    """Cross-build the harness for a board (ports/<port>/port.cmake with the
    board's toolchain) into the cache; return the image's path.

    The build directory is keyed by the harness sources and the options, and
    CMake's own dependency tracking rebuilds when the kernel's sources (the
    user's checkout, outside the key) change: `cmake --build` runs every time
    and is a no-op when nothing did.

    `variable`: options set on every build and kept out of the key (the
    command line built into an image changes from run to run; only the file
    that uses it recompiles). The image is then copied to `copy_to` while
    the build is still locked, so builds with other values cannot replace
    it before the caller has it."""
    opts = {"RTB_PORT": port, "RTB_BOARD": board, **_python(), **defs}
    return _build_in_cache(source_dir(), f"image-{port}-{board}", opts, [image], "image",
                           variable=variable, copy_to=copy_to)[0]


def build_images(port: str, board: str, defs: dict[str, str], images: list[str]) -> list[Path]:
    """build_image for several targets of one configuration (a port's
    harness image, a peer's images) in one `cmake --build`."""
    opts = {"RTB_PORT": port, "RTB_BOARD": board, **_python(), **defs}
    return _build_in_cache(source_dir(), f"image-{port}-{board}", opts, images, "image")


def build_peer_image(peer: str, board: str, defs: dict[str, str], image: str) -> Path:
    """Cross-build a peer benchmark for a board (harness/peers/<peer>: its own
    CMake project, the user's checkout of the peer compiled in place) into
    the cache, the same way as build_image; return the image's path."""
    src = source_dir()
    peer_src = src / "peers" / peer
    if not (peer_src / "CMakeLists.txt").is_file():
        raise HarnessError(f"no peer {peer!r} in {src / 'peers'}")
    return _build_in_cache(peer_src, f"peer-{peer}-{board}",
                           {"RTB_BOARD": board, **_python(), **defs}, [image], f"{peer} image",
                           key_src=src)[0]


def _python() -> dict[str, str]:
    """The Python the build runs harness/profiles/rtb_profile.py with (the
    kernel profile's generator): rtbench's own, which has what it needs."""
    import sys

    return {"Python3_EXECUTABLE": sys.executable}


# ---- a kernel built as its own CMake project (its descriptor says how) ----

def build_own_image(kernel, board: str, defs: dict[str, str],
                    variable: dict[str, str] | None = None, keep_as: str | None = None,
                    beside: tuple[str, ...] = ()) -> Path:
    """The harness image of a kernel that builds as its own CMake project
    (its port, harness/ports/<name>, an application of the kernel's tree),
    for `board` as the kernel names it; the descriptor runs build_project
    (`variable`, `keep_as`, `beside`: build_project's)."""
    return kernel.descriptor.own_image(
        kernel, board, defs, source_dir() / "ports",
        functools.partial(build_project, variable=variable, keep_as=keep_as, beside=beside))


def build_project(kernel, board: str, app: Path, name: str, defs: dict[str, str],
                  what: str, variable: dict[str, str] | None = None,
                  keep_as: str | None = None, beside: tuple[str, ...] = ()) -> Path:
    """Build the application `app` of the kernel's own CMake project
    (rtbench's port, or one of the user's tree: latency_measure) for `board`
    into the cache, keyed by rtbench's harness sources and the options.
    `variable` (kept out of the key, as build_image's) with `keep_as`: the
    image is copied, while the build is locked, to that name in the build
    folder, and that copy returned (images that differ in one option share
    one build: a Zephyr kernel compiled once, not once per image). `beside`:
    further files of the image's folder (zephyr.bin) copied beside that copy."""
    import sys

    d = kernel.descriptor
    d.check_build_tools(kernel.userspace)
    cc = shutil.which("arm-none-eabi-gcc")
    if cc is None:
        raise RtbenchError("arm-none-eabi-gcc not found: install gcc-arm-none-eabi")
    cache = Path(platformdirs.user_cache_dir("rtbench"))
    opts, env = d.project(kernel, board, cc, cache, sys.executable)
    builddir_name = (f"{name}-{board.replace('/', '-')}"
                     + ("-user" if kernel.userspace else ""))
    return _build_in_cache(app, builddir_name, {**opts, **defs}, [d.project_image], what,
                           key_src=source_dir(), env=env, generator=d.project_generator,
                           variable=variable, copy_to=Path(keep_as) if keep_as else None,
                           beside=beside)[0]


def _build_in_cache(src: Path, name: str, opts: dict[str, str], images: list[str], what: str,
                    key_src: Path | None = None, variable: dict[str, str] | None = None,
                    copy_to: Path | None = None, env: dict[str, str] | None = None,
                    generator: str | None = None, beside: tuple[str, ...] = ()) -> list[Path]:
    """Configure (once per key) and build `images` of the CMake project `src`
    in the cache, under a lock; a failed configure leaves no cache behind,
    so the next attempt configures again. `variable`, `copy_to` (one image
    only; a relative path is in the build folder): see build_image; `beside`
    names files of the image's folder copied with it, into copy_to's. `env`
    (in the key) and `generator`: for a project that needs them (Zephyr's:
    ZEPHYR_BASE, Ninja)."""
    # The names of the variable options are in the key: a build without
    # them never gets a value another caller left in the CMake cache.
    key = hashlib.sha256((source_hash(key_src or src) + repr(sorted(opts.items()))
                          + (repr(sorted(variable)) if variable else "")
                          + (repr(sorted(env.items())) if env else "")).encode()).hexdigest()[:12]
    cache = Path(platformdirs.user_cache_dir("rtbench"))
    builddir = cache / f"{name}-{key}"
    if shutil.which("cmake") is None:
        raise HarnessError(f"cmake not found on PATH (needed to build the {what})")
    with _cache_lock(cache, builddir, what):
        if not all((builddir / image).is_file() for image in images):
            whose = (f"rtbench's {opts['RTB_PORT']} port" if "RTB_PORT" in opts
                     else f"the {what}")
            _announce(f"building {', '.join(images)}: {whose} for "
                      f"{opts.get('RTB_BOARD') or opts.get('BOARD', 'the board')}, "
                      "cross-compiled with CMake into "
                      f"{builddir} (once for these sources; a minute or more)")
        if not (builddir / "CMakeCache.txt").is_file():
            try:
                _run_steps(builddir, [["cmake", *(["-G", generator] if generator else []),
                                       "-S", str(src), "-B", str(builddir),
                                       "-DCMAKE_BUILD_TYPE=Release",
                                       *(f"-D{k}={v}" for k, v in opts.items())]], what,
                           env=env)
            except BaseException:  # a failure or an interrupt: configure again next time
                (builddir / "CMakeCache.txt").unlink(missing_ok=True)
                raise
        steps = [["cmake", *(f"-D{k}={v}" for k, v in variable.items()), str(builddir)]
                 ] if variable else []
        _run_steps(builddir, [*steps, ["cmake", "--build", str(builddir), "--target", *images,
                                       "--parallel", str(os.cpu_count() or 1)]], what,
                   append=True, env=env)
        paths = [builddir / image for image in images]
        for path in paths:
            if not path.is_file():
                raise HarnessError(f"{what} build produced no {path.name}; "
                                   f"see {builddir / 'build.log'}")
        if copy_to is None:
            return paths
        copy_to = builddir / copy_to  # an absolute copy_to stays as it is
        copy_to.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(paths[0], copy_to)
        for name in (n for n in beside if n != copy_to.name):  # as the build left them
            (copy_to.parent / name).unlink(missing_ok=True)
            if (paths[0].parent / name).is_file():
                shutil.copyfile(paths[0].parent / name, copy_to.parent / name)
        return [copy_to]


def executable(explicit: str | os.PathLike | None = None) -> Path:
    """The harness to run: an explicit path (option or `RTBENCH_HARNESS`,
    used by the tests to inject a fake) or a build of the sources."""
    explicit = explicit or os.environ.get("RTBENCH_HARNESS")
    if explicit:
        path = Path(explicit)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise HarnessError(f"harness {path} is not an executable file")
        return path
    return build()


def registry(exe: Path, timeout: float = 60) -> list[str]:
    """The metric ids the harness knows (`rtbench-harness --list`)."""
    return list(registry_support(exe, timeout))


def registry_support(exe: Path, timeout: float = 60) -> dict[str, tuple[bool, str]]:
    """Each metric id the harness knows -> (the port supports it, why not;
    or for a supported row whose window is not its service, what it holds:
    records.registry_entry)."""
    try:
        proc = subprocess.run([str(exe), "--list"], capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        raise HarnessError(f"{exe} --list did not finish within {timeout:g}s") from exc
    except OSError as exc:
        raise HarnessError(f"cannot run {exe}: {exc.strerror}") from exc
    if proc.returncode != 0:
        detail = proc.stderr.strip().splitlines()[-1:] or [f"exit code {proc.returncode}"]
        raise HarnessError(f"{exe} --list failed: {detail[0]}")
    out: dict[str, tuple[bool, str]] = {}
    for line in proc.stdout.splitlines():
        rec = records.parse_line(line)
        if rec and rec["type"] == "registry":
            out[rec["id"]] = records.registry_entry(rec)
    return out


def built_support(explicit: Path | None = None) -> dict[str, tuple[bool, str]]:
    """What the harness already built here says of each metric (never a
    build just to list: `rtbench list`); {} when none is built or it
    cannot say."""
    try:
        exe = executable(explicit) if explicit or is_built() else None
        return registry_support(exe) if exe else {}
    except (RtbenchError, OSError):
        return {}
