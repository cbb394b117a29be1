"""The person's actions on one durable entry (Workbench, CLI): pin, unpin, restore.

Restore brings back an archived entry or one a write retired (removed from its file), to the
end of its file when its old place is gone; a merged entry lives on in the entry it was merged
into.

Pure deciders: ``(files, entry id, action, today) -> events``; an empty list means the entry is
already in the asked-for state (a no-op, like closing a closed ask).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Literal

from orbital.domain.entries import fold_file
from orbital.domain.pointer_groups import regroup_after_restore
from orbital.errors import Refused, UnknownEntry
from orbital.events import Event
from orbital.events.entries import EntryPinned, EntryRestored, EntryUnpinned
from orbital.events.files import FileLayoutSet
from orbital.grammar.model import Entry, FileState

EntryAction = Literal["pin", "unpin", "restore"]


def find_entry(files: Mapping[str, FileState], entry_id: str) -> Entry:
    for state in files.values():
        entry = state.entries.get(entry_id)
        if entry is not None:
            return entry
    raise UnknownEntry(entry_id)


def restore_events(state: FileState, entry_id: str, today: dt.date) -> list[Event]:
    """The entry back in its slot; a group it was archived with keeps a line naming the rest."""
    restored: list[Event] = [EntryRestored(entry_id=entry_id, date=today)]
    after = fold_file(state.key, restored, state)
    regroup, layout = regroup_after_restore(state, {entry_id}, after.layout)
    if layout != after.layout:
        regroup.append(FileLayoutSet(file=state.key, slots=layout))
    return restored + regroup


def decide_entry_action(
    files: Mapping[str, FileState], entry_id: str, action: EntryAction, today: dt.date
) -> list[Event]:
    """Events for ``action`` on ``entry_id``; refuses what the rules forbid."""
    entry = find_entry(files, entry_id)
    if action == "restore":
        if entry.status == "live":
            return []
        if entry.status == "archived" and entry.trust.state in ("superseded", "retracted"):
            raise Refused(
                f"entry {entry_id!r} is {entry.trust.state}: reaffirm it to bring it back "
                "(restore is for an entry the backstop or the editor moved out)"
            )
        if entry.status not in ("archived", "retired"):
            raise Refused(
                f"entry {entry_id!r} is {entry.status}, not archived or retired: it lives on in "
                f"{entry.merged_into or 'the entry it was merged into'} (its history keeps "
                "every earlier text)"
            )
        return restore_events(files[entry.file], entry_id, today)
    if entry.status != "live":
        raise Refused(
            f"entry {entry_id!r} is {entry.status}: restore it before pinning or unpinning"
        )
    if action == "pin":
        return [] if entry.pinned else [EntryPinned(entry_id=entry_id)]
    return [EntryUnpinned(entry_id=entry_id)] if entry.pinned else []
