"""The import graph of solvers/ and app/ has no cycle (every import counted, also those inside functions)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("solvers", "app")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The module ``name`` refers to (a name imported from a package that is not a module: the package)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for mod, path in modules.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [f"{base}.{a.name}" for a in node.names]
            for t in targets:
                dep = _resolve(t, modules)
                if dep is not None and dep != mod:
                    graph[mod].add(dep)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a list of modules, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                return [*stack[stack.index(d):], d]
            if d not in state and (c := visit(d)):
                return c
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (c := visit(m)):
            return c
    return None


def test_the_graph_sees_the_imports():
    graph = import_graph()
    assert "solvers.driver" in graph["solvers.api"] and "solvers.registry" in graph["solvers.api"]
    assert "solvers.driver" in graph["solvers.methods.spark"]  # spark's prepare gets a driver.Runner
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])
