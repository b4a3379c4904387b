"""An emulated board's watchdog waits by the emulator's own CPU time, not
the wall clock (targets.qemu.QemuInstance.progress_s): under -icount a
board's figures never depend on the host's load, so neither may whether a
metric is killed (issue: amx.delay.switch, 20 s of QEMU alone, was killed in
one of two runs of a host loaded three times over). A process that burns
no CPU is still stopped, by wall time at an eighth of its rate."""

import subprocess
import sys
import time

from rtbench.process import lifetime
from rtbench.targets.base import Instance
from rtbench.targets.qemu import QemuInstance


def _started(code: str) -> subprocess.Popen:
    return lifetime.popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)


def test_a_busy_emulator_is_timed_by_its_cpu_and_an_idle_one_by_an_eighth_of_the_wall():
    busy = QemuInstance(_started("while True: pass"))
    idle = QemuInstance(_started("import time; time.sleep(60)"))
    host = Instance(_started("import time; time.sleep(60)"))
    try:
        t0 = (busy.progress_s(), idle.progress_s(), time.monotonic())
        time.sleep(2.0)
        d_busy, d_idle = busy.progress_s() - t0[0], idle.progress_s() - t0[1]
        wall = time.monotonic() - t0[2]
        assert 0 < d_busy <= wall + 0.05  # at most the wall: one process, one CPU
        assert d_idle <= wall * QemuInstance.WALL_FRACTION + 0.05
        assert abs(host.progress_s() - time.monotonic()) < 0.05  # the host: wall time
    finally:
        for inst in (busy, idle, host):
            inst.kill()
