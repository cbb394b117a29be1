"""What changed in a project's memory since a session last looked, in a few lines (pure).

An agent sees the whole view once, at session start; afterwards it is told only what moved,
so copies of the view do not pile up in its conversation. A change the session made itself
is left out (it knows), so are audit events that change nothing the agent reads (refused
opens, layout and editor bookkeeping). Whose change it was is said plainly, and the
person's own words (a close note, a drop reason) are quoted whole.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from orbital.events import Actor, RecordedEvent
from orbital.events.asks import AskClosed, AskOpened, AskReopened
from orbital.events.entries import (
    EntryArchived,
    EntryCreated,
    EntryMerged,
    EntryPinned,
    EntryRestored,
    EntryRetired,
    EntryRetitled,
    EntryRevised,
    EntryUnpinned,
)
from orbital.events.project import ProjectDescribed, ProjectWorkspaceChanged
from orbital.grammar.text import clipped

_WHO = {
    Actor.USER: "the person (Workbench)",
    Actor.AGENT: "another agent session",
    Actor.EDITOR: "the memory editor",
    Actor.SYSTEM: "Orbital",
    Actor.FILE: "a hand edit of the file",
}
_CLIP = 300


def _ask_line(event: object, ask_texts: Mapping[str, str]) -> str | None:
    if isinstance(event, AskOpened):
        due = f" (due {event.due})" if event.due else ""
        return f"ask {event.ask_id} opened{due}: {clipped(event.text, _CLIP)}"
    if isinstance(event, AskClosed):
        text = ask_texts.get(event.ask_id, "")
        what = "done" if event.kind == "done" else "dropped"
        words = f' — their words: "{event.note}"' if event.note else ""
        return f"ask {event.ask_id} {what} ({clipped(text, _CLIP)}){words}"
    if isinstance(event, AskReopened):
        words = f' — their words: "{event.note}"' if event.note else ""
        text = clipped(ask_texts.get(event.ask_id, ""), _CLIP)
        return f"ask {event.ask_id} reopened ({text}){words}"
    return None


def _entry_line(event: object) -> str | None:
    if isinstance(event, EntryCreated):
        return f"{event.file} entry {event.entry_id} added: {clipped(event.text, _CLIP)}"
    if isinstance(event, EntryRevised | EntryRetitled):
        return f"entry {event.entry_id} revised: {clipped(event.text, _CLIP)}"
    if isinstance(event, EntryArchived):
        return f"entry {event.entry_id} archived (pointer: {clipped(event.pointer, _CLIP)})"
    if isinstance(event, EntryMerged):
        return f"entry {event.entry_id} merged into {event.into}"
    if isinstance(event, EntryRestored):
        return f"entry {event.entry_id} restored from the archive"
    if isinstance(event, EntryPinned | EntryUnpinned):
        return (
            f"entry {event.entry_id} {'pinned' if isinstance(event, EntryPinned) else 'unpinned'}"
        )
    if isinstance(event, EntryRetired):
        return f"entry {event.entry_id} removed"
    return None


_WORKSPACE_PARTS = {
    "joined": "this project joined workspace {name}",
    "context": "workspace {name}'s context changed (`orbital describe --workspace --show`)",
    "lessons": "workspace {name}'s lessons changed (`orbital workspace lessons --show`)",
}


def _text_line(event: object) -> str | None:
    """What the agent sees first changed (issue 19): said in one line, never copied whole."""
    if isinstance(event, ProjectDescribed):
        return f"the project description changed: {clipped(event.text, _CLIP)}"
    if isinstance(event, ProjectWorkspaceChanged) and event.part in _WORKSPACE_PARTS:
        return _WORKSPACE_PARTS[event.part].format(name=event.workspace)
    return None


def describe_changes(
    events: Sequence[RecordedEvent], session: str | None, ask_texts: Mapping[str, str]
) -> list[str]:
    """One line per change the agent should know of, oldest first: events not made in
    ``session``; ``ask_texts`` names each ask by its text."""
    lines = []
    for recorded in events:
        if session and recorded.session == session:
            continue
        event = recorded.event
        line = _ask_line(event, ask_texts) or _entry_line(event) or _text_line(event)
        if line is not None:
            lines.append(f"- @{recorded.position} by {_WHO[recorded.actor]}: {line}")
    return lines
