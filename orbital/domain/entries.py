"""The fold: the state of a memory file from its entry and file events.

Pure and total: an event for another file, or for an entry this file never created, leaves the
state as it is, so the shell can feed every entry/file event of a project in log order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from msgspec.structs import replace

from orbital.catalogue import entry_stream, file_stream
from orbital.domain.trust_fold import fold_trust
from orbital.events._base import Event
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
        return replace(entry, trust=fold_trust(entry.trust, event))
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


def fold(state: FileState, event: Event) -> FileState:
    """``state`` after ``event``."""
    if isinstance(event, EntryCreated):
        if event.file != state.key:
            return state
        entry = Entry(
            entry_id=event.entry_id,
            file=event.file,
            text=event.text,
            created=event.created,
            touched=event.touched,
            meta=dict(event.meta),
        )
        return replace(state, entries={**state.entries, entry.entry_id: entry})
    if isinstance(event, FileLayoutSet):
        if event.file != state.key:
            return state
        return replace(state, layout=tuple(event.slots), raw=None)
    if isinstance(event, FileStoredRaw):
        if event.file != state.key:
            return state
        return replace(state, layout=(), raw=event.text)
    entry_id = getattr(event, "entry_id", None)
    if not isinstance(entry_id, str) or entry_id not in state.entries:
        return state
    entry = _entry_change(state.entries[entry_id], event)
    entries = {**state.entries, entry_id: entry}
    archive, layout = state.archive, state.layout
    if isinstance(event, EntryArchived | EntryMerged | EntryRestored):
        archive = tuple(i for i in archive if i != entry_id)
    if isinstance(event, EntryArchived | EntryMerged):
        archive += (entry_id,)
    if isinstance(event, EntryRestored) and all(s.entry != entry_id for s in layout):
        layout += (Slot(entry=entry_id),)
    return replace(state, entries=entries, archive=archive, layout=layout)


def fold_file(key: str, events: Iterable[Event], state: FileState | None = None) -> FileState:
    """The state of file ``key`` after ``events`` (in log order), from empty or ``state``."""
    current = state if state is not None else FileState(key=key)
    for event in events:
        current = fold(current, event)
    return current


def stream_for(event: Event) -> str:
    """The stream an entry or file event is appended to: ``entry:<id>`` or ``file:<KEY>``."""
    entry_id = getattr(event, "entry_id", None)
    if isinstance(entry_id, str):
        return entry_stream(entry_id)
    file_key = getattr(event, "file", None)
    if isinstance(file_key, str):
        return file_stream(file_key)
    raise ValueError(f"{type(event).__name__} is not an entry or file event")
