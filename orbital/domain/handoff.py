"""The agent swap (pure): what a session leaves for the next one, and who takes it.

When a session stops (a turn ends, or the session does), Orbital keeps a *hand-off*
(:class:`~orbital.events.handoff.HandoffKept`): the person's last requests in it, each checked
against the session's transcript as a quote is (:meth:`UserWords.said`); what the agent was
doing (its PROJECT_STATE lines of that session, and its last message, marked as its words);
the files it changed; the asks it opened. The next session of any agent that starts (not one
that resumes the same conversation, not the same session) takes it, once
(:class:`~orbital.events.handoff.HandoffTaken`), and gets it at its start in the view's order
(:mod:`projections.handoff`).

:class:`Handoffs` is the fold of the project's ``handoff`` stream; :func:`decide_keep` and
:func:`decide_take` the deciders; the rest reads a transcript's rows for what a hand-off holds.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Mapping, Sequence

import msgspec

from orbital.domain.quotes import UserWords
from orbital.domain.transcripts import Turn, user_words
from orbital.events import Event
from orbital.events.handoff import HandoffKept, HandoffTaken

#: How many of the person's last requests a hand-off keeps, and how long each may be.
REQUESTS = 3
REQUEST_CHARS = 600
#: The agent's last message is kept up to this length (its plan is at its end or start).
PLAN_CHARS = 1500
DOING_LINES = 8
FILES = 30
#: Claude Code's file tools and the input naming the file each writes.
_FILE_TOOLS = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
_MARKER = re.compile(r"^[-*+]\s+")
_PATCH_FILE = re.compile(
    r"^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$"
)


class Handoffs(msgspec.Struct, frozen=True):
    """A project's hand-off stream folded: the newest hand-off, when it was kept, and the
    session that took it ("" while nobody has)."""

    latest: HandoffKept | None = None
    kept_at: dt.datetime | None = None
    taken_by: str = ""


def fold_handoffs(state: Handoffs | None, event: Event, at: dt.datetime) -> Handoffs:
    state = state or Handoffs()
    if isinstance(event, HandoffKept):
        return Handoffs(event, at)
    waiting = state.latest.session if state.latest is not None and not state.taken_by else None
    if isinstance(event, HandoffTaken) and event.from_session == waiting:
        return msgspec.structs.replace(state, taken_by=event.session)
    return state


def decide_keep(state: Handoffs, kept: HandoffKept) -> list[Event]:
    """The hand-off kept, unless the newest one is this session's with the same content (a
    turn that changed nothing of it); an empty hand-off is not kept."""
    if not (kept.requests or kept.doing or kept.plan or kept.files or kept.asks):
        return []
    latest = state.latest
    if latest is not None and msgspec.structs.replace(latest, stopped=kept.stopped) == kept:
        return []
    return [kept]


def decide_take(state: Handoffs, session: str, agent: str, resumed: bool) -> list[Event]:
    """A starting session takes the newest hand-off when nobody has, it is another
    session's, and this one does not continue a conversation (``resumed``)."""
    latest = state.latest
    if latest is None or state.taken_by or resumed or not session or latest.session == session:
        return []
    return [HandoffTaken(session=session, agent=agent, from_session=latest.session)]


def taken(state: Handoffs, session: str) -> HandoffKept | None:
    """The hand-off ``session`` took, if it took the newest one."""
    return state.latest if session and state.taken_by == session else None


# -- what a hand-off holds ----------------------------------------------------------------


def clip(text: str, limit: int) -> str:
    """``text`` on one line, cut at a word to ``limit`` characters with `` …`` (the mark of
    words left out a quote check reads)."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0].rstrip() + " …"


def state_line(text: str) -> str:
    """A PROJECT_STATE entry as one line, without its list marker."""
    return _MARKER.sub("", " ".join(text.split()), count=1)


def last_requests(turns: Sequence[Turn], count: int = REQUESTS) -> tuple[str, ...]:
    """The person's last ``count`` messages, clipped, each kept only when the transcript's
    user words verify it (so nothing injected or reworded is handed on as theirs)."""
    typed = user_words(turns)
    words = UserWords.of(typed)
    kept = [clip(text, REQUEST_CHARS) for text in typed[-count:]]
    return tuple(text for text in kept if text and words.said(text))


def last_message(turns: Sequence[Turn]) -> str:
    """The agent's last message in the transcript ("" when none)."""
    said = [turn.text for turn in turns if turn.speaker == "assistant" and turn.text.strip()]
    return said[-1] if said else ""


def _patch_files(text: str) -> list[str]:
    found: list[str] = []
    for line in text.splitlines():
        match = _PATCH_FILE.match(line)
        if match:
            found.append(match[1] or match[2])
    return found


def _tool_files(part: Mapping[str, object]) -> list[str]:
    """The files one tool call writes: a Claude Code file tool's path, the sections of a
    Codex ``apply_patch`` (its input or arguments)."""
    name = part.get("name")
    given = part.get("input")
    if isinstance(name, str) and name in _FILE_TOOLS and isinstance(given, Mapping):
        path = given.get(_FILE_TOOLS[name])
        return [path] if isinstance(path, str) and path else []
    if name != "apply_patch":
        return []
    texts = [given] if isinstance(given, str) else []
    arguments = part.get("arguments")
    if isinstance(arguments, str):
        try:
            decoded = json.loads(arguments)
        except ValueError:
            decoded = arguments
        if isinstance(decoded, Mapping):
            decoded = decoded.get("input") or decoded.get("patch") or ""
        texts.append(decoded if isinstance(decoded, str) else "")
    return [path for text in texts for path in _patch_files(text)]


def _row_calls(row: object) -> list[Mapping[str, object]]:
    """The tool calls a transcript row holds: Claude Code's ``tool_use`` parts of an
    assistant message, Codex's ``function_call`` / ``custom_tool_call`` items."""
    if not isinstance(row, Mapping):
        return []
    message, payload = row.get("message"), row.get("payload")
    if row.get("type") == "assistant" and isinstance(message, Mapping):
        content = message.get("content")
        if isinstance(content, list):
            return [p for p in content if isinstance(p, Mapping) and p.get("type") == "tool_use"]
    calls = ("function_call", "custom_tool_call")
    if row.get("type") == "response_item" and isinstance(payload, Mapping):
        return [payload] if payload.get("type") in calls else []
    return []


def changed_files(lines: Iterable[str], root: str) -> tuple[str, ...]:
    """The files the session's tool calls wrote, in the order first written, relative to
    ``root`` when inside it; undecodable lines are skipped."""
    import posixpath

    found: dict[str, None] = {}
    prefix = root.rstrip("/") + "/"
    for line in lines:
        try:
            row = json.loads(line)
        except ValueError:
            continue
        for call in _row_calls(row):
            for path in _tool_files(call):
                path = path.removeprefix(prefix) if path.startswith(prefix) else path
                found.setdefault(posixpath.normpath(path), None)
    return tuple(found)[:FILES]
