"""The revert decider: the events that bring the memory files back to how they stood at an
earlier place in the log, appended after today's, so nothing is rewritten.

Given each file's state then (``target``) and now, every entry is brought back to its text,
dates, comment fields, status, pointer and trust of then; an entry made since is retired
(history keeps it); the archive gets its order of then and the file its layout. The result
folds to the files of then (their live text and archive byte for byte, and every entry's
trust state), and is itself revertible the same way. A revert that changes nothing is
refused with the reason.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from orbital.errors import Refused
from orbital.events._base import Actor, Event
from orbital.events.entries import (
    EntryArchived,
    EntryMerged,
    EntryMetaSet,
    EntryPointerDropped,
    EntryPointerSet,
    EntryRestored,
    EntryRetired,
    EntryRevised,
    EntryTouched,
)
from orbital.events.files import FileLayoutSet, FileStoredRaw, Slot
from orbital.events.trust import (
    EntryDisputed,
    EntryReaffirmed,
    EntryRestates,
    EntryRetracted,
    EntrySuperseded,
)
from orbital.grammar.model import Entry, FileState, Trust


def _demoted(then: Entry, today: dt.date) -> list[Event]:
    """Out of the live file as ``then`` was: archived or merged with its pointer and day."""
    day = then.archived_on or today
    if then.status == "merged":
        merged = EntryMerged(
            entry_id=then.entry_id, into=then.merged_into, date=day, pointer=then.pointer
        )
        return [merged]
    return [EntryArchived(entry_id=then.entry_id, pointer=then.pointer, date=day)]


def _status_back(now: Entry, then: Entry, today: dt.date) -> list[Event]:
    same_place = (now.status, now.pointer, now.archived_on, now.merged_into) == (
        then.status,
        then.pointer,
        then.archived_on,
        then.merged_into,
    )
    events: list[Event] = []
    if then.status == "live":
        if now.status != "live":
            events.append(EntryRestored(entry_id=then.entry_id, date=today))
    elif then.status == "retired":
        if now.status != "retired":
            events.append(EntryRetired(entry_id=then.entry_id, date=today))
    elif not same_place:
        if now.status in ("archived", "merged") and now.status == then.status:
            if (now.archived_on, now.merged_into) == (then.archived_on, then.merged_into):
                events.append(EntryPointerSet(entry_id=then.entry_id, pointer=then.pointer))
            else:
                events += _demoted(then, today)
        else:
            events += _demoted(then, today)
    return events


def _trust_back(now: Trust, then: Trust, entry_id: str, today: dt.date) -> list[Event]:
    if now == then:
        return []
    day = then.on or today
    events: list[Event] = []
    if (now.state, now.reason, now.by, now.since) != (then.state, then.reason, then.by, then.since):
        events.append(EntryReaffirmed(entry_id=entry_id, date=day, reason=then.reason))
        if then.state == "disputed":
            events.append(EntryDisputed(entry_id=entry_id, reason=then.reason, date=day))
        elif then.state == "retracted":
            events.append(EntryRetracted(entry_id=entry_id, date=day, reason=then.reason))
        elif then.state == "superseded":
            events.append(
                EntrySuperseded(entry_id=entry_id, by=then.by, date=day, since=then.since)
            )
    if now.restates != then.restates:
        events.append(EntryRestates(entry_id=entry_id, restates=then.restates, date=today))
    return events


def _entry_back(now: Entry, then: Entry, today: dt.date) -> list[Event]:
    """The events that make ``now`` what it was (``then``)."""
    eid = then.entry_id
    events: list[Event] = []
    if now.text != then.text:
        events.append(EntryRevised(entry_id=eid, text=then.text, touched=then.touched))
    if (now.touched, now.created) != (then.touched, then.created):
        events.append(EntryTouched(entry_id=eid, touched=then.touched, created=then.created))
    if dict(now.meta) != dict(then.meta):
        events.append(EntryMetaSet(entry_id=eid, meta=dict(then.meta)))
    status = _status_back(now, then, today)
    shown_again = any(isinstance(e, EntryArchived) for e in status)
    demoted = then.status in ("archived", "merged")
    if now.pointer_dropped and not then.pointer_dropped and demoted and not shown_again:
        status = [EntryRestored(entry_id=eid, date=today), *_demoted(then, today)]
    events += status
    if then.pointer_dropped and (not now.pointer_dropped or status):
        events.append(EntryPointerDropped(entry_id=eid, date=then.archived_on or today))
    return events + _trust_back(now.trust, then.trust, eid, today)


def _placed(now: FileState, events: list[Event]) -> tuple[list[str], tuple[Slot, ...]]:
    """The archive's order and the layout after ``events`` (the entry fold's rules for
    them, without folding every entry: a runaway write's revert is tens of thousands)."""
    archive, layout = list(now.archive), now.layout
    slotted = {s.entry for s in layout if s.entry}
    for event in events:
        if isinstance(event, EntryArchived | EntryMerged | EntryRestored):
            if event.entry_id in archive:
                archive.remove(event.entry_id)
            if not isinstance(event, EntryRestored):
                archive.append(event.entry_id)
            elif event.entry_id not in slotted:
                layout += (Slot(entry=event.entry_id),)
                slotted.add(event.entry_id)
    return archive, layout


def _file_back(then: FileState, now: FileState, today: dt.date) -> list[Event]:
    events: list[Event] = []
    for eid, entry in now.entries.items():
        before = then.entries.get(eid)
        if before is not None:
            events += _entry_back(entry, before, today)
        elif entry.status != "retired":  # made since: out of the file and its archive
            if entry.status != "live":
                events.append(EntryRestored(entry_id=eid, date=today))
            events.append(EntryRetired(entry_id=eid, date=today))
    archive, layout = _placed(now, events)
    if tuple(archive) != then.archive:
        same = 0
        while same < min(len(archive), len(then.archive)):
            if archive[same] != then.archive[same]:
                break
            same += 1
        for eid in then.archive[same:]:  # each demoted again, in the order of then
            entry = then.entries[eid]
            events += _demoted(entry, today)
            if entry.status == "retired":
                events.append(EntryRetired(entry_id=eid, date=today))
            if entry.pointer_dropped:
                events.append(EntryPointerDropped(entry_id=eid, date=entry.archived_on or today))
    if then.raw is not None:
        if now.raw != then.raw:
            events.append(FileStoredRaw(file=then.key, text=then.raw))
    elif now.raw is not None or layout != then.layout:
        events.append(FileLayoutSet(file=then.key, slots=then.layout))
    return events


def decide_revert(
    target: Mapping[str, FileState],
    now: Mapping[str, FileState],
    today: dt.date,
    shown: str,
    actor: Actor,
) -> list[Event]:
    """The compensating events that bring each memory file from ``now`` back to ``target``
    (``shown``: the target as the person named it, for the refusal). The person's alone:
    an agent takes back what it wrote by writing again."""
    if actor != Actor.USER:
        raise Refused(
            f"only the person can revert the memory files ({actor} asked to revert to "
            f"{shown}): the person runs `orbital revert {shown} --as-user` with their "
            "Workbench token"
        )
    events: list[Event] = []
    for key, state in now.items():
        events += _file_back(target.get(key, FileState(key=key)), state, today)
    if not events:
        raise Refused(f"the memory files already stand as they did at {shown}: nothing to revert")
    return events
