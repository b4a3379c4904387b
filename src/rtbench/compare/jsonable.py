"""The comparison models as plain JSON values (`--format json` of
`rtbench compare`): dataclasses field by field, runs reduced to their ids,
reference sheets to their names, never NaN.
"""

from __future__ import annotations

from typing import Any

from rtbench.store import reference
from rtbench.store.db import Run


def run_entry(run: Run) -> dict[str, Any]:
    """A run as every comparison's JSON names it: its database id, or (a
    results.json compared without importing it) null and the file, so that
    no file's run id is taken for the database's; `name` as the pages say it."""
    file = getattr(run, "file", None)
    return {"id": None if file else run.id, "file": file,
            "name": file or f"run {run.id}", "uuid": run.uuid, "label": run.label,
            "started": run.started, "status": run.status,
            "host": run.host.get("hostname", ""), "target": run.host.get("target") or "host",
            "origin": "results.json file" if file else run.origin}


def to_jsonable(obj: Any) -> Any:
    """The comparison models as plain JSON values (runs reduced to their ids)."""
    import dataclasses

    if isinstance(obj, Run):
        return run_entry(obj)
    if isinstance(obj, reference.Sheet):
        return {"name": obj.name, "title": obj.title, "source": obj.source,
                "clock_note": obj.clock_note, "caveat": obj.caveat,
                "statistic": obj.statistic, "statistic_note": obj.statistic_note,
                "statistic_rows": dict(obj.statistic_rows)}
    if dataclasses.is_dataclass(obj):  # fields not for JSON are left out (repr=False)
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)
                if f.repr}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, float) and obj != obj:  # never NaN in JSON
        return None
    return obj
