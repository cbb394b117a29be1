"""Claude Code's hook payloads in, its hook answers out (pure; Claude Code 2.1.332).

A hook gets one JSON object on stdin (``session_id``, ``transcript_path``, ``cwd``,
``hook_event_name`` and the event's own fields) and answers with JSON on stdout. What the
answers do (``docs/claude-code-notes.md``):

* ``additionalContext`` of SessionStart, UserPromptSubmit and SubagentStart reaches the model
  as a system reminder, **whole only up to 10,000 characters** (past that, a 2 KB preview), so
  every context here is fitted under :data:`CONTEXT_LIMIT`;
* PreToolUse ``allow`` with ``updatedInput`` runs the tool on that input (an ``Edit`` turned
  into a replacement of the whole file by Orbital's projection writes exactly those bytes and
  keeps the model's next ``Edit`` working); its ``additionalContext`` arrives right after the
  tool's result; ``deny`` with a reason leaves the file alone and the model reads the reason.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Collection, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

from orbital.agents.edits import smallest_edit

#: The longest context Orbital hands Claude Code (its limit is 10,000 characters).
CONTEXT_LIMIT = 9_500
#: The file tools whose writes of ``orbital/*.md`` go through Orbital's write path.
FILE_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})

Json = dict[str, object]


class Payload(NamedTuple):
    """The fields of a hook's input that Orbital reads."""

    event: str
    session_id: str = ""
    transcript_path: str = ""
    cwd: str = ""
    source: str = ""
    prompt: str = ""
    tool_name: str = ""
    tool_input: Mapping[str, object] = MappingProxyType({})
    agent_type: str = ""
    reason: str = ""
    #: The file an edit changed (Cursor's ``afterFileEdit``).
    file_path: str = ""
    #: The agent's last message (``Stop``).
    last_assistant_message: str = ""

    def transcript(self) -> Path | None:
        """The session's transcript (Claude Code's, Codex's rollout), against which the
        quotes of the agent's ask closes and reopens are checked; None: nothing is verified."""
        return Path(self.transcript_path) if self.transcript_path else None


def text_of(data: Mapping[str, object], name: str) -> str:
    """The string field ``name`` of a hook's input ("" when it is missing or not a string)."""
    value = data.get(name)
    return value if isinstance(value, str) else ""


def parse_payload(raw: bytes | str) -> Payload:
    """The hook input; ValueError when it is not a JSON object naming its event."""
    data = json.loads(raw)
    if not isinstance(data, dict) or not text_of(data, "hook_event_name"):
        raise ValueError("a Claude Code hook input is a JSON object with hook_event_name")
    tool_input = data.get("tool_input")
    return Payload(
        event=text_of(data, "hook_event_name"),
        session_id=text_of(data, "session_id"),
        transcript_path=text_of(data, "transcript_path"),
        cwd=text_of(data, "cwd"),
        source=text_of(data, "source"),
        prompt=text_of(data, "prompt"),
        tool_name=text_of(data, "tool_name"),
        tool_input=tool_input if isinstance(tool_input, dict) else {},
        agent_type=text_of(data, "agent_type"),
        reason=text_of(data, "reason"),
        last_assistant_message=text_of(data, "last_assistant_message"),
    )


def memory_target(root: str, cwd: str, file_path: str, names: Collection[str]) -> str | None:
    """The memory file a tool's ``file_path`` names (``orbital/<NAME>`` directly under the
    project ``root``, NAME one of ``names``), else None. A relative path is taken from
    ``cwd``; the comparison is lexical (the caller resolves symlinks of ``root``)."""
    if not file_path:
        return None
    path = posixpath.normpath(posixpath.join(cwd or root, file_path))
    folder, name = posixpath.split(path)
    if folder != posixpath.join(posixpath.normpath(root), "orbital") or name not in names:
        return None
    return name


def _replaced(text: str, old: object, new: object, replace_all: object) -> str | None:
    if not isinstance(old, str) or not isinstance(new, str) or not old or old not in text:
        return None
    if replace_all is True:
        return text.replace(old, new)
    if text.count(old) != 1:
        return None
    return text.replace(old, new, 1)


def proposed_content(tool_name: str, tool_input: Mapping[str, object], current: str) -> str | None:
    """The file as the tool would leave it, from ``current``; None when the tool would fail
    on its own (an ``old_string`` not found or not unique), which is left to the tool."""
    if tool_name == "Write":
        content = tool_input.get("content")
        return content if isinstance(content, str) else None
    if tool_name == "Edit":
        return _replaced(
            current,
            tool_input.get("old_string"),
            tool_input.get("new_string"),
            tool_input.get("replace_all"),
        )
    if tool_name == "MultiEdit":
        edits = tool_input.get("edits")
        if not isinstance(edits, list) or not edits:
            return None
        text: str | None = current
        for edit in edits:
            if text is None or not isinstance(edit, dict):
                return None
            text = _replaced(
                text, edit.get("old_string"), edit.get("new_string"), edit.get("replace_all")
            )
        return text
    return None


