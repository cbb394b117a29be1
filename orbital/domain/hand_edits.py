"""Merging a hand edit into memory that moved on meanwhile (pure).

The person edited the version Orbital wrote at some past position (the *base*); the store may
have changed the file since (*ours*). Their edit is first decided as an ordinary write against
the base, which turns it into entry events (revised, created, retired…) and the file's new
order of entries; it is then replayed on the current state:

* an entry the edit changes must be unchanged in the store since the base, else it is a
  conflict (both sides changed the same entry);
* the order of the file is merged three ways over its slots (entry ids and verbatim text), so
  an entry the agent added meanwhile and an entry the person edited never collide.

A conflict returns None: the shell keeps the person's file beside and regenerates, so nothing
is lost.

Before any of that, :func:`looks_broken` judges whether a whole file looks broken rather than
meant (cut short by a crashed editor, not UTF-8, most entries gone at once). One judgement
serves every path that takes a whole file in: a hand edit that looks broken is kept as a
conflict copy and nothing is taken from it; a writer's proposal that looks broken is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import merge3
import msgspec

from orbital.events import Event
from orbital.events.entries import EntryRetired, EntryRetitled, EntryRevised
from orbital.events.files import FileLayoutSet, FileStoredRaw, Slot
from orbital.grammar.model import Entry, FileState
from orbital.grammar.render import render_file
from orbital.grammar.text import to_lf


def _token(slot: Slot) -> str:
    return f"e:{slot.entry}" if slot.entry else f"t:{slot.text}"


def _merged_layout(
    base: Sequence[Slot], ours: Sequence[Slot], theirs: Sequence[Slot]
) -> tuple[Slot, ...] | None:
    slots = {_token(s): s for s in (*base, *ours, *theirs)}
    # A slot's spacing merges too: the person's, where they changed it, else the store's.
    was = {_token(s): s for s in base}
    slots |= {k: s for s in ours if (k := _token(s)) in was and slots[k] == was[k] and s != was[k]}
    merger = merge3.Merge3(
        [_token(s) for s in base], [_token(s) for s in ours], [_token(s) for s in theirs]
    )
    merged: list[Slot] = []
    for group in merger.merge_groups():
        if group[0] == "conflict":
            return None
        merged.extend(slots[token] for token in group[1])
    return tuple(merged)


def _trailing(text: str) -> str:
    return text[len(text.rstrip()) :]


def _changed_beyond_spacing(base: Entry, current: Entry | None) -> bool:
    """True when the store changed the entry since the base by more than the blank lines after
    it (appending an entry below another gives that one a trailing blank line)."""
    if current is None:
        return True
    return replace(base, text=base.text.rstrip()) != replace(current, text=current.text.rstrip())


def replay_edit(base: FileState, current: FileState, edit: Sequence[Event]) -> list[Event] | None:
    """The events of ``edit`` (decided against ``base``) as they apply to ``current``, or
    None when the edit and the store changed the same entry or the same place in the file."""
    replayed: list[Event] = []
    for event in edit:
        if isinstance(event, FileStoredRaw):
            return None  # the edit no longer parses into entries: nothing to merge by entry
        if isinstance(event, FileLayoutSet):
            if current.layout == base.layout:
                replayed.append(event)
                continue
            layout = _merged_layout(base.layout, current.layout, event.slots)
            if layout is None:
                return None
            if layout != current.layout:
                replayed.append(FileLayoutSet(file=event.file, slots=layout))
            continue
        entry_id = getattr(event, "entry_id", None)
        if isinstance(entry_id, str) and entry_id in base.entries:
            now = current.entries.get(entry_id)
            if _changed_beyond_spacing(base.entries[entry_id], now):
                return None
            if isinstance(event, EntryRevised | EntryRetitled) and now is not None:
                # Keep the spacing the store gave the entry since (the entry below it).
                text = event.text.rstrip() + _trailing(now.text)
                event = msgspec.structs.replace(event, text=text)
        replayed.append(event)
    return replayed


#: "Most entries gone at once": at least this many, and more than half of the live ones.
MOST_GONE_MIN = 3


def looks_broken(before: FileState | str, raw: bytes, edit: Sequence[Event] = ()) -> str | None:
    """Why ``raw``, proposed as the new whole text of a file that was ``before`` (a memory
    file's state, or the text Orbital wrote), looks broken rather than meant; None when it
    looks meant. ``edit``: the events ``raw`` decides to against ``before`` (empty when it
    could not be decided, e.g. undecodable).

    Broken is: bytes that are not UTF-8; a text cut mid-line (the file Orbital wrote ends with
    a newline, this one does not); a strict prefix of what was written that cuts into an entry;
    most live entries removed at once (at least :data:`MOST_GONE_MIN`, and more than half).
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
    if isinstance(before, FileState):
        live = len(before.live_ids())
        gone = len({e.entry_id for e in edit if isinstance(e, EntryRetired)})
        if gone >= MOST_GONE_MIN and gone * 2 > live:
            return f"removes {gone} of {live} entries at once"
    return None
