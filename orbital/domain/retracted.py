"""A retracted entry stays retracted: an agent's new DECISIONS or LESSONS entry that says again
what the person retracted is not added, as a dropped ask's return is not (issue 28).

- *refused* when it certainly says it again (the rephrasing guard, :mod:`rephrase`);
- *held* when it possibly does (:mod:`resemble`): written again with a line
  ``Distinct from: <id>`` naming the retracted entry it resembles, it is taken, and that line
  stays in its text: the agent's claim, for the person to judge.

Either way the agent is told the retracted entry's id, the day and the person's reason, and
the retracted entry's history records the attempt (``entry.retracted_repeat``).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence

import msgspec

from orbital.catalogue import DISPLAY
from orbital.domain.trust import RESTATE_KEYS, said
from orbital.domain.trust_fold import retracted_why
from orbital.domain.wordnet import WordNet
from orbital.events import Event
from orbital.events.entries import EntryCreated
from orbital.events.files import FileLayoutSet, Slot
from orbital.events.trust import EntryRetractedRepeat
from orbital.grammar.model import Entry, FileState

_DISTINCT = re.compile(r"^\s*distinct from:(.*)$", re.IGNORECASE | re.MULTILINE)
_ID = re.compile(r"[\w-]+")


class Repeats(msgspec.Struct, frozen=True):
    """A write without the entries that repeat retracted ones: ``written`` (the rest, the
    file's layout without their slots), the audit of each, the agent's warnings, and the held
    ones as (their first line, the retracted entry's id)."""

    written: tuple[Event, ...]
    audit: tuple[Event, ...] = ()
    warnings: tuple[str, ...] = ()
    held: tuple[tuple[str, str], ...] = ()


def distinct_from(text: str) -> frozenset[str]:
    """The entry ids an entry's ``Distinct from:`` lines name."""
    return frozenset(i for line in _DISTINCT.findall(text) for i in _ID.findall(line))


def _repeated(
    state: FileState, key: str, text: str, wordnet: Callable[[], WordNet]
) -> tuple[Entry, bool] | None:
    """The retracted entry of ``state`` that ``text`` says again, and whether certainly."""
    named = distinct_from(text)
    retracted = {
        e.entry_id: said(e.text, key)
        for e in state.entries.values()
        if e.trust.state == "retracted"
    }
    if not retracted:
        return None
    from orbital.domain.rephrase import restated
    from orbital.domain.resemble import resembles

    new = said(_DISTINCT.sub("", text), key)  # the ids it names are not what it says
    certain = restated(new, retracted)
    if certain is not None:
        return state.entries[certain], True
    for entry_id, old in retracted.items():
        if entry_id not in named and resembles(old, new, wordnet()):
            return state.entries[entry_id], False
    return None


def _message(name: str, new: str, old: Entry, held: bool) -> str:
    why = f"{retracted_why(old.trust.reason)} on {old.trust.on}"
    if not held:
        return (
            f"{name}: not added — new entry {new} says again what {old.entry_id} said, which "
            f"was {why}; never propose it again. If the person wants it back, they reaffirm "
            f"{old.entry_id}."
        )
    return (
        f"{name}: held, not added — new entry {new} may say again what {old.entry_id} said, "
        f"which was {why}. If it really is a different thing, write it again with a line "
        f"`Distinct from: {old.entry_id}`."
    )


def decide_retracted_repeats(
    files: Mapping[str, FileState],
    written: Sequence[Event],
    today: dt.date,
    wordnet: Callable[[], WordNet],
) -> Repeats:
    """Take out of an agent's ``written`` events each new entry that says again what the
    person retracted (see the module docstring), reading with the WordNet the shell loads
    when a retracted entry is first compared (``wordnet``)."""
    audit: list[Event] = []
    warnings: list[str] = []
    held: list[tuple[str, str]] = []
    out: set[str] = set()
    for event in written:
        if not isinstance(event, EntryCreated) or event.file not in RESTATE_KEYS:
            continue
        state = files.get(event.file)
        found = _repeated(state, event.file, event.text, wordnet) if state is not None else None
        if found is None:
            continue
        old, certain = found
        out.add(event.entry_id)
        warnings.append(_message(DISPLAY[event.file], event.entry_id, old, not certain))
        audit.append(
            EntryRetractedRepeat(
                entry_id=old.entry_id,
                new_entry=event.entry_id,
                text=event.text,
                date=today,
                held=not certain,
            )
        )
        if not certain:
            held.append((event.text.strip().splitlines()[0], old.entry_id))
    if not out:
        return Repeats(tuple(written))
    kept = tuple(_without(e, out, files) for e in written if not _is_one_of(e, out))
    return Repeats(
        tuple(e for e in kept if e is not None), tuple(audit), tuple(warnings), tuple(held)
    )


def _is_one_of(event: Event, ids: set[str]) -> bool:
    return getattr(event, "entry_id", None) in ids


def _without(event: Event, ids: set[str], files: Mapping[str, FileState]) -> Event | None:
    """``event`` without the slots of ``ids`` (a layout); None when that layout is the file's
    own (the write changed nothing else there)."""
    if not isinstance(event, FileLayoutSet):
        return event
    slots = tuple(s for s in event.slots if s.entry not in ids)
    # The blank lines a taken-out entry came after, when the file had none there before.
    tight: list[Slot] = []
    for slot in event.slots:
        if slot.entry in ids:
            if tight and not tight[-1].entry and not tight[-1].text.strip():
                tight.pop()
        else:
            tight.append(slot)
    state = files.get(event.file)
    if state is not None and state.layout in (slots, tuple(tight)):
        return None
    return msgspec.structs.replace(event, slots=slots)
