"""Use cases over the event store."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from orbital.clock import Clock, clock_from_env
from orbital.errors import InvalidInput
from orbital.events import RecordedEvent
from orbital.store import EventStore, Project

MEMORY_DIR = "orbital"


@dataclass(frozen=True, slots=True)
class HistoryQuery:
    """Which events to list: a time window and optionally one stream (or stream prefix)."""

    since: dt.datetime | None = None
    until: dt.datetime | None = None
    stream: str | None = None
    exact_stream: bool = False


class Orbital:
    """The composition root's view of the service: a store and a clock."""

    def __init__(self, store: EventStore, clock: Clock) -> None:
        self.store = store
        self.clock = clock

    @classmethod
    def open(cls, db_url: str | None = None, *, clock: Clock | None = None) -> Orbital:
        """Open (and upgrade) the store at ``db_url`` (default: ``ORBITAL_DB`` or the user
        data directory), with ``ORBITAL_NOW`` honoured unless a clock is given."""
        clock = clock or clock_from_env()
        return cls(EventStore(db_url, clock=clock), clock)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Orbital:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- projects -------------------------------------------------------------------------

    def init_project(self, root: str | Path, *, timezone: str = "") -> Project:
        """Register ``root`` and create its ``orbital/`` directory (idempotent)."""
        path = Path(root).expanduser().resolve()
        if not path.is_dir():
            raise InvalidInput(f"{path} is not a directory: create it first or pass --project")
        project = self.store.register_project(path, timezone=timezone)
        (path / MEMORY_DIR).mkdir(exist_ok=True)
        return project

    def project(self, ref: str | Path) -> Project:
        """A project by id, or by its directory (or any directory inside it)."""
        if isinstance(ref, str) and "/" not in ref and not Path(ref).exists():
            return self.store.project(ref)
        path = Path(ref).expanduser().resolve()
        known = {p.root: p for p in self.store.projects()}
        for candidate in (path, *path.parents):
            found = known.get(str(candidate))
            if found is not None:
                return found
        return self.store.project_for_root(path)

    # -- history --------------------------------------------------------------------------

    def history(self, project: str, query: HistoryQuery | None = None) -> Iterator[RecordedEvent]:
        """Events of a project, oldest first, filtered by time window and stream."""
        query = query or HistoryQuery()
        events = self.store.read_project(
            project,
            since_time=query.since,
            until_time=query.until,
            stream_prefix=query.stream,
        )
        for event in events:
            if query.exact_stream and event.stream != query.stream:
                continue
            yield event
