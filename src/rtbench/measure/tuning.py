"""What `rtbench run` changes on the machine for the run, as root, and puts
back afterwards (issue 13, item 7):

* RT throttling lifted (`/proc/sys/kernel/sched_rt_runtime_us` = -1), so no
  real-time task is stopped for the rest of a second mid-metric and the
  harness need not rest between samples to avoid it;
* the movable interrupts steered off the benchmark CPU (each
  `/proc/irq/N/smp_affinity_list` set to the other CPUs; the kernel's
  managed interrupts refuse and stay).

A helper process holds the changes: `python -m rtbench.measure.tuning hold CPU`,
started through rtbench.process.lifetime (its own session, watched by the guard).
It applies them, prints one line (`ready {json}`: what it changed and what
it could not) and waits; when its stdin closes (rtbench ended, however) or
it gets SIGTERM (rtbench's `lifetime.end`, or the guard after rtbench was
killed), it puts everything back and exits. The machine-wide values are
shared by every rtbench run at once, so the helpers keep one state file
under a lock (`/run/rtbench/tuning.json`, gone when the last one leaves): the first saves the original
values, each adds its benchmark CPU, the last one out restores them. A
helper that was killed outright leaves a holder that is dead: the next
helper sees that, and if no live holder is left it restores the saved
values first, so a SIGKILLed helper costs one run's change, never a
permanent one.

What the sheet says of it (the run's host record, `tuning`) is read back in
store/host.py.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

from rtbench.store.host import cpu_list

RT_RUNTIME = Path("/proc/sys/kernel/sched_rt_runtime_us")
IRQ_DIR = Path("/proc/irq")
STATE_DIR = Path(os.environ.get("RTBENCH_TUNING_DIR", "/run/rtbench"))
READY_TIMEOUT = 10.0


# ---- the shared state --------------------------------------------------------

@contextlib.contextmanager
def _locked() -> Iterator[dict]:
    """The shared state, under a lock on the directory that holds the state
    directory (/run): no lock file is left behind, and the state directory
    goes when the last holder leaves."""
    fd = os.open(STATE_DIR.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        path = STATE_DIR / "tuning.json"
        try:
            state = json.loads(path.read_text())
        except (OSError, ValueError):
            state = {}
        state.setdefault("holders", {})
        yield state
        if state.get("holders") or state.get("saved"):
            STATE_DIR.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(state))
            tmp.replace(path)
        else:
            with contextlib.suppress(OSError):
                path.unlink()
            with contextlib.suppress(OSError):
                (STATE_DIR / "tuning.lock").unlink()  # left by an older rtbench
            with contextlib.suppress(OSError):
                STATE_DIR.rmdir()
    finally:
        os.close(fd)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value + "\n")
        return True
    except OSError:
        return False


def irq_affinities() -> dict[str, str]:
    """Every numbered interrupt's smp_affinity_list."""
    out = {}
    for d in IRQ_DIR.glob("[0-9]*"):
        value = _read(d / "smp_affinity_list")
        if value is not None:
            out[d.name] = value
    return out


def current() -> dict:
    """The values the helpers change, as they are now (for the tests)."""
    return {"sched_rt_runtime_us": _read(RT_RUNTIME), "irq": irq_affinities()}


def _cpus(text: str) -> set[int]:
    return set(cpu_list(text))


def _cpu_text(cpus: set[int]) -> str:
    return ",".join(str(c) for c in sorted(cpus))


def _restore(saved: dict) -> None:
    if saved.get("sched_rt_runtime_us") is not None:
        _write(RT_RUNTIME, saved["sched_rt_runtime_us"])
    for irq, value in (saved.get("irq") or {}).items():
        _write(IRQ_DIR / irq / "smp_affinity_list", value)


