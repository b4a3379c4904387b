"""The System rows whose set-up is large (a 64 MB pointer chain, two 16 MB
buffers, a 1 MB file, a ring of 16 processes) against the real harness:
the set-up is no part of the row's time budget (rtb_budget_from_now).

Building and walking lat_mem_rd's 64 MB chain takes longer than the 83 ms
a block of `rtbench run --quick` gives a row, so it used to end with no
sample at all. Under a 20 ms budget every one of these rows must still
give samples; no assertion depends on how fast this machine is beyond
"the 64 MB chain takes more than 20 ms to build" (512 K cache misses).
"""

import json
import shutil
import subprocess

import pytest

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("cc") is None,
                                reason="cmake and a C compiler are needed for the real harness")

ROWS = ("sys.memlat.s128.64m", "sys.bw.mem.cp.16m", "sys.bw.file_rd.io.1m", "sys.ctx.p16.k256")


def test_a_large_set_up_leaves_the_whole_budget_to_the_samples(real_exe, tmp_path):
    out = subprocess.run([str(real_exe), "--only", ",".join(ROWS), "--samples", "50",
                          "--warmup", "5", "--budget-ms", "20"], stdout=subprocess.PIPE,
                         text=True, env={"PATH": "/usr/bin:/bin", "TMPDIR": str(tmp_path)},
                         check=True).stdout
    records = {r["id"]: r for r in map(json.loads, out.splitlines()) if r.get("type") == "metric"}
    assert sorted(records) == sorted(ROWS)
    for mid, r in records.items():
        assert r["status"] == "ok" and r["n"] >= 1, (mid, r.get("reason"))
