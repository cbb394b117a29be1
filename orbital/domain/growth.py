"""How much one write may add to a memory file at once (pure).

A memory file holds a few dozen entries under a budget of a few thousand tokens; the backstop
trims a file that grew past it at session end. A single write that adds hundreds of entries or
tens of thousands of tokens is a runaway writer (a loop, a dump of a log), not a memory: taken
in, it costs every later write, view and backstop. So it is refused whole, with the figure,
whatever path it came by (a writer's whole file, an agent's file tool, a hand edit, an import).
"""

from __future__ import annotations

from collections.abc import Iterable

from orbital.catalogue import MEMORY_FILES
from orbital.domain.budgets import TokenCounter
from orbital.errors import TooMuchAtOnce
from orbital.events import Event
from orbital.events.entries import EntryCreated, EntryRevised
from orbital.events.files import FileLayoutSet, FileStoredRaw
from orbital.grammar.model import FileState

#: At most this many new entries in one write to one memory file (a PROJECT_STATE.md within
#: its budget holds a few hundred one-line entries at most).
MAX_NEW_ENTRIES = 300
#: At most this many tokens added by one write to one memory file: more than the largest hard
#: budget (DECISIONS.md, 9,000), so a write that leaves a file within its budget always passes.
MAX_ADDED_TOKENS = 10_000


def _added_texts(before: FileState, events: Iterable[Event]) -> tuple[list[str], list[str]]:
    """The texts ``events`` add to ``before`` (new entries, revised entries' new text when
    longer, new verbatim text, a text stored as-is) and the texts those replace."""
    known = {slot.text for slot in before.layout if slot.text}
    added: list[str] = []
    replaced: list[str] = []
    for event in events:
        if isinstance(event, EntryCreated):
            added.append(event.text)
        elif isinstance(event, FileStoredRaw):
            added.append(event.text)
            replaced.append(before.raw or "")
        elif isinstance(event, EntryRevised):
            old = before.entries.get(event.entry_id)
            if old is None or len(event.text) > len(old.text):
                added.append(event.text)
                replaced.append("" if old is None else old.text)
        elif isinstance(event, FileLayoutSet):
            added += [s.text for s in event.slots if s.text and s.text not in known]
    return added, replaced


def check_added(before: FileState, events: tuple[Event, ...], count: TokenCounter) -> None:
    """Refuse (:class:`TooMuchAtOnce`) a write that adds more than :data:`MAX_NEW_ENTRIES`
    entries or :data:`MAX_ADDED_TOKENS` tokens to ``before``'s file (tokens are counted only
    when the added bytes could reach the bound: a token is at least one byte)."""
    name = MEMORY_FILES.get(before.key, before.key)
    entries = sum(1 for e in events if isinstance(e, EntryCreated))
    if entries > MAX_NEW_ENTRIES:
        raise TooMuchAtOnce(name, f"{entries:,} entries", f"{MAX_NEW_ENTRIES:,} entries")
    added, replaced = _added_texts(before, events)
    if sum(len(text.encode()) for text in added) <= MAX_ADDED_TOKENS:
        return
    tokens = int(sum(count(t) for t in added) - sum(count(t) for t in replaced if t))
    if tokens > MAX_ADDED_TOKENS:
        raise TooMuchAtOnce(name, f"{tokens:,} tokens", f"{MAX_ADDED_TOKENS:,} tokens")
