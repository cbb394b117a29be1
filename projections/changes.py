"""What changed in a project's memory since a session last looked, in a few lines (pure).

An agent sees the whole view once, at session start; afterwards it is told only what moved,
so copies of the view do not pile up in its conversation. A change the session made itself
is left out (it knows), so are audit events that change nothing the agent reads (refused
opens, layout and editor bookkeeping, but for the result of a checkpoint an agent asked
for). Whose change it was is said plainly, and the person's own words (a close note, a drop
reason) are quoted whole.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from orbital.catalogue import PERSON_CLI_SESSION
from orbital.events import Actor, RecordedEvent
from orbital.events.asks import (
    AskClosed,
    AskOpened,
    AskReopenDeclined,
    AskReopened,
    AskReopenProposed,
)
from orbital.events.citations import CitationChecked, EntryCited
from orbital.events.editor import AppliedChoice, EditorRunRecorded
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
from orbital.events.trust import (
    EntryDisputed,
    EntryReaffirmed,
    EntryRetracted,
    EntrySuperseded,
)
from orbital.grammar.model import Citation
from orbital.grammar.text import clipped
from projections.history import event_mark, marked

_WHO = {
    Actor.USER: "the person (Workbench)",
    Actor.AGENT: "another agent session",
    Actor.EDITOR: "the memory editor",
    Actor.SYSTEM: "Orbital",
    Actor.FILE: "a change on disk, author unknown",
}


def who(recorded: RecordedEvent) -> str:
    """Whose change it was, naming the person's surface: the Workbench, or the CLI with
    their Workbench token (``--as-user``, recorded under :data:`PERSON_CLI_SESSION`)."""
    if recorded.actor is Actor.USER and recorded.session == PERSON_CLI_SESSION:
        return "the person (CLI, --as-user)"
    return _WHO[recorded.actor]


_CLIP = 300


def _ask_line(event: object, ask_texts: Mapping[str, str]) -> str | None:
    if isinstance(event, AskOpened):
        due = f" (due {event.due})" if event.due else ""
        return f"ask {event.ask_id} opened{due}: {clipped(event.text, _CLIP)}"
    text = clipped(ask_texts.get(getattr(event, "ask_id", ""), ""), _CLIP)
    if isinstance(event, AskClosed | AskReopened):
        what = "reopened" if isinstance(event, AskReopened) else event.kind
        mark = marked(event_mark(event))
        if mark:  # an agent's: whether its quote is the person's words is the mark's to say
            words = f" — quoting the person: {event.note}" if event.note else ""
            return f"ask {event.ask_id} {what} ({text}){words} {mark}"
        words = f' — their words: "{event.note}"' if event.note else ""
        return f"ask {event.ask_id} {what} ({text}){words}"
    if isinstance(event, AskReopenProposed):
        return (
            f"a reopen of ask {event.ask_id} ({text}), dropped by the person, waits on the "
            f"person: {event.note or '(no words)'}"
        )
    if isinstance(event, AskReopenDeclined):
        why = f": {event.note}" if event.note else ""
        return f"the reopen of ask {event.ask_id} ({text}) was declined{why}: it stays dropped"
    return None


def _trust_line(event: object) -> str | None:
    """The person's judgement of an entry, with their reason (issue 28)."""
    if isinstance(event, EntryDisputed):
        return f"entry {event.entry_id} disputed — their reason: {clipped(event.reason, _CLIP)}"
    if isinstance(event, EntryRetracted):
        why = f" — their reason: {clipped(event.reason, _CLIP)}" if event.reason else ""
        return f"entry {event.entry_id} retracted (wrong: out of the view){why}"
    if isinstance(event, EntryReaffirmed):
        why = f" — their reason: {clipped(event.reason, _CLIP)}" if event.reason else ""
        return f"entry {event.entry_id} reaffirmed (held true again, no longer disputed){why}"
    if isinstance(event, EntrySuperseded):
        return f"entry {event.entry_id} superseded by {', '.join(event.by)} (out of the view)"
    return _citation_line(event)


def _citation_line(event: object) -> str | None:
    """What a check found of an entry's cited file, and who confirmed it (issue 29)."""
    if isinstance(event, CitationChecked):
        cite = Citation(event.path, event.lines)
        what = "changed on disk" if event.hash else "is gone"
        return (
            f"entry {event.entry_id}: its cited {cite.mention} {what} — if it still holds, "
            f"`orbital entry confirm {event.entry_id}`, else rewrite it"
        )
    if isinstance(event, EntryCited) and event.confirmed:
        return f"entry {event.entry_id} confirmed with the files it cites as they are now"
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


def _applied(item: AppliedChoice) -> str:
    if item.kind == "close_ask":
        return f"closed ask {item.id} on the person's words in session {item.session}"
    if item.kind == "merge":
        return f"merged {', '.join(item.ids)} of {item.file} into {item.id}"
    if item.kind == "index":
        return f"rewrote {item.file}"
    if item.kind == "lesson":
        return f"added lesson {item.id} from the person's words in session {item.session}"
    return f"archived {item.id} of {item.file}"


def _checkpoint_line(event: object) -> str | None:
    """The result of a checkpoint an agent asked for (``requested``): the asker was told it
    would come with its next reminder."""
    if not isinstance(event, EditorRunRecorded) or event.trigger != "requested":
        return None
    asked = f'the checkpoint asked for ("{clipped(event.reason, _CLIP)}")'
    if event.outcome == "failed":
        return f"{asked} failed, nothing changed: {clipped(event.error, _CLIP)}"
    done = "; ".join(_applied(a) for a in event.applied) or "nothing needed to change"
    rejected = f" ({len(event.rejected)} choice(s) refused)" if event.rejected else ""
    return f"{asked} is done: {done}{rejected}"


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
        line = (
            _ask_line(event, ask_texts)
            or _entry_line(event)
            or _trust_line(event)
            or _text_line(event)
            or _checkpoint_line(event)
        )
        if line is not None:
            lines.append(f"- @{recorded.position} by {who(recorded)}: {line}")
    return lines
