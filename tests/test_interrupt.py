"""Ctrl-C: the CLI in a subprocess, SIGINT after the first metric is stored."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

from conftest import FAKE


def _stored_metrics(db):
    if not db.exists():
        return 0
    try:
        conn = sqlite3.connect(db, timeout=5)
        try:
            query = "SELECT count(*) FROM metrics WHERE record IS NOT NULL"
            return conn.execute(query).fetchone()[0]
        finally:
            conn.close()
    except sqlite3.OperationalError:  # schema not created yet
        return 0


def test_sigint_keeps_finished_metrics(fake, isolated):
    env = {**os.environ, "FAKE_HARNESS_DELAY": "0.5", "PYTHONPATH": str(FAKE.parents[1] / "src")}
    db, out = isolated / "r.db", isolated / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "rtbench", "run", "--quick", "--db", str(db), "--out", str(out)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # A shell may start background jobs with SIGINT ignored; the CLI must see it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        give_up = time.monotonic() + 120  # only guards against a hung test
        while _stored_metrics(db) == 0:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < give_up, "no metric was ever stored"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, (stdout, stderr)
    assert "Traceback" not in stderr
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT status FROM runs").fetchall() == [("incomplete",)]
    done = conn.execute("SELECT metric_id FROM metrics WHERE record IS NOT NULL").fetchall()
    total = conn.execute("SELECT count(*) FROM metrics").fetchone()[0]
    assert 1 <= len(done) < total
    env_json = json.loads((out / "results.json").read_text())
    assert env_json["run"]["status"] == "incomplete"
    assert len(env_json["metrics"]) == len(done) and env_json["not_measured"]
    sheet = (out / "datasheet.md").read_text()
    assert "**Incomplete run:**" in sheet and "— run incomplete." in sheet
