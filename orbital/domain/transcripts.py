"""Session transcripts as evidence: who said what, in the formats people have.

The editor may close an ask only with the user's own words, so this module's one job is to
tell the user's words apart from everything else in a transcript. Two JSONL row shapes are
read, detected per row (a file may mix them):

* Orbital's ``orbital/sessions/<name>.jsonl``: ``{"role", "source", "content"}``. A row is the
  user's when ``role == "user"`` and ``source`` is absent or ``"user"`` (a ``source`` such as
  ``"management"`` or ``"system"`` marks text Orbital injected in the user's turn).
* Claude Code's transcript (shapes in ``docs/claude-code-notes.md``, seen in 2.1.332):
  ``{"type": "user"|"assistant"|…, "message": {"role", "content"}}``. A row is the user's when
  ``type`` and ``message.role`` are both ``user`` and it is not marked ``isMeta``,
  ``isCompactSummary``, ``isVisibleInTranscriptOnly``, ``isSidechain`` (a sub-agent's prompt,
  written by the main agent), ``textNotTyped`` nor carries ``toolUseResult`` (a tool's output
  is returned in a user-role row but was never typed by the person), and its ``origin``, when
  present, is ``{"kind": "human"}`` (``task-notification``, ``channel``, ``peer``… are not).
  Text typed while a turn runs is an ``attachment`` row of type ``queued_command``
  (``prompt``): the user's under the same ``origin`` rule when its ``commandMode`` is absent or
  ``prompt``. Every other ``attachment`` (hook context, CLAUDE.md, dates…), the
  ``api-request-blob`` copies of whole requests and the ``queue-operation`` bookkeeping are
  never the user's; a row type not known here is not either.

* Codex's rollout (``~/.codex/sessions/…/rollout-….jsonl``, the hooks' ``transcript_path``;
  seen in 0.169.0, ``docs/codex-notes.md``): ``{"type": "event_msg", "payload": {"type":
  "item_completed", "item": {"type": "UserMessage"|"AgentMessage", "content": [parts]}}}``. A
  ``UserMessage`` item is what the person typed; the ``response_item`` rows repeat the
  conversation as sent to the model, where a user-role message also carries the context Codex
  adds (``<environment_context>``, instructions), so they are never read as the user's.

``content`` is a string or a list of parts; only ``type: "text"`` parts count, joined by
spaces (``tool_result``, ``tool_use``, images and thinking never do). A text that starts with
a harness tag (``<system-reminder>``, ``<local-command-stdout>``…) is injected, not typed.
Malformed lines are skipped: a transcript is evidence, never a reason to fail.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

import msgspec

Speaker = Literal["user", "assistant", "tool", "injected"]

_SESSION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_HARNESS_TAGS = (
    "<system-reminder>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<user-prompt-submit-hook>",
    "<task-notification>",
    "<bash-stdout>",
    "<bash-stderr>",
)
_CLAUDE_NOT_TYPED = (
    "isMeta",
    "isCompactSummary",
    "isVisibleInTranscriptOnly",
    "isSidechain",
    "textNotTyped",
    "toolUseResult",
)


class Turn(msgspec.Struct, frozen=True):
    """One row's text and who it really came from."""

    speaker: Speaker
    text: str


def is_session_name(name: str) -> bool:
    """A bare session file stem: no directory, no ``..``, no leading dot or dash."""
    return _SESSION_NAME.fullmatch(name) is not None and ".." not in name


