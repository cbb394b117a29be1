"""What the agent is shown and what the person can list of the entries' trust (issue 16).

The view leaves superseded and retracted entries out (one line says how many, and where to
read them) and marks a disputed entry inline with the person's reason, and one that needs a
check with the citations that moved (issue 29); the live files and
their archives are rendered as always (they already moved those entries out).
:func:`beliefs` lists every entry with its trust state; :func:`in_force_at` answers "what was
in force on day B" with what is known now, as opposed to an as-of read ("what did we believe
on day A"), which folds only the events recorded by then.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

import msgspec
from msgspec.structs import replace

from orbital.catalogue import ARCHIVE_FILES, DISPLAY, MEMORY_DIR
from orbital.domain.trust_fold import OUT_OF_FORCE
from orbital.errors import InvalidInput
from orbital.events.files import Slot
from orbital.grammar.model import Entry, FileState, TrustState

TRUST_STATES: tuple[TrustState, ...] = (
    "held",
    "needs-check",
    "disputed",
    "superseded",
    "retracted",
)


def parse_day(value: str | None) -> dt.date | None:
    """An in-force-at day as people write it (``YYYY-MM-DD``)."""
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"in force at a day, YYYY-MM-DD, not {value!r}") from None


def out_of_view_note(key: str, count: int) -> str:
    """The one line standing for the superseded and retracted entries left out of a view."""
    where = f"{MEMORY_DIR}/{ARCHIVE_FILES[key]}" if key in ARCHIVE_FILES else "history"
    noun = "entry" if count == 1 else "entries"
    return (
        f"[{count} superseded or retracted {DISPLAY[key]} {noun} left out of this view — "
        f"read {where} or run `orbital beliefs`]\n\n"
    )


def disputed_mark(reason: str) -> str:
    return f"[disputed by the person: {reason}]"


def moved_citations(entry: Entry) -> tuple[str, ...]:
    """Which of the entry's citations no longer match, and since when (issue 29)."""
    return tuple(
        f"{c.mention} {'changed' if c.seen else 'is gone'} since {c.since}"
        for c in entry.citations
        if c.moved
    )


def needs_check_mark(entry: Entry) -> str:
    return (
        f"[needs check: {'; '.join(moved_citations(entry))} — if it still holds, confirm it "
        f"(`orbital entry confirm {entry.entry_id}`), else rewrite it]"
    )


def _marked(entry: Entry) -> Entry:
    first, newline, rest = entry.text.partition("\n")
    if entry.trust.state == "needs-check":
        mark = needs_check_mark(entry)
    else:
        mark = disputed_mark(entry.trust.reason)
    if entry.file == "state":
        return replace(entry, text=f"{first} {mark}{newline}{rest}")
    return replace(entry, text=f"{first}\n{mark}{newline}{rest}")


def view_state(state: FileState) -> FileState:
    """``state`` as the view shows it: out-of-force entries without their slot's text (a
    pointer or, when pinned, the entry), disputed ones marked, and the note before the first
    entry. ``state`` itself when no entry has a trust state other than held."""
    if all(e.trust.state == "held" for e in state.entries.values()):
        return state
    entries = dict(state.entries)
    left_out = 0
    for slot in state.layout:
        entry = entries.get(slot.entry) if slot.entry else None
        if entry is None or entry.status == "retired":
            continue
        if entry.trust.state in OUT_OF_FORCE:
            if entry.status == "live" or (entry.pointer and not entry.pointer_dropped):
                left_out += 1
            entries[entry.entry_id] = replace(entry, status="archived", pointer_dropped=True)
        elif entry.trust.state in ("disputed", "needs-check") and entry.status == "live":
            entries[entry.entry_id] = _marked(entry)
    layout = state.layout
    if left_out:
        first = next((i for i, s in enumerate(layout) if s.entry), len(layout))
        note = Slot(text=out_of_view_note(state.key, left_out))
        layout = (*layout[:first], note, *layout[first:])
    return replace(state, entries=entries, layout=layout)


class Belief(msgspec.Struct, frozen=True):
    """One entry with its trust state, as ``orbital beliefs`` lists it."""

    id: str
    file: str
    title: str
    state: TrustState
    status: str
    reason: str = ""
    by: tuple[str, ...] = ()
    since: dt.date | None = None
    on: dt.date | None = None
    restates: str = ""
    created: dt.date | None = None
    #: Its citations that no longer match, and since when (``needs-check``; issue 29).
    moved: tuple[str, ...] = ()


def _title(entry: Entry) -> str:
    first = next((line for line in entry.text.splitlines() if line.strip()), "")
    return first.lstrip("#-*0123456789. ").strip() or entry.entry_id


def belief(entry: Entry) -> Belief:
    t = entry.trust
    return Belief(
        id=entry.entry_id,
        file=entry.file,
        title=_title(entry),
        state=t.state,
        status=entry.status,
        reason=t.reason,
        by=t.by,
        since=t.since,
        on=t.on,
        restates=t.restates,
        created=entry.created,
        moved=moved_citations(entry),
    )


def beliefs(files: Mapping[str, FileState], states: Sequence[str] = TRUST_STATES) -> list[Belief]:
    """Every entry that is or was in its file (retired ones only when out of force), file by
    file, oldest first, in the given trust ``states``."""
    rows: list[Belief] = []
    for key in ("decisions", "lessons", "state", "index"):
        state = files.get(key)
        if state is None:
            continue
        for entry in sorted(state.entries.values(), key=lambda e: (e.created, e.entry_id)):
            if entry.status == "retired" and entry.trust.state not in OUT_OF_FORCE:
                continue
            if entry.trust.state in states:
                rows.append(belief(entry))
    return rows


def _starts(now: Mapping[str, FileState]) -> dict[str, dt.date]:
    """When each superseding entry took effect: the earliest ``since`` of what it replaced."""
    starts: dict[str, dt.date] = {}
    for state in now.values():
        for entry in state.entries.values():
            if entry.trust.since is None:
                continue
            for by in entry.trust.by:
                starts[by] = min(entry.trust.since, starts.get(by, entry.trust.since))
    return starts


def _in_force_now_known(entry: Entry, day: dt.date) -> bool:
    t = entry.trust
    if t.state == "retracted":
        return False  # the person says it was wrong: never in force
    return not (t.state == "superseded" and t.since is not None and t.since <= day)


def in_force_at(
    then: Mapping[str, FileState], now: Mapping[str, FileState], day: dt.date
) -> list[Belief]:
    """The entries in force on ``day``, knowing what is known now: the entries held or
    disputed as of the end of ``day`` (``then``), less those now known to be superseded
    effective on or before ``day`` or retracted, plus those recorded later whose
    supersession took effect by ``day`` (a late-recorded ``since``)."""
    starts = _starts(now)
    rows: list[Belief] = []
    for key in ("decisions", "lessons", "state", "index"):
        earlier, current = then.get(key), now.get(key)
        if current is None:
            continue
        for entry in sorted(current.entries.values(), key=lambda e: (e.created, e.entry_id)):
            old = earlier.entries.get(entry.entry_id) if earlier is not None else None
            believed = (
                old is not None
                and old.status in ("live", "archived")
                and old.trust.state not in OUT_OF_FORCE
            )
            started = entry.entry_id in starts and starts[entry.entry_id] <= day
            if (believed or started) and _in_force_now_known(entry, day):
                rows.append(belief(entry))
    return rows
