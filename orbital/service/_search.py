"""Search and recall over the store's search index (:mod:`orbital.store._search`).

The index is a projection like the others: its rows are :func:`projections.search.stream_docs`
of the ``entry:`` and ``ask:`` streams, and it records the position it was projected at. A
read that finds the index behind the head catches up first, in one write transaction:
the streams that moved since that position are projected again (whatever moved them: a unit
of work, a workspace write, a revert). An import rebuilds the index in its own transaction
(:mod:`._log_files`); a purge empties it, and the next read rebuilds it from the purged
events.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from orbital.catalogue import ASK_PREFIX, ENTRY_PREFIX
from orbital.events import RecordedEvent
from orbital.service._recall import recall_text
from orbital.store import EventStore, Writer
from projections.search import (
    SearchHit,
    SearchQuery,
    state_of,
    stream_docs,
    where_of,
)
from projections.words import title_of

#: Streams read per statement while catching up (an ``IN`` list each).
_CHUNK = 500
#: A hit's text, at most (the rest: ``memory_get``).
TEXT_SHOWN = 600


class SearchService:
    def __init__(self, store: EventStore) -> None:
        self.store = store

    def current(self, project: str) -> None:
        """Bring the project's index up to the head of what it reads (nothing when it is)."""
        with self.store.reader() as r:
            if r.search_behind(project) is None:
                return
        with self.store.writing() as w:
            catch_up(w, project)

    def find(self, project: str, query: SearchQuery) -> list[SearchHit]:
        """The project's texts that hold every word of ``query``, best first."""
        self.current(project)
        with self.store.reader() as r:
            rows = r.search(project, query)
        return [
            SearchHit(
                row.item,
                row.kind,
                state_of(row.kind, row.status, row.trust),
                where_of(row.kind, row.file, row.status),
                title_of(row.text),
                _shown(row.text.strip()),
                row.actor,
                row.at,
                row.position,
                row.score,
            )
            for row in rows
        ]

    def matching(self, project: str, words: Sequence[str]) -> set[str]:
        """The ids of the project's entries whose text holds every word (the Workbench's
        search box)."""
        self.current(project)
        with self.store.reader() as r:
            return r.search_matching(project, words)

    def recall(
        self, project: str, prompt: str, limit: int, given: Collection[str] = ()
    ) -> tuple[str, tuple[str, ...]]:
        """At most ``limit`` pointers to archived entries that match ``prompt`` strongly, but
        those in ``given``, as the agent reads them ("" for none), and the ids pointed at."""
        if limit <= 0:
            return "", ()
        self.current(project)
        with self.store.reader() as r:
            return recall_text(r, project, prompt, limit, given)


def _shown(text: str) -> str:
    return text if len(text) <= TEXT_SHOWN else text[: TEXT_SHOWN - 1] + "…"


def catch_up(w: Writer, project: str) -> None:
    """Project again the streams that moved since the index's position, inside ``w``.

    With nothing projected yet (a new index, one an import or a purge emptied) every stream
    it reads moved: their events are read in one pass over the log, and there are no rows to
    replace."""
    head = w.search_behind(project)
    if head is None:
        return
    position = w.search_position(project)
    streams = w.search_moved(project, position)
    docs = []
    if not position:
        events: dict[str, list[RecordedEvent]] = {stream: [] for stream in streams}
        for recorded in w.read_project(project, stream_prefix=(ENTRY_PREFIX, ASK_PREFIX)):
            events[recorded.stream].append(recorded)
        for stream, found in events.items():
            docs += stream_docs(stream, found)
        w.index_search(project, (), docs, head)
        return
    for start in range(0, len(streams), _CHUNK):
        chunk = streams[start : start + _CHUNK]
        for stream, found in w.read_streams(project, chunk).items():
            docs += stream_docs(stream, found)
    w.index_search(project, streams, docs, head)
