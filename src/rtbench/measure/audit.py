"""`rtbench audit`: the window audit of a board image (rtbench.targets.audit)
as a command. It builds the image a run would build, runs it under QEMU's
instruction trace and prints, per metric, the instructions of the median
window split by whose code they are (the kernel's, an API shim's, an
interrupt handler's, rtbench's), the most of rtbench's code any window
held against the budget, and the trace's count beside the harness's.
Exit 1 when a window holds more of rtbench than its budget, another
stamp, or a count the harness did not record: the audit is a check.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any

from rtbench.errors import RtbenchError
from rtbench.process import lifetime
from rtbench.sheets.pages import Page, Table
from rtbench.targets import BOARDS, audit, make

MAX_SAMPLES = 200  # a trace of every instruction: ~1 MB of text per sample of a switch row


def run_audit(board: str, kernel: str | None, kernel_src: Path | None,
              metrics: list[str] | None, samples: int, timeout: float,
              modules: Path | None = None, userspace: bool = False,
              kernel_profile: str | None = None
              ) -> tuple[Page, list[dict[str, Any]], list[str]]:
    """The audit's page, its rows (JSON) and its problems."""
    if board not in BOARDS:
        raise RtbenchError(f"--target {board}: the audit traces an emulated board "
                           f"({', '.join(BOARDS)})")
    if not 1 <= samples <= MAX_SAMPLES:
        raise RtbenchError(f"--samples {samples}: 1 to {MAX_SAMPLES} (every instruction is traced)")
    target = make(board, kernel, kernel_src, modules=modules, userspace=userspace,
                  kernel_profile=kernel_profile)
    # every QEMU and folder of the audit's through the guard: a SIGKILL of
    # rtbench leaves no QEMU single-stepping and no temporary folder
    with lifetime.guarded():
        try:
            target.prepare()
            registry = target.registry()
            patterns = metrics or list(audit.HEADLINE)
            ids = [i for i, (ok, _why) in registry.items()
                   if ok and any(fnmatch.fnmatchcase(i, p) for p in patterns)]
            if not ids:
                raise RtbenchError(f"--only {','.join(patterns)}: no metric the "
                                   f"{target.kernel.title} image supports matches")
            audits = audit.audit_target(target, ids, samples, timeout)
        finally:
            target.close()
    rows = audit.table(audits)
    return _page(target, rows), rows, audit.problems(audits)


def _page(target, rows: list[dict[str, Any]]) -> Page:
    page = Page(f"Window audit: {target.kernel.os_name} {target.kernel.version} on {target.name}, "
                f"kernel profile {target.kernel.profile}",
                "Every guest instruction between each sample's two stamps, traced by QEMU "
                "(-singlestep -d exec,nochain,int) and attributed by the image's link map.")
    page.p("Each recorded sample's window is found by the values its two stamps read "
           "(the harness's stamp log), never by counting windows in order. Columns are the "
           "median window's instructions (the stamps' own excluded, as the harness subtracts "
           "them): the kernel's functions and C library, API shims (one call of a kernel API "
           "that is a macro, written as an application writes it), and rtbench's own code "
           "wherever it runs (harness, port, board: interrupt handlers and their device "
           "acknowledgement, emulations, a shim that enters the kernel more than once). A "
           f"window may hold at most {audit.BUDGET} instructions of rtbench's: the call and "
           "the first stamp's store; rows allowed more say why.")
    table = [[r["id"], str(r["windows"]),
              *(str(r.get(k, "—")) for k in ("figure", "harness_p50", "kernel", "call",
                                             "ours", "ours_max", "budget")),
              r.get("why") or r.get("note") or
              (f"not ranked: {r['unranked']}" if r.get("unranked") else "")] for r in rows]
    page.table(Table(["metric", "windows", "figure", "harness median", "kernel", "API shim",
                      "rtbench", "rtbench max", "budget", "why"], table,
                     "lrrrrrrrrl"))
    return page


def problems_text(problems: list[str]) -> str:
    return ("no window holds more than its budget of rtbench's code; every count agrees "
            "with the harness's" if not problems else
            f"{len(problems)} problem(s): " + "; ".join(problems))
