"""Codex's files as Orbital's installer changes them, and its edits routed (pure; Codex 0.169.0).

Which files, and why (facts: ``docs/codex-notes.md``):

* **The MCP server and the hooks go to the user's Codex home** (``$CODEX_HOME``, default
  ``~/.codex``): ``config.toml`` gets an ``[mcp_servers.orbital]`` table between marker lines,
  ``hooks.json`` Orbital's hooks. Both call the absolute path of the ``orbital`` that ran the
  installer, which is machine-specific; Codex reads a project's ``.codex/config.toml`` and
  ``.codex/hooks.json`` only once the person has trusted the project, and those files are
  committed by a team. The user's files are read in every project; the server finds its project
  from the folder Codex starts it in, and the hooks answer nothing outside a registered project.
  Those two files are shared by every project installed for Codex on the machine.
* **The instructions go to ``AGENTS.md``** at the project root, between marker lines: Codex
  reads it, a team commits it, and it holds nothing machine-specific.
* Hooks run only once the person trusted them (``/hooks`` in Codex), or for one run with
  ``--dangerously-bypass-hook-trust``; Orbital never writes that trust.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping

from orbital.agents import claude_code as cc
from orbital.agents.apply_patch import Section, added_text, apply_update, render_patch
from orbital.agents.changes import Change, install_section, strip_section, undo, uninstall_section
from orbital.agents.instructions import INSTRUCTIONS

AGENT = "codex"
CONFIG_FILE = "config.toml"
HOOKS_FILE = "hooks.json"
AGENTS_FILE = "AGENTS.md"
SERVER = "orbital"
CONFIG_BEGIN = (
    "# >>> orbital: written by `orbital install codex`; `orbital uninstall codex` removes it"
)
CONFIG_END = "# <<< orbital"
AGENTS_BEGIN = "<!-- orbital: begin (written by `orbital install codex`) -->"
AGENTS_END = "<!-- orbital: end -->"
#: Variables the MCP server needs from Codex's environment (Codex starts servers with few).
FORWARDED = ("ORBITAL_DB", "ORBITAL_STATE_DIR", "ORBITAL_NOW", "ORBITAL_BUSY_TIMEOUT_MS")

#: Session start (the view, cut to fit), each prompt (what changed), ``apply_patch`` routed
#: through the write path (PreToolUse), what it and the shell wrote taken in (PostToolUse),
#: the hand-off kept when a turn ends (Stop, answering nothing), the hand-off and the backstop
#: at session end (Codex clamps a SessionEnd hook to 3 s).
HOOKS = (
    cc.Hook("SessionStart", "session-start", None, 10),
    cc.Hook("UserPromptSubmit", "prompt", None, 10),
    cc.Hook("PreToolUse", "pre-tool", "apply_patch", 30),
    cc.Hook("PostToolUse", "post-tool", "apply_patch|Bash", 30),
    cc.Hook("Stop", "stop", None, 10),
    cc.Hook("SessionEnd", "session-end", None, 3),
)
HOOK_SLUGS = frozenset(hook.slug for hook in HOOKS)


def _toml_string(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text)


def server_table(executable: str) -> str:
    """The ``[mcp_servers.orbital]`` table: ``orbital mcp`` in the session's folder."""
    forwarded = ", ".join(_toml_string(name) for name in FORWARDED)
    return (
        f"[mcp_servers.{SERVER}]\n"
        f"command = {_toml_string(executable)}\n"
        'args = ["mcp"]\n'
        f"env_vars = [{forwarded}]\n"
    )


def install_config(before: str | None, executable: str) -> Change:
    """``config.toml`` with Orbital's server table; ValueError when the file is not TOML or
    already names a server ``orbital`` of its own."""
    others = strip_section(before or "", CONFIG_BEGIN, CONFIG_END)
    try:
        parsed = tomllib.loads(others)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{CONFIG_FILE} is not valid TOML: {exc}") from None
    servers = parsed.get("mcp_servers")
    if isinstance(servers, Mapping) and SERVER in servers:
        raise ValueError(
            f"{CONFIG_FILE} already has an MCP server named {SERVER!r} that Orbital did not "
            "write; remove or rename it first"
        )
    change = install_section(before, CONFIG_BEGIN, CONFIG_END, server_table(executable))
    tomllib.loads(change.written)  # what Orbital writes is TOML
    return change


def uninstall_config(current: str, change: Change | None) -> str | None:
    return uninstall_section(current, change, CONFIG_BEGIN, CONFIG_END)


def install_hooks(before: str | None, executable: str) -> Change:
    """``hooks.json`` (Claude Code's shape) with Orbital's hooks; the same bytes when there."""
    settings = cc.parse_settings(before, HOOKS_FILE)
    wanted = cc.with_orbital(settings, executable, HOOKS, AGENT, HOOKS_FILE)
    if before is not None and wanted == settings:
        return Change(before, before)
    return Change(before, cc.render_settings(wanted, before))


def uninstall_hooks(current: str, change: Change | None) -> str | None:
    settings = cc.parse_settings(current, HOOKS_FILE)
    stripped = cc.without_orbital(settings, AGENT)
    if stripped == settings and (change is None or current != change.written):
        return current
    return undo(current, change, cc.render_settings(stripped, current), not stripped)


def install_agents_md(before: str | None) -> Change:
    return install_section(before, AGENTS_BEGIN, AGENTS_END, INSTRUCTIONS)


def uninstall_agents_md(current: str, change: Change | None) -> str | None:
    return uninstall_section(current, change, AGENTS_BEGIN, AGENTS_END)


# -- apply_patch routed through the write path -----------------------------------------------


def proposed(section: Section, current: str | None) -> str | None:
    """A memory file as the section would leave it; None when Orbital leaves the section to
    the tool (a delete, a move, a chunk that does not apply: the tool answers for itself)."""
    if section.kind == "add":
        return added_text(section)
    if section.kind != "update" or section.moves or current is None:
        return None
    return apply_update(current, section)


def rewritten(sections: list[Section], replaced: Mapping[int, Section | None]) -> str | None:
    """The patch with the sections at ``replaced``'s indexes swapped (None: dropped); None when
    no section is left (the call must then be denied)."""
    kept: list[Section] = []
    for index, section in enumerate(sections):
        if index in replaced:
            swap = replaced[index]
            if swap is not None:
                kept.append(swap)
        else:
            kept.append(section)
    return render_patch(kept) if kept else None
