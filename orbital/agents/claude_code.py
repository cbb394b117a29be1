"""Claude Code's settings and memory files as Orbital's installer changes them (pure).

Which files, and why (facts: ``docs/claude-code-notes.md``, Claude Code 2.1.332):

* **Hooks go to ``.claude/settings.local.json``**, calling the absolute path of the
  ``orbital`` that ran the installer. A hook must work whatever the PATH of the process that
  starts Claude Code (a venv is rarely on it), and that path is machine-specific, so it never
  goes into ``.claude/settings.json``, which a team commits. Claude Code merges the two files, so
  the person's and the team's own hooks keep running beside Orbital's.
* **The whole view reaches the model through an import**, ``@.claude/orbital-view.md`` in
  ``CLAUDE.local.md``: hook context over 10,000 characters is cut to a 2 KB preview, while an
  imported file arrives whole (89 KB tried), at startup and again after compaction. Both files
  are per person (Claude Code labels ``CLAUDE.local.md`` "not checked in"); a committed
  ``CLAUDE.md`` importing a view that changes with every memory write would make noise in every
  pull request. Imports are read *before* the SessionStart hook runs, so the view file must be
  kept current by Orbital's writes, and the SessionStart hook sends only what changed since the
  position the file was rendered at.
* Uninstall removes exactly what install added; a file that nobody changed since Orbital wrote it
  gets its previous bytes back (or is removed if Orbital created it), which needs the
  :class:`Change` that install returned to be kept by the installer.

Orbital's hook entries are recognised by their command, ``<orbital> hook claude-code <event>``,
whatever the executable's path, so re-installing from another venv replaces them.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from orbital.agents.changes import Change as Change
from orbital.agents.changes import undo

SETTINGS_FILE = ".claude/settings.local.json"
MEMORY_FILE = "CLAUDE.local.md"
VIEW_FILE = ".claude/orbital-view.md"
IMPORT_LINE = f"@{VIEW_FILE}"

Json = dict[str, object]


@dataclass(frozen=True)
class Hook:
    """One hook Orbital installs: the event, the tools it matches, its time budget (s)."""

    event: str
    slug: str
    matcher: str | None
    timeout: int


#: The session's view and changes; the write path for the file tools and every call recorded
#: as running, so that the watcher leaves its changes to the hooks (PreToolUse), the stat
#: of what the tool wrote recorded and edits made through Bash taken in (PostToolUse); the
#: sub-agent view; the hand-off kept when a turn ends (Stop: it answers nothing, since context
#: returned there makes the agent go on); the hand-off and the backstop within a raised
#: session-end budget (the shared default is 1.5 s).
HOOKS = (
    Hook("SessionStart", "session-start", None, 10),
    Hook("UserPromptSubmit", "prompt", None, 10),
    Hook("PreToolUse", "pre-tool", "Write|Edit|MultiEdit|Bash", 30),
    Hook("PostToolUse", "post-tool", "Write|Edit|MultiEdit|Bash", 30),
    Hook("SubagentStart", "subagent-start", None, 10),
    Hook("Stop", "stop", None, 10),
    Hook("SessionEnd", "session-end", None, 30),
)
#: The last word of each installed command.
HOOK_SLUGS = frozenset(hook.slug for hook in HOOKS)


#: The agent name in the hook commands of this file's shape (Codex's ``hooks.json`` shares it).
AGENT = "claude-code"


def hook_command(executable: str, hook: Hook, agent: str = AGENT) -> str:
    """The shell command the agent runs for ``hook``."""
    return f"{shlex.quote(executable)} hook {agent} {hook.slug}"


def is_orbital_hook(entry: object, agent: str = AGENT) -> bool:
    """A hook entry whose command is ``<anything> hook <agent> <event>``."""
    if not isinstance(entry, Mapping) or not isinstance(entry.get("command"), str):
        return False
    try:
        words = shlex.split(str(entry["command"]))
    except ValueError:
        return False
    return len(words) >= 4 and words[-3:-1] == ["hook", agent]


def hook_groups(
    executable: str, hooks: Sequence[Hook] = HOOKS, agent: str = AGENT
) -> dict[str, list[Json]]:
    """Orbital's matcher groups by event, as they appear under ``hooks`` in the settings."""
    groups: dict[str, list[Json]] = {}
    for hook in hooks:
        entry: Json = {"type": "command", "command": hook_command(executable, hook, agent)}
        entry["timeout"] = hook.timeout
        group: Json = {"hooks": [entry]}
        if hook.matcher is not None:
            group = {"matcher": hook.matcher, **group}
        groups.setdefault(hook.event, []).append(group)
    return groups


