"""The agent plugins this repository carries (``plugins/orbital``), rendered (pure).

A plugin cannot know where the person installed Orbital, so its hooks and MCP server call the
bare ``orbital`` that a tool install (``uv tool install``, ``pipx install``) puts on PATH; apart
from that executable, the hooks are exactly the ones ``orbital install <agent>`` writes
(:func:`orbital.agents.claude_code.hook_groups` over each agent's hook list), and the skills
hold the same words as Codex's ``AGENTS.md`` section (:mod:`orbital.agents.skills`).
``tests/packaging/plugins.py`` writes these files and a test holds the committed ones to them.

Files (Claude Code 2.1.332; Codex 0.169.0):

* ``.claude-plugin/marketplace.json`` at the repository root: the marketplace that
  ``claude plugin marketplace add <repository>`` (and Codex's ``codex plugin marketplace add``)
  reads, listing the one plugin.
* ``plugins/orbital/.claude-plugin/plugin.json``, ``hooks/hooks.json``, ``.mcp.json`` and the
  skills ``skills/orbital-memory/SKILL.md`` and ``skills/orbital-learning-capture/SKILL.md``:
  Claude Code's plugin.
* ``plugins/orbital/.codex-plugin/plugin.json``: Codex's manifest for the same folder, naming
  its own hook file (Codex's hook list, ``orbital hook codex …``) and an MCP file that forwards
  Orbital's variables (Codex starts servers with few).
"""

from __future__ import annotations

import json

from orbital.agents import claude_code as cc
from orbital.agents import codex
from orbital.agents.skills import LEARNING_SKILL, MEMORY_SKILL, skill

#: The command the plugins run: the ``orbital`` on PATH.
EXECUTABLE = "orbital"
NAME = "orbital"
FOLDER = f"plugins/{NAME}"
DESCRIPTION = (
    "Project memory for coding agents: decisions, lessons, state and the asks waiting on you, "
    "kept as events by Orbital and served by its hooks and MCP server."
)
AUTHOR = {"name": "Orbital"}
LICENSE = "MIT"  # pyproject.toml's
_CODEX_HOOKS = "hooks/codex-hooks.json"
_CODEX_MCP = ".codex-mcp.json"


def _json(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def _server(**extra: object) -> dict[str, object]:
    return {"mcpServers": {NAME: {"command": EXECUTABLE, "args": ["mcp"], **extra}}}


def files(version: str) -> dict[str, str]:
    """Each plugin file's path (from the repository root) and its text."""
    manifest = {
        "name": NAME,
        "version": version,
        "description": DESCRIPTION,
        "author": AUTHOR,
        "license": LICENSE,
    }
    entry = {"name": NAME, "source": f"./{FOLDER}", "description": DESCRIPTION}
    marketplace = {
        "name": NAME,
        "owner": AUTHOR,
        "description": "Orbital's plugin, from its own repository.",
        "plugins": [{**entry, "version": version}],
    }
    codex_manifest = {
        **manifest,
        "skills": "./skills/",
        "hooks": f"./{_CODEX_HOOKS}",
        "mcpServers": f"./{_CODEX_MCP}",
    }
    codex_hooks = cc.hook_groups(EXECUTABLE, codex.HOOKS, codex.AGENT)
    return {
        ".claude-plugin/marketplace.json": _json(marketplace),
        f"{FOLDER}/.claude-plugin/plugin.json": _json(manifest),
        f"{FOLDER}/hooks/hooks.json": _json({"hooks": cc.hook_groups(EXECUTABLE)}),
        f"{FOLDER}/.mcp.json": _json(_server()),
        f"{FOLDER}/skills/{MEMORY_SKILL}/SKILL.md": skill(MEMORY_SKILL),
        f"{FOLDER}/skills/{LEARNING_SKILL}/SKILL.md": skill(LEARNING_SKILL),
        f"{FOLDER}/.codex-plugin/plugin.json": _json(codex_manifest),
        f"{FOLDER}/{_CODEX_HOOKS}": _json({"hooks": codex_hooks}),
        f"{FOLDER}/{_CODEX_MCP}": _json(_server(env_vars=list(codex.FORWARDED))),
    }
