"""Reads of the log: history of a project (by time, stream, file, entry or ask), an entry's
revisions, the conflict copies not settled yet, and the entries' timelines."""

from __future__ import annotations

import datetime as dt
from collections.abc import Generator
from contextlib import closing
from dataclasses import dataclass
from itertools import islice

import msgspec

from orbital.catalogue import (
    ENTRY_PREFIX,
    FILE_NAMES,
    MEMORY_FILES,
    ask_stream,
    entry_stream,
    file_stream,
    stream_id,
)
from orbital.clock import parse_instant
from orbital.errors import InvalidInput, UnknownEntry
from orbital.events import RecordedEvent, event_type
from orbital.events.files import HandEditConflict, HandEditResolved
from orbital.files import memory_file
from orbital.service._memory import MemoryService
from orbital.service._search import SearchService
from orbital.service._unit import Units
from projections.entry_pages import ENTRY_FILES, EntryIndex, EntryPage, EntryQuery
from projections.history import summarize
from projections.words import words_of
from projections.workbench import EntryRow, TimelineItem, entry_row, entry_rows

_FILE_STREAMS = [file_stream(key) for key in FILE_NAMES]
_SETTLING = (event_type(HandEditConflict), event_type(HandEditResolved))


def _aware(when: dt.datetime | None) -> dt.datetime | None:
    """An instant in UTC; a naive one is taken as UTC (as the store does)."""
    if when is None:
        return None
    return when.replace(tzinfo=dt.UTC) if when.tzinfo is None else when.astimezone(dt.UTC)


@dataclass(frozen=True, slots=True)
class HistoryQuery:
    """Which events to list: a time window, and one stream (exact, or a prefix ending in
    ``:``), one memory file, one entry or one ask; oldest first unless ``newest_first``, at
    most ``limit`` of them (None: all)."""

    since: dt.datetime | None = None
    until: dt.datetime | None = None
    stream: str | None = None
    exact_stream: bool = False
    file: str | None = None
    entry: str | None = None
    ask: str | None = None
    newest_first: bool = False
    limit: int | None = None

    @classmethod
    def from_filters(
        cls,
        *,
        since: str | None = None,
        until: str | None = None,
        stream: str | None = None,
        file: str | None = None,
        entry: str | None = None,
        ask: str | None = None,
        newest_first: bool = False,
        limit: int | None = None,
    ) -> HistoryQuery:
        """The query as an interface's filters spell it (CLI options, HTTP query, MCP tool):
        instants as ISO 8601 text; a stream name is exact unless it ends in ``:`` (a prefix)."""
        return cls(
            since=parse_instant(since) if since else None,
            until=parse_instant(until) if until else None,
            stream=stream,
            exact_stream=stream is not None and not stream.endswith(":"),
            file=file,
            entry=entry,
            ask=ask,
            newest_first=newest_first,
            limit=limit,
        )


class ConflictCopy(msgspec.Struct, frozen=True):
    """A person's edited file kept beside its projection after a clash, not settled yet."""

    file: str
    copy: str
    position: int
    recorded_at: dt.datetime
    #: The version (a position) the person's edit was decided against; 0 when not recorded.
    base: int = 0


@dataclass(frozen=True, slots=True)
class Revision:
    """One version of an entry's text, and the event that made it."""

    event: RecordedEvent
    text: str


def _first(
    events: Generator[RecordedEvent, None, None], limit: int | None
) -> Generator[RecordedEvent, None, None]:
    """The first ``limit`` of ``events`` (None: all); closing it closes the read under it."""
    with closing(events):
        yield from islice(events, limit)


