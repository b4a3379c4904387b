"""The comparison models as plain JSON values (`--format json` of
`rtbench compare`): dataclasses field by field, runs reduced to their ids,
reference sheets to their names, never NaN.
"""

from __future__ import annotations

from typing import Any

from rtbench.store import reference
from rtbench.store.db import Run


def to_jsonable(obj: Any) -> Any:
    """The comparison models as plain JSON values (runs reduced to their ids)."""
    import dataclasses

    if isinstance(obj, Run):
        return {"id": obj.id, "uuid": obj.uuid, "label": obj.label, "started": obj.started,
                "status": obj.status, "host": obj.host.get("hostname", "")}
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
