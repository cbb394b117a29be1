"""The session-end backstop (reference §7): a deterministic plan, no model, no I/O.

Only files over their (unscaled) soft budget are touched, each cut toward its consolidation
target. Every move is an ``EntryArchived`` whose slot keeps a pointer line, so ``EntryRestored``
brings the entry back byte-identical; nothing is deleted. The plan lives beside the renderer
because it measures rendered pieces and writes pointer lines.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass

from msgspec.structs import replace

from orbital.catalogue import ARCHIVE_FILES, FILE_BUDGETS, MEMORY_FILES
from orbital.domain.budgets import PROTECT_OLDEST, TokenCounter, consolidation_target
from orbital.domain.entries import fold_file
from orbital.domain.line_trims import trim_index_lines
from orbital.domain.measure import measure_state, piece_measure, piece_measures
from orbital.domain.pointer_groups import GROUP_SIZE, group_pointer
from orbital.events._base import Event
from orbital.events.entries import EntryArchived, EntryPointerDropped
from orbital.events.files import FileLayoutSet, Slot
from orbital.grammar.model import FileState
from orbital.grammar.pointers import ensure_index_mentions, is_pointer_line, pointer_date
from orbital.grammar.render import render_body, render_pointer_slot

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


def demote_durable(
    state: FileState, today: dt.date, count: TokenCounter, target: float
) -> FilePlan:
    """DECISIONS/LESSONS: archive the coldest entries (``touched``, then position) until the
    file fits ``target``; the oldest 3 and pinned entries stay. An entry longer than its own
    pointer moves alone; shorter ones move in groups under one line (``pointer_groups``), a
    group kept only when its line costs less than its entries."""
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
    groups: list[list[str]] = []
    pending = _Group(state, today, count, costs, slot_of)
    for _, _, eid in candidates:
        if measure <= target:
            break
        entry = state.entries[eid]
        first, _, rest = entry.text.partition("\n")
        pointer = group_pointer(state, today, [eid])
        carried = any(is_pointer_line(line) for line in rest.splitlines())
        body = "\n".join(line for line in [first, *rest.splitlines()] if not is_pointer_line(line))
        if count(pointer) < count(body.strip()):
            shown = render_pointer_slot(replace(entry, pointer=pointer), state.key)
            measure += piece_measure(shown, state.key, count) - costs[slot_of[eid]]
            events.append(EntryArchived(entry_id=eid, pointer=pointer, date=today))
        elif not carried:  # an entry carrying pointer lines never joins a group
            measure += pending.add(eid)
            if len(pending.ids) == GROUP_SIZE:
                measure += pending.close(groups)
                pending = _Group(state, today, count, costs, slot_of)
    measure += pending.close(groups)
    for ids in groups:
        ordered = sorted(ids, key=slot_of.__getitem__)
        line = group_pointer(state, today, ordered)
        events.extend(
            EntryArchived(entry_id=eid, pointer=line if n == 0 else "", date=today)
            for n, eid in enumerate(ordered)
        )
    if groups:
        events.append(FileLayoutSet(file=state.key, slots=_members_after_heads(state, groups)))
    return FilePlan(tuple(events), max(0, int(measure - target)))


class _Group:
    """Short entries gathered under one pointer line, and what that changes in the measure."""

    def __init__(
        self,
        state: FileState,
        today: dt.date,
        count: TokenCounter,
        costs: list[float],
        slot_of: dict[str, int],
    ) -> None:
        self.state, self.today, self.count = state, today, count
        self.costs, self.slot_of = costs, slot_of
        self.ids: list[str] = []
        #: The measure change of moving the group (negative when it saves).
        self.delta = 0.0

    def add(self, eid: str) -> float:
        """Take ``eid`` in; returns by how much the measure changes."""
        self.ids.append(eid)
        ordered = sorted(self.ids, key=self.slot_of.__getitem__)
        head = self.state.entries[ordered[0]]
        line = group_pointer(self.state, self.today, ordered)
        slot = render_pointer_slot(replace(head, pointer=line), self.state.key)
        shown = piece_measure(slot, self.state.key, self.count)
        delta = shown - sum(self.costs[self.slot_of[i]] for i in self.ids)
        change, self.delta = delta - self.delta, delta
        return change

    def close(self, groups: list[list[str]]) -> float:
        """Keep the group when it shortens the file (one entry alone never: its own line did
        not pay); else undo its change of the measure, which is returned."""
        if len(self.ids) > 1 and self.delta < 0:
            groups.append(self.ids)
            return 0.0
        return -self.delta


def _members_after_heads(state: FileState, groups: list[list[str]]) -> tuple[Slot, ...]:
    """The layout with each group's member slots right after its head's."""
    members: dict[str, list[str]] = {}
    position = {s.entry: i for i, s in enumerate(state.layout) if s.entry}
    for ids in groups:
        head, *rest = sorted(ids, key=position.__getitem__)
        members[head] = rest
    moved = {i for rest in members.values() for i in rest}
    slot = {s.entry: s for s in state.layout if s.entry}
    out: list[Slot] = []
    for s in state.layout:
        if s.entry in moved:
            continue
        out.append(s)
        out.extend(slot[i] for i in members.get(s.entry, ()))
    return tuple(out)


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
            pointer = group_pointer(state, today, [entry.entry_id])
            if count(pointer) >= count(entry.text.rstrip("\n")):
                continue
            shown = render_pointer_slot(replace(entry, pointer=pointer), "state")
            measure += piece_measure(shown, "state", count) - costs[i]
            events.append(EntryArchived(entry_id=entry.entry_id, pointer=pointer, date=today))
    if dropped_text:
        kept = tuple(s for i, s in enumerate(state.layout) if i not in dropped_text)
        events.append(FileLayoutSet(file="state", slots=kept))
    return FilePlan(tuple(events), max(0, int(measure - target)))


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
    notes: tuple[str, ...] = ()
    soft = FILE_BUDGETS["index"].soft
    if (end := count(new)) > soft:
        kept = sum(1 for line in new.splitlines() if "_ARCHIVE.md" in line)
        notes = (
            f"INDEX.md stays over its soft budget: {int(end):,} of {soft:,} tok after "
            f"session-end; its {kept} lines naming an archive (_ARCHIVE.md) are never cut; "
            "leaving it (over budget beats losing the way to archived entries)",
        )
    if new == body:
        return FilePlan(notes=notes)
    slots = (Slot(text=new),) if new else ()
    return FilePlan((FileLayoutSet(file="index", slots=slots),), notes=notes)


def _parts(state: FileState, today: dt.date, count: TokenCounter) -> dict[str, list[float]]:
    """What a file's measure is made of, as the cost of each piece by kind: ``kept`` (the
    backstop never moves them: DECISIONS/LESSONS' oldest 3 and pinned entries, PROJECT_STATE
    lines inside the probation), ``movable`` live entries, ``pointers`` and other ``text``."""
    live = state.live_ids()
    cutoff = today - dt.timedelta(days=STATE_PROBATION_DAYS)
    parts: dict[str, list[float]] = {"kept": [], "movable": [], "pointers": [], "text": []}
    for slot, cost in zip(state.layout, piece_measures(state, count), strict=True):
        entry = state.entries.get(slot.entry) if slot.entry else None
        if entry is None:
            kind = "pointers" if is_pointer_line(slot.text) else "text"
        elif entry.status != "live":
            kind = "pointers"
        elif state.key == "state":
            kind = "kept" if entry.created >= cutoff else "movable"
        else:
            kept = live.index(entry.entry_id) < PROTECT_OLDEST or entry.pinned
            kind = "kept" if kept else "movable"
        if cost:
            parts[kind].append(cost)
    return parts


def budget_notes(
    before: FileState, after: FileState, today: dt.date, count: TokenCounter
) -> tuple[str, ...]:
    """What the backstop did to a file over its soft budget, with figures, and when the file
    stays over it, why (what it is made of)."""
    key = before.key
    name, soft, target = MEMORY_FILES[key], FILE_BUDGETS[key].soft, consolidation_target(key)
    start, end = measure_state(before, count), measure_state(after, count)
    notes: list[str] = []
    moved = [
        e.entry_id
        for e in after.entries.values()
        if e.status == "archived" and before.entries[e.entry_id].status == "live"
    ]
    if moved:
        lines = sum(1 for i in moved if after.entries[i].pointer)
        notes.append(
            f"{name}: {int(start):,} → {int(end):,} tok (soft {soft:,}, target {target:,}): "
            f"{len(moved)} entries archived to {ARCHIVE_FILES[key]} under {lines} pointer "
            f"line{'s' if lines != 1 else ''}"
        )
    if end <= soft:
        return tuple(notes)
    parts = {
        kind: (len(costs), int(sum(costs))) for kind, costs in _parts(after, today, count).items()
    }
    if key == "state":
        why = (
            f"{parts['kept'][0]} lines younger than {STATE_PROBATION_DAYS} days take "
            f"{parts['kept'][1]:,} tok"
        )
    else:
        why = (
            f"{parts['kept'][0]} protected entries (the oldest {PROTECT_OLDEST} and pinned) "
            f"take {parts['kept'][1]:,} tok"
        )
    why += (
        f", {parts['pointers'][0]} archive pointer lines {parts['pointers'][1]:,} tok, "
        f"text outside entries {parts['text'][1]:,} tok"
    )
    if parts["movable"][0]:
        why += (
            f", {parts['movable'][0]} more entries {parts['movable'][1]:,} tok that a pointer "
            "would not shorten"
        )
    notes.append(
        f"{name} stays over its soft budget: {int(end):,} of {soft:,} tok after session-end; "
        f"{why}; leaving it (over budget beats losing entries)"
    )
    return tuple(notes)


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
        notes.extend(budget_notes(state, fold_file(key, plan.events, state), today, count))
        if any(isinstance(e, EntryArchived) for e in plan.events):
            archives.append(ARCHIVE_FILES[key])
    index = plan_index(files.get("index", FileState(key="index")), count, archives)
    events.extend(index.events)
    notes.extend(index.notes)
    return BackstopPlan(tuple(events), over_by, tuple(notes))
