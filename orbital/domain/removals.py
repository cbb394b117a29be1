"""How much a whole-file write may remove at once (pure).

Entries missing from a whole-file write are retired: that is how a writer removes one. A write
that would leave a file with no entries, or remove a large share of them at once, is far more
often a writer that sent back only the part it changed (or nothing at all) than a decision to
forget; it is refused unless the writer names the entries it removes. Smaller removals go
through and are listed in the write's warning.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Set as AbstractSet

from orbital.catalogue import MEMORY_FILES
from orbital.domain.entries import fold_file
from orbital.errors import MassRemoval
from orbital.events import Event
from orbital.events.entries import EntryRetired
from orbital.grammar.model import FileState

#: A write removing at least this many entries and leaving fewer than half of a file's live
#: entries is refused unless the writer names them (a rewrite that rewords many entries keeps
#: about as many as it had, and passes).
LARGE_REMOVAL = 3


def removed(before: FileState, events: Iterable[Event]) -> list[str]:
    """Ids of the live entries of ``before`` that ``events`` retire, in file order."""
    retired = {e.entry_id for e in events if isinstance(e, EntryRetired)}
    return [i for i in before.live_ids() if i in retired]


def check_removals(
    before: FileState, events: tuple[Event, ...], named: AbstractSet[str] = frozenset()
) -> list[str]:
    """The entries ``events`` remove from ``before``; refuses (:class:`MassRemoval`) a write
    that empties the file or removes a large share of it, unless every removal is ``named``."""
    gone = removed(before, events)
    if not gone or set(gone) <= named:
        return gone
    live = len(before.live_ids())
    left = len(fold_file(before.key, events, before).live_ids())
    if left == 0 or (len(gone) >= LARGE_REMOVAL and left * 2 < live):
        raise MassRemoval(MEMORY_FILES[before.key], tuple(gone), live)
    return gone
