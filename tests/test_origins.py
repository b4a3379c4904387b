"""Importers and origins from one registry (rtbench.importers): every
origin a stored run can have is known to the sheets that word it and to the
advice that leaves another program's figures unchecked."""

from __future__ import annotations

import ast
from pathlib import Path

from rtbench import importers
from rtbench.sheets import advice, views
from rtbench.store.db import Run

SRC = Path(__file__).resolve().parents[1] / "src" / "rtbench"


def _run(origin: str) -> Run:
    return Run(1, "u", "2026-01-01T00:00:00Z", None, "complete", "", ["rtbench", "import",
               origin, "/x/out.txt"], {}, {}, imported_from="/x" if origin != "measured"
               else None, origin_kind=None if origin in ("measured", "rtbench") else origin)


def _origins_stored() -> set[str]:
    """Every origin a module of rtbench stores a run with: the `origin=`
    keyword of each Store.import_records call, where it is a constant, and
    every import kind where it is the kind itself (importers/command.py)."""
    found = {"measured", "rtbench"}  # a run measured here; a results.json import
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "origin":
                if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                    found.add(node.value.value)
                elif isinstance(node.value, ast.Name) and node.value.id == "kind":
                    found |= set(importers.KINDS) - {"rtbench", "harness"}
    return found - {"import"}  # a session's own word for an imported record, not a run's


def test_every_origin_a_run_is_stored_with_is_in_the_registry():
    assert _origins_stored() == set(importers.ORIGINS)


def test_the_foreign_kinds_are_the_import_kinds_of_other_tools():
    assert set(importers.FOREIGN) == set(importers.KINDS) - {"rtbench", "harness"}


def test_the_advice_leaves_every_other_programs_figures_unchecked():
    """rtos-benchmark was missing from advice's own list (the drift)."""
    for origin, other in importers.ORIGINS.items():
        facts = advice.Facts(_run(origin))  # a session without a source: the origin decides
        assert facts.imported is other, origin


def test_the_runs_list_words_every_import_with_its_kind():
    for origin in importers.ORIGINS:
        word = views._origin(_run(origin))
        if origin in importers.FOREIGN:
            assert word == f"imported ({origin}) from out.txt", origin
        else:
            assert "imported (" not in word, origin