def rewritten_input(
    tool_name: str, tool_input: Mapping[str, object], current: str, wanted: str
) -> Json:
    """The tool's input changed so that it writes ``wanted``: a ``Write`` of it, or one edit
    of ``current`` into it (the tool's own staleness check still runs): the few whole lines
    that differ, found once in ``current`` (:func:`~orbital.agents.edits.smallest_edit`)."""
    if tool_name == "Write":
        return {**tool_input, "content": wanted}
    old, new = smallest_edit(current, wanted)
    edit: Json = {"old_string": old, "new_string": new, "replace_all": False}
    if tool_name == "MultiEdit":
        return {**tool_input, "edits": [edit]}
    return {**tool_input, **edit}


#: What a cut context tells an agent that reaches Orbital over MCP (Codex, Cursor).
MCP_MORE = "Call the orbital MCP tool memory_context for the whole view."


def fit(text: str, more: str, limit: int = CONTEXT_LIMIT) -> str:
    """``text`` whole when it fits in ``limit`` characters, else cut at a line end with the
    note ``more`` after it."""
    if len(text) <= limit:
        return text
    room = max(0, limit - len(more) - 2)
    cut = text.rfind("\n", 0, room)
    return text[: cut if cut > 0 else room].rstrip() + "\n" + more


def context_answer(event: str, text: str) -> Json:
    """Context for the model (SessionStart, UserPromptSubmit, SubagentStart)."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def unreachable_notice(reason: str) -> str:
    """The one line a session start tells the agent when the project's store cannot be
    used: the session runs without Orbital's memory, and the person should know."""
    return (
        f"Orbital: this project's memory is unavailable this session ({reason}); memory files "
        "are not kept through Orbital now: tell the person to run `orbital doctor` here."
    )


def allow_answer(updated: Mapping[str, object], context: str = "") -> Json:
    """PreToolUse: run the tool on ``updated``; ``context`` arrives after its result."""
    output: Json = {
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "updatedInput": dict(updated),
    }
    if context:
        output["additionalContext"] = context
    return {"hookSpecificOutput": output}


def deny_answer(reason: str) -> Json:
    """PreToolUse: the tool does not run; the model reads ``reason`` as the tool's error."""
    output = {"hookEventName": "PreToolUse", "permissionDecision": "deny"}
    return {"hookSpecificOutput": {**output, "permissionDecisionReason": reason}}


# -- the imported view file ----------------------------------------------------------------

_HEADER = re.compile(r"\A<!-- orbital view at position (\d+)[ ;]")
_DAY = re.compile(r"\A<!-- orbital view at position \d+ on (\d{4}-\d{2}-\d{2})(?: \(([^)]*)\))?;")


def view_file(view: str, position: int, day: str = "", zone: str = "") -> str:
    """The file ``CLAUDE.local.md`` imports: the whole view, headed by its position (a
    comment, which Claude Code leaves out of what it sends) and fenced, because Claude Code
    strips HTML comments from instruction files and the view's format contracts are
    comments. ``day`` (ISO) is the day it was rendered for (the view names today), in the
    view's time zone ``zone`` (an IANA name; "" for the machine's local zone)."""
    on = (f" on {day}" + (f" ({zone})" if zone else "")) if day else ""
    header = (
        f"<!-- orbital view at position {position}{on}; generated by Orbital for Claude Code, "
        "rewritten at each session start and end: do not edit -->\n"
    )
    longest = max((len(run) for run in re.findall(r"`+", view)), default=0)
    fence = "`" * max(3, longest + 1)
    body = view + ("" if view.endswith("\n") else "\n")
    title = f"Orbital project memory (the injection view as of @{position}):\n"
    return f"{header}{title}{fence}text\n{body}{fence}\n"


def view_position(text: str | None) -> int | None:
    """The position a view file was rendered at (None: no file, or not Orbital's)."""
    found = _HEADER.match(text or "")
    return int(found.group(1)) if found else None


def view_day(text: str | None) -> str | None:
    """The day (ISO) a view file was rendered for (None: not said, or not Orbital's)."""
    found = _DAY.match(text or "")
    return found.group(1) if found else None


def view_zone(text: str | None) -> str:
    """The time zone a view file's day is in ("": the machine's local zone, or not said)."""
    found = _DAY.match(text or "")
    return (found.group(2) or "") if found else ""
