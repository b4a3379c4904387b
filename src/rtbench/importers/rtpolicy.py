"""Whether an rt-tests run had real-time scheduling, from what its output
says: the command line (`-p 90`, `--priority=90`, `--policy=rr`; on the
first line of a text output, or a --json file's cmdline), else the
priorities it printed (cyclictest's `T: … P:90`, a pair program's `P60`)
and the live display's `policy: fifo` line. The answer is the session's
`rt` of the import ({"realtime": true|false, "policy", "reason": how it is
known}); where the output says nothing, no `realtime`: unknown, never "no".

    from rtbench.importers import rtpolicy
    rtpolicy.from_command("cyclictest -t 2 -p 90 -q")  # {"realtime": True, …}
    rtpolicy.from_priority([90, 90], "the T: lines' P: field", "fifo")
"""

from __future__ import annotations

import re
import shlex
from typing import Any


def from_command(command: str) -> dict[str, Any] | None:
    """Real-time or not, from the program's command line (`-p 90`,
    `--priority=90`, `--policy=rr`): rt-tests run SCHED_OTHER without a
    priority. None when there is no command line."""
    try:
        argv = shlex.split(command)
    except ValueError:
        argv = command.split()
    if not argv:
        return None
    prio, policy = 0, "fifo"
    for i, a in enumerate(argv[1:], 1):
        value = argv[i + 1] if i + 1 < len(argv) else ""
        if a in ("-p", "--priority", "--prio"):
            prio = int(value) if value.isdigit() else prio
        elif re.fullmatch(r"-p\d+|--prio(rity)?=\d+", a):
            prio = int(re.sub(r"\D", "", a))
        elif a.startswith("--policy="):
            policy = a.split("=", 1)[1]
        elif a == "--policy":
            policy = value
    if prio > 0 and policy in ("fifo", "rr"):
        return {"realtime": True, "policy": f"SCHED_{policy.upper()} priority {prio}",
                "reason": f"from the command line: {shlex.join(argv)}"}
    return {"realtime": False, "reason": f"no real-time priority in the command line "
            f"({shlex.join(argv)}): SCHED_{policy.upper() if prio else 'OTHER'}"}


def from_priority(prios: list[int], where: str, policy: str = "") -> dict[str, Any]:
    """Real-time or not, from the priorities (and policy) the output printed."""
    if not prios:
        return {"reason": "the output does not say (no priority and no command line in it)"}
    top = max(prios)
    if top > 0:
        return {"realtime": True, "policy": f"SCHED_{policy.upper()} priority {top}" if policy
                else f"real-time priority {top}",
                "reason": f"from {where}" + (" and the policy line" if policy
                                             else " (the policy is not printed)")}
    return {"realtime": False, "reason": f"priority 0 in {where}: SCHED_OTHER"}
