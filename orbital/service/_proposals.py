"""Whole-file proposals decided against the version they were based on.

A writer (``PUT …/files/X``, ``orbital write``, "Keep mine", a hand edit) proposes a full text
of a memory file it read at some version: the position of the last event that changed the file
then, which ``GET …/files/X`` returns as its ETag. The proposal is decided against that version
(given, or the written version it most resembles) and replayed on today's state
(:func:`orbital.domain.hand_edits.replay_edit`), so what others wrote since is never retired or
reverted by it; what both changed is reported as clashes for the caller to refuse or keep aside.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from orbital.catalogue import MEMORY_FILES
from orbital.domain.asks_legacy import decide_legacy_flags, extract_legacy_flags
from orbital.domain.file_write import decide_file_write
from orbital.domain.hand_edits import replay_edit
from orbital.domain.merge import closest
from orbital.domain.writes import Decision
from orbital.errors import InvalidInput
from orbital.events import Actor, Event
from orbital.events.entries import EntryCreated, EntryRevised
from orbital.events.files import FileLayoutSet
from orbital.grammar.model import FileState
from orbital.grammar.render import render_file
from orbital.service._memory_state import MERGE_BASES

if TYPE_CHECKING:
    from orbital.service._unit import Unit


def decide_memory_write(
    u: Unit, key: str, state: FileState, text: str, actor: Actor | None = None
) -> Decision:
    """The events for a proposed text of ``key`` against ``state``; ``[user]`` lines of
    PROJECT_STATE first become asks, appended in this unit as ``actor`` (default: the
    unit's)."""
    text = move_legacy_flags(u, key, text, actor)
    return decide_file_write(state, text, u.today, mint=u.mint, ever_used=u.ever_used())


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


@dataclass(frozen=True)
class Proposal:
    """What a proposal does to today's state: events, the writer's warnings, the version it
    was decided against, and the entries both it and the store changed (left out)."""

    events: tuple[Event, ...]
    warnings: tuple[str, ...]
    base: int
    clashes: tuple[str, ...] = ()


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


def likeliest_base(u: Unit, key: str, text: str, *, older_on_tie: bool) -> int:
    """The version of ``key`` (a position) that ``text`` most resembles among the newest
    written ones and today's (:func:`closest`)."""
    now = u.memory.changed_at[key]
    written = u.w.written_versions(u.pid, MEMORY_FILES[key]).values()
    positions = [now, *sorted({p for p in written if p < now}, reverse=True)][:MERGE_BASES]
    texts = [render_file(state_at(u, key, p)) for p in positions]
    return positions[closest(text, texts, older_on_tie=older_on_tie)]


def state_at(u: Unit, key: str, position: int) -> FileState:
    """File ``key`` as of ``position`` (today's state from the unit when nothing changed)."""
    if position >= u.memory.changed_at[key]:
        return u.memory.files[key]
    return u.units.memory.load(u.w, u.pid, at=position).files[key]


def decide_proposal(
    u: Unit,
    key: str,
    text: str,
    *,
    base: int | None = None,
    actor: Actor | None = None,
    prefer_edit: bool = False,
) -> Proposal:
    """The events ``text`` means for today's state of ``key``, decided against ``base`` (a
    position; None: the written version it most resembles). ``prefer_edit``: where both
    changed an entry, the proposal's side is applied ("Keep mine")."""
    if base is not None and base < 0:
        raise InvalidInput(f"a version is a position, 0 or more, not {base}")
    text = move_legacy_flags(u, key, text, actor)
    current = u.memory.files[key]
    now = u.memory.changed_at[key]

    def decide(state: FileState) -> Decision:
        return decide_file_write(state, text, u.today, mint=u.mint, ever_used=u.ever_used())

    if base is None:
        today = decide(current)
        if _adds_only(current, today.events):
            return Proposal(today.events, today.warnings, now)
        hand = prefer_edit or (actor or u.actor) is Actor.FILE  # a person's edit on disk
        base = likeliest_base(u, key, text, older_on_tie=hand)
        if base >= now:
            return Proposal(today.events, today.warnings, now)
    elif base >= now:
        today = decide(current)
        return Proposal(today.events, today.warnings, now)
    start = state_at(u, key, base)
    decision = decide(start)
    replay = replay_edit(start, current, decision.events, prefer_edit=prefer_edit)
    return Proposal(replay.events, decision.warnings, base, replay.clashes)
