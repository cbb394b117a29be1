"""The fold: the state of a memory file from its entry and file events.

Pure and total: an event for another file, or for an entry this file never created, leaves the
state as it is, so the shell can feed every entry/file event of a project in log order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from msgspec.structs import replace

from orbital.catalogue import entry_stream, file_stream
from orbital.domain.citations_fold import fold_citations
from orbital.domain.trust_fold import fold_trust, settled
from orbital.events._base import Event
from orbital.events.citations import CITATION_EVENTS
from orbital.events.entries import (
    EntryArchived,
    EntryCreated,
    EntryMerged,
    EntryMetaSet,
    EntryPinned,
    EntryPointerDropped,
    EntryPointerSet,
    EntryRestored,
    EntryRetired,
    EntryRetitled,
    EntryRevised,
    EntryTouched,
    EntryUnpinned,
)
from orbital.events.files import FileLayoutSet, FileStoredRaw, Slot
from orbital.events.trust import TRUST_EVENTS
from orbital.grammar.model import Entry, FileState


def _without_tag(meta: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in meta.items() if k != "tag"}


def _entry_change(entry: Entry, event: Event) -> Entry:
    if isinstance(event, TRUST_EVENTS):
        trust = fold_trust(entry.trust, event)
        return replace(entry, trust=settled(trust, any(c.moved for c in entry.citations)))
    if isinstance(event, CITATION_EVENTS):
        citations = fold_citations(entry.citations, event)
        moved = any(c.moved for c in citations)
        return replace(entry, citations=citations, trust=settled(entry.trust, moved))
    match event:
        case EntryRevised(text=text, touched=touched):
            return replace(entry, text=text, touched=touched or entry.touched)
        case EntryRetitled(text=text):
            return replace(entry, text=text)
        case EntryTouched(touched=touched, created=created):
            return replace(entry, touched=touched, created=created or entry.created)
        case EntryMetaSet(meta=meta):
            return replace(entry, meta=dict(meta))
        case EntryPinned():
            return replace(entry, meta={**entry.meta, "tag": "pinned"})
        case EntryUnpinned():
            return replace(entry, meta=_without_tag(entry.meta))
        case EntryArchived(pointer=pointer, date=day):
            return replace(
                entry, status="archived", pointer=pointer, archived_on=day, pointer_dropped=False
            )
        case EntryPointerDropped():
            return replace(entry, pointer_dropped=True)
        case EntryPointerSet(pointer=pointer):
            return replace(entry, pointer=pointer)
        case EntryRestored():
            return replace(
                entry, status="live", pointer="", archived_on=None, pointer_dropped=False
            )
        case EntryMerged(pointer=pointer, date=day, into=into):
            return replace(
                entry, status="merged", pointer=pointer, archived_on=day, merged_into=into
            )
        case EntryRetired():
            return replace(entry, status="retired")
    return entry


class _Folding:
    """One file's state while events are folded in: its containers copied once and changed
    in place, so a fold of many events costs each event once (a write or a revert of tens
    of thousands of entries), and the position of the last event that changed it."""

    def __init__(self, state: FileState) -> None:
        self.state = state
        self.entries = dict(state.entries)
        self.layout, self.raw, self.archive = state.layout, state.raw, list(state.archive)
        self.slotted = {s.entry for s in state.layout if s.entry}
        self.archived = set(state.archive)
        self.changed_at = 0

    def add(self, event: Event, position: int) -> None:
        """Fold one event in; an event for another file, or for an entry this file never
        created, leaves the state as it is."""
        key = self.state.key
        if isinstance(event, EntryCreated):
            if event.file != key:
                return
            entry = Entry(
                entry_id=event.entry_id,
                file=event.file,
                text=event.text,
                created=event.created,
                touched=event.touched,
                meta=dict(event.meta),
            )
            changed = self.entries.get(entry.entry_id) != entry
            self.entries[entry.entry_id] = entry
        elif isinstance(event, FileLayoutSet | FileStoredRaw):
            if event.file != key:
                return
            layout, raw = (
                (tuple(event.slots), None) if isinstance(event, FileLayoutSet) else ((), event.text)
            )
            changed = (layout, raw) != (self.layout, self.raw)
            self.layout, self.raw = layout, raw
            self.slotted = {s.entry for s in layout if s.entry}
        else:
            changed = self._entry_event(event)
        if changed:
            self.changed_at = position

    def _entry_event(self, event: Event) -> bool:
        entry_id = getattr(event, "entry_id", None)
        if not isinstance(entry_id, str) or entry_id not in self.entries:
            return False
        before = self.entries[entry_id]
        entry = self.entries[entry_id] = _entry_change(before, event)
        changed = entry != before
        if isinstance(event, EntryArchived | EntryMerged):  # to the archive's end
            changed = changed or not self.archive or self.archive[-1] != entry_id
            if entry_id in self.archived:
                self.archive.remove(entry_id)
            self.archive.append(entry_id)
            self.archived.add(entry_id)
        elif isinstance(event, EntryRestored):  # out of the archive, into its slot
            if entry_id in self.archived:
                self.archive.remove(entry_id)
                self.archived.discard(entry_id)
                changed = True
            if entry_id not in self.slotted:
                self.layout += (Slot(entry=entry_id),)
                self.slotted.add(entry_id)
                changed = True
        return changed

    def result(self) -> FileState:
        if not self.changed_at:
            return self.state
        return replace(
            self.state,
            entries=self.entries,
            layout=self.layout,
            raw=self.raw,
            archive=tuple(self.archive),
        )


def fold_positions(
    key: str, events: Iterable[tuple[int, Event]], state: FileState | None = None
) -> tuple[FileState, int]:
    """The state of file ``key`` after ``events`` (position, event; in log order), from
    empty or ``state``, and the position of the last event that changed it (0: none did)."""
    folding = _Folding(state if state is not None else FileState(key=key))
    for position, event in events:
        folding.add(event, position)
    return folding.result(), folding.changed_at


def fold_file(key: str, events: Iterable[Event], state: FileState | None = None) -> FileState:
    """The state of file ``key`` after ``events`` (in log order), from empty or ``state``."""
    return fold_positions(key, ((1, event) for event in events), state)[0]


def fold(state: FileState, event: Event) -> FileState:
    """``state`` after ``event``."""
    return fold_file(state.key, [event], state)


def stream_for(event: Event) -> str:
    """The stream an entry or file event is appended to: ``entry:<id>`` or ``file:<KEY>``."""
    entry_id = getattr(event, "entry_id", None)
    if isinstance(entry_id, str):
        return entry_stream(entry_id)
    file_key = getattr(event, "file", None)
    if isinstance(file_key, str):
        return file_stream(file_key)
    raise ValueError(f"{type(event).__name__} is not an entry or file event")


def fold_entry(events: Iterable[Event]) -> Entry | None:
    """One entry from its own stream's events (``entry:<id>``, in order); None before its
    creation. The same change as the file fold's, for a reader of one entry (the search
    index)."""
    entry: Entry | None = None
    for event in events:
        if isinstance(event, EntryCreated):
            entry = Entry(
                entry_id=event.entry_id,
                file=event.file,
                text=event.text,
                created=event.created,
                touched=event.touched,
                meta=dict(event.meta),
            )
        elif entry is not None:
            entry = _entry_change(entry, event)
    return entry
