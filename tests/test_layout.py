"""The package's shape, checked: no import circle, no function-level imports except for
optional dependencies, no Python file above 800 lines (issue 9, ../shared/DESIGN.md "The shape").

The import graph is read from the source with `ast`: an edge for every module-level import of
a tokenmill module (``if TYPE_CHECKING:`` blocks excluded: they never run), plus the package
``__init__`` each import runs first.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "tokenmill"
MAX_LINES = 800
# Imported inside functions on purpose: optional (pyarrow; tiktoken and tokenizers, the reference
# libraries `tokenmill.verify` compares with; torch, for `create_dataloader(as_torch=True)`), or heavy
# and needed by few calls (numpy).
# Optional or heavy: imported where used. tempfile and hashlib cost ~11 ms of `import tokenmill`
# (HF tokenizers imports in ~11 ms) and only writing files and verifying bundled ones need them.
LAZY_OK = {"pyarrow", "pyarrow.parquet", "numpy", "tiktoken", "tokenizers", "tempfile", "hashlib", "torch", "ray",
           "matplotlib.figure", "matplotlib.backends.backend_agg"}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def _resolve(module: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_pkg:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module: str, path: Path, modules: dict[str, Path]):
    """(module-level tokenmill imports, function-level imports of anything)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    top: set[str] = set()
    lazy: list[tuple[int, str]] = []

    def names(node) -> list[str]:
        if isinstance(node, ast.Import):
            return [a.name for a in node.names]
        target = _resolve(module, is_pkg, node)
        subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in modules]
        return [target] + subs

    def visit(body, in_function: bool) -> None:
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for n in names(node):
                    if in_function:
                        lazy.append((node.lineno, n))
                    elif n.split(".")[0] == "tokenmill":
                        top.add(n)
            elif isinstance(node, ast.If) and _is_type_checking(node):
                continue
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                visit(node.body, True)
            elif isinstance(node, ast.ClassDef):
                visit(node.body, in_function)
            else:
                for field in ("body", "orelse", "finalbody", "handlers"):
                    visit(getattr(node, field, []) or [], in_function)

    visit(tree.body, False)
    return top, lazy


def _graph() -> dict[str, set[str]]:
    """Module -> the tokenmill modules it imports, at module level or inside functions (an
    import moved into a function still closes a circle; it only hides it until run time)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for mod, path in modules.items():
        top, lazy = _imports(mod, path, modules)
        edges = set()
        for target in top | {n for _, n in lazy if n.split(".")[0] == "tokenmill"}:
            parts = target.split(".")
            # Importing a.b.c runs a and a.b first (unless they are this module's own packages).
            for k in range(1, len(parts) + 1):
                t = ".".join(parts[:k])
                if t in modules and t != mod and not mod.startswith(t + "."):
                    edges.add(t)
        graph[mod] = edges
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = dfs(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = dfs(n)
            if found:
                return found
    return None


def test_no_import_circle():
    cycle = _cycle(_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle)


def _lazy_ok(mod: str, name: str) -> bool:
    # Also allowed: a CLI subcommand loads its viewer or analysis when it runs, so that
    # `tokenmill` starts without the web server, the plots and the formats behind them.
    cli_loads_viewer = mod.startswith("tokenmill.cli") and name.startswith(("tokenmill.viz", "tokenmill.analysis"))
    return name in LAZY_OK or cli_loads_viewer


def test_function_level_imports_only_for_optional_dependencies():
    modules = _modules()
    bad = []
    for mod, path in modules.items():
        for line, name in _imports(mod, path, modules)[1]:
            if not _lazy_ok(mod, name):
                bad.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {name}")
    assert not bad, "function-level imports:\n" + "\n".join(bad)


def test_no_python_file_is_too_long():
    long = [f"{p.relative_to(PACKAGE.parent)}: {n} lines" for p in PACKAGE.rglob("*.py") if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES]
    assert not long, "files above 800 lines (split them by responsibility):\n" + "\n".join(long)


def test_the_checker_sees_a_circle():
    # The shape before issue 9: encoding -> formats -> formats.native -> encoding, hidden in functions.
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


# ------------------------------------------------------------------------ the Rust core crate
CORE = PACKAGE.parent.parent / "crates" / "tokenmill-core" / "src"


def _rust_graph() -> dict[str, set[str]]:
    """Top-level module of the core crate -> the other top-level modules it uses (``crate::x``,
    ``use crate::{x, y}``); paths inside one module (``super::``) stay inside it."""
    tops = {p.stem if p.is_file() else p.name for p in CORE.iterdir() if p.name not in ("lib.rs", "main.rs")}
    graph: dict[str, set[str]] = {t: set() for t in tops}
    for path in CORE.rglob("*.rs"):
        rel = path.relative_to(CORE)
        if rel.name == "lib.rs":
            continue
        top = rel.parts[0].removesuffix(".rs")
        text = path.read_text(encoding="utf-8")
        used = set(re.findall(r"\bcrate::([a-z_]+)", text))
        for group in re.findall(r"\bcrate::\{([^}]*)\}", text):
            used |= {name.split("::")[0].strip() for name in group.split(",") if name.strip()}
        graph[top] |= {u for u in used if u in tops and u != top}
    return graph


def test_no_module_circle_in_the_core_crate():
    graph = _rust_graph()
    assert {"bpe", "pretokenize", "special", "train"} <= set(graph)
    cycle = _cycle(graph)
    assert cycle is None, "module circle in tokenmill-core: " + " -> ".join(cycle)
