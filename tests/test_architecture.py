"""The package's folders are its architecture (docs/architecture.md): the
stages of a run are subpackages, imports between them go one way, nothing
imports the command line, and no module imports one that imports it back.

Every import is read from the source (ast), wherever it stands: one inside
a function is a dependency too, only a later one.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "rtbench"
MAX_LINES = 600  # a module longer than this says at its top why it stays whole
WHOLE = "stays whole"

# The stages and what each may import, besides rtbench.errors and the
# package's own top (rtbench.__version__), which every module may. The
# docstring of each stage's __init__ says the same in its "May import:"
# line, and docs/architecture.md draws it.
ALLOWED: dict[str, set[str]] = {
    "cli": {"measure", "compare", "sheets", "peers", "importers", "targets", "kernels", "store",
            "process"},
    "measure": {"targets", "kernels", "peers", "compare", "sheets", "store", "process"},
    "compare": {"sheets", "peers", "kernels", "importers", "store"},
    "sheets": {"importers", "store"},
    "peers": {"targets", "kernels", "importers", "store", "process"},
    "importers": {"store"},
    "targets": {"kernels", "store", "process"},
    "kernels": {"store"},
    "store": {"process"},
    "process": set(),
}
ANYONE = {"errors", "rtbench"}  # rtbench.errors, and `import rtbench` for the version
TOP_FILES = {"__init__.py", "__main__.py", "errors.py"}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> list[tuple[str, int]]:
    """(module imported, line) for every rtbench import in the file, at any
    depth: a name imported from a package is its submodule when there is
    one, else the package itself."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names
                    if a.name == "rtbench" or a.name.startswith("rtbench.")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the package the file is in
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module != "rtbench" and not module.startswith("rtbench."):
                continue
            for a in node.names:
                sub = f"{module}.{a.name}"
                out.append((sub if sub in MODULES else module, node.lineno))
    return out


EDGES = {name: _imports(name, path) for name, path in MODULES.items()}


def _unit(module: str) -> str:
    """The stage a module belongs to, or the top-level module it is."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "rtbench"


def test_the_top_holds_the_entry_points_and_the_stages():
    files = {p.name for p in SRC.iterdir() if p.suffix == ".py"}
    assert files == TOP_FILES
    folders = {p.name for p in SRC.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == set(ALLOWED)
    for folder in folders:
        assert (SRC / folder / "__init__.py").is_file(), folder


def test_imports_between_stages_go_one_way():
    wrong = []
    for module, imports in EDGES.items():
        src = _unit(module)
        for target, line in imports:
            dst = _unit(target)
            if dst == src or dst in ANYONE:
                continue
            ok = (dst == "cli" and module == "rtbench.__main__") or dst in ALLOWED.get(src, ())
            if not ok:
                wrong.append(f"{MODULES[module].relative_to(SRC.parent)}:{line} imports {target} "
                             f"({src} -> {dst})")
    assert not wrong, "imports against the direction of the stages:\n" + "\n".join(wrong)


def test_nothing_imports_the_command_line():
    users = sorted({m for m, imports in EDGES.items() for t, _line in imports
                    if t == "rtbench.cli"})
    assert users == ["rtbench.__main__"]


def test_the_top_modules_import_no_stage():
    for module in ("rtbench", "rtbench.errors"):
        assert EDGES[module] == [], module


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one member,
    or a node that imports itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_one_that_imports_it_back():
    graph = {m: {t for t, _line in imports if t in MODULES and t != m}
             for m, imports in EDGES.items()}
    cycles = _cycles(graph)
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_allowed_graph_itself_has_no_cycle():
    assert _cycles(ALLOWED) == []


def test_each_stage_says_what_it_may_import():
    for stage, allowed in ALLOWED.items():
        if stage == "cli":
            continue
        doc = ast.get_docstring(ast.parse((SRC / stage / "__init__.py").read_text()))
        said = re.search(r"^May import: (.*?)\.$", doc or "", re.MULTILINE | re.DOTALL)
        assert said, f"{stage}/__init__.py: no 'May import: ...' line in its docstring"
        text = re.sub(r"\s*\([^)]*\)", "", said.group(1).replace("\n", " "))  # (why) dropped
        names = {n.strip() for n in text.split(",")}
        assert names == {f"rtbench.{s}" for s in allowed | {"errors"}}, stage


def test_a_long_module_says_why_it_stays_whole():
    long = []
    for module, path in MODULES.items():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        if lines > MAX_LINES and WHOLE not in doc:
            long.append(f"{module}: {lines} lines")
    assert not long, f"over {MAX_LINES} lines without saying why it {WHOLE}: {long}"
