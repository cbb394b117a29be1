"""Durable-entry events for DECISIONS, LESSONS, PROJECT_STATE and INDEX (stream ``entry:<id>``).

``file`` is the memory file key (``decisions``, ``lessons``, ``state``, ``index``). Entry text
is the entry's markdown without Orbital's id comment, so a person reading history sees exactly
what was written.
"""

from __future__ import annotations

import datetime as dt

from orbital.events._base import Event


class EntryCreated(Event, frozen=True, tag="entry.created"):
    file: str
    entry_id: str
    text: str
    created: dt.date
    touched: dt.date
    #: Id of the entry this one is placed after in the file ("" = at the top).
    after: str = ""
    tag: str = ""


class EntryRevised(Event, frozen=True, tag="entry.revised"):
    entry_id: str
    text: str
    touched: dt.date


class EntryRetitled(Event, frozen=True, tag="entry.retitled"):
    entry_id: str
    text: str
    touched: dt.date


class EntryTouched(Event, frozen=True, tag="entry.touched"):
    entry_id: str
    touched: dt.date


class EntryPinned(Event, frozen=True, tag="entry.pinned"):
    entry_id: str


class EntryUnpinned(Event, frozen=True, tag="entry.unpinned"):
    entry_id: str


class EntryArchived(Event, frozen=True, tag="entry.archived"):
    entry_id: str
    pointer: str
    date: dt.date


class EntryRestored(Event, frozen=True, tag="entry.restored"):
    entry_id: str
    date: dt.date


class EntryMerged(Event, frozen=True, tag="entry.merged"):
    entry_id: str
    into: str
    date: dt.date


class EntryRetired(Event, frozen=True, tag="entry.retired"):
    """A PROJECT_STATE line the agent overwrote: kept in history, gone from the live file."""

    entry_id: str
    date: dt.date


ENTRY_EVENTS: tuple[type[Event], ...] = (
    EntryCreated,
    EntryRevised,
    EntryRetitled,
    EntryTouched,
    EntryPinned,
    EntryUnpinned,
    EntryArchived,
    EntryRestored,
    EntryMerged,
    EntryRetired,
)
