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


# ---- one place knows each kernel (rtbench.kernels) ----
#
# A kernel's name is said by its descriptor (kernels/), by the peers that
# measure it and by the importers that read its tools' output, and nowhere
# else: every other module asks the descriptor. Docstrings and comments may
# name a kernel (they explain); string constants and identifiers may not.

KERNEL_HOMES = {"kernels", "peers", "importers"}
# Modules outside them that still name a kernel, each with why; the list
# only shrinks.
STILL_NAMING = {
    "rtbench.store.contract": "a stored host field (zephyr_modules) that runs already stored "
                              "carry",
}
# Shell scripts and CMake files, read as text without their comments.
TEXT_FILES = ["scripts/*.sh", "harness/boards/*/board.cmake", "harness/CMakeLists.txt"]
# setup.sh runs before rtbench's environment exists (it makes it), so it
# lists Zephyr's apt packages itself: test_setup_installs_what_... checks them.
TEXT_STILL_NAMING = {"scripts/setup.sh"}


def _kernel_words() -> re.Pattern:
    from rtbench import kernels

    return re.compile("|".join(re.escape(n) for n in kernels.names()), re.IGNORECASE)


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                out.add(id(first.value))
    return out


def kernel_names_in(source: str, words: re.Pattern) -> list[tuple[int, str]]:
    """(line, what) for every string constant (docstrings aside) and every
    identifier (names, attributes, arguments, definitions, imports) of
    `source` that names a kernel. Comments are not in the tree."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        said: list[str] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            said = [node.value]
        elif isinstance(node, ast.Name):
            said = [node.id]
        elif isinstance(node, ast.Attribute):
            said = [node.attr]
        elif isinstance(node, ast.arg):
            said = [node.arg]
        elif isinstance(node, ast.keyword) and node.arg:
            said = [node.arg]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            said = [node.name]
        elif isinstance(node, ast.Import):
            said = [a.name for a in node.names] + [a.asname or "" for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            said = [node.module or ""] + [a.name for a in node.names]
        for text in said:
            if words.search(text):
                found.append((getattr(node, "lineno", 0), text[:60]))
    return found


def test_the_checker_finds_a_kernel_named_outside_its_descriptor():
    words = _kernel_words()
    snippet = '''
"""A docstring may say Zephyr."""
# and so may a comment: zephyr
from rtbench.measure import zephyr_board

def build(kernel, zephyr_modules=None):
    if kernel.name == "zephyr":
        return zephyr_board.build(kernel, modules=zephyr_modules)
    return f"FreeRTOS {kernel.version}"
'''
    lines = sorted({line for line, _what in kernel_names_in(snippet, words)})
    assert lines == [4, 6, 7, 8, 9]
    assert kernel_names_in('if kind == "linux":\n    pass\n', words) == []


def test_no_module_names_a_kernel_outside_its_descriptor():
    words = _kernel_words()
    wrong = []
    for module, path in MODULES.items():
        if _unit(module) in KERNEL_HOMES or module in STILL_NAMING:
            continue
        for line, what in kernel_names_in(path.read_text(encoding="utf-8"), words):
            wrong.append(f"{path.relative_to(SRC.parent)}:{line}: {what!r}")
    assert not wrong, ("a kernel named outside its descriptor (ask rtbench.kernels):\n"
                       + "\n".join(wrong))


def test_still_naming_lists_only_modules_that_do():
    words = _kernel_words()
    for module in STILL_NAMING:
        assert kernel_names_in(MODULES[module].read_text(encoding="utf-8"), words), module


def _code_lines(path: Path) -> list[tuple[int, str]]:
    """A shell or CMake file's lines without their comments."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        code = re.sub(r"(^|\s)#.*$", "", line)
        if code.strip():
            out.append((n, code))
    return out


def test_no_script_board_or_harness_cmake_names_a_kernel():
    words = _kernel_words()
    root = SRC.parents[1]
    wrong = []
    for pattern in TEXT_FILES:
        for path in sorted(root.glob(pattern)):
            rel = str(path.relative_to(root))
            if rel in TEXT_STILL_NAMING:
                continue
            wrong += [f"{rel}:{n}: {code.strip()}" for n, code in _code_lines(path)
                      if words.search(code)]
    assert not wrong, "a kernel named outside its descriptor:\n" + "\n".join(wrong)


def test_the_text_checker_sees_code_and_skips_comments(tmp_path):
    words = _kernel_words()
    f = tmp_path / "board.cmake"
    f.write_text("# FreeRTOS's port for this core\nset(RTB_BOARD_FREERTOS_PORT ARM_CM3)\n"
                 "set(RTB_BOARD_CORE Cortex-M3)  # as ThreadX names it\n")
    assert [n for n, code in _code_lines(f) if words.search(code)] == [2]


def test_setup_installs_what_zephyrs_build_needs():
    """setup.sh cannot ask the descriptor (it makes the environment the
    descriptor runs in), so the two lists are checked against each other."""
    from rtbench.kernels.zephyr import build

    text = (SRC.parents[1] / "scripts" / "setup.sh").read_text(encoding="utf-8")
    listed = re.search(r"^zephyr=\(([^)]*)\)", text, re.MULTILINE)
    assert listed and set(listed.group(1).split()) == (
        set(build.TOOLS.values()) | set(build.USERSPACE_TOOLS.values()))
