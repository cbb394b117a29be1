"""Durable-entry events for DECISIONS, LESSONS, PROJECT_STATE and INDEX.

Streams: every event here goes to ``entry:<entry_id>``. Entry ids are unique across the whole
project (DECISIONS/LESSONS slugs and PROJECT_STATE 6-hex ids share one namespace), so the
stream name alone identifies the entry; ``EntryCreated.file`` says which memory file
(``decisions``, ``lessons``, ``state``) the entry belongs to and later events inherit it.

Where an entry sits in its file is *not* recorded here: the file's layout (an ordered list of
slots, each an entry id or a run of verbatim text) is a file-level fact, ``FileLayoutSet`` on
stream ``file:<KEY>`` (see :mod:`orbital.events.files`). An archived entry keeps its slot and
the slot renders as the entry's pointer line, so ``EntryRestored`` puts it back exactly where
it was.

``text`` is the entry's markdown without Orbital's id comment, so history shows exactly what
was written. ``meta`` holds the comment fields other than id/created/touched in writer order
(DECISIONS/LESSONS: ``tag``; PROJECT_STATE: legacy keys such as ``from``/``evidence``/
``resolved``).
"""

from __future__ import annotations

import datetime as dt

import msgspec

from orbital.events._base import Event


class EntryCreated(Event, frozen=True, tag="entry.created"):
    file: str
    entry_id: str
    text: str
    created: dt.date
    touched: dt.date
    meta: dict[str, str] = msgspec.field(default_factory=dict)


class EntryRevised(Event, frozen=True, tag="entry.revised"):
    """New text. ``touched`` is set when the body changed; ``None`` for a whitespace-only,
    renumbering or tag-toggle change that must not look like fresh work."""

    entry_id: str
    text: str
    touched: dt.date | None = None


class EntryRetitled(Event, frozen=True, tag="entry.retitled"):
    """Only the title line changed (DECISIONS/LESSONS); ``touched`` is kept."""

    entry_id: str
    text: str


class EntryTouched(Event, frozen=True, tag="entry.touched"):
    """New dates without new text (a writer-set ``touched``/``created`` on PROJECT_STATE)."""

    entry_id: str
    touched: dt.date
    created: dt.date | None = None


class EntryMetaSet(Event, frozen=True, tag="entry.meta_set"):
    """Replaces the entry's extra comment fields (all but id/created/touched)."""

    entry_id: str
    meta: dict[str, str] = msgspec.field(default_factory=dict)


class EntryPinned(Event, frozen=True, tag="entry.pinned"):
    """``tag:pinned``: protected from demotion, archiving and merging."""

    entry_id: str


class EntryUnpinned(Event, frozen=True, tag="entry.unpinned"):
    entry_id: str


class EntryArchived(Event, frozen=True, tag="entry.archived"):
    """Demoted to the file's archive; its slot in the live file renders as ``pointer``."""

    entry_id: str
    pointer: str
    date: dt.date


class EntryPointerDropped(Event, frozen=True, tag="entry.pointer_dropped"):
    """An archived entry's pointer aged out of PROJECT_STATE; the entry stays archived."""

    entry_id: str
    date: dt.date


class EntryPointerSet(Event, frozen=True, tag="entry.pointer_set"):
    """An archived entry's pointer line rewritten: the group it stands for lost a member that
    came back (the line names the rest), or it became the group's pointer ("" shows nothing)."""

    entry_id: str
    pointer: str


class EntryRestored(Event, frozen=True, tag="entry.restored"):
    """Back in the live file, in its old slot (or at the end if the slot was removed)."""

    entry_id: str
    date: dt.date


class EntryMerged(Event, frozen=True, tag="entry.merged"):
    """Folded into entry ``into``; the slot renders as ``pointer`` (empty: nothing)."""

    entry_id: str
    into: str
    date: dt.date
    pointer: str = ""


class EntryRetired(Event, frozen=True, tag="entry.retired"):
    """The writer removed or overwrote the entry: kept in history, gone from the live file."""

    entry_id: str
    date: dt.date


ENTRY_EVENTS: tuple[type[Event], ...] = (
    EntryCreated,
    EntryRevised,
    EntryRetitled,
    EntryTouched,
    EntryMetaSet,
    EntryPinned,
    EntryUnpinned,
    EntryArchived,
    EntryPointerDropped,
    EntryPointerSet,
    EntryRestored,
    EntryMerged,
    EntryRetired,
)
