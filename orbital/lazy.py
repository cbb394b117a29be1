"""Names of a package loaded on first use (PEP 562): a hook or CLI command is a new process,
and importing every submodule of a package it touches (SQLAlchemy, the model client…) costs
more than the work it came for."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from importlib.machinery import PathFinder
from types import ModuleType
from typing import Any


def lazy_names(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: each name in ``where`` (name -> module) is
    imported when first asked for and then kept in the package's namespace."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


def submodule_alone(package: str, module: str) -> ModuleType:
    """``package.module`` without running ``package``'s ``__init__`` (snowballstemmer's
    imports all of its 36 stemmers when only one or two are used): the submodule is loaded
    under a private parent (``_orbital_alone_<package>``, the package's folder as its path), so
    its relative imports resolve and ``package`` itself stays unimported for anyone else."""
    alias = f"_orbital_alone_{package}"
    parent = sys.modules.get(alias)
    if parent is None:
        spec = PathFinder.find_spec(package)
        if spec is None or spec.submodule_search_locations is None:
            raise ModuleNotFoundError(f"no package named {package!r}", name=package)
        parent = ModuleType(alias)
        parent.__path__ = list(spec.submodule_search_locations)
        sys.modules[alias] = parent
    return importlib.import_module(f"{alias}.{module}")
