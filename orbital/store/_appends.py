"""The append: optimistic concurrency per stream, gapless positions under the write lock, and
the stream's folded state and its category's head kept in the same transaction."""

from __future__ import annotations

import datetime as dt
import functools
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from orbital.errors import InvalidInput, VersionConflict
from orbital.events import Actor, Event, RecordedEvent
from orbital.events import encode_payload as _encode
from orbital.events import event_type as _event_type
from orbital.store import _sqlite_append as _sqlite
from orbital.store._base import Transaction, category, naive_utc
from orbital.store._schema import events, heads, streams

# Statements built once: building Core constructs per call costs more than executing them.
_SELECT_STREAM_HEAD = sa.select(
    sa.select(sa.func.max(events.c.position)).scalar_subquery().label("head"),
    sa.select(events.c.recorded_at)
    .order_by(events.c.position.desc())
    .limit(1)
    .scalar_subquery()
    .label("last_time"),
    sa.select(streams.c.version)
    .where(streams.c.project_id == sa.bindparam("p"), streams.c.stream == sa.bindparam("s"))
    .scalar_subquery()
    .label("version"),
    sa.select(streams.c.state)
    .where(streams.c.project_id == sa.bindparam("p"), streams.c.stream == sa.bindparam("s"))
    .scalar_subquery()
    .label("state"),
)
_INSERT_EVENTS = events.insert()
_INSERT_STREAM = streams.insert().values(
    project_id=sa.bindparam("p"),
    stream=sa.bindparam("s"),
    version=sa.bindparam("v"),
    last_position=sa.bindparam("last"),
    state=sa.bindparam("state"),
)
_UPDATE_STREAM = (
    streams.update()
    .where(streams.c.project_id == sa.bindparam("p"), streams.c.stream == sa.bindparam("s"))
    .values(
        version=sa.bindparam("v"), last_position=sa.bindparam("last"), state=sa.bindparam("state")
    )
)


def _upsert_head(insert: Any) -> Any:
    """One statement per append (not per event) keeps the category's last position."""
    statement = insert(heads).values(
        project_id=sa.bindparam("p"),
        category=sa.bindparam("c"),
        last_position=sa.bindparam("last"),
    )
    return statement.on_conflict_do_update(
        index_elements=[heads.c.project_id, heads.c.category],
        set_={"last_position": statement.excluded.last_position},
    )


@functools.cache
def _upsert_head_pg() -> Any:
    """PostgreSQL's statement, built once, by the first process on PostgreSQL (its dialect
    module is large and a SQLite process never needs it; SQLite's append runs its own
    statements, :mod:`orbital.store._sqlite_append`)."""
    from sqlalchemy.dialects.postgresql import insert

    return _upsert_head(insert)


@dataclass(frozen=True, slots=True)
class AppendResult:
    positions: tuple[int, ...]
    #: The stream's version after the append.
    version: int


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
        if not stream or len(stream) > 200:
            raise InvalidInput(f"stream name {stream!r} must be 1 to 200 characters")
        actor = Actor(actor)
        payloads = [_encode(event) for event in batch]
        conn = self._conn
        self._require_project(project)
        driver = self._driver()
        if driver is not None:
            head, last_time, version, state = _sqlite.read(driver, project, stream)
        else:
            found = conn.execute(_SELECT_STREAM_HEAD, {"p": project, "s": stream}).one()
            head, last_time, version, state = found
        current = version or 0
        if expected_version is not None and expected_version != current:
            raise VersionConflict(stream, expected_version, current)
        first = (head or 0) + 1
        recorded_at = naive_utc(self._store.clock.now())
        if last_time is not None and last_time > recorded_at:
            # Time never runs backwards along positions (a clock stepped back records the
            # last instant again), so "as of T" is always a prefix of the log.
            self._store.clock_behind(recorded_at, last_time)
            recorded_at = last_time
        rows = [
            {
                "position": first + i,
                "project_id": project,
                "stream": stream,
                "version": current + 1 + i,
                "type": _event_type(type(event)),
                "data": payload.decode(),
                "actor": actor.value,
                "session": session,
                "recorded_at": recorded_at,
                "event_id": uuid.uuid4().hex,
            }
            for i, (event, payload) in enumerate(zip(batch, payloads, strict=True))
        ]
        try:
            if driver is not None:
                _sqlite.insert(driver, rows)
            else:
                conn.execute(_INSERT_EVENTS, rows)
        except sa.exc.IntegrityError:
            raise VersionConflict(stream, current, current + 1) from None
        new_version = current + len(batch)
        last_position = first + len(batch) - 1
        values = {
            "p": project,
            "s": stream,
            "v": new_version,
            "last": last_position,
            "state": self._fold_state(project, stream, state, batch, rows, recorded_at, actor),
        }
        if driver is not None:
            _sqlite.set_stream(driver, values, new=not current)
            _sqlite.set_head(driver, project, category(stream), last_position)
        else:
            conn.execute(_UPDATE_STREAM if current else _INSERT_STREAM, values)
            head_values = {"p": project, "c": category(stream), "last": last_position}
            conn.execute(_upsert_head_pg(), head_values)
        self._appended(project, stream, last_position)
        return AppendResult(tuple(range(first, last_position + 1)), new_version)

    def _driver(self) -> Any:
        """The SQLite driver connection under this transaction (None on PostgreSQL), which
        the append's statements run on directly (see :mod:`orbital.store._sqlite_append`)."""
        if self._conn.dialect.name != "sqlite":
            return None
        return self._conn.connection.driver_connection

    def _appended(self, project: str, stream: str, last_position: int) -> None:
        """After each append, inside the transaction: a write transaction that remembers
        what it read (:class:`~orbital.store._writer.Writer`) updates it here."""

    def _fold_state(
        self,
        project: str,
        stream: str,
        previous_state: str | None,
        batch: Sequence[Event],
        rows: list[dict[str, Any]],
        recorded_at: dt.datetime,
        actor: Actor,
    ) -> str | None:
        reducer = self._store.reducers.get(category(stream))
        if reducer is None:
            return None
        state = None
        if previous_state is not None:
            state = reducer.load(previous_state)
        for event, values in zip(batch, rows, strict=True):
            recorded = RecordedEvent(
                position=values["position"],
                project=project,
                stream=stream,
                version=values["version"],
                event=event,
                actor=actor,
                session=values["session"],
                recorded_at=recorded_at.replace(tzinfo=dt.UTC),
                event_id=values["event_id"],
            )
            state = reducer.fold(state, recorded)
        return None if state is None else reducer.dump(state)
