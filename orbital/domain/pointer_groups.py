"""Archive pointers that stand for entries, alone or in groups (pure).

A pointer naming one entry costs about as much as a one-line lesson, so moving short entries
one by one never shrinks a file. They move in groups instead: the group's first entry by
position (its *head*) carries one short line (the count, the first titles, the archive) with
every id in its trailing id comment, which budgets leave out, so a line costs the same whether
it names two ids or ten. The others show nothing and their slots sit right after the head's,
so a member brought back reappears beside the line that named it. When members come back the
line is rewritten to name the rest; when the head comes back the next member still archived
carries it. So the rest always stay findable.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence

from orbital.catalogue import ARCHIVE_FILES, DISPLAY
from orbital.events._base import Event
from orbital.events.entries import EntryPointerSet
from orbital.events.files import Slot
from orbital.grammar.durable import parse_title_line, strip_marker
from orbital.grammar.model import Entry, FileState
from orbital.grammar.pointers import (
    group_pointer_line,
    pointer_date,
    pointer_ids,
    pointer_line,
    pointer_summary,
)
from orbital.grammar.state_blocks import parse_blocks

#: At most this many entries under one pointer line. The visible line costs the same for any
#: size (ids are in the comment), so bigger groups leave more room for live entries: 300
#: one-line lessons keep 83 live at 20 (72 at 10, 84 at 25); 20 keeps the comment a line.
GROUP_SIZE = 20


def entry_summary(entry: Entry, key: str) -> str:
    """The default pointer text of an entry: its title (DECISIONS/LESSONS, up to 80 chars) or
    its sentence (PROJECT_STATE, up to 60)."""
    if key == "state":
        blocks = parse_blocks(entry.text)
        return pointer_summary(blocks[0].text if blocks else entry.text)
    first = entry.text.partition("\n")[0]
    return pointer_summary(strip_marker(parse_title_line(first)[0], key), 80)


def group_pointer(state: FileState, day: dt.date, ids: Sequence[str]) -> str:
    """The line for archived ``ids`` (in position order): one entry's own summary, or the
    count and the titles of a group (``10 LESSONS entries: a; b; …``) with the ids in a comment
    that budgets leave out (``group_pointer_line``)."""
    summaries = [entry_summary(state.entries[i], state.key) for i in ids]
    if len(ids) == 1:
        return pointer_line(day, ids, summaries[0], ARCHIVE_FILES[state.key])
    titles = "; ".join(summaries)
    summary = pointer_summary(f"{len(ids)} {DISPLAY[state.key]} entries: {titles}", 80)
    return group_pointer_line(day, ids, summary, ARCHIVE_FILES[state.key])


def is_member(state: FileState, entry_id: str) -> bool:
    """An archived entry shown by another entry's line (a group member, not its head)."""
    entry = state.entries.get(entry_id)
    return entry is not None and entry.status == "archived" and not entry.pointer


def group_head(state: FileState, entry_id: str) -> str | None:
    """The archived entry whose line names ``entry_id`` with others (itself when it heads a
    group); None when ``entry_id`` is in no group."""
    for entry in state.entries.values():
        if entry.status != "archived" or not entry.pointer or entry.pointer_dropped:
            continue
        ids = pointer_ids(entry.pointer)
        if entry_id in ids and len(ids) > 1:
            return entry.entry_id
    return None


def regroup_after_restore(
    state: FileState, restored: Collection[str], layout: Sequence[Slot]
) -> tuple[list[Event], tuple[Slot, ...]]:
    """Events that keep the rest of each group findable when ``restored`` come back (decided
    on ``state`` before the restore), and ``layout`` with a slot for each new head (right
    after the old head's when it had none)."""
    heads = sorted({h for i in restored if (h := group_head(state, i)) is not None})
    events: list[Event] = []
    slots = list(layout)
    for head in heads:
        line = state.entries[head].pointer
        rest = [
            i for i in pointer_ids(line) if i not in restored and (i == head or is_member(state, i))
        ]
        if not rest:
            continue
        day = pointer_date(line) or state.entries[head].archived_on or dt.date.min
        pointer = group_pointer(state, day, rest)
        carrier = rest[0]
        if carrier != head and all(s.entry != carrier for s in slots):
            at = next((n + 1 for n, s in enumerate(slots) if s.entry == head), len(slots))
            slots.insert(at, Slot(entry=carrier))
        if pointer != state.entries[carrier].pointer:
            events.append(EntryPointerSet(entry_id=carrier, pointer=pointer))
    return events, tuple(slots)
