"""An imported log's appends, batched: the events of a log file appended as they were
logged (each its own id, actor, session and time), in the file's order, leaving the rows,
stream states and heads one append per event would leave.

One append per event costs three statements and a state load, fold and dump each (about
10,000 events/s on SQLite, far less on PostgreSQL, where each is a round trip). Here the
event rows go in batches of :data:`BATCH` (one ``COPY`` on PostgreSQL), the streams' rows are
read in ``IN`` lists when a batch first names them, their states are folded in memory, and
each stream's row and each category's head are written once, when the import is done.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

from orbital.errors import InvalidInput
from orbital.events import Actor, Event, RecordedEvent
from orbital.store._appends import (
    EVENT_COLUMNS,
    STREAM_COLUMNS,
    UPDATE_STREAM,
    UPSERT_HEAD,
    Appends,
    check_stream,
    dumped,
    event_row,
    folded,
    loaded,
)
from orbital.store._base import Reducer, category, naive_utc
from orbital.store._reads import in_list

#: Event rows written per statement.
BATCH = 10_000
#: Streams read per statement (an ``IN`` list each).
_CHUNK = 500


class _Stream:
    """A stream as the import leaves it: its version, last position and folded state."""

    __slots__ = ("last", "reducer", "state", "stored", "version")

    def __init__(self, reducer: Reducer | None, version: int, state: Any, stored: bool) -> None:
        self.reducer = reducer
        self.version = version
        self.state = state
        #: Whether the store has its row already (an update, not an insert).
        self.stored = stored
        self.last = 0


class _Pending(NamedTuple):
    position: int
    project: str
    stream: str
    event: Event
    actor: Actor
    session: str | None
    event_id: str
    recorded_at: dt.datetime


class LoggedAppends:
    """The appends of one import (:meth:`LoggedWrites.appending_logged`). Positions are
    handed out here, so nothing else appends in the transaction until it is done."""

    def __init__(self, tx: Appends) -> None:
        self._tx = tx
        self._next = 0
        self._pending: list[_Pending] = []
        self._streams: dict[tuple[str, str], _Stream] = {}
        #: Per project: whether it had no stream when the import began.
        self._new: dict[str, bool] = {}

    def append(
        self,
        project: str,
        stream: str,
        event: Event,
        *,
        actor: Actor,
        session: str | None,
        event_id: str,
        recorded_at: dt.datetime,
    ) -> int:
        """Append ``event`` to ``stream`` of ``project`` with the id and time it was logged
        with; its position (the next of the store's)."""
        check_stream(stream)
        self._tx._require_project(project)
        if not self._next:
            head = self._tx._conn.scalar("SELECT max(position) FROM events")
            self._next = int(head or 0) + 1
        position, self._next = self._next, self._next + 1
        at = naive_utc(recorded_at).replace(tzinfo=dt.UTC)
        logged = _Pending(position, project, stream, event, actor, session, event_id, at)
        self._pending.append(logged)
        if len(self._pending) >= BATCH:
            self._flush()
        return position

    def _flush(self) -> None:
        """The pending events' rows written and folded into their streams' states."""
        pending, self._pending = self._pending, []
        if not pending:
            return
        self._load({(p.project, p.stream) for p in pending} - self._streams.keys())
        rows = []
        by_stream: dict[tuple[str, str], list[RecordedEvent]] = {}
        for p in pending:
            stream = self._streams[p.project, p.stream]
            stream.version += 1
            stream.last = p.position
            recorded = RecordedEvent(
                position=p.position,
                project=p.project,
                stream=p.stream,
                version=stream.version,
                event=p.event,
                actor=p.actor,
                session=p.session,
                recorded_at=p.recorded_at,
                event_id=p.event_id,
            )
            rows.append(event_row(recorded))
            by_stream.setdefault((p.project, p.stream), []).append(recorded)
        try:
            self._tx._conn.insert_rows("events", EVENT_COLUMNS, rows)
        except self._tx._store.integrity_errors:
            raise InvalidInput(
                "the log file holds an event twice, or one this store has in another project "
                "(an event's id is its own in a store): nothing was imported"
            ) from None
        for key, events in by_stream.items():
            stream = self._streams[key]
            if stream.reducer is not None:
                stream.state = folded(stream.reducer, stream.state, events)

    def _load(self, keys: set[tuple[str, str]]) -> None:
        """The streams not read yet (none stored: a new stream, version 0)."""
        reducers = self._tx._store.reducers
        for project in sorted({project for project, _ in keys}):
            names = sorted(stream for owner, stream in keys if owner == project)
            found = {} if self._is_new(project) else self._stored(project, names)
            for name in names:
                reducer = reducers.get(category(name))
                version, raw = found.get(name, (0, None))
                state = None if reducer is None else loaded(reducer, raw)
                self._streams[project, name] = _Stream(reducer, version, state, name in found)

    def _is_new(self, project: str) -> bool:
        """Whether ``project`` had no stream when the import began (a new project: none of
        its streams is stored until the import is done)."""
        if project not in self._new:
            self._new[project] = not self._tx._conn.first(
                "SELECT 1 FROM streams WHERE project_id = :p LIMIT 1", {"p": project}
            )
        return self._new[project]

    def _stored(self, project: str, names: Sequence[str]) -> dict[str, tuple[int, str | None]]:
        """The version and state text of each of ``names`` the store has."""
        found = {}
        for start in range(0, len(names), _CHUNK):
            listed, params = in_list("s", names[start : start + _CHUNK])
            for stream, version, state in self._tx._conn.execute(
                f"SELECT stream, version, state FROM streams WHERE project_id = :p"
                f" AND stream IN {listed}",
                params | {"p": project},
            ):
                found[str(stream)] = (int(version), state)
        return found

    def _finish(self) -> None:
        """The last rows, then each stream's row and each category's head, once."""
        self._flush()
        rows: dict[bool, list[tuple[Any, ...]]] = {True: [], False: []}
        heads: dict[tuple[str, str], int] = {}
        for (project, name), stream in self._streams.items():
            state = None if stream.reducer is None else dumped(stream.reducer, stream.state)
            rows[stream.stored].append((project, name, stream.version, stream.last, state))
            head = (project, category(name))
            heads[head] = max(heads.get(head, 0), stream.last)
        conn = self._tx._conn
        if rows[False]:
            conn.insert_rows("streams", STREAM_COLUMNS, rows[False])
        if rows[True]:
            conn.executemany(UPDATE_STREAM, [_named(row) for row in rows[True]])
        if heads:
            conn.executemany(
                UPSERT_HEAD, [{"p": p, "c": c, "last": last} for (p, c), last in heads.items()]
            )
        for (project, name), stream in self._streams.items():
            self._tx._appended(project, name, stream.last)


def _named(row: Sequence[Any]) -> dict[str, Any]:
    project, stream, version, last, state = row
    return {"p": project, "s": stream, "v": version, "last": last, "state": state}


class LoggedWrites(Appends):
    """A write transaction's batched appends of an imported log."""

    @contextmanager
    def appending_logged(self) -> Iterator[LoggedAppends]:
        """Appends of a log's events as they were logged, all written when the block ends
        (nothing if it raises: the transaction rolls back)."""
        appends = LoggedAppends(self)
        yield appends
        appends._finish()
