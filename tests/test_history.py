"""Issue 34, item 12: `rtbench history` never draws a trend from one
kernel or target to another, says each row's target and origin, and keeps
only the runs asked for (--target, --kernel, --label, --last N)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rtbench.cli import main
from rtbench.sheets import views
from rtbench.store.db import Store
from synth import latency, record, run, store

METRIC = "sem.give.wake_ctx.thread"
RT = Path(__file__).resolve().parent / "data" / "import" / "rt-tests"
HOSTS = {  # three kernels on one host target: 6.1 (runs 1, 3), 6.18 (run 2)
    1: {"os": "Linux", "kernel_release": "6.1.0-rt", "hostname": "bench"},
    2: {"os": "Linux", "kernel_release": "6.18.44", "hostname": "bench"},
    3: {"os": "Linux", "kernel_release": "6.1.0-rt", "hostname": "bench"},
}


@pytest.fixture
def db(isolated) -> Path:
    path = isolated / "r.db"
    rng = np.random.default_rng(1)
    for rid, host in HOSTS.items():
        store(path, run([record(METRIC, latency(rng, 300 * rid))], run_id=rid,
                        label=f"nightly-{rid}", host=host))
    return path


def test_a_line_joins_only_one_kernels_runs(db):
    with Store(db, create=False) as s:
        points = s.history(METRIC)
    series = views.history_series(points)
    for name, values, _style in series:
        have = [i for i, v in enumerate(values) if v is not None]
        kernels = {views._measured(points[i].run)["kernel"] for i in have}
        assert len(kernels) == 1, (name, kernels)  # never 6.1 → 6.18
    medians = [name for name, _v, _s in series if name.endswith("median")]
    assert len(medians) == 2 and any("6.18.44" in n for n in medians)


def test_rows_say_target_and_origin(db, capsys):
    assert main(["import", "rt-tests", str(RT / "svsematest.txt"), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["history", METRIC, "--format", "md", "--db", str(db)]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = next(line for line in lines if line.startswith("| run |"))
    assert "| target | kernel | origin |" in head
    assert any(line.startswith("| 1 ") and "| host | Linux 6.1.0-rt | measured |" in line
               for line in lines)
    assert any(line.startswith("| 4 ") and "| imported (rt-tests) |" in line for line in lines)


@pytest.mark.parametrize("args, runs", [
    (["--kernel", "6.1.0"], [1, 3]),
    (["--kernel", "6.18"], [2]),
    (["--target", "host"], [1, 2, 3]),
    (["--target", "mps2-an385"], []),
    (["--label", "nightly-2"], [2]),
    (["--last", "2"], [2, 3]),
    (["--kernel", "6.1", "--last", "1"], [3]),
])
def test_filters(db, capsys, args, runs):
    capsys.readouterr()
    assert main(["history", METRIC, *args, "--format", "json", "--db", str(db)]) == 0
    import json

    assert [p["run"] for p in json.loads(capsys.readouterr().out)] == runs


def test_nothing_left_says_why(db, capsys):
    assert main(["history", METRIC, "--target", "mps2-an385", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "No stored run measured" in out and "only target mps2-an385" in out
    assert main(["history", METRIC, "--last", "0", "--db", str(db)]) == 2