def _text_of(content: object) -> str:
    """The text a ``content`` value carries: the string, or its ``text`` parts joined."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = (
        part["text"]
        for part in content
        if isinstance(part, Mapping)
        and part.get("type") == "text"
        and isinstance(part.get("text"), str)
    )
    return " ".join(t for t in texts if t)


def _has_tool_result(content: object) -> bool:
    return isinstance(content, list) and any(
        isinstance(part, Mapping) and part.get("type") == "tool_result" for part in content
    )


def _injected(text: str) -> bool:
    return text.lstrip().startswith(_HARNESS_TAGS)


def _human(origin: object) -> bool:
    """Claude Code's ``origin`` of a message: absent (a prompt typed or sent by the person) or
    ``{"kind": "human"}``; any other kind was produced by Claude Code or another agent."""
    return origin is None or (isinstance(origin, Mapping) and origin.get("kind") == "human")


def _queued_turn(attachment: Mapping[str, object]) -> Turn | None:
    """A message queued while a turn ran (``queued_command``): the person's words when typed
    as a prompt by a human; any other attachment is context Claude Code added."""
    if attachment.get("type") != "queued_command":
        return None
    text = _text_of(attachment.get("prompt"))
    if not text:
        return None
    typed = (
        attachment.get("commandMode") in (None, "prompt")
        and _human(attachment.get("origin"))
        and not attachment.get("textNotTyped")
        and not _injected(text)
    )
    return Turn("user" if typed else "injected", text)


def _claude_turn(row: Mapping[str, object], message: Mapping[str, object]) -> Turn | None:
    content = message.get("content")
    text = _text_of(content)
    role = message.get("role")
    if row.get("type") == "assistant" and role == "assistant":
        return Turn("assistant", text) if text else None
    if row.get("type") != "user" or role != "user":
        return Turn("injected", text) if text else None
    if "toolUseResult" in row or _has_tool_result(content):
        return Turn("tool", text) if text else None
    if any(row.get(flag) for flag in _CLAUDE_NOT_TYPED) or not _human(row.get("origin")):
        return Turn("injected", text) if text else None
    if not text:
        return None
    return Turn("injected" if _injected(text) else "user", text)


def _orbital_turn(row: Mapping[str, object]) -> Turn | None:
    text = _text_of(row.get("content"))
    if not text:
        return None
    role, source = row.get("role"), row.get("source")
    if role == "user":
        typed = source in (None, "user") and not _injected(text)
        return Turn("user" if typed else "injected", text)
    if role == "assistant":
        return Turn("assistant", text)
    if role == "tool":
        return Turn("tool", text)
    return Turn("injected", text)


def _codex_turn(payload: Mapping[str, object]) -> Turn | None:
    item = payload.get("item")
    if payload.get("type") != "item_completed" or not isinstance(item, Mapping):
        return None
    parts = item.get("content")
    if not isinstance(parts, list):
        return None
    text = " ".join(
        part["text"]
        for part in parts
        if isinstance(part, Mapping)
        and part.get("type") in ("text", "Text")
        and isinstance(part.get("text"), str)
        and part["text"]
    )
    if not text:
        return None
    if item.get("type") == "UserMessage":
        return Turn("injected" if _injected(text) else "user", text)
    return Turn("assistant", text) if item.get("type") == "AgentMessage" else None


def turn_of(row: object) -> Turn | None:
    """Classify one decoded JSONL row; None for rows that carry no text (meta, summaries)."""
    if not isinstance(row, Mapping):
        return None
    payload = row.get("payload")
    if row.get("type") == "event_msg" and isinstance(payload, Mapping):
        return _codex_turn(payload)
    message = row.get("message")
    if isinstance(message, Mapping) and "type" in row:
        return _claude_turn(row, message)
    attachment = row.get("attachment")
    if row.get("type") == "attachment" and isinstance(attachment, Mapping):
        return _queued_turn(attachment)
    if "role" in row:
        return _orbital_turn(row)
    return None


def parse_transcript(lines: Iterable[str]) -> list[Turn]:
    """The turns of a JSONL transcript, in order; undecodable lines are skipped."""
    turns: list[Turn] = []
    for line in lines:
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            continue
        turn = turn_of(row)
        if turn is not None:
            turns.append(turn)
    return turns


def user_words(turns: Sequence[Turn]) -> list[str]:
    """The texts the user typed, in order."""
    return [turn.text for turn in turns if turn.speaker == "user"]


def render_turns(turns: Sequence[Turn]) -> str:
    """A plain-text view of a transcript for the model: one ``speaker: text`` block per turn."""
    return "\n\n".join(f"[{turn.speaker}] {turn.text}" for turn in turns)
