"""Whole-file proposals decided against the version they were based on.

A writer (``PUT …/files/X``, ``orbital write``, "Keep mine", a hand edit) proposes a full text
of a memory file it read at some version: the position of the last event that changed the file
then, which ``GET …/files/X`` returns as its ETag. The proposal is decided against that version
and replayed on today's state (:func:`orbital.domain.hand_edits.replay_edit`), so what others
wrote since is never retired or reverted by it; what both changed is reported as clashes for
the caller to refuse or keep aside. Without a version, a hand edit is decided against the
written version it most resembles, and a writer's proposal against today's state, retiring
only the entries it names: what it leaves out may be what it never saw.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

import msgspec

from orbital.catalogue import MEMORY_FILES
from orbital.domain.asks_legacy import decide_legacy_flags, extract_legacy_flags
from orbital.domain.entries import fold_file
from orbital.domain.file_write import decide_file_write
from orbital.domain.growth import check_added
from orbital.domain.hand_edits import replay_edit
from orbital.domain.merge import closest, merge_layout
from orbital.domain.writes import Decision
from orbital.events import Actor, Event
from orbital.events.entries import EntryCreated, EntryRetired, EntryRevised
from orbital.events.files import FileLayoutSet, Slot
from orbital.grammar.model import FileState, ParsedEntry
from orbital.grammar.parse import parse_proposed
from orbital.service._as_of import check_base
from orbital.service._memory_state import MERGE_BASES
from projections.files import render_memory_file

if TYPE_CHECKING:
    from orbital.service._unit import Unit


def decide_memory_write(
    u: Unit, key: str, state: FileState, text: str, actor: Actor | None = None
) -> Decision:
    """The events for a proposed text of ``key`` against ``state``; ``[user]`` lines of
    PROJECT_STATE first become asks, appended in this unit as ``actor`` (default: the
    unit's)."""
    return _decided(u, state, move_legacy_flags(u, key, text, actor))


def _decided(u: Unit, state: FileState, text: str) -> Decision:
    """A text of ``state``'s file decided, refused when it adds more than one write may
    (:func:`check_added`): every memory write, whatever its path, is decided here."""
    decision = decide_file_write(state, text, u.today, mint=u.mint, ever_used=u.ever_used())
    check_added(state, decision.events, u.units.count)
    return decision


def move_legacy_flags(u: Unit, key: str, text: str, actor: Actor | None = None) -> str:
    """``text`` without its ``[user]`` lines, which become asks (PROJECT_STATE only)."""
    if key == "state":
        remaining, flags = extract_legacy_flags(text)
        if flags:
            moved = decide_legacy_flags(flags, u.asks.asks, u.today, u.mint)
            u.append(moved.events, actor=actor)
            u.warnings += moved.warnings
            return remaining
    return text


class Proposal(msgspec.Struct, frozen=True):
    """What a proposal does to today's state: events, the writer's warnings, the version it
    was decided against, and the entries both it and the store changed (left out)."""

    events: tuple[Event, ...]
    warnings: tuple[str, ...]
    base: int
    clashes: tuple[str, ...] = ()
    #: Entries a proposal without a base left out and did not name: kept, since the writer
    #: may never have seen them.
    kept_back: tuple[str, ...] = ()


def _adds_only(state: FileState, events: tuple[Event, ...]) -> bool:
    """Whether a decision against today's state only adds entries (and the blank line an
    entry above an added one gets): then no older base could mean anything else."""
    for event in events:
        if isinstance(event, EntryRevised) and event.touched is None:
            entry = state.entries.get(event.entry_id)
            if entry is not None and entry.text.rstrip() == event.text.rstrip():
                continue
        if not isinstance(event, EntryCreated | FileLayoutSet):
            return False
    return True


def likeliest_base(u: Unit, key: str, text: str) -> int:
    """The version of ``key`` (a position) that a hand edit's ``text`` most resembles among
    the newest written ones and today's (:func:`closest`)."""
    now = u.memory.changed_at[key]
    written = u.w.written_versions(u.pid, MEMORY_FILES[key]).values()
    positions = [now, *sorted({p for p in written if p < now}, reverse=True)][:MERGE_BASES]
    texts = [render_memory_file(state_at(u, key, p)) for p in positions]
    return positions[closest(text, texts)]


def state_at(u: Unit, key: str, position: int) -> FileState:
    """File ``key`` as of ``position`` (today's state from the unit when nothing changed)."""
    if position >= u.memory.changed_at[key]:
        return u.memory.files[key]
    return u.units.memory.file_at(u.w, u.pid, key, position)


def decide_proposal(
    u: Unit,
    key: str,
    text: str,
    *,
    base: int | None = None,
    actor: Actor | None = None,
    prefer_edit: bool = False,
    remove: AbstractSet[str] = frozenset(),
) -> Proposal:
    """The events ``text`` means for today's state of ``key``, decided against ``base`` (a
    position) and replayed on today's state. Without a base, a hand edit is decided against
    the written version it most resembles, and a writer's proposal against today's state,
    retiring only the entries it names (:func:`_named_only`). ``prefer_edit``: where
    both changed an entry, the proposal's side is applied ("Keep mine"). Entries named in
    ``remove`` and left out of ``text`` are retired whatever the base."""
    if base is not None:
        check_base(u.w, u.pid, base)
    text = move_legacy_flags(u, key, text, actor)
    current = u.memory.files[key]
    now = u.memory.changed_at[key]

    def decide(state: FileState) -> Decision:
        return _decided(u, state, text)

    if base is None:
        today = decide(current)
        if _adds_only(current, today.events):
            return Proposal(today.events, today.warnings, now)
        if not prefer_edit and (actor or u.actor) is not Actor.FILE:
            return _named_only(u, key, text, today, remove)
        base = likeliest_base(u, key, text)  # a person's edit on disk
        if base >= now:
            return Proposal(today.events, today.warnings, now)
    elif base >= now:
        today = decide(current)
        return Proposal(today.events, today.warnings, now)
    start = state_at(u, key, base)
    decision = decide(start)
    replay = replay_edit(start, current, decision.events, prefer_edit=prefer_edit)
    events = list(replay.events)
    after = fold_file(key, events, current)
    named = [i for i in after.live_ids() if i in remove and i not in _mentioned(decision)]
    events += [EntryRetired(entry_id=i, date=u.today) for i in named]
    return Proposal(tuple(events), decision.warnings, base, replay.clashes)


def _commented(state: FileState, text: str) -> set[str]:
    """Ids of the ``<!--mem id:…-->`` comments in a proposed text."""
    doc = parse_proposed(state, text)
    return {p.fields["id"] for p in doc.pieces if isinstance(p, ParsedEntry) and "id" in p.fields}


def _named_only(
    u: Unit, key: str, text: str, today: Decision, remove: AbstractSet[str]
) -> Proposal:
    """A writer's proposal without a base, decided against today's state, less the retiring
    of entries it did not name: with no version to say what the writer read, an entry left out
    may be one it never saw (written meanwhile), so it stays (where it was) and is named.
    Named are the entries in ``remove`` and those whose id comment the text sends back on
    new text (a reworded PROJECT_STATE line gets a new id)."""
    current, now = u.memory.files[key], u.memory.changed_at[key]
    left_out = {e.entry_id for e in today.events if isinstance(e, EntryRetired)}
    named = set(remove) | _commented(current, text)
    kept = tuple(i for i in current.live_ids() if i in left_out and i not in named)
    if not kept:
        return Proposal(today.events, today.warnings, now)
    # The proposal's order applied to today's, from today's less what it kept: each kept
    # entry stays where it was.
    without = tuple(slot for slot in current.layout if slot.entry not in kept)
    events: list[Event] = []
    for event in today.events:
        if isinstance(event, EntryRetired) and event.entry_id in kept:
            continue
        if isinstance(event, FileLayoutSet):
            slots = _spaced_before(
                merge_layout(without, current.layout, event.slots), current, kept
            )
            if slots == current.layout:
                continue
            event = FileLayoutSet(file=key, slots=slots)
        events.append(event)
    return Proposal(tuple(events), today.warnings, now, kept_back=kept)


def _spaced_before(
    slots: tuple[Slot, ...], current: FileState, kept: tuple[str, ...]
) -> tuple[Slot, ...]:
    """``slots`` where an entry followed by a ``kept`` one keeps today's spacing (the
    proposal may end the file there, with no blank line before the next entry)."""
    today = {slot.entry: slot for slot in current.layout if slot.entry}
    return tuple(
        today.get(slot.entry, slot) if i + 1 < len(slots) and slots[i + 1].entry in kept else slot
        for i, slot in enumerate(slots)
    )


def _mentioned(decision: Decision) -> set[str]:
    """Entries a decision keeps in the file (their slots in its layout)."""
    return {
        slot.entry
        for event in decision.events
        if isinstance(event, FileLayoutSet)
        for slot in event.slots
        if slot.entry
    }
