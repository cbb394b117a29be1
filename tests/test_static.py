"""Static checks run with the suite: types (mypy strict), lint (ruff), layers (import-linter),
and no import circle inside a package (an ast walk: import-linter checks layers, not circles)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "mypy"],
        [sys.executable, "-m", "ruff", "check", "."],
        [sys.executable, "-m", "ruff", "format", "--check", "."],
        [str(BIN / "lint-imports")],
    ],
    ids=["mypy-strict", "ruff-lint", "ruff-format", "import-layers"],
)
def test_static_check_passes(command: list[str]) -> None:
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def imports_of(package: Path) -> dict[str, set[str]]:
    """Every module of ``package`` (dotted name) -> the package's modules it imports: each
    ``import`` and ``from … import`` anywhere in it (under ``if TYPE_CHECKING:`` and inside
    functions too); ``from p import name`` counts as ``p.name`` when that is a module, else as
    ``p``. A package's ``__init__`` that a submodule's import runs is not counted."""
    files = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        is_init = parts[-1] == "__init__"
        files[".".join(parts[:-1] if is_init else parts)] = (path, is_init)
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, (path, is_init) in files.items():
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                graph[name] |= {alias.name for alias in node.names if alias.name in files}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    here = name.split(".") if is_init else name.split(".")[:-1]
                    base = [*here[: len(here) - node.level + 1], node.module or ""]
                    source = ".".join(part for part in base if part)
                else:
                    source = node.module or ""
                for alias in node.names:
                    module = f"{source}.{alias.name}"
                    if module in files:
                        graph[name].add(module)
                    elif source in files:
                        graph[name].add(source)
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module, or of one importing itself
    (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in graph[node]:
                        cycles.append(sorted(component))
    return cycles


def test_the_cycle_finder_finds_circles_and_only_them() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a", "d"}, "e": {"d"}, "f": set()}
    assert import_cycles(graph) == [["a", "b", "c"], ["d"]]


@pytest.mark.parametrize("package", ["orbital", "projections"])
def test_no_package_has_an_import_circle(package: str) -> None:
    """Inside every package and between the top-level modules, imports point one way (every
    import counted, ``TYPE_CHECKING`` and function-local ones too)."""
    assert import_cycles(imports_of(ROOT / package)) == []
