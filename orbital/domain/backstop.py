"""The session-end backstop (reference §7): a deterministic plan, no model, no I/O.

Only files over their (unscaled) soft budget are touched, each cut toward its consolidation
target. Every move is an ``EntryArchived`` whose slot keeps a pointer line, so ``EntryRestored``
brings the entry back byte-identical; nothing is deleted. The plan lives beside the renderer
because it measures rendered pieces and writes pointer lines.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, replace

from orbital.catalogue import ARCHIVE_FILES, FILE_BUDGETS
from orbital.domain.budgets import PROTECT_OLDEST, TokenCounter, consolidation_target
from orbital.domain.measure import piece_measures
from orbital.domain.views import trim_index_lines
from orbital.events._base import Event
from orbital.events.entries import EntryArchived, EntryPointerDropped
from orbital.events.files import FileLayoutSet, Slot
from orbital.grammar.durable import parse_title_line, strip_marker
from orbital.grammar.model import Entry, FileState
from orbital.grammar.pointers import (
    ensure_index_mentions,
    is_pointer_line,
    pointer_date,
    pointer_line,
    pointer_summary,
)
from orbital.grammar.render import render_body, render_pointer_slot
from orbital.grammar.state_blocks import parse_blocks

STATE_PROBATION_DAYS = 14


@dataclass(frozen=True)
class FilePlan:
    """Events for one file, and by how much it stays over its target (0 when it fits)."""

    events: tuple[Event, ...] = ()
    over_by: int = 0
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class BackstopPlan:
    events: tuple[Event, ...]
    over_by: Mapping[str, int]
    #: Log lines worth keeping (why a file stays over budget).
    notes: tuple[str, ...]


def entry_summary(entry: Entry, key: str) -> str:
    """The default pointer text of an entry: its title (DECISIONS/LESSONS, up to 80 chars) or
    its sentence (PROJECT_STATE, up to 60)."""
    if key == "state":
        blocks = parse_blocks(entry.text)
        return pointer_summary(blocks[0].text if blocks else entry.text)
    first = entry.text.partition("\n")[0]
    return pointer_summary(strip_marker(parse_title_line(first)[0], key), 80)


def demote_durable(
    state: FileState, today: dt.date, count: TokenCounter, target: float
) -> FilePlan:
    """DECISIONS/LESSONS: archive the coldest entries (``touched``, then position) until the
    file fits ``target``; the oldest 3 and pinned entries stay; a pointer longer than its entry
    is not worth a move."""
    live = state.live_ids()
    costs = piece_measures(state, count)
    measure = sum(costs)
    if len(live) < 2 or measure <= target:
        return FilePlan()
    slot_of = {s.entry: i for i, s in enumerate(state.layout) if s.entry}
    candidates = sorted(
        (state.entries[eid].touched, pos, eid)
        for pos, eid in enumerate(live)
        if pos >= PROTECT_OLDEST and not state.entries[eid].pinned
    )
    events: list[Event] = []
    for _, _, eid in candidates:
        if measure <= target:
            break
        entry = state.entries[eid]
        first, _, rest = entry.text.partition("\n")
        pointer = pointer_line(
            today, [eid], entry_summary(entry, state.key), ARCHIVE_FILES[state.key]
        )
        body = "\n".join(line for line in [first, *rest.splitlines()] if not is_pointer_line(line))
        if count(pointer) >= count(body.strip()):
            continue
        shown = render_pointer_slot(replace(entry, pointer=pointer), state.key)
        measure += count(shown) - costs[slot_of[eid]]
        events.append(EntryArchived(entry_id=eid, pointer=pointer, date=today))
    return FilePlan(tuple(events), max(0, int(measure - target)))


def floor_state(state: FileState, today: dt.date, count: TokenCounter, target: float) -> FilePlan:
    """PROJECT_STATE: archive stamped lines older than the 14-day probation (oldest first) and
    drop aged pointers, until the file fits ``target``; young lines, unstamped bullets and prose
    are never touched, so the file may stay over budget."""
    costs = piece_measures(state, count)
    measure = sum(costs)
    if measure <= target:
        return FilePlan()
    cutoff = today - dt.timedelta(days=STATE_PROBATION_DAYS)
    candidates: list[tuple[dt.date, int]] = []
    for i, slot in enumerate(state.layout):
        entry = state.entries.get(slot.entry) if slot.entry else None
        if entry is None:
            day = pointer_date(slot.text)
        elif entry.status == "live":
            day = entry.created
        elif entry.status == "archived" and not entry.pointer_dropped:
            day = entry.archived_on
        else:
            day = None
        if day is not None and day < cutoff:
            candidates.append((day, i))
    events: list[Event] = []
    dropped_text: set[int] = set()
    for _, i in sorted(candidates):
        if measure <= target:
            break
        slot = state.layout[i]
        entry = state.entries.get(slot.entry) if slot.entry else None
        if entry is None:
            dropped_text.add(i)
            measure -= costs[i]
        elif entry.status == "archived":
            events.append(EntryPointerDropped(entry_id=entry.entry_id, date=today))
            measure -= costs[i]
        else:
            summary = entry_summary(entry, "state")
            pointer = pointer_line(today, [entry.entry_id], summary, ARCHIVE_FILES["state"])
            if count(pointer) >= count(entry.text.rstrip("\n")):
                continue
            shown = render_pointer_slot(replace(entry, pointer=pointer), "state")
            measure += count(shown) - costs[i]
            events.append(EntryArchived(entry_id=entry.entry_id, pointer=pointer, date=today))
    if dropped_text:
        kept = tuple(s for i, s in enumerate(state.layout) if i not in dropped_text)
        events.append(FileLayoutSet(file="state", slots=kept))
    over_by = max(0, int(measure - target))
    notes: tuple[str, ...] = ()
    if over_by:
        notes = (
            f"PROJECT_STATE stays {over_by} tok over its target: every remaining line is younger "
            f"than {STATE_PROBATION_DAYS} days or not a bullet; leaving it (over budget beats "
            "losing current work)",
        )
    return FilePlan(tuple(events), over_by, notes)


def plan_index(index: FileState, count: TokenCounter, archives: list[str]) -> FilePlan:
    """INDEX: over soft, cut to its target keeping archive lines (history keeps the rest; no
    view note is written); then make sure each archive that received entries is listed."""
    body = render_body(index)
    new = body
    target = consolidation_target("index")
    if count(body) > FILE_BUDGETS["index"].soft:
        cut = trim_index_lines(body, target, count)
        if cut is not None and cut != body:
            new = cut + "\n"
    for name in archives:
        new = ensure_index_mentions(new, name)
    if new == body:
        return FilePlan()
    return FilePlan((FileLayoutSet(file="index", slots=(Slot(text=new),) if new else ()),))


def plan_backstop(
    files: Mapping[str, FileState], today: dt.date, count: TokenCounter
) -> BackstopPlan:
    """The backstop for every memory file given (keys ``state``, ``decisions``, ``lessons``,
    ``index``): events in append order, per-file ``over_by``, and notes for the log."""
    events: list[Event] = []
    over_by: dict[str, int] = {}
    notes: list[str] = []
    archives: list[str] = []
    for key in ("state", "decisions", "lessons"):
        state = files.get(key)
        if state is None or sum(piece_measures(state, count)) <= FILE_BUDGETS[key].soft:
            continue
        target = consolidation_target(key)
        if key == "state":
            plan = floor_state(state, today, count, target)
        else:
            plan = demote_durable(state, today, count, target)
        events.extend(plan.events)
        over_by[key] = plan.over_by
        notes.extend(plan.notes)
        if any(isinstance(e, EntryArchived) for e in plan.events):
            archives.append(ARCHIVE_FILES[key])
    index = files.get("index", FileState(key="index"))
    events.extend(plan_index(index, count, archives).events)
    return BackstopPlan(tuple(events), over_by, tuple(notes))
