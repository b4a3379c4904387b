"""An unsupported row says why in the port's own words. A port call that
returns RTB_ENOTSUP with words (rtb_port_last_error) keeps them in the
record's reason; only a call the port does not provide at all says "not
provided by this port". Checked on the host harness confined to one CPU,
where a cross-CPU row cannot place its second task."""

import json
import os
import subprocess


def test_an_unsupported_call_keeps_the_ports_words(real_exe):
    out = subprocess.run([str(real_exe), "--only", "sem.give.wake_ctx.xcpu", "--samples", "10"],
                         capture_output=True, text=True, timeout=60,
                         preexec_fn=lambda: os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}))
    recs = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    rec = next(r for r in recs if r.get("type") == "metric")
    assert rec["status"] == "unsupported"
    assert rec["reason"] == ("create high task: task_create: no other CPU allowed to place "
                             "the task on"), rec["reason"]


def test_no_reason_is_cut(real_exe):
    """Every row the port cannot measure carries the registry's whole reason
    in its record (issue: a 197-character reason was cut at 159 bytes, mid-
    sentence, in every sheet and export)."""
    listed = subprocess.run([str(real_exe), "--list"], capture_output=True, text=True,
                            timeout=60, check=True)
    why = {r["id"]: r["reason"] for r in map(json.loads, listed.stdout.splitlines())
           if r.get("type") == "registry" and not r["supported"]}
    assert why and max(map(len, why.values())) > 160
    out = subprocess.run([str(real_exe), "--only", ",".join(why), "--samples", "1", "--no-rt"],
                         capture_output=True, text=True, timeout=120)
    recs = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    got = {r["id"]: r["reason"] for r in recs if r.get("type") == "metric"}
    assert got == why
