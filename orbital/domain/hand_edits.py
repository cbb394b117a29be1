"""Replaying a whole-file proposal on memory that moved on since the version it was based on
(pure): hand edits, writers' rewrites (``PUT …/files/X``, ``orbital write``) and "Keep mine".

The writer changed the version Orbital rendered at some past position (the *base*); the store
may have changed the file since (*ours*). The proposal is first decided as an ordinary write
against the base, which turns it into entry events (revised, created, retired…) and the file's
new order of entries; it is then replayed on the current state:

* an event on an entry the store did not change since the base applies as it is; so an entry
  the writer did not touch is never retired or reverted by it;
* an entry's text changed on both sides is merged by line (:func:`merge_lines`); anything
  else both sides changed on one entry (the same line, a retire of an entry the store
  changed, its pin) is a *clash*;
* the order of the file is merged three ways over its slots (:func:`merge_layout`), so entries
  added on either side are all kept.

The caller chooses what a clash means: a writer's proposal is refused (read again, retry), a
hand edit keeps the person's file beside as a conflict copy, and "Keep mine" applies the
person's side.

Before any of that, :func:`looks_broken` judges whether a whole file looks broken rather than
meant (cut short by a crashed editor, not UTF-8). One judgement serves every path that takes
a whole file in: a hand edit that looks broken is kept as a conflict copy and nothing is taken
from it; a writer's proposal that looks broken is refused. After it, :func:`looks_cut` judges
whether a hand save's removals look like a cut (several entries, or the head or tail of the
file, gone in one save): such a save is held for the person to confirm, not taken as intent.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
from msgspec.structs import replace

from orbital.domain.entries import fold
from orbital.domain.merge import merge_layout, merge_lines
from orbital.events import Event
from orbital.events.entries import (
    EntryCreated,
    EntryMetaSet,
    EntryPinned,
    EntryRetired,
    EntryRetitled,
    EntryRevised,
    EntryUnpinned,
)
from orbital.events.files import FileLayoutSet, FileStoredRaw
from orbital.grammar.model import Entry, FileState
from orbital.grammar.render import render_file
from orbital.grammar.text import to_lf

#: The clash of a proposal that no longer parses into entries (it cannot merge by entry).
RAW_CLASH = "the whole file"


class Replay(msgspec.Struct, frozen=True):
    """The events of a proposal as they apply to the current state, and the entries (ids)
    where both sides changed the same thing (their events are left out unless the edit is
    preferred)."""

    events: tuple[Event, ...]
    clashes: tuple[str, ...] = ()


def _trailing(text: str) -> str:
    return text[len(text.rstrip()) :]


def _bare(entry: Entry) -> Entry:
    """The entry without what a store change of spacing or text alone affects."""
    return replace(entry, text=entry.text.rstrip())


def _place(entry: Entry) -> tuple[object, ...]:
    return (entry.status, entry.pointer, entry.archived_on, entry.merged_into, entry.file)


def _respaced(event: Event, now: Entry) -> Event:
    """A text event keeps the spacing the store gave the entry since (the entry below it)."""
    if isinstance(event, EntryRevised | EntryRetitled):
        return msgspec.structs.replace(event, text=event.text.rstrip() + _trailing(now.text))
    return event


def _replayed(event: Event, base: Entry, now: Entry | None) -> Event | None:
    """``event`` (decided against ``base``) as it applies to ``now``; None on a clash."""
    if now is None:
        return None
    if _bare(base) == _bare(now):
        return _respaced(event, now)
    if _place(base) != _place(now):
        return None  # archived, merged, retired or restored meanwhile
    if isinstance(event, EntryRevised | EntryRetitled):
        text = merge_lines(base.text.rstrip(), now.text.rstrip(), event.text.rstrip())
        if text is None:
            return None
        return msgspec.structs.replace(event, text=text + _trailing(now.text))
    if isinstance(event, EntryMetaSet | EntryPinned | EntryUnpinned) and base.meta == now.meta:
        return event  # the store changed the text only
    return None


def replay_edit(
    base: FileState, current: FileState, edit: Sequence[Event], *, prefer_edit: bool = False
) -> Replay:
    """The events of ``edit`` (decided against ``base``) as they apply to ``current``, with
    the entries both changed; ``prefer_edit`` applies the edit's side of a clash too.

    An entry the edit creates with the text of one the store added since the base is that
    entry (a proposal replayed twice, or the same entry written by two writers), and an event
    that changes nothing on the current state is left out."""
    added = {
        e.text.rstrip(): eid
        for eid, e in current.entries.items()
        if eid not in base.entries and e.status == "live"
    }
    same: dict[str, str] = {}
    replayed: list[Event] = []
    clashes: list[str] = []
    state = current
    for event in edit:
        found: Event | None = event
        if isinstance(event, FileStoredRaw):
            if not prefer_edit and (current.raw != base.raw or current.layout != base.layout):
                return Replay((), (RAW_CLASH,))
        elif isinstance(event, EntryCreated) and event.text.rstrip() in added:
            same[event.entry_id] = added.pop(event.text.rstrip())
            found = None
        elif isinstance(event, FileLayoutSet):
            slots = tuple(
                msgspec.structs.replace(s, entry=same.get(s.entry, s.entry)) for s in event.slots
            )
            if current.layout != base.layout:
                slots = merge_layout(base.layout, current.layout, slots)
            found = FileLayoutSet(file=event.file, slots=slots)
        else:
            entry_id = getattr(event, "entry_id", None)
            if isinstance(entry_id, str) and entry_id in base.entries:
                now = current.entries.get(entry_id)
                found = _replayed(event, base.entries[entry_id], now)
                if found is None and prefer_edit and now is not None:
                    found = _respaced(event, now)
                elif found is None and entry_id not in clashes:
                    clashes.append(entry_id)
        if found is None:
            continue
        after = fold(state, found)
        if after != state:
            replayed.append(found)
            state = after
    return Replay(tuple(replayed), tuple(clashes))


#: A hand save removing at least this many entries at once looks like a cut.
SEVERAL = 3
#: ... and so does one removing at least this many from the head or the tail of the file.
CUT_END = 2


def looks_broken(before: FileState | str, raw: bytes, edit: Sequence[Event] = ()) -> str | None:
    """Why ``raw``, proposed as the new whole text of a file that was ``before`` (a memory
    file's state, or the text Orbital wrote), looks broken rather than meant; None when it
    looks meant. ``edit``: the events ``raw`` decides to against ``before`` (empty when it
    could not be decided, e.g. undecodable).

    Broken is: bytes that are not UTF-8; a text cut mid-line (the file Orbital wrote ends with
    a newline, this one does not); a strict prefix of what was written that cuts into an entry.
    Line endings are the file's own: a CRLF file is judged as the same text in LF.
    """
    try:
        text = to_lf(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return f"is not valid UTF-8 (byte {exc.start})"
    written = before if isinstance(before, str) else render_file(before)
    if text and written.endswith("\n") and not text.endswith("\n"):
        return "ends mid-line, as a file cut short does"
    revised = any(isinstance(e, EntryRevised) for e in edit)
    if len(text) < len(written) and written.startswith(text) and revised:
        return "is the file cut short inside an entry"
    return None


def looks_cut(before: FileState, edit: Sequence[Event]) -> str | None:
    """Why a hand save whose events against ``before`` are ``edit`` looks like a file cut (at
    an entry boundary) rather than removals meant; None when it does not. A cut is
    :data:`SEVERAL` or more entries gone in one save, or :data:`CUT_END` or more from the head
    or the tail of the file; one entry removed, or two apart inside the file, is meant."""
    live = before.live_ids()
    retired = {e.entry_id for e in edit if isinstance(e, EntryRetired)}
    gone = [i for i in live if i in retired]
    if len(gone) >= SEVERAL:
        return f"removes {len(gone)} of its {len(live)} entries in one save"
    head = next((n for n, i in enumerate(live) if i not in retired), len(live))
    if head >= CUT_END:
        return f"removes the first {head} of its {len(live)} entries"
    tail = next((n for n, i in enumerate(reversed(live)) if i not in retired), len(live))
    if tail >= CUT_END:
        return f"removes the last {tail} of its {len(live)} entries"
    return None