def _apply(state: dict) -> dict:
    """The changes for every live holder's benchmark CPU; what was done."""
    saved = state["saved"]
    done: dict = {"rt_runtime": None, "irqs_moved": [], "irqs_left": []}
    if saved.get("sched_rt_runtime_us") not in (None, "-1"):
        done["rt_runtime"] = "lifted" if _write(RT_RUNTIME, "-1") else "could not be lifted"
    busy = {int(h["cpu"]) for h in state["holders"].values()}
    online = _cpus(_read(Path("/sys/devices/system/cpu/online")) or "")
    for irq, original in sorted((saved.get("irq") or {}).items(), key=lambda kv: int(kv[0])):
        allowed = _cpus(original) or online
        target = allowed - busy
        if not (allowed & busy):
            continue  # it never ran on a benchmark CPU
        if not target:
            _write(IRQ_DIR / irq / "smp_affinity_list", original)
            done["irqs_left"].append(irq)
        elif _write(IRQ_DIR / irq / "smp_affinity_list", _cpu_text(target)):
            done["irqs_moved"].append(irq)
        else:
            done["irqs_left"].append(irq)  # managed by the kernel, or a per-CPU line
    return done


def join(pid: int, cpu: int) -> dict:
    with _locked() as state:
        holders = {p: h for p, h in state["holders"].items() if _alive(int(p))}
        if not holders and state.get("saved"):
            _restore(state["saved"])  # a helper killed before it put things back
            state.pop("saved")
        state["holders"] = {**holders, str(pid): {"cpu": cpu}}
        if not state.get("saved"):
            state["saved"] = current()
        return _apply(state)


def leave(pid: int) -> None:
    with _locked() as state:
        state["holders"] = {p: h for p, h in state["holders"].items()
                            if p != str(pid) and _alive(int(p))}
        if state.get("saved"):
            if state["holders"]:
                _restore({"irq": state["saved"].get("irq")})
                _apply(state)  # the others' CPUs still steered off
            else:
                _restore(state["saved"])
                state.pop("saved")


# ---- the helper process --------------------------------------------------------

def _hold(cpu: int) -> None:
    stop = False

    def on_signal(_sig, _frame) -> None:
        nonlocal stop
        stop = True

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)
    done = join(os.getpid(), cpu)
    try:
        print("ready " + json.dumps(done), flush=True)
        while not stop:
            ready, _, _ = select.select([sys.stdin], [], [], 1.0)
            if ready and not sys.stdin.buffer.read1(4096):
                break  # rtbench is gone
    finally:
        leave(os.getpid())


def main(argv: list[str]) -> None:
    if argv[:1] == ["hold"] and len(argv) == 2:
        _hold(int(argv[1]))
    else:
        sys.exit("usage: python -m rtbench.measure.tuning hold CPU")


# ---- rtbench's side ---------------------------------------------------------------

def wanted() -> str | None:
    """Why no tuning is done here, or None: only root may, and
    RTBENCH_NO_TUNE=1 or `--no-tune` leaves the machine as it is."""
    if os.environ.get("RTBENCH_NO_TUNE") == "1":
        return "not asked (--no-tune)"
    if os.geteuid() != 0:
        return "not root"
    return None


@contextlib.contextmanager
def held(cpu: int, asked: bool = True) -> Iterator[dict]:
    """The machine tuned for a run on `cpu` while the block runs; yields
    what was done, for the run's host facts (`tuning`)."""
    from rtbench.process import lifetime

    why = "not asked (--no-tune)" if not asked else wanted()
    if why is not None:
        yield {"done": False, "why": why}
        return
    proc = lifetime.popen([sys.executable, "-m", "rtbench.measure.tuning", "hold", str(cpu)],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True)
    try:
        facts = _ready(proc)
        yield facts
    finally:
        with contextlib.suppress(OSError):
            proc.stdin.close()
        lifetime.end(proc, grace=5.0)


def _ready(proc: subprocess.Popen) -> dict:
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.2)
        if ready:
            line = proc.stdout.readline()
            if line.startswith("ready "):
                return {"done": True, **json.loads(line[6:])}
            break
        if proc.poll() is not None:
            break
    return {"done": False, "why": "the tuning helper did not start"}


if __name__ == "__main__":
    main(sys.argv[1:])
