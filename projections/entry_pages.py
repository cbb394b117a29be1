"""Pages of a project's memory entries for the person: a search, a file and a status over a
stable order, a window at a time. A project of 20,000 entries is shown and served a page at a
time (the whole list was 30 MB of HTML), so what a request costs is bounded by its page.

The order is :func:`projections.workbench.ordered_entries` (files in catalogue order; live
entries in file order, then the rest as first created); ``offset`` walks it. A change between
two requests can shift an entry across a page boundary, never reorder the rest.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import msgspec

from orbital.catalogue import ASKS_KEY, MEMORY_FILES
from orbital.errors import InvalidInput
from orbital.grammar.model import Entry, FileState
from projections.workbench import EntryRow, ordered_entries

#: The files that hold entries, in the order pages walk them.
ENTRY_FILES: tuple[str, ...] = tuple(key for key in MEMORY_FILES if key != ASKS_KEY)
#: ``live``; ``not-live`` (archived, merged or retired); one of those; or ``all``.
ENTRY_STATUSES: tuple[str, ...] = ("all", "live", "not-live", "archived", "merged", "retired")
DEFAULT_LIMIT = 50
MAX_LIMIT = 200
MAX_SEARCH = 200


class EntryQuery(msgspec.Struct, frozen=True):
    """Which entries, and which page of them (build it with :func:`entry_query`)."""

    #: Words the search index must find in the entry's id or text (all of them; a text with
    #: no word finds nothing).
    q: str = ""
    #: A file key (``decisions``); "" for every file.
    file: str = ""
    status: str = "all"
    offset: int = 0
    limit: int = DEFAULT_LIMIT


class EntryPage(msgspec.Struct, frozen=True):
    """A page of entries: ``total`` match the query; ``next_offset`` asks for the next page
    (null on the last one)."""

    total: int
    offset: int
    limit: int
    next_offset: int | None
    entries: list[EntryRow]


@dataclass(frozen=True, slots=True)
class Selection:
    """The entries of one page, before their histories are read."""

    entries: list[Entry]
    total: int
    next_offset: int | None


def entry_query(
    *, q: str = "", file: str = "", status: str = "all", offset: int = 0, limit: int = DEFAULT_LIMIT
) -> EntryQuery:
    """A checked query; ``file`` is a key or a memory file name in any case
    (``DECISIONS.md``). Anything out of range is refused with what is allowed."""
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be from 1 to {MAX_LIMIT}, not {limit}")
    if offset < 0:
        raise InvalidInput(f"offset must be 0 or more, not {offset}")
    if status not in ENTRY_STATUSES:
        raise InvalidInput(f"status must be one of {', '.join(ENTRY_STATUSES)}, not {status!r}")
    if len(q) > MAX_SEARCH:
        raise InvalidInput(f"the search text is {len(q)} characters; at most {MAX_SEARCH}")
    key = _file_key(file.strip())
    return EntryQuery(q=" ".join(q.split()), file=key, status=status, offset=offset, limit=limit)


def _file_key(file: str) -> str:
    if not file:
        return ""
    by_name = {MEMORY_FILES[key].casefold(): key for key in ENTRY_FILES}
    key = file if file in ENTRY_FILES else by_name.get(file.casefold())
    if key is None:
        names = ", ".join(MEMORY_FILES[k] for k in ENTRY_FILES)
        raise InvalidInput(f"file must be one of {names} (or its key), not {file!r}")
    return key


def _wanted(status: str, entry: Entry) -> bool:
    if status == "all":
        return True
    if status == "not-live":
        return entry.status != "live"
    return entry.status == status


class EntryIndex:
    """A memory state's entries in page order and each file and status's share of them:
    built once per state, so a page costs its page. Immutable like the state it indexes."""

    def __init__(self, files: Mapping[str, FileState], order: Sequence[str]) -> None:
        self.entries: tuple[Entry, ...] = tuple(ordered_entries(files, order))
        self._subsets: dict[tuple[str, str], list[int]] = {}

    def _subset(self, file: str, status: str) -> list[int]:
        """Where the entries of ``file`` (every file: "") with ``status`` stand."""
        found = self._subsets.get((file, status))
        if found is None:
            found = [
                i
                for i, e in enumerate(self.entries)
                if (not file or e.file == file) and _wanted(status, e)
            ]
            self._subsets[(file, status)] = found
        return found

    def select(self, query: EntryQuery, found: Collection[str] | None = None) -> Selection:
        """The page of entries ``query`` asks for, and how many match in all; ``found``: the
        ids the search index found for ``query.q`` (None: no search)."""
        matching = self._subset(query.file, query.status)
        if found is not None:
            matching = [i for i in matching if self.entries[i].entry_id in found]
        end = query.offset + query.limit
        return Selection(
            [self.entries[i] for i in matching[query.offset : end]],
            len(matching),
            end if end < len(matching) else None,
        )
