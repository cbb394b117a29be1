"""Import circles inside a package, found from the source (no import runs).

Every import counts: at module level, under ``if TYPE_CHECKING:`` and inside functions, since
each is a dependency a reader has to follow and a circle of them is one module in several
files. :func:`import_graph` gives each module of a package the modules of the same package it
imports; :func:`import_circles` the strongly connected components of that graph with more than
one module (a module importing itself does not count).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _modules(package: str, root: Path) -> dict[str, Path]:
    """Each module of ``package`` (dotted name, the package itself included) -> its file."""
    base = root.joinpath(*package.split("."))
    found: dict[str, Path] = {}
    for path in sorted(base.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imported(name: str, path: Path, known: Mapping[str, Path]) -> set[str]:
    """The modules of ``known`` that module ``name`` (at ``path``) imports, anywhere in it."""
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names if alias.name in known}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                if f"{source}.{alias.name}" in known:  # ``from package import module``
                    out.add(f"{source}.{alias.name}")
                elif source in known:
                    out.add(source)
    out.discard(name)
    return out


def import_graph(package: str, root: Path = ROOT) -> dict[str, set[str]]:
    """Each module of ``package`` -> the modules of ``package`` it imports."""
    known = _modules(package, root)
    return {name: _imported(name, path, known) for name, path in known.items()}


def import_circles(package: str, root: Path = ROOT) -> list[list[str]]:
    """The import circles of ``package``: each a sorted list of the modules that reach one
    another (Tarjan's strongly connected components, iteratively)."""
    graph = import_graph(package, root)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return sorted(circles)
