"""What every peer shares once it has measured: its records stored as a
run of their own (origin "peer") linked to the rtbench run they were
measured beside (`runs.linked_to`), so `rtbench compare RUN` finds them,
the console line of a peer record, and the gap between a peer's average
and rtbench's mean that its agreement sentence states.

The store has the `linked_to` column but no call that sets or reads it: the
two small queries here (`link`, `linked_runs`) are that adapter.
"""

from __future__ import annotations

import uuid

from rtbench.store.db import Run, Store, now_utc
from rtbench.store.records import MetricRecord


def store_run(store: Store, run_id: int, records: list[dict], host: dict,
              argv: list[str], label: str | None = None, session: dict | None = None) -> int:
    """Store `records` as a complete peer run linked to run `run_id`."""
    now = now_utc()
    peer_id = store.import_records(records, origin="peer", source=f"rtbench run {run_id}",
                                   imported_at=now, uuid=str(uuid.uuid4()), started=now,
                                   label=label or f"rt-tests beside run {run_id}", argv=argv,
                                   host=host, session=session)
    link(store, peer_id, run_id)
    return peer_id


def store_beside(store: Store, run_id: int, records: list[dict], label: str,
                 say, session: dict | None = None) -> int:
    """store_run with the measured run's host and command, said on the console."""
    run = store.get_run(run_id)
    peer_id = store_run(store, run_id, records, run.host, run.argv, label=label, session=session)
    say(f"peers: run {peer_id}, linked to run {run_id} (rtbench compare {run_id})")
    return peer_id


def link(store: Store, peer_id: int, run_id: int) -> None:
    with store.conn:
        store.conn.execute("UPDATE runs SET linked_to = ? WHERE id = ?", (run_id, peer_id))


def linked_runs(store: Store, run_id: int) -> list[Run]:
    """The peer runs measured beside run `run_id`, oldest first."""
    rows = store.conn.execute("SELECT id FROM runs WHERE linked_to = ? ORDER BY id",
                              (run_id,)).fetchall()
    return [store.get_run(r[0]) for r in rows]


def line(rec: dict) -> str:
    """The console line of a peer record (rich markup)."""
    from rich.markup import escape

    src = rec.get("source", {})
    name = src.get("label") if src.get("label") not in (None, src.get("tool")) else None
    label = escape(name or src.get("tool", rec["id"]))  # rtos-benchmark: its row's name
    if rec["status"] != "ok":
        colour = "yellow" if rec["status"] == "unsupported" else "red"
        return (f"  peer {label:<27} [{colour}]{rec['status']:<11}[/{colour}] "
                f"{escape(rec['reason'])}")
    m = MetricRecord(rec)
    if m.is_time:
        figs = ", ".join(f"{k} {m.value(k) / 1e3:.4g} µs" for k in ("p50", "mean", "p99", "max")
                         if m.has(k))
    else:  # a count (instructions under -icount): its own unit, never µs
        figs = ", ".join(f"{k} {m.value(k):,.0f} {m.unit}"
                         for k in ("min", "p50", "mean", "p99", "max") if m.has(k))
    return f"  peer {label:<27} [green]ok[/green]          {figs}  [dim]→ {escape(rec['id'])}[/dim]"


def mean_gap(peer: dict, ours: dict | None, less: float = 0.0) -> float | None:
    """rtbench's mean − (the peer's average − `less`), both ok and in one
    unit; None when there is nothing to set side by side."""
    if not ours or ours.get("status") != "ok" or peer.get("status") != "ok":
        return None
    p, o = MetricRecord(peer), MetricRecord(ours)
    if not (p.has("mean") and o.has("mean")) or p.unit != o.unit:
        return None
    return o.value("mean") - (p.value("mean") - less)
