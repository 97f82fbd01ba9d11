"""The package's modules import each other without a cycle (issue 15: runtime, audit and policy
used to import each other); every import counts, the lazy ones inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = "agent_control_plane_core"
ROOT = Path(__file__).resolve().parent.parent / "python" / PACKAGE


def _module_name(path: Path) -> str:
    parts = [PACKAGE, *path.relative_to(ROOT).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    """The package's own hand-written modules, every subpackage included (not _generated)."""
    files = [path for path in ROOT.rglob("*.py") if "_generated" not in path.parts]
    return {_module_name(path): path for path in files}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules this module imports, anywhere in its body."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                stem = ".".join([*base, node.module] if node.module else base)
            else:
                stem = node.module or ""
            targets = [stem, *(f"{stem}.{alias.name}" for alias in node.names)]
        found.update(target for target in targets if target in known)
    found.discard(name)
    # A module's own packages are always imported before it: naming them adds no edge.
    return {target for target in found if not name.startswith(target + ".")}


def module_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports."""
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path that starts and ends on the same module, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*stack[stack.index(target) :], target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_the_package_module_graph_has_no_import_cycle() -> None:
    graph = module_graph()
    assert f"{PACKAGE}.runtime" in graph and f"{PACKAGE}.adapters.claude" in graph
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_audit_and_policy_depend_on_the_runtime_pieces_not_on_the_runtime() -> None:
    graph = module_graph()
    for name in ("audit", "policy"):
        assert f"{PACKAGE}.runtime" not in graph[f"{PACKAGE}.{name}"]


def test_the_cycle_finder_reports_a_cycle() -> None:
    # A control: the check would catch the runtime <-> audit cycle this package used to have.
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
