"""A child started while rtbench holds a labgrid session must not carry
gRPC into it. grpcio's fork handlers restart gRPC's pollers in the child,
Popen then closes their descriptors before exec, and about one start in a
hundred died of SIGABRT ("epoll_wait error: Bad file descriptor"): seen in
CI as a normal user's `rtbench hist` killed by the suite's own labgrid
session. rtbench turns the handlers off before gRPC loads."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("labgrid")
pytest.importorskip("grpc")

SRC = Path(__file__).resolve().parents[1] / "src"

# An open channel that keeps gRPC's threads busy (a port nobody listens
# on), then children started through the farm's own pre-exec hook.
CHILD = """
import asyncio, subprocess, sys
import rtbench.targets.labplace
import grpc
from rtbench.measure.farm import _term_with_parent

async def connecting():
    channel = grpc.aio.insecure_channel("127.0.0.1:1")
    try:
        await asyncio.wait_for(channel.channel_ready(), 0.3)
    except asyncio.TimeoutError:
        pass
    return channel

channel = asyncio.new_event_loop().run_until_complete(connecting())
for _ in range(10):
    rc = subprocess.run([sys.executable, "-c", "pass"], preexec_fn=_term_with_parent).returncode
    assert rc == 0, rc
print("started 10")
"""


def test_children_of_a_labgrid_session_carry_no_grpc_fork_handlers():
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRPC_")}
    env.update(PYTHONPATH=str(SRC), GRPC_VERBOSITY="INFO")
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and "started 10" in out.stdout, out.stderr[-2000:]
    # With the handlers on, gRPC logs every fork it sees from this process.
    assert "fork_posix" not in out.stderr, out.stderr[-2000:]
