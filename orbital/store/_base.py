"""What the store's modules share: the transaction a read or write runs in, what it uses of
the store that opened it, stream categories and their reducers, and how instants are kept
(naive UTC)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from orbital.errors import UnknownProject
from orbital.events import RecordedEvent
from orbital.store._db import Conn

if TYPE_CHECKING:
    from orbital.clock import Clock

#: Above every character: ``name < prefix + AFTER`` for every name that starts with prefix.
AFTER = "\U0010ffff"


class Reducer(msgspec.Struct, frozen=True):
    """Materialised state for one stream category (the text before ``:`` in a stream name).

    ``fold(state, event)`` is a pure fold; its result is stored as text with the stream's row
    in the same transaction as the append, so current state is one indexed read. The text is
    the state's JSON unless ``encode`` and ``decode`` say otherwise (the category's owner
    decides how its state is kept; ``decode`` reads every form it ever stored).
    """

    state_type: Any
    fold: Callable[[Any, RecordedEvent], Any]
    encode: Callable[[Any], str] | None = None
    decode: Callable[[str], Any] | None = None

    def dump(self, state: Any) -> str:
        if self.encode is not None:
            return self.encode(state)
        return _JSON.encode(state).decode()

    def load(self, raw: str) -> Any:
        if self.decode is not None:
            return self.decode(raw)
        return msgspec.json.decode(raw, type=self.state_type)


_JSON = msgspec.json.Encoder()


def category(stream: str) -> str:
    return stream.split(":", 1)[0]


def naive_utc(value: dt.datetime) -> dt.datetime:
    """The store keeps instants as naive UTC (both backends compare them alike)."""
    if value.tzinfo is None:
        return value
    return value.astimezone(dt.UTC).replace(tzinfo=None)


class Host(Protocol):
    """What a transaction uses of the store that opened it (an
    :class:`~orbital.store._store.EventStore`), named here so the table modules below the
    store never import it: the store imports them."""

    @property
    def clock(self) -> Clock: ...

    @property
    def reducers(self) -> Mapping[str, Reducer]: ...

    @property
    def known_projects(self) -> set[str]:
        """Project ids found registered (projects are never removed)."""
        ...

    @property
    def integrity_errors(self) -> tuple[type[BaseException], ...]: ...

    def clock_behind(self, now: dt.datetime, last: dt.datetime) -> None: ...


class Transaction:
    """One open transaction of an :class:`EventStore`: the connection every read and write of
    a :class:`Reader` or :class:`Writer` goes through, and the store (clock, reducers)."""

    def __init__(self, store: Host, conn: Conn) -> None:
        self._store = store
        self._conn = conn

    def _decode_state(self, stream: str, raw: str | None) -> Any:
        """A stream's stored state, decoded by its category's reducer (None: none kept)."""
        reducer = self._store.reducers.get(category(stream))
        if reducer is None or raw is None:
            return None
        return reducer.load(raw)

    def _require_project(self, project: str) -> None:
        """Raise :class:`UnknownProject` unless registered (projects are never removed, so a
        found one is remembered for the store's lifetime)."""
        known = self._store.known_projects
        if project in known:
            return
        found = self._conn.scalar(
            "SELECT project_id FROM projects WHERE project_id = :p", {"p": project}
        )
        if found is None:
            raise UnknownProject(project)
        known.add(project)