def _strip_group(group: object, agent: str) -> object | None:
    """The group without Orbital's entries; None when only Orbital's were in it."""
    if not isinstance(group, Mapping) or not isinstance(group.get("hooks"), list):
        return group
    entries: list[object] = group["hooks"]
    kept = [entry for entry in entries if not is_orbital_hook(entry, agent)]
    if len(kept) == len(entries):
        return group
    return {**group, "hooks": kept} if kept else None


def without_orbital(settings: Mapping[str, object], agent: str = AGENT) -> Json:
    """The settings minus Orbital's hook entries; an event list or a ``hooks`` object that
    only Orbital's removal emptied goes too (one that was empty already stays)."""
    result = dict(settings)
    hooks = settings.get("hooks")
    if not isinstance(hooks, Mapping):
        return result
    kept_hooks: Json = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            kept_hooks[event] = groups
            continue
        kept = [g for g in (_strip_group(group, agent) for group in groups) if g is not None]
        if kept or not groups:
            kept_hooks[event] = kept
    if kept_hooks or not hooks:
        result["hooks"] = kept_hooks
    else:
        del result["hooks"]
    return result


def with_orbital(
    settings: Mapping[str, object],
    executable: str,
    hooks: Sequence[Hook] = HOOKS,
    agent: str = AGENT,
    file: str = SETTINGS_FILE,
) -> Json:
    """The settings with Orbital's hooks, each after the event's other groups (idempotent)."""
    result = without_orbital(settings, agent)
    found = result.get("hooks", {})
    if not isinstance(found, Mapping):
        raise ValueError(f'"hooks" in {file} is not an object')
    merged = dict(found)
    for event, groups in hook_groups(executable, hooks, agent).items():
        existing = merged.get(event, [])
        if not isinstance(existing, list):
            raise ValueError(f'"hooks.{event}" in {file} is not a list')
        merged[event] = [*existing, *groups]
    result["hooks"] = merged
    return result


def parse_settings(text: str | None, file: str = SETTINGS_FILE) -> Json:
    """A settings file's object (an absent or blank file is ``{}``); ValueError otherwise."""
    if text is None or not text.strip():
        return {}
    settings = json.loads(text)
    if not isinstance(settings, dict):
        raise ValueError(f"{file} does not hold a JSON object")
    return settings


def render_settings(settings: Mapping[str, object], like: str | None) -> str:
    """JSON in the indentation and final newline of ``like`` (default: two spaces, newline)."""
    indent = re.search(r"^[{\[]\s*\n([ \t]+)\S", like or "")
    text = json.dumps(settings, indent=indent.group(1) if indent else 2, ensure_ascii=False)
    return text + ("\n" if not like or like.endswith("\n") else "")


def install_settings(before: str | None, executable: str) -> Change:
    """The settings file with Orbital's hooks; unchanged bytes when they are there already."""
    settings = parse_settings(before)
    wanted = with_orbital(settings, executable)
    if before is not None and wanted == settings:
        return Change(before, before)
    return Change(before, render_settings(wanted, before))


def uninstall_settings(current: str, change: Change | None) -> str | None:
    """The settings file without Orbital's hooks (None: remove it); see :func:`_undo`."""
    settings = parse_settings(current)
    stripped = without_orbital(settings)
    if stripped == settings and (change is None or current != change.written):
        return current
    return undo(current, change, render_settings(stripped, current), not stripped)


def install_import(before: str | None) -> Change:
    """``CLAUDE.local.md`` with the line that imports Orbital's view (once)."""
    text = before or ""
    if IMPORT_LINE in text.splitlines():
        return Change(before, text)
    separator = "" if not text or text.endswith("\n") else "\n"
    return Change(before, f"{text}{separator}{IMPORT_LINE}\n")


def imports_view(text: str | None) -> bool:
    """Whether ``CLAUDE.local.md`` imports the view: the installer's sessions load it whole
    before any hook runs; the plugin's (no import) get it from the SessionStart hook."""
    return text is not None and IMPORT_LINE in text.splitlines()


def uninstall_import(current: str, change: Change | None) -> str | None:
    """``CLAUDE.local.md`` without the import line (None: remove it); see :func:`_undo`."""
    lines = current.splitlines(keepends=True)
    kept = "".join(line for line in lines if line.rstrip("\r\n") != IMPORT_LINE)
    if kept == current and (change is None or current != change.written):
        return current
    return undo(current, change, kept, not kept.strip())
