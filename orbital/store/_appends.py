"""The append: optimistic concurrency per stream, gapless positions under the write lock, and
the stream's folded state and its category's head kept in the same transaction."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from typing import Any

import msgspec

from orbital.errors import InvalidInput, VersionConflict
from orbital.events import Actor, Event, RecordedEvent
from orbital.events import encode_payload as _encode
from orbital.events import event_type as _event_type
from orbital.store._base import Reducer, Transaction, category, naive_utc
from orbital.store._db import instant

_READ_HEADS = (
    "SELECT (SELECT max(position) FROM events),"
    " (SELECT recorded_at FROM events ORDER BY position DESC LIMIT 1),"
    " (SELECT recorded_at FROM events WHERE project_id = :p ORDER BY position DESC LIMIT 1),"
    " streams.version, streams.state"
    " FROM (SELECT 1 AS one) AS one"
    " LEFT JOIN streams ON streams.project_id = :p AND streams.stream = :s"
)
#: An event's row, in column order (:func:`event_row`).
EVENT_COLUMNS = (
    "position",
    "project_id",
    "stream",
    "version",
    "type",
    "data",
    "actor",
    "session",
    "recorded_at",
    "event_id",
)
STREAM_COLUMNS = ("project_id", "stream", "version", "last_position", "state")
_INSERT_EVENTS = (
    f"INSERT INTO events ({', '.join(EVENT_COLUMNS)})"
    f" VALUES ({', '.join(f':{name}' for name in EVENT_COLUMNS)})"
)
_INSERT_STREAM = (
    "INSERT INTO streams (project_id, stream, version, last_position, state)"
    " VALUES (:p, :s, :v, :last, :state)"
)
UPDATE_STREAM = (
    "UPDATE streams SET version = :v, last_position = :last, state = :state"
    " WHERE project_id = :p AND stream = :s"
)
#: One statement per append (not per event) keeps the category's last position.
UPSERT_HEAD = (
    "INSERT INTO heads (project_id, category, last_position) VALUES (:p, :c, :last)"
    " ON CONFLICT (project_id, category) DO UPDATE SET last_position = excluded.last_position"
)


class AppendResult(msgspec.Struct, frozen=True):
    positions: tuple[int, ...]
    #: The stream's version after the append.
    version: int


def check_stream(stream: str) -> None:
    if not stream or len(stream) > 200:
        raise InvalidInput(f"stream name {stream!r} must be 1 to 200 characters")


def event_row(recorded: RecordedEvent) -> tuple[Any, ...]:
    """The ``events`` row of an event, in :data:`EVENT_COLUMNS` order."""
    return (
        recorded.position,
        recorded.project,
        recorded.stream,
        recorded.version,
        _event_type(type(recorded.event)),
        _encode(recorded.event).decode(),
        recorded.actor.value,
        recorded.session,
        naive_utc(recorded.recorded_at),
        recorded.event_id,
    )


def loaded(reducer: Reducer, raw: str | None) -> Any:
    return None if raw is None else reducer.load(raw)


def dumped(reducer: Reducer, state: Any) -> str | None:
    return None if state is None else reducer.dump(state)


def folded(reducer: Reducer, state: Any, events: Sequence[RecordedEvent]) -> Any:
    """``state`` (None: the stream's first) with ``events`` folded in, in order."""
    for recorded in events:
        state = reducer.fold(state, recorded)
    return state


class Appends(Transaction):
    def append(
        self,
        project: str,
        stream: str,
        batch: Sequence[Event],
        *,
        expected_version: int | None,
        actor: Actor,
        session: str | None = None,
    ) -> AppendResult:
        """Append ``batch`` to ``stream`` of ``project``, all or nothing.

        ``expected_version`` is the stream version the caller decided against (0: the stream
        must not exist yet; ``None``: no check, which is safe for a decision made inside this
        write transaction, under the lock). A mismatch raises :class:`VersionConflict` and nothing
        is written.
        """
        if not batch:
            raise InvalidInput("append needs at least one event")
        check_stream(stream)
        actor = Actor(actor)
        conn = self._conn
        self._require_project(project)
        found = conn.first(_READ_HEADS, {"p": project, "s": stream})
        assert found is not None  # one row, whatever the tables hold
        head, store_last, project_last, version, state = found
        kept_times = [naive_utc(instant(t)) for t in (store_last, project_last) if t is not None]
        last_time = max(kept_times, default=None)
        current = version or 0
        if expected_version is not None and expected_version != current:
            raise VersionConflict(stream, expected_version, current)
        first = (head or 0) + 1
        recorded_at = naive_utc(self._store.clock.now())
        if last_time is not None and last_time > recorded_at:
            # Time never runs backwards along positions (a clock stepped back records the
            # last instant again; after an import kept older times, the project's own last
            # instant too), so "as of T" is always a prefix of a project's log.
            self._store.clock_behind(recorded_at, last_time)
            recorded_at = last_time
        at = recorded_at.replace(tzinfo=dt.UTC)
        recorded = [
            RecordedEvent(
                position=first + i,
                project=project,
                stream=stream,
                version=current + 1 + i,
                event=event,
                actor=actor,
                session=session,
                recorded_at=at,
                event_id=uuid.uuid4().hex,
            )
            for i, event in enumerate(batch)
        ]
        new_version = current + len(batch)
        last_position = first + len(batch) - 1
        reducer = self._store.reducers.get(category(stream))
        if reducer is not None:
            state = dumped(reducer, folded(reducer, loaded(reducer, state), recorded))
        else:
            state = None
        values = {
            "p": project,
            "s": stream,
            "v": new_version,
            "last": last_position,
            "state": state,
        }
        rows = [dict(zip(EVENT_COLUMNS, event_row(r), strict=True)) for r in recorded]
        head = {"p": project, "c": category(stream), "last": last_position}
        try:  # the events, the stream's state and its category's head, sent together
            conn.write_all(
                [
                    (_INSERT_EVENTS, rows),
                    (UPDATE_STREAM if current else _INSERT_STREAM, [values]),
                    (UPSERT_HEAD, [head]),
                ]
            )
        except self._store.integrity_errors:
            raise VersionConflict(stream, current, current + 1) from None
        self._appended(project, stream, last_position)
        return AppendResult(tuple(range(first, last_position + 1)), new_version)

    def _appended(self, project: str, stream: str, last_position: int) -> None:
        """After each append, inside the transaction: a write transaction that remembers
        what it read (:class:`~orbital.store._writer.Writer`) updates it here."""
