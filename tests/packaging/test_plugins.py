"""The plugins committed in this repository are the ones :mod:`orbital.agents.plugin` renders:
the same hooks as ``orbital install <agent>`` writes (bar the executable's path), the same
instructions as ``AGENTS.md`` gets, the package's version and licence."""

from __future__ import annotations

import json
import tomllib

import orbital
from orbital.agents import claude_code as cc
from orbital.agents import codex
from orbital.agents.plugin import EXECUTABLE, LICENSE, files
from tests.packaging.tools import ROOT


def test_the_committed_plugin_files_are_the_rendered_ones() -> None:
    rendered = files(orbital.__version__)
    stale = [name for name, text in rendered.items() if _read(name) != text]
    assert not stale, f"{stale}: run `python -m tests.packaging.plugins`"


def _read(name: str) -> str | None:
    path = ROOT / name
    return path.read_text(encoding="utf-8") if path.is_file() else None


def test_the_plugin_hooks_are_the_installers_hooks() -> None:
    """What ``orbital install claude-code`` / ``codex`` merge in, with ``orbital`` on PATH."""
    claude = json.loads(files("0")["plugins/orbital/hooks/hooks.json"])
    assert claude == {"hooks": cc.with_orbital({}, EXECUTABLE)["hooks"]}
    codex_hooks = json.loads(files("0")["plugins/orbital/hooks/codex-hooks.json"])
    assert codex_hooks == json.loads(codex.install_hooks(None, EXECUTABLE).written)


def test_the_plugins_carry_the_package_licence() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == LICENSE
