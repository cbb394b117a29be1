"""Trust state per durable entry: held, disputed, superseded, retracted (issue 16).

The fold and the deciders, pure, with the actor an input. Only the person (a Workbench
credential, or ``--as-user``) disputes, retracts or reaffirms: an agent or the editor is
refused, since a belief it doubts is the person's call. An entry is superseded by a newer one
that names it on a ``Supersedes:`` line (any writer) or by the editor's merge. A superseded or
retracted entry leaves the live file for its archive with a pointer saying why (an
``entry.archived`` beside the trust event); history and as-of reads keep it.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec

from orbital.catalogue import ARCHIVE_FILES, DISPLAY
from orbital.domain.entries import fold_file
from orbital.domain.pointer_groups import entry_summary
from orbital.domain.trust_fold import OUT_OF_FORCE, out_of_force_why, retracted_why
from orbital.errors import InvalidInput, Refused, UnknownEntry
from orbital.events import Actor, Event
from orbital.events.entries import EntryArchived, EntryCreated, EntryRestored
from orbital.events.trust import (
    EntryDisputed,
    EntryReaffirmed,
    EntryRestates,
    EntryRetracted,
    EntrySuperseded,
)
from orbital.grammar.durable import MARKERS, strip_marker
from orbital.grammar.model import Entry, FileState
from orbital.grammar.pointers import pointer_line
from orbital.grammar.supersedes import supersedes_lines, without_supersedes

TrustAction = Literal["dispute", "retract", "reaffirm"]
TRUST_ACTIONS: tuple[TrustAction, ...] = ("dispute", "retract", "reaffirm")
#: Files whose new entries are checked for restating an existing one.
RESTATE_KEYS = ("decisions", "lessons")


def find(files: Mapping[str, FileState], entry_id: str) -> Entry | None:
    for state in files.values():
        entry = state.entries.get(entry_id)
        if entry is not None:
            return entry
    return None


def _clean(reason: str) -> str:
    return " ".join(reason.split())


def out_pointer(entry: Entry, why: str, today: dt.date) -> str:
    """The pointer a superseded or retracted entry leaves in the live file, saying why."""
    summary = f"{why}: {entry_summary(entry, entry.file)}"
    return pointer_line(today, [entry.entry_id], summary, ARCHIVE_FILES[entry.file])


def _leave_live(entry: Entry, why: str, today: dt.date) -> list[Event]:
    if entry.status != "live" or entry.file not in ARCHIVE_FILES:
        return []
    pointer = out_pointer(entry, why, today)
    return [EntryArchived(entry_id=entry.entry_id, pointer=pointer, date=today)]


def decide_trust_action(
    files: Mapping[str, FileState],
    entry_id: str,
    action: TrustAction,
    reason: str,
    actor: Actor,
    today: dt.date,
) -> list[Event]:
    """Events for the person's ``action`` on ``entry_id``; ``[]`` when it already stands so.

    Refused for any actor but the person; a dispute needs a reason; a retired entry (gone
    from its file) or a merged one cannot change.
    """
    if actor != Actor.USER:
        raise Refused(
            f"only the person can {action} an entry ({actor} asked to {action} {entry_id!r}): "
            "an agent records what replaces it as a new entry with a line "
            f"'Supersedes: {entry_id}', and the person uses the Workbench or "
            f"`orbital entry {action} {entry_id} --as-user`"
        )
    entry = find(files, entry_id)
    if entry is None:
        raise UnknownEntry(entry_id)
    reason = _clean(reason)
    trust = entry.trust
    if entry.status in ("retired", "merged"):
        raise Refused(
            f"entry {entry_id!r} is {entry.status}: its text is no longer an entry of "
            f"{DISPLAY[entry.file]} (its history keeps it), so its trust cannot change"
        )
    if action == "dispute":
        if not reason:
            raise InvalidInput("a dispute needs a reason (--reason): it is shown beside the entry")
        if trust.state in OUT_OF_FORCE:
            raise Refused(
                f"entry {entry_id!r} is {trust.state}: it is already out of force; "
                "reaffirm it first to dispute it"
            )
        if trust.state == "disputed" and trust.reason == reason:
            return []
        return [EntryDisputed(entry_id=entry_id, reason=reason, date=today)]
    if action == "retract":
        if trust.state == "retracted":
            return []
        event = EntryRetracted(entry_id=entry_id, reason=reason, date=today)
        return [event, *_leave_live(entry, retracted_why(reason), today)]
    if trust.state == "held":
        return []
    back: list[Event] = []
    if trust.state in OUT_OF_FORCE and entry.status == "archived":
        back.append(EntryRestored(entry_id=entry_id, date=today))
    return [EntryReaffirmed(entry_id=entry_id, reason=reason, date=today), *back]


class TrustDecision(msgspec.Struct, frozen=True):
    events: tuple[Event, ...] = ()
    warnings: tuple[str, ...] = ()


def _since(value: str, entry_id: str, warnings: list[str]) -> dt.date | None:
    if not value:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        warnings.append(
            f"{entry_id}: 'since {value}' on its Supersedes line is not a date (YYYY-MM-DD); "
            "the supersession takes effect today"
        )
        return None


def decide_supersessions(
    files: Mapping[str, FileState], written: Sequence[Event], today: dt.date
) -> TrustDecision:
    """Supersessions named by the ``Supersedes:`` lines of the entries a write created or
    changed (``files`` as before the write's ``written`` events). A line naming an unknown
    id, the entry itself or an entry it already supersedes records nothing for that id."""
    after = {key: fold_file(key, written, state) for key, state in files.items()}
    events: list[Event] = []
    warnings: list[str] = []
    seen: set[str] = set()
    for event in written:
        entry_id = getattr(event, "entry_id", None)
        if not isinstance(entry_id, str) or entry_id in seen or not hasattr(event, "text"):
            continue
        seen.add(entry_id)
        new = find(after, entry_id)
        if new is None or new.status != "live":
            continue
        for line in supersedes_lines(new.text):
            since = _since(line.since, entry_id, warnings)
            for old_id in line.ids:
                events += _supersede(after, new, old_id, since, today, warnings)
    return TrustDecision(tuple(events), tuple(warnings))


def _supersede(
    files: Mapping[str, FileState],
    new: Entry,
    old_id: str,
    since: dt.date | None,
    today: dt.date,
    warnings: list[str],
) -> list[Event]:
    old = find(files, old_id)
    if old is None:
        warnings.append(
            f"{new.entry_id}: Supersedes names {old_id!r}, which no entry has: nothing was "
            "superseded (use the id from the old entry's id comment)"
        )
        return []
    if old_id == new.entry_id or new.entry_id in old.trust.by:
        return []
    superseded = EntrySuperseded(entry_id=old_id, by=(new.entry_id,), date=today, since=since)
    if old.trust.state == "retracted":
        warnings.append(
            f"{new.entry_id}: {old_id} was already retracted by the person; it stays retracted"
        )
        return [superseded]
    if old.trust.state == "superseded":
        warnings.append(
            f"{new.entry_id}: {old_id} was already superseded by {', '.join(old.trust.by)}; "
            f"it is now superseded by {new.entry_id} too"
        )
        return [superseded]
    if old.pinned and old.status == "live":
        warnings.append(
            f"{new.entry_id}: {old_id} is pinned by the person: it stays in the live file, "
            "marked superseded and left out of the view"
        )
        return [superseded]
    return [superseded, *_leave_live(old, f"superseded by {new.entry_id}", today)]


def restated_entry(
    files: Mapping[str, FileState],
    key: str,
    text: str,
    skip: frozenset[str] = frozenset(),
    *,
    out_of_force: bool = False,
) -> Entry | None:
    """The live or archived entry of ``key``'s file (superseded and retracted ones included;
    only those with ``out_of_force``) that ``text`` says again, if any (the rephrasing
    matcher, :mod:`rephrase`)."""
    state = files.get(key)
    if state is None:
        return None
    candidates = {
        e.entry_id: said(e.text, key)
        for e in state.entries.values()
        if e.entry_id not in skip
        and (e.trust.state in OUT_OF_FORCE or (not out_of_force and e.status != "retired"))
    }
    if not candidates:
        return None
    # The matcher (and its stemmers) only when an entry is compared: most processes never do.
    from orbital.domain.rephrase import restated

    found = restated(said(text, key), candidates)
    return state.entries[found] if found is not None else None


@functools.lru_cache(maxsize=1 << 12)
def said(text: str, key: str) -> str:
    """What an entry says: without its ``Supersedes:`` lines and its marker (a lesson's
    number is its place in the file, not its words). Kept per text: every entry of the file
    is compared on each write."""
    said = without_supersedes(text)
    return strip_marker(said, key) if key in MARKERS else said


def decide_restatements(
    files: Mapping[str, FileState], written: Sequence[Event], today: dt.date
) -> TrustDecision:
    """Warnings for each new DECISIONS or LESSONS entry that restates an existing one (never
    refused: the writer may have new grounds); one that says again what was superseded or
    retracted is also linked to it (``entry.restates``)."""
    created = [e for e in written if isinstance(e, EntryCreated) and e.file in RESTATE_KEYS]
    events: list[Event] = []
    warnings: list[str] = []
    new_ids = frozenset(e.entry_id for e in created)
    for event in created:
        named = {i for line in supersedes_lines(event.text) for i in line.ids}
        old = restated_entry(files, event.file, event.text, skip=new_ids | named)
        if old is None:
            continue
        name = DISPLAY[event.file]
        if old.trust.state in OUT_OF_FORCE:
            warnings.append(
                f"{name}: new entry {event.entry_id} says again what {old.entry_id} said, "
                f"which was {out_of_force_why(old.trust)}; it is kept and linked to "
                f"{old.entry_id} — if it is meant to replace it, say why in the entry"
            )
            events.append(EntryRestates(entry_id=event.entry_id, restates=old.entry_id, date=today))
        else:
            where = "its archive" if old.status != "live" else name
            warnings.append(
                f"{name}: new entry {event.entry_id} restates {old.entry_id} ({where}); "
                f"revise {old.entry_id} instead, or name it on a 'Supersedes:' line"
            )
    return TrustDecision(tuple(events), tuple(warnings))