class History:
    """The log read back, for people and agents."""

    def __init__(self, units: Units, memory: MemoryService, search: SearchService) -> None:
        self.units = units
        self.store = units.ctx.store
        self.memory = memory
        #: Finds the entries a page's search names (the search index).
        self.search = search
        #: Per project: the memory position and its entries in page order (paging a large
        #: project re-sorts nothing while its memory stands still).
        self._indexes: dict[str, tuple[int, EntryIndex]] = {}

    def events(
        self, project: str, query: HistoryQuery | None = None
    ) -> Generator[RecordedEvent, None, None]:
        """Events of a project, oldest first (or newest first), filtered by time window and
        by what they concern (a stream, a memory file, an entry, an ask), at most the query's
        limit; they stream from the store while the iterator is consumed (close it, or
        consume it, before the store closes)."""
        query = query or HistoryQuery()
        if query.limit is not None and query.limit < 1:
            raise InvalidInput(f"a limit is a number of events, 1 or more, not {query.limit}")
        return _first(self._matching(project, query), query.limit)

    def _matching(self, project: str, query: HistoryQuery) -> Generator[RecordedEvent, None, None]:
        found = self.store.project(project)
        prefixes: tuple[str, ...] | None = None
        wanted: set[str] | None = None
        if query.entry is not None:
            wanted = {entry_stream(query.entry)}
        elif query.ask is not None:
            wanted = {ask_stream(query.ask.strip().lower())}
        elif query.file is not None:
            key = memory_file(query.file).key
            if key == "asks":
                prefixes = ("ask",)
            else:
                ids = self.memory.entry_ids(found, key)
                wanted = {entry_stream(i) for i in ids} | {file_stream(key)}
        elif query.stream is not None:
            if query.exact_stream:
                wanted = {query.stream}
            else:
                prefixes = (query.stream,)
        if wanted is not None and len(wanted) == 1:
            # One stream (an entry, an ask): read it through the (project, stream, version)
            # index, in version order, which is its position order. A stream filter on
            # read_project lets SQLite walk the whole project's position index instead (its
            # planner has no statistics to prefer the stream index): O(log n + k), not O(n).
            (stream,) = wanted
            since, until = _aware(query.since), _aware(query.until)
            with self.store.reader() as r:
                events = r.read_stream(project, stream)
            for event in reversed(events) if query.newest_first else events:
                if (since is None or event.recorded_at >= since) and (
                    until is None or event.recorded_at <= until
                ):
                    yield event
            return
        if wanted is not None:
            prefixes = tuple(sorted(wanted))
        with self.store.reader() as r:
            matching = r.read_project(
                project,
                since_time=query.since,
                until_time=query.until,
                stream_prefix=prefixes,
                newest_first=query.newest_first,
                limit=query.limit if wanted is None else None,
            )
            for event in matching:
                if wanted is None or event.stream in wanted:
                    yield event

    def revisions(self, project: str, entry_id: str) -> list[Revision]:
        """Every text an entry had, oldest first (for ``history --entry ID --diff``)."""
        events = list(self.events(project, HistoryQuery(entry=entry_id)))
        if not events:
            raise UnknownEntry(entry_id)
        revisions = []
        for recorded in events:
            text = getattr(recorded.event, "text", None)
            if isinstance(text, str):
                revisions.append(Revision(recorded, text))
        return revisions

    def conflicts(self, project: str) -> list[ConflictCopy]:
        """Conflict copies kept beside the projections and not settled yet."""
        found = self.store.project(project)
        files = self.units.ctx.files(found)
        kept: dict[str, ConflictCopy] = {}
        with self.store.reader() as r:
            # Only these two types are read (a file stream also holds every layout), each
            # stream through its index; a copy is settled in the stream that kept it.
            streams = r.read_streams(project, _FILE_STREAMS, types=_SETTLING)
            for recorded in sorted(
                (e for found in streams.values() for e in found), key=lambda e: e.position
            ):
                event = recorded.event
                if isinstance(event, HandEditConflict):
                    name = MEMORY_FILES.get(event.file, event.file)
                    kept[event.conflict_copy] = ConflictCopy(
                        name,
                        event.conflict_copy,
                        recorded.position,
                        recorded.recorded_at,
                        event.base,
                    )
                elif isinstance(event, HandEditResolved):
                    kept.pop(event.conflict_copy, None)
        return [c for c in kept.values() if files.has_aside(c.copy)]

    def memory_entries(self, project: str) -> list[EntryRow]:
        """Every durable entry of the project (live first, in file order) with its history,
        for the person to read, pin, unpin or restore."""
        found = self.store.project(project)
        memory = self.memory.load(found)
        timelines: dict[str, list[TimelineItem]] = {}
        for recorded in self.events(project, HistoryQuery(stream=ENTRY_PREFIX)):
            timelines.setdefault(stream_id(recorded.stream), []).append(_timeline_item(recorded))
        return entry_rows(memory.files, ENTRY_FILES, timelines)

    def entries_page(self, project: str, query: EntryQuery) -> EntryPage:
        """One page of the project's entries, each with its history: the order is kept per
        memory state, and only the page's entry streams are read, so a request costs its
        page, not the project."""
        found = self.store.project(project)
        memory = self.memory.load(found)
        cached = self._indexes.get(project)
        if cached is None or cached[0] != memory.position:
            cached = (memory.position, EntryIndex(memory.files, ENTRY_FILES))
            self._indexes[project] = cached
        hits = self.search.matching(found.project_id, words_of(query.q)) if query.q else None
        chosen = cached[1].select(query, hits)
        with self.store.reader() as r:
            events = r.read_streams(project, [entry_stream(e.entry_id) for e in chosen.entries])
        rows = [
            entry_row(e, [_timeline_item(x) for x in events[entry_stream(e.entry_id)]])
            for e in chosen.entries
        ]
        return EntryPage(chosen.total, query.offset, query.limit, chosen.next_offset, rows)


def _timeline_item(recorded: RecordedEvent) -> TimelineItem:
    return TimelineItem(
        position=recorded.position,
        recorded_at=recorded.recorded_at,
        actor=recorded.actor.value,
        type=event_type(type(recorded.event)),
        summary=summarize(recorded.event),
    )
