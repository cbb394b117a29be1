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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import merge3
import msgspec

from orbital.events import Event
from orbital.events.entries import EntryRetitled, EntryRevised
from orbital.events.files import FileLayoutSet, FileStoredRaw, Slot
from orbital.grammar.model import Entry, FileState


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
